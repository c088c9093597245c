// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.pcie.Bytes;

/**
 * How a host loads and inspects FPGA memory that no GPU copy fills ({@link Session#writeFpga},
 * {@link Session#readFpga}): the bytes go through a pinned host buffer of their own, which the
 * device's host DMA moves to or from FPGA memory.
 */
final class HostDma {
    private HostDma() {
    }

    /**
     * {@code data} into {@code f} at {@code offset} ({@code toFpga}), or {@code bytes} of {@code f}
     * from {@code offset} back.
     *
     * @throws IllegalArgumentException the range is outside {@code f}, or the offset or length is not a multiple of 4
     */
    static byte[] move(SessionState s, boolean toFpga, Session.FpgaBuffer f, long offset, byte[] data, int bytes) {
        Objects.requireNonNull(f, "FPGA buffer");
        if (offset < 0 || bytes <= 0 || offset + bytes > f.length()) {
            throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside the FPGA buffer of " + f.length()
                    + " bytes (or empty)");
        }
        if ((offset & 3) != 0 || (bytes & 3) != 0) {
            throw new IllegalArgumentException("FPGA buffer offset " + offset + " and length " + bytes + " must be multiples"
                    + " of 4: host descriptors move dwords");
        }
        FpgaDevice fpga = s.fpga;
        long size = Math.ceilDiv(bytes, Session.PAGE) * Session.PAGE;
        GpuMemory.Pinned pinned = s.gpu.allocatePinned(size);
        boolean mapped = false;
        try {
            MemorySegment stage = pinned.segment().asSlice(0, bytes);
            if (toFpga) {
                stage.copyFrom(MemorySegment.ofArray(data));
            }
            fpga.mapPinned(pinned.segment(), "pinned host buffer of " + Bytes.human(size) + " for " + (toFpga ? "writeFpga"
                    : "readFpga"));
            mapped = true;
            if (toFpga) {
                fpga.toFpga(stage, f.address() + offset);
                return null;
            }
            fpga.fromFpga(f.address() + offset, stage);
            return stage.toArray(JAVA_BYTE);
        } finally {
            try {
                if (mapped) {
                    fpga.unmapPinned(pinned.segment());
                }
            } finally {
                pinned.free();
            }
        }
    }
}
