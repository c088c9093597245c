// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.device;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.OptionalLong;

/**
 * An FPGA that holds direkt's bridge, as a {@link org.direkt.runtime.Session} drives it: the
 * bridge's registers, host DMA between host memory and FPGA memory, kernels launched with their
 * arguments, and the PCIe memory the bridge's data movers may reach. Two kinds implement it: the
 * simulated FPGA ({@link org.direkt.runtime.sim.SimulatedFpga}) and a board
 * ({@link org.direkt.runtime.board.BoardDevice}). FPGA memory and the bridge's registers keep what
 * they hold from one call to the next. One caller at a time.
 */
public interface FpgaDevice extends AutoCloseable {

    /** What the device is, for messages: {@code simulated FPGA (verilator)}, {@code board 0000:3b:00.0 ...}. */
    String describe();

    /** Whether it can still be used: not closed, and not found gone. */
    boolean usable();

    /** The bridge's register {@code name} (as the overlay's manifest names it): a 32-bit value. */
    long csrRead(String name);

    /** Writes {@code value} (32 bits) to the bridge's register {@code name}. */
    void csrWrite(String name, long value);

    /**
     * Lets the bridge's data movers reach {@code ranges} of PCIe memory (GPU pages as the importer
     * mapped them). On a board the importer's mapping is what lets them; the simulation serves
     * their reads and writes through each range's {@link BusRange.Backing}.
     */
    void map(List<BusRange> ranges);

    /** Takes back ranges {@link #map} gave (while the device lives: a device gone has nothing to take back). */
    void unmap(List<BusRange> ranges);

    /**
     * Pinned host memory that host DMA will move from or into ({@link #toFpga}, {@link #fromFpga}).
     * The simulation maps it at bus addresses of its own and returns the first; on a board the
     * platform's driver maps it for each transfer, out of the host's sight, and this is empty.
     */
    OptionalLong mapPinned(MemorySegment pinned, String what);

    /** Takes back pinned memory {@link #mapPinned} took. */
    void unmapPinned(MemorySegment pinned);

    /**
     * Host DMA, host -> FPGA memory: all of {@code from} (pinned memory {@link #mapPinned} took, a
     * multiple of 4 bytes) to FPGA address {@code fpgaAddress}. Returns the dma_clk cycles it took
     * where the device counts them, else -1.
     *
     * @throws org.direkt.runtime.DmaException the device's host DMA reported a transfer not completed
     */
    long toFpga(MemorySegment from, long fpgaAddress);

    /** Host DMA, FPGA memory -> host: {@code into.byteSize()} bytes from {@code fpgaAddress}, as {@link #toFpga}. */
    long fromFpga(long fpgaAddress, MemorySegment into);

    /**
     * Launches each call in turn, each once the one before has finished, and returns what each
     * wrote into its {@link KernelCall.Statuses} argument.
     *
     * @throws UnsupportedOperationException a kernel this device cannot run (the message names those it can)
     */
    Launched launch(List<KernelCall> calls);

    /** Ends the device's use by this host; later calls do nothing. */
    @Override
    void close();

    /**
     * What a {@link #launch} returned: per call, the values its kernel wrote into its statuses
     * argument; and the dma_clk cycles the launch took where the device counts them, else -1.
     */
    record Launched(List<long[]> statuses, long dmaCycles) {
        public Launched {
            statuses = List.copyOf(statuses);
        }
    }
}
