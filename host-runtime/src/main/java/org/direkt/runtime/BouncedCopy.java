// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.lang.foreign.MemorySegment;

import org.direkt.runtime.pcie.AddressTable;

/**
 * A copy of a bounced buffer: a CUDA copy between GPU memory and its pinned host buffer (before the
 * host DMA GPU -> FPGA, after it FPGA -> GPU) and host DMA between the pinned buffer and FPGA
 * memory, through the BSP's descriptor controller, in pieces of at most the movers' 1 MB - 4 B.
 * Host DMA does not pass through the bridge's windows.
 */
public final class BouncedCopy extends PlannedCopy implements Session.Copy {
    private final BouncedBuffer buffer;

    private BouncedCopy(SessionState s, boolean toFpga, BouncedBuffer g, long gOff, long fpga, int bytes) {
        super(s, toFpga, g, gOff, bytes, fpga);
        this.buffer = g;
    }

    static BouncedCopy plan(SessionState s, boolean toFpga, BouncedBuffer g, long gOff, long fpga, int bytes) {
        if ((gOff & 3) != 0) {
            throw new IllegalArgumentException("transfer offset " + gOff + " is not dword-aligned: the data movers need "
                    + "addresses that are multiples of 4");
        }
        if (bytes <= 0 || (bytes & 3) != 0) {
            throw new IllegalArgumentException("transfer size " + bytes + (bytes <= 0 ? " must be > 0"
                    : " is not a multiple of 4: the data movers move whole dwords"));
        }
        return new BouncedCopy(s, toFpga, g, gOff, fpga, bytes);
    }

    @Override
    public DataPath path() {
        return DataPath.BOUNCE;
    }

    /** The host DMA's pieces: at most the movers' 1 MB - 4 B each. */
    @Override
    public int descriptorCount() {
        return (int) Math.ceilDiv(bytes, AddressTable.MAX_TRANSFER_BYTES);
    }

    @Override
    public void await() {
        checkRunnable();
        MemorySegment stage = buffer.staging().segment().asSlice(gpuOffset, bytes);
        if (toFpga) {
            buffer.memory.read(stage, gpuOffset, bytes);  // the CUDA half: GPU -> pinned host memory
            ran(session.fpga.toFpga(stage, fpgaAddress));
        } else {
            ran(session.fpga.fromFpga(fpgaAddress, stage));
            buffer.memory.write(gpuOffset, stage, bytes);  // the CUDA half: pinned host memory -> GPU
        }
    }
}
