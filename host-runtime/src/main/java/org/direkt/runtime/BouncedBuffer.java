// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.OptionalLong;

import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.Bytes;

/**
 * A GPU buffer on the bounce path: GPU memory with a pinned host buffer of its size, between which
 * a copy makes a CUDA copy, and host DMA between the pinned buffer and FPGA memory.
 */
public final class BouncedBuffer extends BufferMemory implements Session.GpuBuffer {
    private final GpuMemory.Pinned staging;
    /** Where the device maps the pinned buffer on the bus; empty on a board, whose platform maps it out of sight. */
    private OptionalLong bus = OptionalLong.empty();

    private BouncedBuffer(SessionState session, GpuMemory.Allocation memory, long length, GpuMemory.Pinned staging, String reason) {
        super(session, memory, length, reason);
        this.staging = staging;
    }

    /** {@code memory} with a pinned host buffer of its size, on the bounce path for {@code reason}. */
    static BouncedBuffer of(SessionState s, GpuMemory.Allocation memory, long length, String reason) {
        GpuMemory.Pinned staging = s.gpu.allocatePinned(length);
        try {
            return new BouncedBuffer(s, memory, length, staging, reason);
        } catch (RuntimeException e) {
            staging.free();
            throw e;
        }
    }

    @Override
    public DataPath path() {
        return DataPath.BOUNCE;
    }

    /**
     * The pinned host buffer's bus addresses, one contiguous range, as the simulated FPGA's driver
     * maps it.
     *
     * @throws IllegalStateException on a board, whose platform maps the pinned buffer when it moves it, out of the host's sight
     */
    @Override
    public AddressTable table() {
        if (bus.isEmpty()) {
            throw new IllegalStateException(this + " on " + session.fpga.describe() + ": the platform's driver maps its pinned"
                    + " host buffer when it moves it, at bus addresses the host does not see");
        }
        long[] pages = new long[(int) (length / Session.PAGE)];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = bus.getAsLong() + i * Session.PAGE;
        }
        return AddressTable.of(bus.getAsLong(), length, pages);
    }

    GpuMemory.Pinned staging() {
        return staging;
    }

    @Override
    Session.GpuBuffer attach() {
        bus = session.fpga.mapPinned(staging.segment(), "GPU buffer of " + Bytes.human(length) + " (its pinned host buffer)");
        return this;
    }

    @Override
    void release() {
        try {
            session.fpga.unmapPinned(staging.segment());
        } finally {
            try {
                staging.free();
            } finally {
                memory.free();
            }
        }
    }
}
