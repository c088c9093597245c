// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;

/**
 * What a replay produced: one {@link Status} per job descriptor (job order), one {@link HostStatus}
 * per host descriptor, the final contents of the ranges the job asked for, what the data movers saw,
 * the bridge's CSR counters and ALARMS, and the simulated time.
 *
 * @param statusMode   the bridge's status mode ({@code tagged} or {@code cycles})
 * @param statuses     one per descriptor of the job, in job order
 * @param hostStatuses one per host descriptor of the job, in job order
 * @param gpu          GPU read-back ranges (by bus address), in the job's order
 * @param fpga         FPGA read-back ranges, in the job's order
 * @param host         host memory read-back ranges (by bus address), in the job's order
 * @param movers       per direction: descriptors the data mover took, bytes it moved
 * @param counters     per direction: the CSR counters (event name -> value) after the job; empty
 *                     when the bridge has no counters ({@code counters=false}, e.g. preset lean)
 * @param alarms       the CSR ALARMS fields after the job ({@code rd_overflow}, {@code rd_host_overflow},
 *                     {@code wr_overflow}, {@code wr_host_overflow}, {@code reserved}): 0 in a correct run
 * @param csrReads     the CSR registers the job asked to read, in its order
 * @param kernelCycles kernel_clk cycles from the first window write to the end of the job
 * @param dmaCycles    dma_clk cycles over the same span
 * @param simTimePs    simulated time over the same span, picoseconds
 * @param benchTime    wall time of the cocotb test itself (without the build and pytest's start)
 * @param runTime      wall time of the whole replay (pytest, emit, build, simulation)
 */
public record ReplayResult(String statusMode, List<Status> statuses, List<HostStatus> hostStatuses, List<MemoryRange> gpu,
                           List<MemoryRange> fpga, List<MemoryRange> host, Map<Direction, MoverStats> movers,
                           Map<Direction, Map<String, Long>> counters, Map<String, Long> alarms, List<CsrValue> csrReads,
                           long kernelCycles, long dmaCycles, long simTimePs, Duration benchTime, Duration runTime) {

    public ReplayResult {
        statuses = List.copyOf(statuses);
        hostStatuses = List.copyOf(hostStatuses);
        gpu = List.copyOf(gpu);
        fpga = List.copyOf(fpga);
        host = List.copyOf(host);
        movers = Map.copyOf(movers);
        counters = Map.copyOf(counters);
        alarms = Map.copyOf(alarms);
        csrReads = List.copyOf(csrReads);
    }

    /** A CSR register read after the job: its name (null when the job gave only the offset), offset and value. */
    public record CsrValue(String name, int offset, long value) {
    }

    /** The value of the register the job read by {@code name}. */
    public long csr(String name) {
        return csrReads.stream().filter(c -> name.equals(c.name())).findFirst().map(CsrValue::value)
                .orElseThrow(() -> new IllegalArgumentException("the job read no CSR register named " + name));
    }

    /** The value of the register the job read at {@code offset}. */
    public long csrAt(int offset) {
        return csrReads.stream().filter(c -> c.offset() == offset).findFirst().map(CsrValue::value)
                .orElseThrow(() -> new IllegalArgumentException("the job read no CSR register at offset 0x" + Integer.toHexString(offset)));
    }

    /** True when any ALARMS field is set (something the design rules out happened). */
    public boolean anyAlarm() {
        return alarms.values().stream().anyMatch(v -> v != 0);
    }

    /**
     * A kernel status word and its fields, decoded with {@link Layout#KERNEL_STATUS_TAGGED} or
     * {@link Layout#KERNEL_STATUS_CYCLES}.
     *
     * @param index     the descriptor's position in the job
     * @param raw       the 64-bit status word (unsigned)
     * @param fields    every field of the status word (unsigned values in a long)
     * @param tag       tagged mode: the tag; cycles mode: -1
     * @param error     tagged mode: the error ({@code OK} when done; null for a code this Layout does
     *                  not know); cycles mode: OK, or null when the word says failed (no code given)
     * @param elapsed   tagged mode: the elapsed field; cycles mode: the cycles field
     * @param failed    the status reports a failure
     */
    public record Status(int index, Direction direction, long raw, Map<String, Long> fields, long tag, Layout.Error error,
                         int errorCode, long elapsed, boolean failed, long issuedKernelCycle, long statusKernelCycle) {
        public Status {
            fields = Map.copyOf(fields);
        }

        public boolean ok() {
            return !failed;
        }

        @Override
        public String toString() {
            return "Status[#" + index + " " + direction.tag() + " raw=0x" + Long.toHexString(raw)
                    + (tag >= 0 ? " tag=" + tag : "") + " error=" + (error != null ? error : "code " + errorCode)
                    + " elapsed=" + elapsed + (failed ? " FAILED" : "") + "]";
        }
    }

    /**
     * The mover status a host descriptor got back through the bridge (the BSP's descriptor
     * controller sees it): the host ID it went out with, the raw mover status word, and the dma_clk
     * cycles it was sent and its status came back.
     */
    public record HostStatus(int index, Direction direction, int id, long raw, boolean completed, long sentDmaCycle,
                             long doneDmaCycle) {
    }

    /** Final contents of {@code [address, address + data.length)}. */
    public record MemoryRange(long address, byte[] data) {
        public MemoryRange {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MemoryRange r && r.address == address && Arrays.equals(r.data, data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(address) * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "MemoryRange[0x" + Long.toHexString(address) + ", " + data.length + " bytes]";
        }
    }

    /** What one data mover model saw: every descriptor it took (host and kernel), kernel ones, bytes, 4 KB pieces. */
    public record MoverStats(long descriptors, long kernelDescriptors, long bytes, long tlps, long busyCycles) {
    }

    public Status status(int index) {
        return statuses.get(index);
    }

    /** The read-back GPU range that starts at {@code bus} (as the job asked for it). */
    public byte[] gpu(long bus) {
        return find(gpu, bus, "gpu");
    }

    /** The read-back host memory range that starts at {@code bus} (as the job asked for it). */
    public byte[] host(long bus) {
        return find(host, bus, "host memory");
    }

    /** The read-back FPGA range that starts at {@code addr} (as the job asked for it). */
    public byte[] fpga(long addr) {
        return find(fpga, addr, "fpga");
    }

    public MoverStats mover(Direction d) {
        return movers.get(d);
    }

    public long counter(Direction d, String event) {
        Long v = counters.get(d).get(event);
        if (v == null) {
            throw new IllegalArgumentException("no counter '" + event + "' (have " + counters.get(d).keySet() + ")");
        }
        return v;
    }

    private static byte[] find(List<MemoryRange> ranges, long address, String what) {
        for (MemoryRange r : ranges) {
            if (r.address() == address) {
                return r.data();
            }
        }
        throw new IllegalArgumentException("the job read back no " + what + " range at 0x" + Long.toHexString(address));
    }
}
