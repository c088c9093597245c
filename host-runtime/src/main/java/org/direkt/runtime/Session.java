package org.direkt.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.Transfer;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.ReplayJob;
import org.direkt.runtime.sim.ReplayResult;
import org.direkt.runtime.sim.SimulatedBridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The host runtime's API: open a session on an overlay, allocate GPU memory (mapped for the FPGA
 * through a bus-address importer), name an FPGA buffer, copy in either direction, await
 * completion. A copy becomes mover-legal kernel descriptors (at most 1 MB - 4 B, never across a
 * page discontinuity) built with the Layout, exactly as the kernel builds them from the header;
 * a status with an error code becomes a {@link DmaException}. Kernels reach only what the host opens
 * with {@link #openWindow}: aligned power-of-two blocks of at least 1 MB, programmed into the
 * bridge's window registers by the names the overlay's manifest gives them.
 *
 * <pre>
 * try (Session s = Session.open(overlayDir, importer)) {
 *     Session.GpuBuffer g = s.allocateGpu(1 &lt;&lt; 20);
 *     Session.FpgaBuffer f = s.fpgaBuffer(0x1000_0000L, 1 &lt;&lt; 20);
 *     s.copy(g, 0, f, 0, 4096).await();
 * }
 * </pre>
 *
 * This version executes descriptors on the simulated back end (the bridge's system simulation);
 * GPU memory is real CUDA memory when a GPU is present, host memory standing in for it otherwise.
 */
public final class Session implements AutoCloseable {
    private static final long PAGE = AddressTable.PAGE_SIZE;

    private final Path overlay;
    private final BusAddressImporter importer;
    private final SimulatedBridge bridge;
    private final Cuda cuda;
    private final WindowRegs windowRegs;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final List<WindowBlock> windows = new ArrayList<>();
    /** The CSR writes that opened the windows, in order, by register name. */
    private final List<ReplayJob.CsrWrite> csrWrites = new ArrayList<>();
    private long nextTag = 1;
    private long nextHostBase = 0x7f00_0000_0000L;

    private Session(Path overlay, BusAddressImporter importer, SimulatedBridge bridge, Cuda cuda, WindowRegs windowRegs) {
        this.overlay = overlay;
        this.importer = importer;
        this.bridge = bridge;
        this.cuda = cuda;
        this.windowRegs = windowRegs;
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

    /** Opens a session on an overlay directory (its manifest must speak this runtime's Layout version). */
    public static Session open(Path overlayDir, BusAddressImporter importer) throws IOException {
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
            throw new IllegalArgumentException(f + ": this runtime drives bridges with managed IDs and tagged status (the default preset)");
        }
        WindowRegs windowRegs = WindowRegs.of(f, m);
        Cuda cuda = null;
        if (Cuda.isAvailable()) {
            cuda = Cuda.load();
            cuda.init();
            cuda.setCurrentContext(cuda.primaryContextRetain(cuda.device(0)));
        }
        return new Session(overlayDir, importer, SimulatedBridge.locate(), cuda, windowRegs);
    }

    /** True when GPU buffers are real CUDA memory. */
    public boolean hasGpu() {
        return cuda != null;
    }

    public Path overlay() {
        return overlay;
    }

    /** GPU memory mapped for the FPGA: whole 64 KB pages, SYNC_MEMOPS set, with its PCIe address table. */
    public final class GpuBuffer implements AutoCloseable {
        final long devicePointer;
        final long length;
        final int fd;
        final ImportedRange range;
        final AddressTable table;
        final byte[] standIn;

        GpuBuffer(long devicePointer, long length, int fd, ImportedRange range, byte[] standIn) {
            this.devicePointer = devicePointer;
            this.length = length;
            this.fd = fd;
            this.range = range;
            this.table = range.addressTable(devicePointer);
            this.standIn = standIn;
        }

        public long length() {
            return length;
        }

        public AddressTable table() {
            return table;
        }

        public void write(long offset, byte[] data) {
            check(offset, data.length);
            if (cuda != null) {
                cuda.memcpyHtoD(devicePointer + offset, data);
            } else {
                System.arraycopy(data, 0, standIn, (int) offset, data.length);
            }
        }

        public byte[] read(long offset, int bytes) {
            check(offset, bytes);
            return cuda != null ? cuda.memcpyDtoH(devicePointer + offset, bytes)
                    : Arrays.copyOfRange(standIn, (int) offset, (int) offset + bytes);
        }

        private void check(long offset, long bytes) {
            if (offset < 0 || bytes < 0 || offset + bytes > length) {
                throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside this " + length + "-byte GPU buffer");
            }
        }

        @Override
        public void close() {
            importer.release(range);
            if (cuda != null) {
                Libc.close(fd);
                cuda.memFree(devicePointer);
            }
            buffers.remove(this);
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
    }

    /** Allocates {@code bytes} of GPU memory (rounded up to 64 KB pages) and maps it for the FPGA. */
    public GpuBuffer allocateGpu(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("GPU allocation of " + bytes + " bytes: must be positive");
        }
        long length = (bytes + PAGE - 1) / PAGE * PAGE;
        GpuBuffer g;
        if (cuda != null) {
            long p = cuda.memAlloc(length);
            cuda.setSyncMemops(p, true);
            cuda.memsetD8(p, (byte) 0, length);
            int fd = cuda.exportDmaBuf(p, length, 0);
            g = new GpuBuffer(p, length, fd, importer.importDmaBuf(fd, 0, length), null);
        } else {
            long base = nextHostBase;
            nextHostBase += length + PAGE;
            g = new GpuBuffer(base, length, -1, importer.importDmaBuf(0, 0, length), new byte[(int) length]);
        }
        buffers.add(g);
        return g;
    }

    public FpgaBuffer fpgaBuffer(long address, long bytes) {
        return new FpgaBuffer(address, bytes);
    }

    /**
     * Lets kernels reach PCIe range {@code [base, last]} (inclusive) in both directions: the next
     * free window entry of the bridge, programmed by writing its BASE_LO, BASE_HI, SIZE and CTRL
     * registers (by the manifest's names). A window is a naturally aligned power-of-two block:
     * {@code last - base + 1} must be a power of two of at least 2^{@code window_min_log2} bytes
     * (1 MB) and {@code base} a multiple of it.
     *
     * @return the window entry used
     * @throws IllegalArgumentException the range is not such a block (the message says why)
     * @throws IllegalStateException    every window entry of the bridge is already open
     */
    public int openWindow(long base, long last) {
        WindowBlock w = WindowBlock.of(base, last, windowRegs.minLog2(), windowRegs.maxLog2());
        int i = windows.size();
        if (i >= windowRegs.entries()) {
            throw new IllegalStateException("cannot open window [" + Bytes.hex(base) + ", " + Bytes.hex(last)
                    + "]: all " + windowRegs.entries() + " window entries of the bridge are open");
        }
        List<String> regs = windowRegs.names().get(i);
        csrWrites.add(new ReplayJob.CsrWrite(regs.get(0), w.base() & 0xFFFF_FFFFL));
        csrWrites.add(new ReplayJob.CsrWrite(regs.get(1), w.base() >>> 32));
        csrWrites.add(new ReplayJob.CsrWrite(regs.get(2),
                Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", w.log2())).longValueExact()));
        csrWrites.add(new ReplayJob.CsrWrite(regs.get(3),
                Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact()));
        windows.add(w);
        return i;
    }

    /** The windows opened so far, in entry order. */
    public List<WindowBlock> windows() {
        return List.copyOf(windows);
    }

    /** GPU -> FPGA. */
    public Copy copy(GpuBuffer src, long srcOffset, FpgaBuffer dst, long dstOffset, int bytes) {
        return plan(true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU. */
    public Copy copy(FpgaBuffer src, long srcOffset, GpuBuffer dst, long dstOffset, int bytes) {
        return plan(false, dst, dstOffset, src, srcOffset, bytes);
    }

    private Copy plan(boolean toFpga, GpuBuffer g, long gOff, FpgaBuffer f, long fOff, int bytes) {
        if (fOff < 0 || fOff + bytes > f.length()) {
            throw new IllegalArgumentException("[" + fOff + ", +" + bytes + ") is outside the FPGA buffer of " + f.length() + " bytes");
        }
        List<Transfer> pieces = g.table.split(gOff, bytes);
        List<ReplayJob.Descriptor> descs = new ArrayList<>();
        Map<Long, Transfer> byTag = new LinkedHashMap<>();
        for (Transfer t : pieces) {
            long fpga = f.address() + fOff + (t.gpuOffset() - gOff);
            long tag = nextTag++;
            byTag.put(tag, t);
            descs.add(ReplayJob.Descriptor.of(toFpga ? Direction.RD : Direction.WR, toFpga
                    ? Descriptors.cldesc(t.busAddress(), fpga, t.bytes(), tag)
                    : Descriptors.cldesc(fpga, t.busAddress(), t.bytes(), tag)));
        }
        return new Copy(toFpga, g, gOff, f, fOff, bytes, descs, byTag);
    }

    /** A planned copy: its descriptors run when it is awaited. */
    public final class Copy {
        private final boolean toFpga;
        private final GpuBuffer gpu;
        private final long gpuOffset;
        private final FpgaBuffer fpga;
        private final long fpgaOffset;
        private final int bytes;
        private final List<ReplayJob.Descriptor> descriptors;
        private final Map<Long, Transfer> byTag;
        private byte[] fpgaContents;
        private byte[] fpgaSource;

        Copy(boolean toFpga, GpuBuffer gpu, long gpuOffset, FpgaBuffer fpga, long fpgaOffset, int bytes,
                List<ReplayJob.Descriptor> descriptors, Map<Long, Transfer> byTag) {
            this.toFpga = toFpga;
            this.gpu = gpu;
            this.gpuOffset = gpuOffset;
            this.fpga = fpga;
            this.fpgaOffset = fpgaOffset;
            this.bytes = bytes;
            this.descriptors = descriptors;
            this.byTag = byTag;
        }

        /** The kernel descriptors this copy issues (one per mover-legal piece). */
        public int descriptorCount() {
            return descriptors.size();
        }

        /**
         * Runs the descriptors and waits for every status; an error code in any status throws
         * {@link DmaException}. For FPGA -> GPU the data lands in the GPU buffer; for GPU -> FPGA
         * the FPGA range's contents are returned by {@link #fpgaContents()}.
         */
        public List<ReplayResult.Status> await() {
            ReplayJob.Builder job = ReplayJob.builder().preset("default");
            if (windowRegs.entries() != Bridge.Params.defaults().windowEntries()) {
                job.param("windows", windowRegs.entries());  // the overlay's window table, so its register names exist
            }
            AddressTable t = gpu.table;
            // Only the pages this copy touches go to the back end (and come back from it).
            int firstPage = (int) (gpuOffset / PAGE);
            int endPage = (int) ((gpuOffset + bytes + PAGE - 1) / PAGE);
            long spanStart = firstPage * PAGE;
            byte[] image = gpu.read(spanStart, (int) ((endPage - firstPage) * PAGE));
            for (int p = firstPage; p < endPage; p++) {
                int at = (int) ((p - firstPage) * PAGE);
                job.gpuPage(t.pageBusAddress(p), Arrays.copyOfRange(image, at, at + (int) PAGE));
                if (!toFpga) {
                    job.readBackGpu(t.pageBusAddress(p), (int) PAGE);
                }
            }
            csrWrites.forEach(job::csrWrite);
            descriptors.forEach(job::descriptor);
            if (toFpga) {
                job.readBackFpga(fpga.address() + fpgaOffset, bytes);
            } else {
                job.fpga(fpga.address() + fpgaOffset, fpgaSource == null ? new byte[bytes] : fpgaSource);
            }
            ReplayResult r = bridge.run(job.build());
            for (ReplayResult.Status s : r.statuses()) {
                if (!s.ok()) {
                    Transfer piece = byTag.get(s.tag());
                    throw new DmaException(s.error(), s.tag(), (toFpga ? "GPU -> FPGA" : "FPGA -> GPU") + " copy of " + bytes
                            + " bytes" + (piece == null ? "" : ", piece at GPU offset " + piece.gpuOffset()));
                }
            }
            if (toFpga) {
                fpgaContents = r.fpga(fpga.address() + fpgaOffset);
            } else {
                for (int p = firstPage; p < endPage; p++) {
                    System.arraycopy(r.gpu(t.pageBusAddress(p)), 0, image, (int) ((p - firstPage) * PAGE), (int) PAGE);
                }
                int from = (int) (gpuOffset - spanStart);
                gpu.write(gpuOffset, Arrays.copyOfRange(image, from, from + bytes));
            }
            return r.statuses();
        }

        /** After a GPU -> FPGA {@link #await}: what the FPGA range holds. */
        public byte[] fpgaContents() {
            if (fpgaContents == null) {
                throw new IllegalStateException("no FPGA contents: await a GPU -> FPGA copy first");
            }
            return fpgaContents.clone();
        }

        /** For FPGA -> GPU on the simulated back end: what the FPGA range holds before the copy. */
        public Copy withFpgaContents(byte[] data) {
            if (data.length != bytes) {
                throw new IllegalArgumentException("FPGA contents of " + data.length + " bytes for a copy of " + bytes);
            }
            this.fpgaSource = data.clone();
            return this;
        }
    }

    @Override
    public void close() {
        for (GpuBuffer g : new ArrayList<>(buffers)) {
            g.close();
        }
    }
}
