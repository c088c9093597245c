// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.runtime.pcie.WindowBlock;

/**
 * A replay job (format version {@value #VERSION}, specified in {@code sim/tb/bridge_replay/README.md}):
 * the bridge configuration, the memories' initial contents (GPU pages, pinned host memory, FPGA
 * memory), the windows the host opens (or the CSR registers it writes, by name), the exact cldesc
 * words a kernel writes (and, to model a kernel toolchain that lays them out otherwise than the
 * bridge expects, the channel's word order), the descriptors the host writes to the BSP's
 * descriptor controller, and what to read back (memory ranges, CSR registers). Serialised to JSON by
 * {@link SimulatedBridge}; byte arrays become base64. Build one with {@link #builder()}.
 *
 * <p>Addresses are unsigned 64-bit values in the bench; here they must be below 2<sup>63</sup>.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"version", "preset", "bridge_params", "clocks", "mover", "gpu_page_size", "gpu_pages", "fpga_fill",
        "fpga", "host_memory", "windows", "csr_writes", "issue", "channel_word_order", "descriptors", "host_descriptors",
        "read_back", "csr_reads"})
public record ReplayJob(
        @JsonProperty("version") int version,
        @JsonProperty("preset") String preset,
        @JsonProperty("bridge_params") Map<String, Object> bridgeParams,
        @JsonProperty("clocks") Clocks clocks,
        @JsonProperty("mover") MoverModel mover,
        @JsonProperty("gpu_page_size") long gpuPageSize,
        @JsonProperty("gpu_pages") List<GpuPage> gpuPages,
        @JsonProperty("fpga_fill") int fpgaFill,
        @JsonProperty("fpga") List<FpgaBlock> fpga,
        @JsonProperty("host_memory") List<HostRegion> hostMemory,
        @JsonProperty("windows") List<Window> windows,
        @JsonProperty("csr_writes") List<CsrWrite> csrWrites,
        @JsonProperty("issue") Issue issue,
        @JsonProperty("channel_word_order") String channelWordOrder,
        @JsonProperty("descriptors") List<Descriptor> descriptors,
        @JsonProperty("host_descriptors") List<HostDescriptor> hostDescriptors,
        @JsonProperty("read_back") ReadBack readBack,
        @JsonProperty("csr_reads") List<CsrRead> csrReads) {

    public static final int VERSION = 2;
    /** The generator presets a job may name. */
    public static final List<String> PRESETS = List.of("default", "paper", "lean");
    public static final long DEFAULT_PAGE_SIZE = 65536;

    public ReplayJob {
        if (version != VERSION) {
            throw new IllegalArgumentException("replay job version " + version + ": this runtime writes " + VERSION);
        }
        if (!PRESETS.contains(preset)) {
            throw new IllegalArgumentException("preset '" + preset + "': one of " + PRESETS);
        }
        bridgeParams = Map.copyOf(bridgeParams);
        if (bridgeParams.containsKey("preset")) {
            throw new IllegalArgumentException("bridge_params: give the preset as preset, not as a parameter");
        }
        if (gpuPageSize <= 0 || gpuPageSize % 4 != 0) {
            throw new IllegalArgumentException("gpu_page_size " + gpuPageSize + ": a positive multiple of 4");
        }
        checkByte(fpgaFill, "fpga_fill");
        gpuPages = List.copyOf(gpuPages);
        fpga = List.copyOf(fpga);
        hostMemory = List.copyOf(hostMemory);
        for (int i = 0; i < hostMemory.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (hostMemory.get(i).overlaps(hostMemory.get(j))) {
                    throw new IllegalArgumentException("host memory " + hostMemory.get(i) + " overlaps " + hostMemory.get(j));
                }
            }
        }
        windows = List.copyOf(windows);
        csrWrites = List.copyOf(csrWrites);
        if (channelWordOrder != null) {
            BridgeSpec.parse("word_order", BridgeModes.WordOrder.class, channelWordOrder);
        }
        descriptors = List.copyOf(descriptors);
        hostDescriptors = List.copyOf(hostDescriptors);
        csrReads = List.copyOf(csrReads);
    }

    public static Builder builder() {
        return new Builder();
    }

    private static void checkAddress(long a, String what) {
        if (a < 0) {
            throw new IllegalArgumentException(what + " " + Long.toUnsignedString(a, 16) + ": must be below 2^63");
        }
    }

    private static void checkByte(int v, String what) {
        if (v < 0 || v > 255) {
            throw new IllegalArgumentException(what + " " + v + ": a byte value 0..255");
        }
    }

    /** Clock periods in picoseconds (both default to 4000, 250 MHz). */
    public record Clocks(@JsonProperty("kernel_ps") long kernelPs, @JsonProperty("dma_ps") long dmaPs) {
        public static final Clocks DEFAULT = new Clocks(4000, 4000);

        public Clocks {
            if (kernelPs <= 0 || dmaPs <= 0) {
                throw new IllegalArgumentException("clock periods must be positive: " + kernelPs + ", " + dmaPs);
            }
        }
    }

    /** The data mover models: cycles from taking a descriptor to starting it, bytes moved per dma_clk cycle. */
    public record MoverModel(@JsonProperty("latency") int latency, @JsonProperty("bytes_per_cycle") int bytesPerCycle) {
        public static final MoverModel DEFAULT = new MoverModel(8, 64);

        public MoverModel {
            if (latency < 1 || bytesPerCycle < 1) {
                throw new IllegalArgumentException("mover latency and bytes_per_cycle must be >= 1");
            }
        }
    }

    /**
     * A GPU BAR page mapped at bus address {@code bus}: {@code size} bytes (null: the job's page
     * size), initially {@code data} (may be shorter than the page; null: none) and {@code fill}
     * elsewhere (null: 0).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GpuPage(@JsonProperty("bus") long bus, @JsonProperty("size") Long size,
                          @JsonProperty("data_b64") byte[] data, @JsonProperty("fill") Integer fill) {
        public GpuPage {
            checkAddress(bus, "gpu page bus address");
            if (size != null && size <= 0) {
                throw new IllegalArgumentException("gpu page size " + size);
            }
            if (fill != null) {
                checkByte(fill, "gpu page fill");
            }
        }
    }

    /**
     * A pinned host buffer the FPGA's driver has mapped: {@code size} bytes of host RAM at bus
     * address {@code bus} (both multiples of 4), initially {@code data} (may be shorter; zeros past it).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HostRegion(@JsonProperty("bus") long bus, @JsonProperty("size") long size,
                             @JsonProperty("data_b64") byte[] data) {
        public HostRegion {
            checkAddress(bus, "host memory bus address");
            if (size <= 0 || size % 4 != 0 || bus % 4 != 0) {
                throw new IllegalArgumentException("host memory at 0x" + Long.toHexString(bus) + " of " + size
                        + " bytes: the address and the size must be multiples of 4, the size positive");
            }
            checkAddress(bus + size - 1, "host memory's last bus address");
            if (data != null && data.length > size) {
                throw new IllegalArgumentException("host memory at 0x" + Long.toHexString(bus) + ": " + data.length
                        + " bytes of data for a region of " + size);
            }
        }

        boolean overlaps(HostRegion o) {
            return bus < o.bus + o.size && o.bus < bus + size;
        }

        @Override
        public String toString() {
            return "[0x" + Long.toHexString(bus) + ", +" + size + ")";
        }
    }

    /** Initial contents of FPGA memory at {@code addr}. */
    public record FpgaBlock(@JsonProperty("addr") long addr, @JsonProperty("data_b64") byte[] data) {
        public FpgaBlock {
            checkAddress(addr, "fpga address");
        }
    }

    /**
     * A window the host opens: PCIe bytes {@code base .. last} (inclusive), for the given directions.
     * {@code [base, last]} must be a naturally aligned power-of-two block of at least
     * 2<sup>{@link Layout#WINDOW_MIN_LOG2}</sup> bytes (1 MB), as the bridge's windows are.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Window(@JsonProperty("index") Integer index, @JsonProperty("base") long base,
                         @JsonProperty("last") long last, @JsonProperty("rd") boolean rd, @JsonProperty("wr") boolean wr) {
        public Window {
            checkAddress(base, "window base");
            checkAddress(last, "window last");
            WindowBlock.of(base, last, Layout.WINDOW_MIN_LOG2, Layout.WINDOW_MAX_LOG2);
        }
    }

    /** A CSR write after the windows: the register's name in the manifest ({@code WIN0_SIZE}, ...) and a 32-bit value. */
    public record CsrWrite(@JsonProperty("name") String name, @JsonProperty("value") long value) {
        public CsrWrite {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a CSR write names its register");
            }
            if (value < 0 || value > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("CSR write of " + name + " = " + Long.toHexString(value) + ": not 32 bits");
            }
        }
    }

    /**
     * A CSR register read after the job: by its name in the manifest ({@code CONFIG}, ...) or by its
     * offset (a host that knows only offsets reads what the bridge answers there); exactly one of them.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CsrRead(@JsonProperty("name") String name, @JsonProperty("offset") Integer offset) {
        public CsrRead {
            if ((name == null) == (offset == null) || name != null && name.isBlank()) {
                throw new IllegalArgumentException("a CSR read names its register or gives its offset (one of them): "
                        + name + ", " + offset);
            }
            if (offset != null && offset < 0) {
                throw new IllegalArgumentException("CSR read at offset " + offset + ": must be >= 0");
            }
        }
    }

    /** How the kernel issues the descriptors. */
    public enum IssueMode {
        /** As the published kernel: one descriptor, wait for its status, the next (job order, both directions). */
        SEQUENTIAL,
        /** Per direction, in job order, up to {@code inflight} outstanding; both directions at once. */
        PIPELINED;

        @JsonValue
        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Issue mode, the most outstanding per direction (pipelined; null: the bridge's inflight), and the status timeout. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Issue(@JsonProperty("mode") IssueMode mode, @JsonProperty("inflight") Integer inflight,
                        @JsonProperty("timeout_kernel_cycles") Long timeoutKernelCycles) {
        public static final Issue SEQUENTIAL = new Issue(IssueMode.SEQUENTIAL, null, null);
    }

    /**
     * One kernel descriptor: the eight 32-bit cldesc words x0..x7 exactly as the kernel writes
     * them, and its direction. {@code barrier} (JSON {@code wait}; pipelined mode): issue it only once every earlier
     * descriptor has its status.
     */
    public record Descriptor(@JsonProperty("direction") Direction direction, @JsonProperty("words") long[] words,
                             @JsonProperty("wait") boolean barrier) {
        public Descriptor {
            if (words.length != Layout.CLDESC_WORDS) {
                throw new IllegalArgumentException("a cldesc has " + Layout.CLDESC_WORDS + " words, not " + words.length);
            }
            words = words.clone();
            for (long w : words) {
                if (w < 0 || w > 0xFFFF_FFFFL) {
                    throw new IllegalArgumentException("cldesc word " + Long.toHexString(w) + " is not 32 bits");
                }
            }
        }

        /** The descriptor of a packed cldesc value ({@link Layout#CLDESC}). */
        public static Descriptor of(Direction direction, BigInteger cldesc) {
            return new Descriptor(direction, Layout.cldescWords(cldesc), false);
        }

        /** The same descriptor, issued only after every earlier one has its status. */
        public Descriptor afterAll() {
            return new Descriptor(direction, words, true);
        }

        /** Its cldesc value (x0 at bits 31:0). */
        public BigInteger value() {
            BigInteger v = BigInteger.ZERO;
            for (int i = 0; i < words.length; i++) {
                v = v.or(BigInteger.valueOf(words[i]).shiftLeft(32 * i));
            }
            return v;
        }

        @Override
        public long[] words() {
            return words.clone();
        }
    }

    /**
     * A descriptor the host writes to the BSP's descriptor controller (the FPGA's host DMA path,
     * host IDs 0..127): {@link Direction#RD} moves {@code bytes} from PCIe address {@code src} to
     * FPGA address {@code dst}, {@link Direction#WR} from FPGA {@code src} to PCIe {@code dst}. It
     * reaches the mover through the bridge's arbiter; the kernel path's checks do not apply.
     */
    public record HostDescriptor(@JsonProperty("direction") Direction direction, @JsonProperty("src") long src,
                                 @JsonProperty("dst") long dst, @JsonProperty("bytes") int bytes) {
        public HostDescriptor {
            if (direction == null) {
                throw new IllegalArgumentException("a host descriptor needs a direction");
            }
            checkAddress(src, "host descriptor source");
            checkAddress(dst, "host descriptor destination");
            if (bytes <= 0 || bytes % 4 != 0 || bytes / 4 > Layout.MAX_DWORDS || src % 4 != 0 || dst % 4 != 0) {
                throw new IllegalArgumentException("host descriptor " + direction.tag() + " 0x" + Long.toHexString(src) + " -> 0x"
                        + Long.toHexString(dst) + " of " + bytes + " bytes: addresses must be multiples of 4 and the length a"
                        + " multiple of 4 in 4.." + Layout.MAX_DWORDS * 4);
            }
        }
    }

    /** A range to read back: {@code [address, address + length)}; written as a JSON pair. */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"address", "length"})
    public record Span(@JsonProperty("address") long address, @JsonProperty("length") int length) {
        public Span {
            checkAddress(address, "read-back address");
            if (length < 0) {
                throw new IllegalArgumentException("read-back length " + length);
            }
        }
    }

    /** The ranges whose final contents come back: GPU and host memory by bus address, FPGA by FPGA address. */
    public record ReadBack(@JsonProperty("gpu") List<Span> gpu, @JsonProperty("fpga") List<Span> fpga,
                           @JsonProperty("host") List<Span> host) {
        public ReadBack {
            gpu = List.copyOf(gpu);
            fpga = List.copyOf(fpga);
            host = List.copyOf(host);
        }
    }

    /** Builds a {@link ReplayJob}; every part has a default (preset default, 4 ns clocks, sequential). */
    public static final class Builder {
        private String preset = "default";
        private final Map<String, Object> params = new LinkedHashMap<>();
        private Clocks clocks = Clocks.DEFAULT;
        private MoverModel mover = MoverModel.DEFAULT;
        private long pageSize = DEFAULT_PAGE_SIZE;
        private final List<GpuPage> pages = new ArrayList<>();
        private int fpgaFill;
        private final List<FpgaBlock> fpga = new ArrayList<>();
        private final List<HostRegion> hostMemory = new ArrayList<>();
        private final List<Window> windows = new ArrayList<>();
        private final List<CsrWrite> csrWrites = new ArrayList<>();
        private Issue issue = Issue.SEQUENTIAL;
        private String channelWordOrder;
        private final List<Descriptor> descriptors = new ArrayList<>();
        private final List<HostDescriptor> hostDescriptors = new ArrayList<>();
        private final List<CsrRead> csrReads = new ArrayList<>();
        private final List<Span> gpuBack = new ArrayList<>();
        private final List<Span> fpgaBack = new ArrayList<>();
        private final List<Span> hostBack = new ArrayList<>();

        private Builder() {
        }

        public Builder preset(String name) {
            this.preset = name;
            return this;
        }

        /** A generator parameter over the preset ({@code inflight}, {@code word_order}, ...). */
        public Builder param(String name, Object value) {
            params.put(name, value);
            return this;
        }

        public Builder clocks(long kernelPs, long dmaPs) {
            this.clocks = new Clocks(kernelPs, dmaPs);
            return this;
        }

        public Builder mover(int latency, int bytesPerCycle) {
            this.mover = new MoverModel(latency, bytesPerCycle);
            return this;
        }

        public Builder gpuPageSize(long bytes) {
            this.pageSize = bytes;
            return this;
        }

        /** A GPU page at {@code bus}, initially {@code data} (zeros past it). */
        public Builder gpuPage(long bus, byte[] data) {
            pages.add(new GpuPage(bus, null, data.clone(), null));
            return this;
        }

        public Builder gpuPage(GpuPage page) {
            pages.add(page);
            return this;
        }

        public Builder fpgaFill(int value) {
            this.fpgaFill = value;
            return this;
        }

        public Builder fpga(long addr, byte[] data) {
            fpga.add(new FpgaBlock(addr, data.clone()));
            return this;
        }

        /** A pinned host buffer of {@code size} bytes at bus address {@code bus}, initially {@code data} (zeros past it). */
        public Builder hostMemory(long bus, long size, byte[] data) {
            hostMemory.add(new HostRegion(bus, size, data == null ? null : data.clone()));
            return this;
        }

        /** Opens the next window entry on the aligned power-of-two block {@code base .. last} (inclusive, >= 1 MB). */
        public Builder window(long base, long last, boolean rd, boolean wr) {
            windows.add(new Window(null, base, last, rd, wr));
            return this;
        }

        public Builder window(Window w) {
            windows.add(w);
            return this;
        }

        /** A CSR write (after the windows, in the order given): register {@code name} of the manifest, a 32-bit value. */
        public Builder csrWrite(String name, long value) {
            csrWrites.add(new CsrWrite(name, value));
            return this;
        }

        public Builder csrWrite(CsrWrite w) {
            csrWrites.add(w);
            return this;
        }

        public Builder sequential() {
            this.issue = Issue.SEQUENTIAL;
            return this;
        }

        /** Pipelined issue, up to {@code inflight} outstanding per direction (0: the bridge's inflight). */
        public Builder pipelined(int inflight) {
            this.issue = new Issue(IssueMode.PIPELINED, inflight > 0 ? inflight : null, null);
            return this;
        }

        public Builder issue(Issue issue) {
            this.issue = issue;
            return this;
        }

        /**
         * Where the simulated kernel's toolchain puts cldesc word x0 on the channel ({@code x0_low} or
         * {@code x0_high}); unset: where the bridge expects it (its {@code word_order}).
         */
        public Builder channelWordOrder(String order) {
            this.channelWordOrder = order;
            return this;
        }

        /** Reads CSR register {@code name} (of the manifest) after the job. */
        public Builder csrRead(String name) {
            csrReads.add(new CsrRead(name, null));
            return this;
        }

        /** Reads the CSR at {@code offset} after the job. */
        public Builder csrReadAt(int offset) {
            csrReads.add(new CsrRead(null, offset));
            return this;
        }

        public Builder descriptor(Descriptor d) {
            descriptors.add(d);
            return this;
        }

        public Builder descriptor(Direction direction, BigInteger cldesc) {
            return descriptor(Descriptor.of(direction, cldesc));
        }

        /** A descriptor the host writes to the BSP's descriptor controller (see {@link HostDescriptor}). */
        public Builder hostDescriptor(Direction direction, long src, long dst, int bytes) {
            hostDescriptors.add(new HostDescriptor(direction, src, dst, bytes));
            return this;
        }

        public Builder hostDescriptor(HostDescriptor d) {
            hostDescriptors.add(d);
            return this;
        }

        public Builder readBackHost(long bus, int length) {
            hostBack.add(new Span(bus, length));
            return this;
        }

        public Builder readBackGpu(long bus, int length) {
            gpuBack.add(new Span(bus, length));
            return this;
        }

        public Builder readBackFpga(long addr, int length) {
            fpgaBack.add(new Span(addr, length));
            return this;
        }

        public ReplayJob build() {
            return new ReplayJob(VERSION, preset, params, clocks, mover, pageSize, pages, fpgaFill, fpga, hostMemory, windows,
                    csrWrites, issue, channelWordOrder, descriptors, hostDescriptors, new ReadBack(gpuBack, fpgaBack, hostBack),
                    csrReads);
        }
    }
}
