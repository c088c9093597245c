// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.ImportRefusedException;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.sim.SimulatedDevice;
import org.direkt.runtime.sim.SimulatedFpga;
import org.direkt.runtime.sim.SimulationException;

/**
 * The host runtime's API: open a session on an overlay, allocate GPU memory, name an FPGA buffer,
 * copy in either direction, await completion. A session drives one {@link FpgaDevice}: the
 * simulated FPGA ({@link SimulatedFpga}, what {@link #open(Path, BusAddressImporter, Gpu)} starts)
 * or a board ({@link org.direkt.runtime.board.BoardDevice}); the same program runs on either, and
 * on either of two paths ({@link DataPath}), decided when the session opens and, for each buffer,
 * when it is allocated:
 *
 * <ul>
 * <li><b>direct</b> (peer-to-peer, {@link DirectBuffer}): the GPU buffer is exported as a dma-buf
 *     and the bus-address importer maps it for the FPGA; a copy is mover-legal descriptors (at most
 *     1 MB - 4 B, never across a page discontinuity), each issued by the runtime's issuing kernel.
 *     Kernels reach only what the host opens with {@link #openWindow}: aligned power-of-two blocks
 *     of at least 1 MB, programmed into the bridge's window registers by the manifest's names.</li>
 * <li><b>bounce</b> (through pinned host memory, {@link BouncedBuffer}): each GPU buffer gets a
 *     pinned host buffer of its size; a copy is a CUDA copy between the two and host DMA (the BSP's
 *     descriptor controller, not subject to the windows) between the pinned buffer and FPGA memory.</li>
 * </ul>
 *
 * The session takes the bounce path when the importer is unavailable
 * ({@link BusAddressImporter#unavailableReason()}), when there is no GPU, or when the GPU's memory
 * cannot be exported as a dma-buf; a buffer takes it when the exporter refuses to map it for the
 * FPGA ({@link ImportRefusedException}). {@link #path()} and {@link GpuBuffer#path()} say which
 * path was taken, {@link #pathReason()} and {@link GpuBuffer#pathReason()} why. A status with an
 * error code becomes a {@link DmaException} on either path.
 *
 * <pre>
 * try (Session s = Session.open(overlayDir, importer)) {
 *     Session.GpuBuffer g = s.allocateGpu(1 &lt;&lt; 20);
 *     Session.FpgaBuffer f = s.fpgaBuffer(0x1000_0000L, 1 &lt;&lt; 20);
 *     s.copy(g, 0, f, 0, 4096).await();
 * }
 * </pre>
 *
 * On an overlay made with the {@code regions} preset ({@link #addressing()} REGIONS) the bridge
 * translates GPU memory itself: {@link #openRegion} opens a region over a direct buffer
 * ({@link BufferRegion}), a copy through it is one region request, and raw copies of a direct buffer and
 * {@link #openWindow} are refused, as {@link #openRegion} is on an overlay with windows; the bounce
 * path's host DMA works on both. As on a board, FPGA memory and the bridge's registers keep what
 * they hold from one copy to the next; {@link #writeFpga} and {@link #readFpga} load and inspect
 * FPGA memory through host DMA. GPU memory is real CUDA memory when a GPU is present, host memory
 * standing in for it otherwise ({@link Gpu}). If the simulation dies, the call that finds out and
 * every later one throw {@link SimulationException} naming why.
 */
public final class Session implements AutoCloseable {
    static final long PAGE = AddressTable.PAGE_SIZE;
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

    /**
     * GPU memory of whole 64 KB pages, zeroed when allocated: {@link DirectBuffer} (peer-to-peer)
     * or {@link BouncedBuffer} (through pinned host memory).
     */
    public sealed interface GpuBuffer extends AutoCloseable permits DirectBuffer, BouncedBuffer {
        long length();

        /** The path this buffer's copies take. */
        DataPath path();

        /** Why: the session's reason, or the exporter's refusal for this buffer. */
        String pathReason();

        /** The bus addresses the FPGA's data movers use for this buffer, by offset into it. */
        AddressTable table();

        /** Host -> GPU memory (a CUDA copy on a GPU). */
        void write(long offset, byte[] data);

        /** GPU memory -> host (a CUDA copy on a GPU). */
        byte[] read(long offset, int bytes);

        /** Unmaps the buffer for the FPGA and frees it; later calls do nothing. */
        @Override
        void close();
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
     * A planned copy: it runs when it is awaited, FPGA-master on its GPU buffer's path ({@link DirectCopy} by bus
     * addresses, {@link RegionCopy} through a region, {@link BouncedCopy}) or GPU-master ({@link ApertureCopy}).
     */
    public sealed interface Copy permits DirectCopy, RegionCopy, BouncedCopy, ApertureCopy {
        /** The path this copy takes: its GPU buffer's, or {@link DataPath#APERTURE} (GPU-master). */
        DataPath path();

        /** Which master moves it: the FPGA's data movers, or the GPU's copy engine through the aperture. */
        Master master();

        /** The descriptors it issues: one per mover-legal piece; through a region, its one request. */
        int descriptorCount();

        /**
         * Runs the copy and waits for every status; an error code in any status throws
         * {@link DmaException}. GPU -> FPGA leaves the data in FPGA memory for later copies.
         *
         * @throws SimulationException the simulated FPGA stopped or is gone (the message says why)
         */
        void await();

        /** After {@link #await}: the dma_clk cycles it took, where the device counts them (the simulation does). */
        long dmaCycles();
    }

    /**
     * A region of the bridge's region table over a direct buffer's pages (regions addressing), open
     * until closed or its buffer or session is closed ({@link BufferRegion}).
     */
    public sealed interface Region extends AutoCloseable permits BufferRegion {
        /** The region number kernels name in their requests (cldesc_region.region). */
        int number();

        GpuBuffer buffer();

        /** Its length in bytes: its buffer's. */
        long length();

        /** The page table entry of its first page; the rest follow it, one per 64 KB page. */
        int firstEntry();

        /** Whether GPU -> FPGA requests may read it. */
        boolean allowsRead();

        /** Whether FPGA -> GPU requests may write it. */
        boolean allowsWrite();

        /** Whether it is still in the region table: not closed, nor its buffer, nor the session. */
        boolean isOpen();

        /** Takes it out of the region table and waits until no request naming it is in a walker; later calls do nothing. */
        @Override
        void close();
    }

    private final SessionState state;

    private Session(SessionState state) {
        this.state = state;
    }

    /** Opens a session on an overlay directory with the first GPU, if any ({@link Gpu#AUTO}), on its simulated FPGA. */
    public static Session open(Path overlayDir, BusAddressImporter importer) throws IOException {
        return open(overlayDir, importer, Gpu.AUTO);
    }

    /**
     * Opens a session on an overlay directory with the GPU chosen, and starts the session's
     * simulated FPGA: the overlay's bridge (built once per configuration; a few seconds cached).
     *
     * @param importer the bus-address importer; {@link BusAddressImporter#none(String)} where there is none
     * @throws SimulationException the simulated FPGA could not be built or started (the message says why)
     */
    public static Session open(Path overlayDir, BusAddressImporter importer, Gpu gpuChoice) throws IOException {
        return open(overlayDir, importer, gpuChoice, SimulatedFpga::start);
    }

    /**
     * Opens a session on an overlay directory (its manifest must speak this runtime's Layout
     * version, {@link OverlayManifest#read}) with the GPU chosen, on the device {@code device} opens
     * for the overlay's manifest ({@code SimulatedFpga::start}; {@code m -> BoardDevice.open(m, config)}).
     */
    public static Session open(Path overlayDir, BusAddressImporter importer, Gpu gpuChoice,
            Function<OverlayManifest, ? extends FpgaDevice> device) throws IOException {
        return new Session(SessionState.open(overlayDir, importer, gpuChoice, device));
    }

    /**
     * How the overlay's kernels name GPU memory: {@link BridgeModes.Addressing#RAW} (bus addresses inside
     * the windows {@link #openWindow} opens) or {@link BridgeModes.Addressing#REGIONS} (regions
     * {@link #openRegion} opens).
     */
    public BridgeModes.Addressing addressing() {
        return state.manifest.bridge().addressing();
    }

    /** Whether this machine has a CUDA GPU that {@link Gpu#AUTO} would use. */
    public static boolean gpuPresent() {
        return GpuMemory.gpuPresent();
    }

    /** True when GPU buffers are real CUDA memory. */
    public boolean hasGpu() {
        return state.gpu.real();
    }

    /** What the session's GPU memory is (a CUDA device, a simulated GPU, or host memory standing in for none). */
    public String gpuDescription() {
        return state.gpu.description();
    }

    /**
     * The session's path: {@link DataPath#DIRECT} when peer-to-peer is possible (an importer is
     * available and GPU memory can be exported as a dma-buf), else {@link DataPath#BOUNCE}. A buffer
     * whose import the exporter refuses takes the bounce path on its own ({@link GpuBuffer#path()}).
     */
    public DataPath path() {
        return state.path;
    }

    /** Why the session took its path: the importer's or the GPU's reason for the bounce path, or what makes peer-to-peer possible. */
    public String pathReason() {
        return state.pathReason;
    }

    public Path overlay() {
        return state.overlay();
    }

    /** The FPGA this session drives (for as long as the session is open). */
    public FpgaDevice fpga() {
        return state.fpga;
    }

    /**
     * The simulation under this session: its simulator, process and log, and runs of raw descriptors.
     *
     * @throws IllegalStateException the session drives a board
     */
    public SimulatedDevice device() {
        if (state.fpga instanceof SimulatedFpga s) {
            return s.simulation();
        }
        throw new IllegalStateException("the session on " + overlay() + " drives " + state.fpga.describe() + ", not a simulated FPGA");
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
        return BufferMemory.allocate(state, bytes);
    }

    public FpgaBuffer fpgaBuffer(long address, long bytes) {
        return new FpgaBuffer(address, bytes);
    }

    /**
     * Lets kernels reach PCIe range {@code [base, last]} (inclusive) in both directions: the next
     * free window entry of the bridge, its BASE_LO, BASE_HI, SIZE and CTRL written by the manifest's names. A window
     * is a naturally aligned power-of-two block of at least 2^{@code window_min_log2} bytes (1 MB).
     *
     * @return the window entry used
     * @throws IllegalArgumentException the range is not an aligned power-of-two block of at least the smallest window
     * @throws IllegalStateException    every window entry is open, or the bridge has regions addressing (no windows)
     */
    public int openWindow(long base, long last) {
        state.checkOpen();
        return state.windows(base, last).open(base, last);
    }

    /** The windows opened so far, in entry order. */
    public List<WindowBlock> windows() {
        return state.openWindows();
    }

    /**
     * Opens a region over the whole of {@code g} (regions addressing): its pages written into the
     * bridge's page table (unless still there from an earlier region over it; idle buffers' pages
     * make room, the least recently used first), then the lowest free region number over them.
     * Kernels and {@link #copy(Region, long, FpgaBuffer, long, long)} name it by its number until it is closed.
     *
     * @param allowRd GPU -> FPGA requests may read the region
     * @param allowWr FPGA -> GPU requests may write the region
     * @throws IllegalStateException    the bridge has raw addressing, the buffer is closed, or the tables have no room
     * @throws IllegalArgumentException the buffer takes the bounce path, belongs to another session, or neither direction is allowed
     */
    public Region openRegion(GpuBuffer g, boolean allowRd, boolean allowWr) {
        state.checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        return state.regions(g).open(state.owned(g), allowRd, allowWr);
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
        state.checkOpen();
        return RegionCopy.plan(state, true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU through a region (one that allows writes), as {@link #copy(Region, long, FpgaBuffer, long, long)}. */
    public Copy copy(FpgaBuffer src, long srcOffset, Region dst, long dstOffset, long bytes) {
        state.checkOpen();
        return RegionCopy.plan(state, false, dst, dstOffset, src, srcOffset, bytes);
    }

    /**
     * GPU -> FPGA, by the buffer's bus addresses: descriptors through the issuing kernel on the
     * direct path (raw addressing only: a bridge with regions addressing takes region requests),
     * host DMA on the bounce path.
     */
    public Copy copy(GpuBuffer src, long srcOffset, FpgaBuffer dst, long dstOffset, int bytes) {
        return PlannedCopy.byBus(state, true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU, as {@link #copy(GpuBuffer, long, FpgaBuffer, long, int)}. */
    public Copy copy(FpgaBuffer src, long srcOffset, GpuBuffer dst, long dstOffset, int bytes) {
        return PlannedCopy.byBus(state, false, dst, dstOffset, src, srcOffset, bytes);
    }

    /** Copies by either master: GPU-master through the overlay's aperture, chosen by size ({@link MasterCopies}). */
    public MasterCopies masters() {
        state.checkOpen();
        return state.masters();
    }

    /**
     * Host -> FPGA memory through host DMA: {@code data} is put in a pinned host buffer of its own
     * and moved into {@code f} at {@code offset}. How a host loads FPGA memory that no GPU copy fills.
     *
     * @throws IllegalArgumentException the range is outside {@code f}, or the offset or length is not a multiple of 4
     * @throws DmaException             the host DMA did not complete
     */
    public void writeFpga(FpgaBuffer f, long offset, byte[] data) {
        state.checkOpen();
        HostDma.move(state, true, f, offset, data, data.length);
    }

    /** FPGA memory -> host through host DMA: {@code bytes} of {@code f} from {@code offset}, as they are now. */
    public byte[] readFpga(FpgaBuffer f, long offset, int bytes) {
        state.checkOpen();
        return HostDma.move(state, false, f, offset, null, bytes);
    }

    /** Frees every GPU buffer (and pinned host buffer) still open, closes the FPGA device and releases the GPU; later calls do nothing. */
    @Override
    public void close() {
        state.close();
    }
}
