// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.Session;
import org.direkt.runtime.board.BoardDevice;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;

/**
 * The bring-up on a {@link BoardDevice}, through a {@link Session} on it: one 64 KB GPU page
 * allocated on the direct path (exported, imported and mapped for the bridge's data movers as every
 * direct buffer is), the plan's window written by the registers' names, the bring-up kernel
 * ({@code examples/kernels/direkt_bringup.cl}) launched once from the board's kernel binary with the
 * plan's arguments, and the plan's registers read through the device's CSR access by the manifest's
 * offsets. The window is closed again before the page is freed.
 *
 * <p>A board counts neither kernel_clk cycles nor the dma_clk period for the host; the statuses'
 * elapsed counts are its bridge's. Where parts of the board stand in ({@link BoardDevice#standIns()}),
 * the report names them, prints no latency and lists what only a board can settle ({@link #limits()}).
 */
public final class BoardTarget implements BringupTarget, AutoCloseable {
    /** The bring-up kernel's name in the board's binary. */
    public static final String KERNEL = "direkt_bringup";
    /** Where the plan's FPGA buffer starts; the FPGA memory the device holds ends at {@link #FPGA_MEMORY}. */
    public static final long FPGA_ADDRESS = 0x1000;
    public static final long FPGA_MEMORY = 64 * 1024;

    private final Session session;
    private final BoardDevice board;
    private final Session.GpuBuffer gpu;

    /** The board cannot run the bring-up (no peer-to-peer path to GPU memory), the message says why. */
    public static final class Unavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    private BoardTarget(Session session, BoardDevice board, Session.GpuBuffer gpu) {
        this.session = session;
        this.board = board;
        this.gpu = gpu;
    }

    /**
     * Opens a session on {@code overlay} on the board device {@code device} opens for its manifest
     * (on a board: {@code m -> BoardDevice.open(m, config)}), with {@code importer} and the GPU chosen,
     * and allocates the bring-up's GPU page. On failure what was opened is closed.
     *
     * @throws Unavailable the page takes the bounce path: the kernel could not reach it by bus address
     */
    public static BoardTarget open(Path overlay, BusAddressImporter importer, Session.Gpu gpuChoice,
            Function<OverlayManifest, BoardDevice> device) throws IOException {
        Session s = Session.open(overlay, importer, gpuChoice, device);
        try {
            Session.GpuBuffer g = s.allocateGpu(AddressTable.PAGE_SIZE);
            if (g.path() != DataPath.DIRECT) {
                throw new Unavailable("the bring-up kernel reaches GPU memory by its bus address, which needs the direct"
                        + " (peer-to-peer) path, and this machine has none: " + g.pathReason());
            }
            return new BoardTarget(s, (BoardDevice) s.fpga(), g);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        return board.describe() + ", GPU: " + session.gpuDescription();
    }

    /** The GPU page's first bus-contiguous run (a whole page at least) and the FPGA memory the device holds above {@link #FPGA_ADDRESS}. */
    @Override
    public Buffers buffers() {
        AddressTable t = gpu.table();
        return new Buffers(t.busAddress(0), t.segments().get(0).length(), FPGA_ADDRESS, board.fpgaMemoryBytes() - FPGA_ADDRESS);
    }

    @Override
    public Observation run(BringupPlan plan) {
        FpgaDevice d = session.fpga();
        plan.windowWrites().forEach(w -> d.csrWrite(w.name(), w.value()));
        long[] statuses;
        Map<String, Long> regs = new HashMap<>();
        try {
            BringupPlan.KernelArgs a = plan.kernelArgs();
            KernelCall call = new KernelCall.Named(KERNEL, List.of(new KernelCall.ULong(a.gpuPaddr()),
                    new KernelCall.ULong(a.fpgaAddr()), new KernelCall.UInt(a.bytes()), new KernelCall.UInt(a.tagBase()),
                    new KernelCall.Statuses(plan.probes().size())));
            statuses = d.launch(List.of(call)).statuses().getFirst();
            plan.reads().forEach(name -> regs.put(name, d.csrRead(name)));
        } finally {
            // The bridge outlives this run: it must not reach the page once the page is freed.
            d.csrWrite("WIN" + BringupPlan.WINDOW + "_CTRL", 0);
        }
        List<Long> status = new ArrayList<>();
        List<Long> kernel = new ArrayList<>();
        for (long s : statuses) {
            status.add(s);
            kernel.add(-1L);
        }
        return new Observation(status, regs, kernel, 0);
    }

    /**
     * With stand-ins: every part they play, and that their latency is none. On a board: what a
     * bring-up does not reach. Either way, each line names the check or figure it concerns.
     */
    @Override
    public Limits limits() {
        List<String> standIns = board.standIns();
        List<String> open = new ArrayList<>();
        if (!standIns.isEmpty()) {
            open.add("bitstream: MAGIC, VERSION and CONFIG of a programmed bitstream's bridge, read through the importer"
                    + " module's CSR window; here the stand-in's registers answered with what it was given");
            open.add("word order: where the board's kernel compiler (aoc) puts cldesc word x0 on the 256-bit channel;"
                    + " here the stand-in's emulated channel placed the words");
            open.add("kernel status: the statuses a bitstream's bridge returns; here the stand-in answered by the rules it models");
            open.add("mover status: the hard IP's own status word; here the stand-in wrote Layout.MOVER_STATUS, the format"
                    + " the check assumes, so the check agrees with itself");
            open.add("latency and bus addresses: the bridge's data movers reaching the GPU page at the bus address the"
                    + " importer gave, over PCIe, in dma_clk cycles; the stand-in moved the bytes in host memory, so no"
                    + " figure is printed");
        } else {
            open.add("latency in time: a board tells the host neither its dma_clk period nor kernel_clk cycles, so the"
                    + " latency is the bridge's dma_clk count alone");
        }
        open.add("the moved bytes: the bring-up compares none; a copy through a Session does, and confirms that host"
                + " DMA's FPGA address 0 is the bottom of the platform's first buffer");
        open.add("the later checks (UNALIGNED, WINDOW, FPGA_RANGE) and aborts: every descriptor of the plan passes them"
                + " or is rejected before them");
        return new Limits(standIns, open, standIns.isEmpty() ? "" : "the stand-in's elapsed counts are not timings");
    }

    /** Frees the GPU page and closes the session, and with it the board device. */
    @Override
    public void close() {
        try {
            gpu.close();
        } finally {
            session.close();
        }
    }
}
