package org.direkt.runtime;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.ImportRefusedException;
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
 * This version executes descriptors on the simulated back end (the bridge's system simulation,
 * where a pinned host buffer is host memory at bus addresses of its own); GPU memory is real CUDA
 * memory when a GPU is present, host memory standing in for it otherwise ({@link Gpu}).
 */
public final class Session implements AutoCloseable {
    private static final long PAGE = AddressTable.PAGE_SIZE;
    /**
     * Where the simulated back end maps pinned host buffers on the bus, one after another: a range
     * of their own, as the FPGA's driver maps host memory (a direct copy never touches it).
     */
    static final long HOST_BUS_BASE = 0x20_0000_0000L;

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
    private final SimulatedBridge bridge;
    private final GpuMemory gpu;
    private final WindowRegs windowRegs;
    private final DataPath path;
    private final String pathReason;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final List<WindowBlock> windows = new ArrayList<>();
    /** The CSR writes that opened the windows, in order, by register name. */
    private final List<ReplayJob.CsrWrite> csrWrites = new ArrayList<>();
    private long nextTag = 1;
    private long nextHostBus = HOST_BUS_BASE;
    private boolean closed;

    private Session(Path overlay, BusAddressImporter importer, SimulatedBridge bridge, GpuMemory gpu, WindowRegs windowRegs) {
        this.overlay = overlay;
        this.importer = importer;
        this.bridge = bridge;
        this.gpu = gpu;
        this.windowRegs = windowRegs;
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
     * version) with the GPU chosen.
     *
     * @param importer the bus-address importer; {@link BusAddressImporter#none(String)} where there is none
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
            throw new IllegalArgumentException(f + ": this runtime drives bridges with managed IDs and tagged status (the default preset)");
        }
        WindowRegs windowRegs = WindowRegs.of(f, m);
        SimulatedBridge bridge = SimulatedBridge.locate();
        GpuMemory gpu = switch (gpuChoice) {
            case AUTO -> GpuMemory.firstGpuOrNone();
            case SIMULATED -> GpuMemory.StandIn.simulated();
            case NONE -> GpuMemory.StandIn.none("no GPU (the session was opened with Gpu.NONE), so there is no GPU memory"
                    + " to export for peer-to-peer; host memory stands in for GPU memory");
        };
        try {
            return new Session(overlayDir, importer, bridge, gpu, windowRegs);
        } catch (RuntimeException e) {
            gpu.close();
            throw e;
        }
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

        /** Unmaps the buffer for the FPGA and frees it (and its pinned host buffer); later calls do nothing. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            buffers.remove(this);
            try {
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
        return g;
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
     * @throws IllegalStateException    every window entry of the bridge is already open
     */
    public int openWindow(long base, long last) {
        checkOpen();
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
        checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        Objects.requireNonNull(f, "FPGA buffer");
        if (g.owner() != this) {
            throw new IllegalArgumentException(g + " belongs to another session");
        }
        g.check(gOff, bytes);
        if (fOff < 0 || bytes < 0 || fOff + bytes > f.length()) {
            throw new IllegalArgumentException("[" + fOff + ", +" + bytes + ") is outside the FPGA buffer of " + f.length() + " bytes");
        }
        if ((fOff & 3) != 0) {
            throw new IllegalArgumentException("FPGA buffer offset " + fOff + " is not a multiple of 4: the data movers need"
                    + " dword-aligned addresses");
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
        return new Copy(toFpga, g, gOff, f, fOff, bytes, descs, hostDescs, byTag);
    }

    /** A planned copy: it runs when it is awaited, on its GPU buffer's path. */
    public final class Copy {
        private final boolean toFpga;
        private final GpuBuffer gpu;
        private final long gpuOffset;
        private final FpgaBuffer fpga;
        private final long fpgaOffset;
        private final int bytes;
        private final List<ReplayJob.Descriptor> descriptors;
        private final List<ReplayJob.HostDescriptor> hostDescriptors;
        private final Map<Long, Transfer> byTag;
        private byte[] fpgaContents;
        private byte[] fpgaSource;

        Copy(boolean toFpga, GpuBuffer gpu, long gpuOffset, FpgaBuffer fpga, long fpgaOffset, int bytes,
                List<ReplayJob.Descriptor> descriptors, List<ReplayJob.HostDescriptor> hostDescriptors,
                Map<Long, Transfer> byTag) {
            this.toFpga = toFpga;
            this.gpu = gpu;
            this.gpuOffset = gpuOffset;
            this.fpga = fpga;
            this.fpgaOffset = fpgaOffset;
            this.bytes = bytes;
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
         * direct path, host descriptors on the bounce path.
         */
        public int descriptorCount() {
            return gpu.path == DataPath.DIRECT ? descriptors.size() : hostDescriptors.size();
        }

        /**
         * Runs the copy and waits for every status; an error code in any status throws
         * {@link DmaException}. For FPGA -> GPU the data lands in the GPU buffer; for GPU -> FPGA
         * the FPGA range's contents are returned by {@link #fpgaContents()}. On the bounce path the
         * CUDA copy (GPU -> pinned host memory before the FPGA's host DMA, pinned host memory -> GPU
         * after it) is part of the copy.
         */
        public void await() {
            checkOpen();
            if (gpu.closed) {
                throw new IllegalStateException("the GPU buffer of this copy (" + gpu.length + " bytes) was closed before it ran");
            }
            ReplayJob.Builder job = ReplayJob.builder().preset("default");
            if (windowRegs.entries() != Bridge.Params.defaults().windowEntries()) {
                job.param("windows", windowRegs.entries());  // the overlay's window table, so its register names exist
            }
            csrWrites.forEach(job::csrWrite);
            if (gpu.path == DataPath.DIRECT) {
                direct(job);
            } else {
                bounce(job);
            }
        }

        private String what() {
            return (toFpga ? "GPU -> FPGA" : "FPGA -> GPU") + " copy of " + bytes + " bytes";
        }

        private void direct(ReplayJob.Builder job) {
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
                    throw new DmaException(s.error(), s.tag(), what() + (piece == null ? "" : ", piece at GPU offset " + piece.gpuOffset()));
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
        }

        private void bounce(ReplayJob.Builder job) {
            long bus = gpu.table.busAddress(gpuOffset);
            MemorySegment stage = gpu.staging.segment().asSlice(gpuOffset, bytes);
            if (toFpga) {
                gpu.memory.read(stage, gpuOffset, bytes);  // the CUDA half: GPU -> pinned host memory
                job.hostMemory(bus, bytes, stage.toArray(JAVA_BYTE));
                job.readBackFpga(fpga.address() + fpgaOffset, bytes);
            } else {
                job.hostMemory(bus, bytes, null);
                job.fpga(fpga.address() + fpgaOffset, fpgaSource == null ? new byte[bytes] : fpgaSource);
                job.readBackHost(bus, bytes);
            }
            hostDescriptors.forEach(job::hostDescriptor);
            ReplayResult r = bridge.run(job.build());
            for (ReplayResult.HostStatus s : r.hostStatuses()) {
                if (!s.completed()) {
                    throw new DmaException(Layout.Error.ABORTED, s.id(), what() + " through pinned host memory, host descriptor "
                            + s.index() + " (host ID " + s.id() + ", mover status 0x" + Long.toHexString(s.raw()) + ")");
                }
            }
            if (toFpga) {
                fpgaContents = r.fpga(fpga.address() + fpgaOffset);
            } else {
                stage.copyFrom(MemorySegment.ofArray(r.host(bus)));
                gpu.memory.write(gpuOffset, stage, bytes);  // the CUDA half: pinned host memory -> GPU
            }
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

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the session on " + overlay + " is closed");
        }
    }

    /** Frees every GPU buffer (and pinned host buffer) still open and releases the GPU; later calls do nothing. */
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
            gpu.close();
        }
    }
}
