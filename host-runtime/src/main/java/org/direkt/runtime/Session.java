// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.bringup.BridgeConfig;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.ImportRefusedException;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.Transfer;
import org.direkt.runtime.pcie.Segment;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.pin.Lease;
import org.direkt.runtime.pin.PinBudgetExceededException;
import org.direkt.runtime.pin.PinCache;
import org.direkt.runtime.pin.PinRange;
import org.direkt.runtime.pin.Pinner;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.ReplayJob;
import org.direkt.runtime.sim.ReplayResult;
import org.direkt.runtime.sim.SimulatedBridge;
import org.direkt.runtime.sim.SimulatedDevice;
import org.direkt.runtime.sim.SimulationException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The host runtime's API: open a session on an overlay, allocate GPU memory, name an FPGA buffer,
 * copy in either direction, await completion. The same program runs on either of two paths
 * ({@link DataPath}), decided when the session opens and, for each buffer, when it is allocated:
 *
 * <ul>
 * <li><b>direct</b> (peer-to-peer): the GPU buffer is exported as a dma-buf and the bus-address
 *     importer maps it for the FPGA; a copy becomes mover-legal kernel descriptors (at most
 *     1 MB - 4 B, never across a page discontinuity) built with the Layout, exactly as the kernel
 *     builds them from the header. Kernels reach only what the host opens with {@link #openWindow}:
 *     aligned power-of-two blocks of at least 1 MB, programmed into the bridge's window registers by
 *     the names the overlay's manifest gives them.</li>
 * <li><b>bounce</b> (through pinned host memory): when peer-to-peer is not possible, each GPU buffer
 *     gets a pinned host buffer of its size, which the FPGA's driver maps; a copy is a CUDA copy
 *     between the GPU buffer and the pinned buffer, and host descriptors (the FPGA's host DMA path,
 *     through the BSP's descriptor controller, not subject to the windows) between the pinned
 *     buffer and FPGA memory.</li>
 * </ul>
 *
 * The session takes the bounce path when the importer is unavailable
 * ({@link BusAddressImporter#unavailableReason()}), when there is no GPU, or when the GPU's
 * memory cannot be exported as a dma-buf; a buffer takes it when the exporter refuses to map it for
 * the FPGA ({@link ImportRefusedException}: no peer-to-peer path, e.g. the two devices sit under
 * different root complexes). {@link #path()} and {@link GpuBuffer#path()} say which path was taken,
 * {@link #pathReason()} and {@link GpuBuffer#pathReason()} why. A status with an error code becomes
 * a {@link DmaException} on either path.
 *
 * <pre>
 * try (Session s = Session.open(overlayDir, importer)) {
 *     Session.GpuBuffer g = s.allocateGpu(1 &lt;&lt; 20);
 *     Session.FpgaBuffer f = s.fpgaBuffer(0x1000_0000L, 1 &lt;&lt; 20);
 *     s.copy(g, 0, f, 0, 4096).await();
 *     System.out.println(g.path() + ": " + g.pathReason());
 * }
 * </pre>
 *
 * <h2>Regions</h2>
 * An overlay made with the {@code regions} preset ({@code direkt overlay --preset regions},
 * addressing=regions in its manifest) has no windows: its bridge translates GPU memory itself,
 * through a page table and a region table the host programs through the CSR, and kernels name
 * (region, byte offset, length, FPGA address) instead of a bus address. {@link #addressing()} says
 * which kind the session drives. On such an overlay {@link #openRegion} opens a region over a GPU
 * buffer of the direct path: the buffer's pages (64 KB, by their bus addresses) take a contiguous
 * run of page table entries, the first that fits, and the region the lowest free region number;
 * both are read back from the bridge. A copy through a region ({@link #copy(Region, long,
 * FpgaBuffer, long, long)} and its FPGA -> GPU twin) is one region request and one status, of up
 * to the region's length (at most 4 GB - 4 B); whether it stays inside the region and the direction
 * is allowed is checked by the bridge, and a refusal ({@code REGION_RANGE}, {@code REGION}) is a
 * {@link DmaException} that moved nothing.
 *
 * <p>A buffer's pages are pinned in the page table through a {@link PinCache} whose budget is the
 * table: its {@link Pinner} writes the pages, and its unpin first closes every region still open
 * over them (REGION_BYTES = 0, REGION_CTRL, then REGION_STATUS.busy awaited low, so no request in a
 * walker reads them any more) and then releases their entries. Closing a region removes it from the
 * region table at once, while its pages stay in the page table (a region opened again over the same
 * buffer reuses them) until the room is needed for another buffer's pages (the least recently used
 * first) or the buffer is closed; closing the buffer, or the session, closes its regions before its
 * pages are released. Raw copies ({@link #copy(GpuBuffer, long, FpgaBuffer, long, int)}) of a direct
 * buffer and {@link #openWindow} are refused on such an overlay, as {@link #openRegion} is on one
 * with windows; the bounce path's host descriptors work on both.
 *
 * This version runs on a simulated FPGA ({@link SimulatedDevice}): the overlay's bridge, its data
 * movers, FPGA memory and the BSP's host descriptor controller in one simulation that the session
 * starts when it opens and ends when it closes. As on a board, FPGA memory and the bridge's
 * registers keep what they hold from one copy to the next: a GPU -> FPGA copy and a later FPGA ->
 * GPU copy of the same range move the same bytes, and an FPGA range nothing has written reads as
 * the device's memory holds it (zeros in the simulation). {@link #writeFpga} and {@link #readFpga}
 * load and inspect FPGA memory through the host DMA path. GPU memory and pinned host buffers stay
 * on the host: the simulated data movers read and write them through the session while a copy
 * runs. GPU memory is real CUDA memory when a GPU is present, host memory standing in for it
 * otherwise ({@link Gpu}). If the simulation dies, the call that finds out and every later one
 * throw {@link SimulationException} naming why.
 */
public final class Session implements AutoCloseable {
    private static final long PAGE = AddressTable.PAGE_SIZE;
    /**
     * Where the simulated back end maps pinned host buffers on the bus, one after another: a range
     * of their own, as the FPGA's driver maps host memory (a direct copy never touches it).
     */
    static final long HOST_BUS_BASE = 0x20_0000_0000L;
    /**
     * How long a closed region may stay busy before closing it fails: the longest request, 4 GB - 4 B,
     * moves in about 0.6 s at PCIe Gen3 x8's 7 GB/s, so a region busy for this long is stuck.
     */
    static final Duration REGION_BUSY_LIMIT = Duration.ofSeconds(10);

    /** The GPU a session uses. */
    public enum Gpu {
        /**
         * The first CUDA device when there is one. Without one, host memory stands in for GPU
         * memory, nothing can be exported, and every buffer takes the bounce path ("no GPU").
         */
        AUTO,
        /**
         * A simulated GPU: host memory stands in for GPU memory and is exported as a simulated
         * dma-buf, so the direct path runs without a GPU (tests, the demo on a machine without one).
         */
        SIMULATED,
        /** As on a machine without a GPU: host memory stands in and every buffer takes the bounce path. */
        NONE
    }

    private final Path overlay;
    private final BusAddressImporter importer;
    private final SimulatedDevice device;
    private final GpuMemory gpu;
    private final Bridge.Addressing addressing;
    /** The window table (raw addressing); null with regions addressing, which has none. */
    private final WindowRegs windowRegs;
    /** The page and region tables (regions addressing); null with raw addressing. */
    private final RegionTable regionTable;
    /** Direct buffers' pages in the page table, by GPU range (regions addressing); null with raw addressing. */
    private final PinCache<RegionTable.Run> pagePins;
    /** The direct buffers whose pages {@link #pagePins} may pin, by GPU range. */
    private final Map<PinRange, GpuBuffer> pinnable = new HashMap<>();
    private final DataPath path;
    private final String pathReason;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final List<WindowBlock> windows = new ArrayList<>();
    /** What the session has mapped for the FPGA, by bus address: the device's data movers reach these. */
    private final TreeMap<Long, Mapped> mapped = new TreeMap<>();
    private final HostMemory hostMemory = new HostMemory();
    private long nextTag = 1;
    private long nextHostBus = HOST_BUS_BASE;
    private boolean closed;

    private Session(Path overlay, BusAddressImporter importer, SimulatedDevice device, GpuMemory gpu, Bridge.Params bridge,
            WindowRegs windowRegs) {
        this.overlay = overlay;
        this.importer = importer;
        this.device = device;
        this.gpu = gpu;
        this.addressing = bridge.addressing();
        this.windowRegs = windowRegs;
        if (bridge.regionsAddressing()) {
            regionTable = new RegionTable(new RegionTable.Registers() {
                @Override
                public void write(String name, long value) {
                    device.csrWrite(name, value);
                }

                @Override
                public long read(String name) {
                    return device.csrRead(name);
                }
            }, bridge.regionPages(), bridge.regions(), REGION_BUSY_LIMIT);
            pagePins = PinCache.lru(bridge.regionPages() * RegionTable.PAGE, Pinner.of(this::pinPages, this::unpinPages));
        } else {
            regionTable = null;
            pagePins = null;
        }
        Optional<String> why = importer.unavailableReason();
        if (why.isEmpty()) {
            why = gpu.exportRefusal();
        }
        this.path = why.isPresent() ? DataPath.BOUNCE : DataPath.DIRECT;
        this.pathReason = why.orElse("peer-to-peer is possible: " + gpu.name() + " exports its memory as dma-bufs and the"
                + " importer (" + importer.getClass().getSimpleName() + ") maps them for the FPGA");
    }

    /**
     * The window table as the manifest describes it ({@code layout.csr}): entries, smallest and
     * largest window, and each entry's registers by name ({@code WIN<i>_BASE_LO}, ...), checked
     * against the offsets the manifest gives.
     */
    private record WindowRegs(int entries, int minLog2, int maxLog2, List<List<String>> names) {
        static final List<String> NEEDED = List.of("BASE_LO", "BASE_HI", "SIZE", "CTRL");

        static WindowRegs of(Path f, JsonNode m) {
            JsonNode csr = m.path("layout").path("csr");
            int entries = m.path("bridge").path("window_entries").asInt(-1);
            int minLog2 = csr.path("window_min_log2").asInt(-1);
            int maxLog2 = csr.path("window_max_log2").asInt(-1);
            int offset = csr.path("window_offset").asInt(-1);
            int stride = csr.path("window_stride").asInt(-1);
            List<String> regs = new ArrayList<>();
            csr.path("window_regs").forEach(r -> regs.add(r.asText()));
            if (entries < 1 || minLog2 < 0 || maxLog2 < minLog2 || maxLog2 > 63 || offset < 0 || stride < regs.size()
                    || !regs.containsAll(NEEDED)) {
                throw new IllegalArgumentException(f + ": no usable window table in layout.csr (window_entries " + entries
                        + ", window_min_log2 " + minLog2 + ", window_max_log2 " + maxLog2 + ", window_regs " + regs
                        + "; need " + NEEDED + ")");
            }
            Map<String, Integer> offsets = new LinkedHashMap<>();
            csr.path("registers").forEach(r -> offsets.put(r.path("name").asText(), r.path("offset").asInt(-1)));
            List<List<String>> names = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                List<String> entry = new ArrayList<>();
                for (String reg : NEEDED) {
                    String name = "WIN" + i + "_" + reg;
                    Integer at = offsets.get(name);
                    int want = offset + stride * i + regs.indexOf(reg);
                    if (at == null || at != want) {
                        throw new IllegalArgumentException(f + ": layout.csr.registers has " + (at == null ? "no " + name
                                : name + " at offset " + at) + "; window " + i + "'s " + reg + " is at offset " + want);
                    }
                    entry.add(name);
                }
                names.add(List.copyOf(entry));
            }
            return new WindowRegs(entries, minLog2, maxLog2, List.copyOf(names));
        }
    }

    /** Opens a session on an overlay directory with the first GPU, if any ({@link Gpu#AUTO}). */
    public static Session open(Path overlayDir, BusAddressImporter importer) throws IOException {
        return open(overlayDir, importer, Gpu.AUTO);
    }

    /**
     * Opens a session on an overlay directory (its manifest must speak this runtime's Layout
     * version) with the GPU chosen, and starts the session's simulated FPGA: the overlay's bridge
     * (built once per configuration; a few seconds on a cached build).
     *
     * @param importer the bus-address importer; {@link BusAddressImporter#none(String)} where there is none
     * @throws SimulationException the simulated FPGA could not be built or started (the message says why)
     */
    public static Session open(Path overlayDir, BusAddressImporter importer, Gpu gpuChoice) throws IOException {
        Objects.requireNonNull(importer, "importer: pass BusAddressImporter.none(reason) where there is none");
        Objects.requireNonNull(gpuChoice, "gpu: one of " + Arrays.toString(Gpu.values()));
        Path f = overlayDir.resolve("direkt-overlay.json");
        if (!Files.isRegularFile(f)) {
            throw new IllegalArgumentException(overlayDir + ": no direkt-overlay.json (run `direkt overlay` first)");
        }
        JsonNode m = new ObjectMapper().readTree(f.toFile());
        int v = m.path("layout").path("version").asInt(-1);
        if (v != Layout.VERSION) {
            throw new IllegalArgumentException(f + ": layout version " + v + ", this runtime speaks " + Layout.VERSION
                    + "; regenerate the overlay");
        }
        JsonNode b = m.path("bridge");
        if (!b.path("id_mode").asText().equals("managed") || !b.path("status_mode").asText().equals("tagged")) {
            throw new IllegalArgumentException(f + ": this runtime drives bridges with managed IDs and tagged status (the default "
                    + "and regions presets)");
        }
        Bridge.Params bridge = BridgeConfig.read(overlayDir).params();
        WindowRegs windowRegs = bridge.regionsAddressing() ? null : WindowRegs.of(f, m);
        // The default preset and what this bridge changes in it (a regions overlay: addressing, inflight,
        // counters, bringup): the device's build is named by them, so overlays of one configuration share it.
        Map<String, Object> params = BridgeConfig.generatorParams(bridge);
        SimulatedBridge bench = SimulatedBridge.locate();
        GpuMemory gpu = switch (gpuChoice) {
            case AUTO -> GpuMemory.firstGpuOrNone();
            case SIMULATED -> GpuMemory.StandIn.simulated();
            case NONE -> GpuMemory.StandIn.none("no GPU (the session was opened with Gpu.NONE), so there is no GPU memory"
                    + " to export for peer-to-peer; host memory stands in for GPU memory");
        };
        SimulatedDevice device = null;
        try {
            device = bench.device(Bridge.Params.DEFAULT_PRESET, params);
            return new Session(overlayDir, importer, device, gpu, bridge, windowRegs);
        } catch (RuntimeException e) {
            if (device != null) {
                device.close();
            }
            gpu.close();
            throw e;
        }
    }

    /**
     * How the overlay's kernels name GPU memory: {@link Bridge.Addressing#RAW} (bus addresses inside
     * the windows {@link #openWindow} opens) or {@link Bridge.Addressing#REGIONS} (regions
     * {@link #openRegion} opens).
     */
    public Bridge.Addressing addressing() {
        return addressing;
    }

    /** Whether this machine has a CUDA GPU that {@link Gpu#AUTO} would use. */
    public static boolean gpuPresent() {
        return GpuMemory.gpuPresent();
    }

    /** True when GPU buffers are real CUDA memory. */
    public boolean hasGpu() {
        return gpu.real();
    }

    /** What the session's GPU memory is (a CUDA device, a simulated GPU, or host memory standing in for none). */
    public String gpuDescription() {
        return gpu.description();
    }

    /**
     * The session's path: {@link DataPath#DIRECT} when peer-to-peer is possible (an importer is
     * available and GPU memory can be exported as a dma-buf), else {@link DataPath#BOUNCE}. A buffer
     * whose import the exporter refuses takes the bounce path on its own ({@link GpuBuffer#path()}).
     */
    public DataPath path() {
        return path;
    }

    /** Why the session took its path: the importer's or the GPU's reason for the bounce path, or what makes peer-to-peer possible. */
    public String pathReason() {
        return pathReason;
    }

    public Path overlay() {
        return overlay;
    }

    /** The simulated FPGA this session runs on (for as long as the session is open). */
    public SimulatedDevice device() {
        return device;
    }

    /**
     * GPU memory of whole 64 KB pages with the bus addresses the FPGA's data movers use for it:
     * on the direct path the GPU's own pages as the importer mapped them (SYNC_MEMOPS set), on the
     * bounce path those of its pinned host buffer.
     */
    public final class GpuBuffer implements AutoCloseable {
        private final GpuMemory.Allocation memory;
        private final long length;
        private final int fd;
        private final ImportedRange range;
        private final GpuMemory.Pinned staging;
        private final AddressTable table;
        private final DataPath path;
        private final String pathReason;
        /** Where this buffer is mapped for the FPGA's data movers (the starts of its bus ranges). */
        private List<Long> buses = List.of();
        /** Its GPU range as the page table's pin cache knows it (a direct buffer, regions addressing); else null. */
        private PinRange pinKey;
        private boolean closed;

        /** The direct path: {@code range} is the importer's mapping of the dma-buf {@code fd}. */
        private GpuBuffer(GpuMemory.Allocation memory, long length, int fd, ImportedRange range, String reason) {
            this.memory = memory;
            this.length = length;
            this.fd = fd;
            this.range = range;
            this.staging = null;
            this.table = range.addressTable(memory.address());
            this.path = DataPath.DIRECT;
            this.pathReason = reason;
        }

        /** The bounce path: {@code staging} is mapped for the FPGA at {@code stagingBus}, contiguous. */
        private GpuBuffer(GpuMemory.Allocation memory, long length, GpuMemory.Pinned staging, long stagingBus, String reason) {
            this.memory = memory;
            this.length = length;
            this.fd = -1;
            this.range = null;
            this.staging = staging;
            long[] pages = new long[(int) (length / PAGE)];
            for (int i = 0; i < pages.length; i++) {
                pages[i] = stagingBus + i * PAGE;
            }
            this.table = AddressTable.of(stagingBus, length, pages);
            this.path = DataPath.BOUNCE;
            this.pathReason = reason;
        }

        public long length() {
            return length;
        }

        /** The path this buffer's copies take. */
        public DataPath path() {
            return path;
        }

        /** Why: the session's reason, or the exporter's refusal for this buffer. */
        public String pathReason() {
            return pathReason;
        }

        /**
         * The bus addresses the FPGA's data movers use for this buffer: the GPU's pages as the
         * importer mapped them (direct), or the pinned host buffer's as the FPGA's driver mapped it
         * (bounce), by offset into the buffer.
         */
        public AddressTable table() {
            return table;
        }

        /** Host -> GPU memory (a CUDA copy on a GPU). */
        public void write(long offset, byte[] data) {
            check(offset, data.length);
            memory.write(offset, MemorySegment.ofArray(data), data.length);
        }

        /** GPU memory -> host (a CUDA copy on a GPU). */
        public byte[] read(long offset, int bytes) {
            check(offset, bytes);
            byte[] out = new byte[bytes];
            memory.read(MemorySegment.ofArray(out), offset, bytes);
            return out;
        }

        private void check(long offset, long bytes) {
            if (closed) {
                throw new IllegalStateException("this " + length + "-byte GPU buffer is closed");
            }
            if (offset < 0 || bytes < 0 || offset + bytes > length) {
                throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside this " + length + "-byte GPU buffer");
            }
        }

        private Session owner() {
            return Session.this;
        }

        /**
         * Closes every region over the buffer and takes its pages out of the page table (regions
         * addressing), then unmaps the buffer for the FPGA and frees it (and its pinned host
         * buffer); later calls do nothing.
         *
         * @throws IllegalStateException a region over it stayed busy ({@link RegionTable#close}): the
         *     buffer is closed, but its memory stays allocated and mapped, as a walker may still reach it
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            buffers.remove(this);
            if (pinKey != null) {
                pinnable.remove(pinKey);
                pagePins.invalidate(pinKey, "its GPU buffer was closed");
            }
            try {
                unmap(buses);
                if (range != null) {
                    importer.release(range);
                }
            } finally {
                if (fd >= 0) {
                    memory.closeExport(fd);
                }
                if (staging != null) {
                    staging.free();
                }
                memory.free();
            }
        }

        @Override
        public String toString() {
            return "GpuBuffer[" + Bytes.human(length) + ", " + path + "]";
        }
    }

    /** A named range of FPGA memory (an address the FPGA's global memory interface sees). */
    public record FpgaBuffer(long address, long length) {
        public FpgaBuffer {
            if ((address & 3) != 0 || length <= 0) {
                throw new IllegalArgumentException("FPGA buffer at 0x" + Long.toHexString(address) + " of " + length
                        + " bytes: the address must be a multiple of 4 and the length positive");
            }
        }

        /** Throws unless [offset, offset + bytes) lies inside this buffer. */
        void checkRange(long offset, long bytes) {
            if (offset < 0 || bytes < 0 || offset + bytes > length) {
                throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside the FPGA buffer of " + length + " bytes");
            }
        }
    }

    /**
     * Allocates {@code bytes} of GPU memory (rounded up to 64 KB pages, zeroed) and maps it for the
     * FPGA: on the direct path it is exported as a dma-buf and imported; when the exporter refuses
     * ({@link ImportRefusedException}) or the driver will not export this buffer, it takes the bounce
     * path, with that refusal as its reason; on the bounce path it gets a pinned host buffer of its size.
     *
     * @throws org.direkt.runtime.pcie.ApertureExhaustedException the GPU's BAR aperture has no room for it
     */
    public GpuBuffer allocateGpu(long bytes) {
        checkOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException("GPU allocation of " + bytes + " bytes: must be positive");
        }
        long length = (bytes + PAGE - 1) / PAGE * PAGE;
        GpuMemory.Allocation memory = gpu.allocate(length);
        GpuBuffer g;
        try {
            g = path == DataPath.DIRECT ? direct(memory, length) : bounce(memory, length, pathReason);
        } catch (RuntimeException e) {
            memory.free();
            throw e;
        }
        buffers.add(g);
        try {
            g.buses = map(g.path == DataPath.DIRECT ? gpuRanges(g) : List.of(new Mapped(g.table.busAddress(0), length,
                    staging(g.staging), 0)), "GPU buffer of " + Bytes.human(length) + (g.path == DataPath.DIRECT ? ""
                    : " (its pinned host buffer)"));
        } catch (RuntimeException e) {
            g.close();
            throw e;
        }
        if (pagePins != null && g.path == DataPath.DIRECT) {
            g.pinKey = new PinRange(memory.address(), length);
            pinnable.put(g.pinKey, g);
        }
        return g;
    }

    /** A direct buffer's bus-contiguous runs, each backed by the GPU memory it maps. */
    private static List<Mapped> gpuRanges(GpuBuffer g) {
        List<Mapped> out = new ArrayList<>();
        Backing gpuMemory = new Backing() {
            @Override
            public void read(long offset, MemorySegment into) {
                g.memory.read(into, offset, into.byteSize());
            }

            @Override
            public void write(long offset, MemorySegment from) {
                g.memory.write(offset, from, from.byteSize());
            }
        };
        List<Segment> segments = g.table.segments();
        for (int i = 0; i < segments.size(); i++) {
            Segment seg = segments.get(i);
            out.add(new Mapped(seg.busAddress(), seg.length(), gpuMemory, g.table.segmentGpuOffset(i)));
        }
        return out;
    }

    private static Backing staging(GpuMemory.Pinned p) {
        return new Backing() {
            @Override
            public void read(long offset, MemorySegment into) {
                into.copyFrom(p.segment().asSlice(offset, into.byteSize()));
            }

            @Override
            public void write(long offset, MemorySegment from) {
                p.segment().asSlice(offset, from.byteSize()).copyFrom(from);
            }
        };
    }

    /** Memory behind a bus range the session maps for the FPGA. */
    private interface Backing {
        void read(long offset, MemorySegment into);

        void write(long offset, MemorySegment from);
    }

    /** {@code size} bytes at bus address {@code bus}, backed by {@code backing} from {@code offset} on. */
    private record Mapped(long bus, long size, Backing backing, long offset) {
    }

    /** Maps {@code ranges} on the device (one request) and here; returns their bus addresses. */
    private List<Long> map(List<Mapped> ranges, String what) {
        List<SimulatedDevice.Range> r = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            Mapped m = ranges.get(i);
            r.add(new SimulatedDevice.Range(m.bus(), m.size(), what + (ranges.size() == 1 ? "" : ", run " + i)));
        }
        device.map(r);
        List<Long> buses = new ArrayList<>();
        for (Mapped m : ranges) {
            mapped.put(m.bus(), m);
            buses.add(m.bus());
        }
        return List.copyOf(buses);
    }

    /** Unmaps on the device (while it lives: a device gone has nothing to unmap) and here. */
    private void unmap(List<Long> buses) {
        buses.forEach(mapped::remove);
        if (device.usable()) {
            try {
                device.unmap(buses);
            } catch (SimulationException e) {
                if (device.usable()) {
                    throw e;
                }
                // found gone just now: the next call that needs it says so
            }
        }
    }

    /** Host memory as the device's data movers reach it: whatever the session has mapped. */
    private final class HostMemory implements SimulatedDevice.HostMemory {
        @Override
        public void read(long bus, byte[] into) {
            access(bus, MemorySegment.ofArray(into), false);
        }

        @Override
        public void write(long bus, byte[] data) {
            access(bus, MemorySegment.ofArray(data), true);
        }

        private void access(long bus, MemorySegment buf, boolean write) {
            long pos = 0;
            while (pos < buf.byteSize()) {
                Map.Entry<Long, Mapped> e = mapped.floorEntry(bus + pos);
                Mapped m = e == null ? null : e.getValue();
                if (m == null || bus + pos - m.bus() >= m.size()) {
                    throw new IllegalStateException("the FPGA's data movers reached bus address " + Bytes.hex(bus + pos)
                            + ", which this session has not mapped");
                }
                long off = bus + pos - m.bus();
                MemorySegment part = buf.asSlice(pos, Math.min(buf.byteSize() - pos, m.size() - off));
                if (write) {
                    m.backing().write(m.offset() + off, part);
                } else {
                    m.backing().read(m.offset() + off, part);
                }
                pos += part.byteSize();
            }
        }
    }

    private GpuBuffer direct(GpuMemory.Allocation memory, long length) {
        int fd;
        try {
            fd = memory.exportDmaBuf();
        } catch (CudaException e) {
            return bounce(memory, length, "the CUDA driver refused to export this buffer as a dma-buf: " + e.getMessage());
        }
        ImportedRange range;
        try {
            range = importer.importDmaBuf(fd, 0, length);
        } catch (ImportRefusedException e) {
            memory.closeExport(fd);
            return bounce(memory, length, e.getMessage());
        } catch (RuntimeException e) {
            memory.closeExport(fd);
            throw e;
        }
        try {
            return new GpuBuffer(memory, length, fd, range, pathReason);
        } catch (RuntimeException e) {
            importer.release(range);
            memory.closeExport(fd);
            throw e;
        }
    }

    private GpuBuffer bounce(GpuMemory.Allocation memory, long length, String reason) {
        GpuMemory.Pinned staging = gpu.allocatePinned(length);
        long bus = nextHostBus;
        nextHostBus += length + PAGE;  // a gap: two pinned buffers never touch on the bus
        try {
            return new GpuBuffer(memory, length, staging, bus, reason);
        } catch (RuntimeException e) {
            staging.free();
            throw e;
        }
    }

    public FpgaBuffer fpgaBuffer(long address, long bytes) {
        return new FpgaBuffer(address, bytes);
    }

    /**
     * Lets kernels reach PCIe range {@code [base, last]} (inclusive) in both directions: the next
     * free window entry of the bridge, programmed by writing its BASE_LO, BASE_HI, SIZE and CTRL
     * registers (by the manifest's names). A window is a naturally aligned power-of-two block:
     * {@code last - base + 1} must be a power of two of at least 2^{@code window_min_log2} bytes
     * (1 MB) and {@code base} a multiple of it. Windows govern kernel descriptors only: the bounce
     * path's host descriptors do not pass through them.
     *
     * @return the window entry used
     * @throws IllegalArgumentException the range is not such a block (the message says why)
     * @throws IllegalStateException    every window entry of the bridge is already open, or the
     *                                  bridge has regions addressing (no windows: {@link #openRegion})
     */
    public int openWindow(long base, long last) {
        checkOpen();
        if (windowRegs == null) {
            throw new IllegalStateException("cannot open window [" + Bytes.hex(base) + ", " + Bytes.hex(last) + "]: the bridge of "
                    + overlay + " has regions addressing (addressing=regions), so it has no windows and kernels name regions, "
                    + "not bus addresses; open a region over a GPU buffer instead (openRegion)");
        }
        WindowBlock w = WindowBlock.of(base, last, windowRegs.minLog2(), windowRegs.maxLog2());
        int i = windows.size();
        if (i >= windowRegs.entries()) {
            throw new IllegalStateException("cannot open window [" + Bytes.hex(base) + ", " + Bytes.hex(last)
                    + "]: all " + windowRegs.entries() + " window entries of the bridge are open");
        }
        List<String> regs = windowRegs.names().get(i);
        device.csrWrite(regs.get(0), w.base() & 0xFFFF_FFFFL);
        device.csrWrite(regs.get(1), w.base() >>> 32);
        device.csrWrite(regs.get(2), Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", w.log2())).longValueExact());
        device.csrWrite(regs.get(3), Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact());
        windows.add(w);
        return i;
    }

    /** The windows opened so far, in entry order. */
    public List<WindowBlock> windows() {
        return List.copyOf(windows);
    }

    /**
     * Opens a region over the whole of {@code g} (regions addressing): the buffer's pages are
     * written into the page table (a contiguous run of entries, the first free one that fits,
     * unless they are still there from an earlier region over it), then the lowest free region
     * number is programmed over them with the directions allowed, and both are read back. Kernels
     * (and {@link #copy(Region, long, FpgaBuffer, long, long)}) name the region by its
     * {@link Region#number()} until it is closed. When the free entries are too few, the pages of
     * buffers with no region open are taken out of the table to make room, the least recently used
     * first; when that leaves them enough but scattered, all of them are.
     *
     * @param allowRd GPU -> FPGA requests may read the region
     * @param allowWr FPGA -> GPU requests may write the region
     * @throws IllegalStateException    the bridge has raw addressing (no region table), the buffer is
     *                                  closed, the pages of open regions leave no room for its pages, every
     *                                  region number is open, or the bridge did not keep what was written
     * @throws IllegalArgumentException the buffer takes the bounce path, belongs to another session,
     *                                  has more pages than the page table has entries, or neither direction is allowed
     */
    public Region openRegion(GpuBuffer g, boolean allowRd, boolean allowWr) {
        checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        if (regionTable == null) {
            throw new IllegalStateException("cannot open a region over " + g + ": the bridge of " + overlay + " has raw addressing "
                    + "(kernels name bus addresses inside windows: openWindow) and no region table; regions need an overlay made "
                    + "with `direkt overlay --preset regions` (addressing=regions)");
        }
        if (g.owner() != this) {
            throw new IllegalArgumentException(g + " belongs to another session");
        }
        if (g.closed) {
            throw new IllegalStateException("cannot open a region over this " + g.length + "-byte GPU buffer: it is closed");
        }
        if (g.path != DataPath.DIRECT) {
            throw new IllegalArgumentException("cannot open a region over " + g + ": it takes the bounce path (" + g.pathReason
                    + "), and a region gives the bridge's walkers the GPU's own pages, which only the direct path maps");
        }
        long pages = g.length / PAGE;
        if (pages > regionTable.entries()) {
            throw new IllegalArgumentException("cannot open a region over " + g + ": its " + pages + " pages of 64 KB exceed the "
                    + regionTable.entries() + " entries of the bridge's page table (region_pages)");
        }
        Lease<RegionTable.Run> lease;
        try {
            lease = pagePins.pin(g.pinKey);
        } catch (PinBudgetExceededException e) {
            throw new IllegalStateException("cannot open a region over " + g + ": its " + pages + " pages do not fit in the page "
                    + "table of " + regionTable.entries() + " entries beside the pages of the open regions (" + regionTable.freeEntries()
                    + " entries free); close a region first", e);
        } catch (IllegalStateException e) {
            // Enough entries are free, but not in one run: the idle runs between them go, and the pages are written again.
            if (regionTable.fits((int) pages) || pagePins.clear() == 0) {
                throw e;
            }
            lease = pagePins.pin(g.pinKey);
        }
        try {
            RegionTable.Run run = lease.pinned();
            return new Region(g, lease, run, regionTable.open(run, g.length, allowRd, allowWr), allowRd, allowWr);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
    }

    /** The pin cache's pin: the buffer's pages into the page table. */
    private RegionTable.Run pinPages(PinRange range) {
        GpuBuffer g = pinnable.get(range);
        long[] bus = new long[(int) (g.length / PAGE)];
        for (int i = 0; i < bus.length; i++) {
            bus[i] = g.table.pageBusAddress(i);
        }
        return regionTable.writePages(bus, g.toString());
    }

    /** The pin cache's unpin: the regions over the pages closed, then the entries released (while the FPGA lives). */
    private void unpinPages(PinRange range, RegionTable.Run run) {
        if (!device.usable()) {
            return;  // its tables went with it
        }
        try {
            regionTable.release(run);
        } catch (SimulationException e) {
            if (device.usable()) {
                throw e;
            }
            // found gone just now: the next call that needs it says so
        }
    }

    /**
     * A region of the bridge's region table over a GPU buffer's pages (regions addressing), open
     * until {@link #close}d or its buffer or session is closed. Closing removes it from the
     * region table before anything else may reuse its number or its pages.
     */
    public final class Region implements AutoCloseable {
        private final GpuBuffer buffer;
        private final Lease<RegionTable.Run> lease;
        private final RegionTable.Run run;
        private final int number;
        private final boolean allowRd;
        private final boolean allowWr;

        private Region(GpuBuffer buffer, Lease<RegionTable.Run> lease, RegionTable.Run run, int number, boolean allowRd,
                boolean allowWr) {
            this.buffer = buffer;
            this.lease = lease;
            this.run = run;
            this.number = number;
            this.allowRd = allowRd;
            this.allowWr = allowWr;
        }

        /** The region number kernels name in their requests (cldesc_region.region). */
        public int number() {
            return number;
        }

        public GpuBuffer buffer() {
            return buffer;
        }

        /** Its length in bytes: its buffer's. */
        public long length() {
            return buffer.length;
        }

        /** The page table entry of its first page; the rest follow it, one per 64 KB page. */
        public int firstEntry() {
            return run.first;
        }

        /** Whether GPU -> FPGA requests may read it. */
        public boolean allowsRead() {
            return allowRd;
        }

        /** Whether FPGA -> GPU requests may write it. */
        public boolean allowsWrite() {
            return allowWr;
        }

        /** Whether it is still in the region table: not closed, nor its buffer, nor the session. */
        public boolean isOpen() {
            return !buffer.closed && run.isOpen(number);
        }

        private Session owner() {
            return Session.this;
        }

        /**
         * Closes the region (REGION_BYTES = 0, REGION_CTRL) and waits until no request naming it is
         * in a walker; its pages stay in the page table for a later region over the same buffer
         * until the room is needed. Later calls do nothing.
         *
         * @throws IllegalStateException a request naming it stayed in a walker too long: it is closed
         *     in the table, but its number and pages stay taken
         */
        @Override
        public void close() {
            try {
                if (run.isOpen(number) && device.usable()) {
                    regionTable.close(run, number);
                }
            } finally {
                lease.close();
            }
        }

        @Override
        public String toString() {
            return "Region[" + number + " over " + buffer + (allowRd ? ", rd" : "") + (allowWr ? ", wr" : "")
                    + (isOpen() ? "" : ", closed") + "]";
        }
    }

    /**
     * GPU -> FPGA through a region: one region request for {@code bytes} (a multiple of 4, at most
     * 4 GB - 4 B) from byte {@code srcOffset} of {@code src}, translated by the bridge. Bytes outside
     * the region, or a region that does not allow reads, fail at {@link Copy#await} with a
     * {@link DmaException} ({@code REGION_RANGE}, {@code REGION}) and move nothing.
     *
     * @throws IllegalStateException    the region is closed
     * @throws IllegalArgumentException the FPGA range is outside {@code dst}, or an offset or the length breaks the request's rules
     */
    public Copy copy(Region src, long srcOffset, FpgaBuffer dst, long dstOffset, long bytes) {
        return planRegion(true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU through a region (one that allows writes), as {@link #copy(Region, long, FpgaBuffer, long, long)}. */
    public Copy copy(FpgaBuffer src, long srcOffset, Region dst, long dstOffset, long bytes) {
        return planRegion(false, dst, dstOffset, src, srcOffset, bytes);
    }

    private Copy planRegion(boolean toFpga, Region r, long rOff, FpgaBuffer f, long fOff, long bytes) {
        checkOpen();
        Objects.requireNonNull(r, "region");
        Objects.requireNonNull(f, "FPGA buffer");
        if (r.owner() != this) {
            throw new IllegalArgumentException(r + " belongs to another session");
        }
        if (!r.isOpen()) {
            throw new IllegalStateException("cannot copy through region " + r.number + ": it is closed (" + r + ")");
        }
        f.checkRange(fOff, bytes);
        long tag = nextTag++;
        BigInteger request = Descriptors.cldescRegion(r.number, rOff, bytes, f.address() + fOff, tag);
        return new Copy(toFpga, r.buffer, rOff, bytes, r, List.of(ReplayJob.Descriptor.of(toFpga ? Direction.RD : Direction.WR,
                request)), List.of(), Map.of());
    }

    /**
     * GPU -> FPGA, by the buffer's bus addresses: kernel descriptors on the direct path (raw
     * addressing only: a bridge with regions addressing takes region requests, see
     * {@link #copy(Region, long, FpgaBuffer, long, long)}), host descriptors on the bounce path.
     */
    public Copy copy(GpuBuffer src, long srcOffset, FpgaBuffer dst, long dstOffset, int bytes) {
        return plan(true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU, as {@link #copy(GpuBuffer, long, FpgaBuffer, long, int)}. */
    public Copy copy(FpgaBuffer src, long srcOffset, GpuBuffer dst, long dstOffset, int bytes) {
        return plan(false, dst, dstOffset, src, srcOffset, bytes);
    }

    private Copy plan(boolean toFpga, GpuBuffer g, long gOff, FpgaBuffer f, long fOff, int bytes) {
        checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        Objects.requireNonNull(f, "FPGA buffer");
        if (g.owner() != this) {
            throw new IllegalArgumentException(g + " belongs to another session");
        }
        g.check(gOff, bytes);
        f.checkRange(fOff, bytes);
        if ((fOff & 3) != 0) {
            throw new IllegalArgumentException("FPGA buffer offset " + fOff + " is not a multiple of 4: the data movers need"
                    + " dword-aligned addresses");
        }
        if (regionTable != null && g.path == DataPath.DIRECT) {
            throw new IllegalStateException("cannot copy " + g + " by its bus addresses: the bridge of " + overlay + " has regions "
                    + "addressing (addressing=regions) and rejects raw descriptors (KIND); open a region over the buffer "
                    + "(openRegion) and copy through it");
        }
        List<Transfer> pieces = g.table.split(gOff, bytes);
        List<ReplayJob.Descriptor> descs = new ArrayList<>();
        List<ReplayJob.HostDescriptor> hostDescs = new ArrayList<>();
        Map<Long, Transfer> byTag = new LinkedHashMap<>();
        for (Transfer t : pieces) {
            long fpga = f.address() + fOff + (t.gpuOffset() - gOff);
            if (g.path == DataPath.BOUNCE) {
                hostDescs.add(toFpga ? new ReplayJob.HostDescriptor(Direction.RD, t.busAddress(), fpga, t.bytes())
                        : new ReplayJob.HostDescriptor(Direction.WR, fpga, t.busAddress(), t.bytes()));
                continue;
            }
            long tag = nextTag++;
            byTag.put(tag, t);
            descs.add(ReplayJob.Descriptor.of(toFpga ? Direction.RD : Direction.WR, toFpga
                    ? Descriptors.cldesc(t.busAddress(), fpga, t.bytes(), tag)
                    : Descriptors.cldesc(fpga, t.busAddress(), t.bytes(), tag)));
        }
        return new Copy(toFpga, g, gOff, bytes, null, descs, hostDescs, byTag);
    }

    /** A planned copy: it runs when it is awaited, on its GPU buffer's path. */
    public final class Copy {
        private final boolean toFpga;
        private final GpuBuffer gpu;
        private final long gpuOffset;
        private final long bytes;
        /** The region it goes through (one region request), or null for a copy by bus addresses. */
        private final Region region;
        private final List<ReplayJob.Descriptor> descriptors;
        private final List<ReplayJob.HostDescriptor> hostDescriptors;
        private final Map<Long, Transfer> byTag;
        private SimulatedDevice.Run run;

        Copy(boolean toFpga, GpuBuffer gpu, long gpuOffset, long bytes, Region region, List<ReplayJob.Descriptor> descriptors,
                List<ReplayJob.HostDescriptor> hostDescriptors, Map<Long, Transfer> byTag) {
            this.toFpga = toFpga;
            this.gpu = gpu;
            this.gpuOffset = gpuOffset;
            this.bytes = bytes;
            this.region = region;
            this.descriptors = descriptors;
            this.hostDescriptors = hostDescriptors;
            this.byTag = byTag;
        }

        /** The path this copy takes (its GPU buffer's). */
        public DataPath path() {
            return gpu.path;
        }

        /**
         * The descriptors this copy issues, one per mover-legal piece: kernel descriptors on the
         * direct path, host descriptors on the bounce path; through a region, its one region request
         * (the bridge splits it).
         */
        public int descriptorCount() {
            return gpu.path == DataPath.DIRECT ? descriptors.size() : hostDescriptors.size();
        }

        /**
         * Runs the copy on the session's FPGA and waits for every status; an error code in any
         * status throws {@link DmaException}. GPU -> FPGA leaves the data in FPGA memory, where it
         * stays for later copies; FPGA -> GPU moves what FPGA memory holds now. On the bounce path
         * the CUDA copy (GPU -> pinned host memory before the FPGA's host DMA, pinned host memory ->
         * GPU after it) is part of the copy.
         *
         * @throws SimulationException the simulated FPGA stopped or is gone (the message says why)
         */
        public void await() {
            checkOpen();
            if (gpu.closed) {
                throw new IllegalStateException("the GPU buffer of this copy (" + gpu.length + " bytes) was closed before it ran");
            }
            // A closed region's number may belong to another buffer's region by now.
            if (region != null && !region.isOpen()) {
                throw new IllegalStateException("region " + region.number + " of this copy was closed before it ran");
            }
            if (gpu.path == DataPath.DIRECT) {
                // One region request may move up to 4 GB: its status may take longer than a descriptor's.
                long limit = region == null ? SimulatedDevice.STATUS_LIMIT_KERNEL_CYCLES
                        : Math.max(SimulatedDevice.STATUS_LIMIT_KERNEL_CYCLES, 2 * device.kernelCyclesToMove(bytes));
                run = device.run(descriptors, List.of(), hostMemory, limit);
                for (ReplayResult.Status s : run.statuses()) {
                    if (!s.ok()) {
                        Transfer piece = byTag.get(s.tag());
                        throw new DmaException(s.error(), s.tag(), what() + (piece == null ? "" : ", piece at GPU offset "
                                + piece.gpuOffset()));
                    }
                }
                return;
            }
            MemorySegment stage = gpu.staging.segment().asSlice(gpuOffset, bytes);
            if (toFpga) {
                gpu.memory.read(stage, gpuOffset, bytes);  // the CUDA half: GPU -> pinned host memory
            }
            run = device.run(List.of(), hostDescriptors, hostMemory);
            checkHostStatuses(run, what() + " through pinned host memory");
            if (!toFpga) {
                gpu.memory.write(gpuOffset, stage, bytes);  // the CUDA half: pinned host memory -> GPU
            }
        }

        /** After {@link #await}: the simulated time it took, in dma_clk cycles (the FPGA's part of it). */
        public long dmaCycles() {
            if (run == null) {
                throw new IllegalStateException("the copy has not run: await it first");
            }
            return run.dmaCycles();
        }

        private String what() {
            return (toFpga ? "GPU -> FPGA" : "FPGA -> GPU") + " copy of " + bytes + " bytes"
                    + (region == null ? "" : " through region " + region.number + " at offset " + gpuOffset);
        }
    }

    private static void checkHostStatuses(SimulatedDevice.Run run, String what) {
        for (ReplayResult.HostStatus s : run.hostStatuses()) {
            if (!s.completed()) {
                throw new DmaException(Layout.Error.ABORTED, s.id(), what + ", host descriptor " + s.index() + " (host ID "
                        + s.id() + ", mover status 0x" + Long.toHexString(s.raw()) + ")");
            }
        }
    }

    /**
     * Host -> FPGA memory through the FPGA's host DMA path: {@code data} is put in a pinned host
     * buffer of its own, which host descriptors (split at the movers' limit of 1 MB - 4 B) copy into
     * {@code f} at {@code offset}. How a host loads FPGA memory that no GPU copy fills.
     *
     * @throws IllegalArgumentException the range is outside {@code f}, or the offset or length is not a multiple of 4
     * @throws DmaException             a host descriptor did not complete
     */
    public void writeFpga(FpgaBuffer f, long offset, byte[] data) {
        hostDma(true, f, offset, data, data.length);
    }

    /**
     * FPGA memory -> host through the FPGA's host DMA path (host descriptors into a pinned host
     * buffer of its own): {@code bytes} of {@code f} from {@code offset}, as they are now.
     *
     * @throws IllegalArgumentException the range is outside {@code f}, or the offset or length is not a multiple of 4
     * @throws DmaException             a host descriptor did not complete
     */
    public byte[] readFpga(FpgaBuffer f, long offset, int bytes) {
        return hostDma(false, f, offset, null, bytes);
    }

    private byte[] hostDma(boolean toFpga, FpgaBuffer f, long offset, byte[] data, int bytes) {
        checkOpen();
        Objects.requireNonNull(f, "FPGA buffer");
        if (offset < 0 || bytes <= 0 || offset + bytes > f.length()) {
            throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside the FPGA buffer of " + f.length()
                    + " bytes (or empty)");
        }
        if ((offset & 3) != 0 || (bytes & 3) != 0) {
            throw new IllegalArgumentException("FPGA buffer offset " + offset + " and length " + bytes + " must be multiples"
                    + " of 4: host descriptors move dwords");
        }
        long size = (bytes + PAGE - 1) / PAGE * PAGE;
        GpuMemory.Pinned pinned = gpu.allocatePinned(size);
        long bus = nextHostBus;
        nextHostBus += size + PAGE;
        List<Long> buses = List.of();
        try {
            MemorySegment stage = pinned.segment().asSlice(0, bytes);
            if (toFpga) {
                stage.copyFrom(MemorySegment.ofArray(data));
            }
            buses = map(List.of(new Mapped(bus, size, staging(pinned), 0)), "pinned host buffer of " + Bytes.human(size)
                    + " for " + (toFpga ? "writeFpga" : "readFpga"));
            List<ReplayJob.HostDescriptor> descs = new ArrayList<>();
            for (long at = 0; at < bytes; at += AddressTable.MAX_TRANSFER_BYTES) {
                int n = (int) Math.min(AddressTable.MAX_TRANSFER_BYTES, bytes - at);
                long fpga = f.address() + offset + at;
                descs.add(toFpga ? new ReplayJob.HostDescriptor(Direction.RD, bus + at, fpga, n)
                        : new ReplayJob.HostDescriptor(Direction.WR, fpga, bus + at, n));
            }
            checkHostStatuses(device.run(List.of(), descs, hostMemory), (toFpga ? "host -> FPGA" : "FPGA -> host") + " of "
                    + bytes + " bytes at FPGA address " + Bytes.hex(f.address() + offset));
            return toFpga ? null : stage.toArray(JAVA_BYTE);
        } finally {
            try {
                unmap(buses);
            } finally {
                pinned.free();
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the session on " + overlay + " is closed");
        }
    }

    /**
     * Frees every GPU buffer (and pinned host buffer) still open, ends the simulated FPGA and
     * releases the GPU; later calls do nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (GpuBuffer g : new ArrayList<>(buffers)) {
                g.close();
            }
        } finally {
            try {
                device.close();
            } finally {
                gpu.close();
            }
        }
    }
}
