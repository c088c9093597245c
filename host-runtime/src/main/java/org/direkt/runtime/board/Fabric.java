// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.util.List;
import java.util.Optional;

import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.ffi.ClBuffer;
import org.direkt.runtime.ffi.ClContext;

/**
 * What joins a board's kernels, its bridge and PCIe memory, and needs nothing from the host on a
 * board ({@link #BITSTREAM}): the kernels' channels to the bridge (declared in the kernel binary),
 * and the PCIe bus over which the bridge's data movers reach the memory the importer mapped. An
 * OpenCL implementation without direkt's channels (PoCL, the header's emulation mode) needs a
 * stand-in for them: the emulated channels' buffers as each launch's last arguments, and the
 * bridge's answers to what the kernel wrote into them.
 */
public interface Fabric extends AutoCloseable {

    /** A board: the bitstream's channels and the PCIe bus. */
    Fabric BITSTREAM = new Fabric() {
    };

    /** Called once, when the board device has its OpenCL context and its FPGA memory (a buffer from FPGA address 0). */
    default void attach(ClContext cl, ClBuffer fpgaMemory) {
    }

    /** The arguments a launch of {@code call} takes after the kernel's own: none on a board. */
    default List<ClBuffer> channelArgs(KernelCall call) {
        return List.of();
    }

    /** The statuses a launch of {@code call} reports, given those its kernel wrote: on a board, those. */
    default long[] statuses(KernelCall call, long[] written) {
        return written;
    }

    /** PCIe memory the session lets the bridge's data movers reach: on a board the importer's mapping did. */
    default void map(List<BusRange> ranges) {
    }

    /** PCIe memory taken back. */
    default void unmap(List<BusRange> ranges) {
    }

    /** What stands in for the board's channels and data movers, for reports; empty for {@link #BITSTREAM}. */
    default Optional<String> standIn() {
        return Optional.empty();
    }

    @Override
    default void close() {
    }
}
