// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.util.List;
import java.util.Map;

/**
 * Where a bring-up runs: something that holds a bridge, a GPU buffer the FPGA can reach and an FPGA
 * buffer, and runs a {@link BringupPlan}: it writes the plan's window registers, has the bring-up
 * kernel ({@code examples/kernels/direkt_bringup.cl}) issue the plan's descriptors with the plan's
 * {@link BringupPlan.KernelArgs}, one at a time, collects the status the kernel read for each, and
 * then reads the plan's registers by their offsets: {@link SimulatedTarget} on the simulated back
 * end, {@link BoardTarget} on a board device.
 */
public interface BringupTarget {

    /** What runs the bring-up, for the report ({@code simulated bridge (verilator)}, ...). */
    String describe();

    /** The buffers the plan's descriptors move data between. */
    Buffers buffers();

    /**
     * Runs {@code plan} and returns what the kernel and the registers showed.
     *
     * @throws RuntimeException the target could not run it (the message says why)
     */
    Observation run(BringupPlan plan);

    /** What a run on this target leaves open ({@link Limits#NONE}: nothing it says beyond {@link #describe()}). */
    default Limits limits() {
        return Limits.NONE;
    }

    /**
     * A GPU buffer at PCIe bus address {@code gpuBus} (contiguous on the bus) and an FPGA buffer at
     * {@code fpgaAddress}, of the given sizes.
     */
    record Buffers(long gpuBus, long gpuBytes, long fpgaAddress, long fpgaBytes) {
    }

    /**
     * What a run on a target cannot settle, so that its report claims no more than the run showed.
     *
     * @param standIns   what stands in for a board's parts (empty on a board)
     * @param unsettled  what only a board can settle, or what even a board's run leaves open: one line each
     * @param unmeasured why the statuses' elapsed counts are no measurement (a stand-in's); empty when they are one
     */
    record Limits(List<String> standIns, List<String> unsettled, String unmeasured) {
        public static final Limits NONE = new Limits(List.of(), List.of(), "");

        public Limits {
            standIns = List.copyOf(standIns);
            unsettled = List.copyOf(unsettled);
        }
    }

    /**
     * What a run showed.
     *
     * @param statuses     the 64-bit status the kernel read for each of the plan's descriptors, in plan order
     * @param registers    the value of each register the plan reads, by name
     * @param kernelCycles per descriptor, kernel_clk cycles from the channel taking it to its status; -1
     *                     where the target cannot tell
     * @param dmaClockPs   the dma_clk period in picoseconds, 0 where the target cannot tell
     */
    record Observation(List<Long> statuses, Map<String, Long> registers, List<Long> kernelCycles, long dmaClockPs) {
        public Observation {
            statuses = List.copyOf(statuses);
            registers = Map.copyOf(registers);
            kernelCycles = List.copyOf(kernelCycles);
            if (kernelCycles.size() != statuses.size()) {
                throw new IllegalArgumentException(kernelCycles.size() + " kernel cycle counts for " + statuses.size() + " statuses");
            }
        }
    }
}
