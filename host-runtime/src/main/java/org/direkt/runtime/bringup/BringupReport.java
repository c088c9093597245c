// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.util.List;
import java.util.Locale;

import org.direkt.runtime.sim.Direction;

/**
 * What a bring-up found: one {@link Check} per question (does the bitstream's bridge match the
 * overlay, is the configured word order the channel's, do the statuses decode with the configured
 * layout, does the hard IP's status word decode with the mover status layout) and the latency
 * measured per direction; and, from its target, what the run could not settle.
 *
 * @param overlay   the manifest the host read
 * @param target    what ran it
 * @param injected  the wrong settings injected (simulated back end only), each as {@code name: what}
 * @param issued    what was issued, for the header
 * @param checks    in the order they are printed
 * @param latencies one per direction, GPU->FPGA first
 * @param limits    what the target's run leaves open (its stand-ins, what it cannot settle)
 */
public record BringupReport(String overlay, String target, List<String> injected, String issued, List<Check> checks,
                            List<Latency> latencies, BringupTarget.Limits limits) {

    public static final String BITSTREAM = "bitstream";
    public static final String WORD_ORDER = "word order";
    public static final String KERNEL_STATUS = "kernel status";
    public static final String MOVER_STATUS = "mover status";

    public BringupReport {
        injected = List.copyOf(injected);
        checks = List.copyOf(checks);
        latencies = List.copyOf(latencies);
    }

    public BringupReport(String overlay, String target, List<String> injected, String issued, List<Check> checks,
                         List<Latency> latencies) {
        this(overlay, target, injected, issued, checks, latencies, BringupTarget.Limits.NONE);
    }

    /**
     * This report with {@code l}: where the statuses' elapsed counts are no measurement, no latency
     * is reported as measured, whatever the counts were.
     */
    public BringupReport within(BringupTarget.Limits l) {
        List<Latency> lat = l.unmeasured().isEmpty() ? latencies : latencies.stream().map(x -> x.measured()
                ? new Latency(x.direction(), List.of(), List.of(), x.bytes(), x.dmaClockPs(), l.unmeasured()) : x).toList();
        return new BringupReport(overlay, target, injected, issued, checks, lat, l);
    }

    public enum Verdict {
        OK, MISMATCH, NOT_CHECKED;

        @Override
        public String toString() {
            return name().replace('_', ' ');
        }
    }

    /**
     * One question's answer.
     *
     * @param finding what was seen
     * @param change  what to change (empty when OK; for NOT_CHECKED, what must be fixed first)
     */
    public record Check(String name, Verdict verdict, String finding, String change) {
        static Check ok(String name, String finding) {
            return new Check(name, Verdict.OK, finding, "");
        }

        static Check mismatch(String name, String finding, String change) {
            return new Check(name, Verdict.MISMATCH, finding, change);
        }

        static Check notChecked(String name, String why) {
            return new Check(name, Verdict.NOT_CHECKED, why, "");
        }
    }

    /**
     * A direction's latency.
     *
     * @param dmaCycles    per completed descriptor, dma_clk cycles from admission to completion (its status's elapsed count)
     * @param kernelCycles per completed descriptor, kernel_clk cycles from the channel taking it to its status (empty
     *                     where the target cannot tell)
     * @param bytes        bytes each descriptor moved
     * @param dmaClockPs   the dma_clk period, 0 where unknown
     * @param why          why nothing was measured (empty when something was)
     */
    public record Latency(Direction direction, List<Long> dmaCycles, List<Long> kernelCycles, int bytes, long dmaClockPs,
                          String why) {
        public Latency {
            dmaCycles = List.copyOf(dmaCycles);
            kernelCycles = List.copyOf(kernelCycles);
        }

        public boolean measured() {
            return !dmaCycles.isEmpty();
        }

        public long minDmaCycles() {
            return dmaCycles.stream().mapToLong(Long::longValue).min().orElseThrow();
        }

        public long maxDmaCycles() {
            return dmaCycles.stream().mapToLong(Long::longValue).max().orElseThrow();
        }

        String render() {
            if (!measured()) {
                return "not measured: " + why;
            }
            StringBuilder s = new StringBuilder(range(dmaCycles) + " dma_clk cycles from admission to completion");
            if (dmaClockPs > 0) {
                s.append(String.format(Locale.ROOT, " (%s ns at %.0f MHz)", rangeNs(dmaCycles, dmaClockPs), 1e6 / dmaClockPs));
            }
            s.append(", ").append(dmaCycles.size()).append(dmaCycles.size() == 1 ? " descriptor" : " descriptors")
                    .append(" of ").append(bytes).append(" bytes");
            if (!kernelCycles.isEmpty()) {
                s.append("; ").append(range(kernelCycles)).append(" kernel_clk cycles from the channel write to the status");
            }
            return s.toString();
        }

        private static String range(List<Long> v) {
            long lo = v.stream().mapToLong(Long::longValue).min().orElseThrow();
            long hi = v.stream().mapToLong(Long::longValue).max().orElseThrow();
            return lo == hi ? Long.toString(lo) : lo + ".." + hi;
        }

        private static String rangeNs(List<Long> v, long ps) {
            long lo = v.stream().mapToLong(Long::longValue).min().orElseThrow();
            long hi = v.stream().mapToLong(Long::longValue).max().orElseThrow();
            String a = String.format(Locale.ROOT, "%.0f", lo * ps / 1000.0);
            String b = String.format(Locale.ROOT, "%.0f", hi * ps / 1000.0);
            return a.equals(b) ? a : a + ".." + b;
        }
    }

    /** True when every check is OK. */
    public boolean allOk() {
        return checks.stream().allMatch(c -> c.verdict() == Verdict.OK);
    }

    /** The check called {@code name}. */
    public Check check(String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no check '" + name + "'"));
    }

    public Latency latency(Direction d) {
        return latencies.stream().filter(l -> l.direction() == d).findFirst().orElseThrow();
    }

    /**
     * The report as {@code direkt-run bringup} prints it: a header (with the stand-ins, if any), one
     * line per check and per direction's latency, a verdict, then what the run could not settle.
     */
    public String render() {
        StringBuilder s = new StringBuilder();
        s.append("direkt bring-up of ").append(overlay).append('\n');
        s.append("  target:  ").append(target).append('\n');
        if (!limits.standIns().isEmpty()) {
            s.append("  stand-ins, not a board: ").append(String.join("; ", limits.standIns())).append('\n');
        }
        for (String i : injected) {
            s.append("  injected wrong setting: ").append(i).append('\n');
        }
        s.append("  issued:  ").append(issued).append('\n');
        int w = 15;
        for (Check c : checks) {
            s.append(String.format(Locale.ROOT, "%-" + w + "s%-13s%s", c.name(), c.verdict(), c.finding()));
            if (!c.change().isEmpty()) {
                s.append(c.verdict() == Verdict.MISMATCH ? ". Change: " : ". First: ").append(c.change());
            }
            s.append('\n');
        }
        for (Latency l : latencies) {
            s.append(String.format(Locale.ROOT, "%-" + w + "s%-13s%s%n", "latency " + l.direction().tag(),
                    l.measured() ? "MEASURED" : "NOT MEASURED", l.render()));
        }
        List<String> bad = checks.stream().filter(c -> c.verdict() != Verdict.OK).map(c -> c.name() + " " + c.verdict()).toList();
        s.append(bad.isEmpty() ? "result: every check OK\n" : "result: " + String.join(", ", bad) + "\n");
        if (!limits.unsettled().isEmpty()) {
            s.append(limits.standIns().isEmpty() ? "left open by this run:\n"
                    : "only a board can settle (this run had stand-ins for it):\n");
            limits.unsettled().forEach(u -> s.append("  - ").append(u).append('\n'));
        }
        return s.toString();
    }
}
