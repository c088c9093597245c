// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.Objects;

/**
 * What a planned copy of either kind holds: its direction, its GPU buffer and range, the FPGA
 * address, and after it ran, the dma_clk cycles the device counted. {@link #byBus} plans a copy by
 * a GPU buffer's bus addresses, on the buffer's path.
 */
abstract class PlannedCopy {
    private static final long NOT_RUN = -2;

    final SessionState session;
    final boolean toFpga;
    final BufferMemory gpu;
    final long gpuOffset;
    final long bytes;
    final long fpgaAddress;
    private long cycles = NOT_RUN;

    PlannedCopy(SessionState session, boolean toFpga, BufferMemory gpu, long gpuOffset, long bytes, long fpgaAddress) {
        this.session = session;
        this.toFpga = toFpga;
        this.gpu = gpu;
        this.gpuOffset = gpuOffset;
        this.bytes = bytes;
        this.fpgaAddress = fpgaAddress;
    }

    /**
     * A copy of {@code bytes} between byte {@code gOff} of {@code g} and byte {@code fOff} of
     * {@code f}: descriptors through the issuing kernel on the direct path, host DMA on the bounce path.
     */
    static Session.Copy byBus(SessionState s, boolean toFpga, Session.GpuBuffer g, long gOff, Session.FpgaBuffer f, long fOff,
            int bytes) {
        s.checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        Objects.requireNonNull(f, "FPGA buffer");
        BufferMemory m = s.owned(g);
        m.check(gOff, bytes);
        f.checkRange(fOff, bytes);
        if ((fOff & 3) != 0) {
            throw new IllegalArgumentException("FPGA buffer offset " + fOff + " is not a multiple of 4: the data movers need"
                    + " dword-aligned addresses");
        }
        return switch (m) {
            case DirectBuffer d -> DirectCopy.plan(s, toFpga, d, gOff, f.address() + fOff, bytes);
            case BouncedBuffer b -> BouncedCopy.plan(s, toFpga, b, gOff, f.address() + fOff, bytes);
        };
    }

    /** The checks every copy makes before it runs: the session open, its buffer not closed since it was planned. */
    final void checkRunnable() {
        session.checkOpen();
        if (gpu.isClosed()) {
            throw new IllegalStateException("the GPU buffer of this copy (" + gpu.length + " bytes) was closed before it ran");
        }
    }

    final void ran(long dmaCycles) {
        cycles = dmaCycles;
    }

    /** The FPGA's data movers move it (an {@link ApertureCopy} is the GPU's). */
    public Master master() {
        return Master.FPGA_MASTER;
    }

    final void checkRan() {
        if (cycles == NOT_RUN) {
            throw new IllegalStateException("the copy has not run: await it first");
        }
    }

    public long dmaCycles() {
        checkRan();
        if (cycles < 0) {
            throw new IllegalStateException(session.fpga.describe() + " does not count dma_clk cycles");
        }
        return cycles;
    }

    String what() {
        return (toFpga ? "GPU -> FPGA" : "FPGA -> GPU") + " copy of " + bytes + " bytes";
    }
}
