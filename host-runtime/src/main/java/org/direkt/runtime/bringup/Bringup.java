// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.runtime.bringup.BringupReport.Check;
import org.direkt.runtime.bringup.BringupReport.Latency;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.SimulatedBridge;

/**
 * The bring-up: runs a {@link BringupPlan} on a {@link BringupTarget} and decides, from what the
 * bridge's bring-up registers and the kernel's statuses show, whether the overlay's configuration
 * matches the hardware.
 *
 * <ul>
 * <li><b>bitstream</b>: MAGIC, VERSION and CONFIG against the overlay: is the bitstream's bridge the
 *     one the overlay describes? Each differing setting is named.</li>
 * <li><b>word order</b>: each direction's LAST_DESC holds the last descriptor exactly as it was on
 *     the channel. It is the kernel's descriptor with x0 at bits [31:0] or at [255:224] (or neither);
 *     that is the channel's word order, compared with the overlay's {@code word_order}.</li>
 * <li><b>kernel status</b>: each status the kernel read, decoded with the overlay's status layout,
 *     must carry what the bridge answers for the descriptor as the bridge read it (in the bitstream's
 *     own word order, CONFIG's x0_high): the tag it read and the error its first checks give
 *     (RESERVED, TOO_LONG, ZERO_LENGTH, BAD_ID, in Layout.Error's order), OK otherwise, with a
 *     non-zero elapsed count when completed. When they decode so only with the other status mode's
 *     layout, that mode is named.</li>
 * <li><b>mover status</b>: LAST_MOVER_STATUS is the hard IP's raw status word for the direction's
 *     last completed descriptor; decoded with {@link Layout#MOVER_STATUS} (a format not confirmed on
 *     hardware) it must say completed, not aborted or flushed, for a kernel ID.</li>
 * <li><b>latency</b> per direction: the elapsed dma_clk cycles of the completed descriptors'
 *     statuses, and the kernel's view where the target has one.</li>
 * </ul>
 */
public final class Bringup {
    private Bringup() {
    }

    /**
     * The bring-up of {@code config} on the simulated back end with {@code injections} (each a wrong
     * setting, see {@link Injection}); without any, the simulated hardware is what the overlay describes.
     */
    public static BringupReport simulated(BridgeConfig config, Set<Injection> injections, SimulatedBridge bridge) {
        BridgeSpec hardware = config.params();
        BridgeConfig believed = config;
        BridgeModes.WordOrder channel = hardware.wordOrder();
        List<String> injected = new ArrayList<>();
        for (Injection i : Injection.values()) {
            if (!injections.contains(i)) {
                continue;
            }
            switch (i) {
                case WORD_ORDER -> channel = other(hardware.wordOrder());
                case STATUS_MODE -> believed = believed.believing(believed.params().withStatusMode(other(hardware.statusMode())));
            }
            injected.add(i.key() + ": " + i.describe);
        }
        return run(believed, new SimulatedTarget(bridge, hardware, config.generatorParams(), channel), injected);
    }

    /** Plans for {@code config} on {@code target}'s buffers, runs it and analyses what it showed, within the target's limits. */
    public static BringupReport run(BridgeConfig config, BringupTarget target, List<String> injected) {
        BringupPlan plan = BringupPlan.of(config, target.buffers());
        return analyse(plan, target.run(plan), target.describe(), injected).within(target.limits());
    }

    private static BridgeModes.WordOrder other(BridgeModes.WordOrder o) {
        return o == BridgeModes.WordOrder.X0_LOW ? BridgeModes.WordOrder.X0_HIGH : BridgeModes.WordOrder.X0_LOW;
    }

    private static BridgeModes.StatusMode other(BridgeModes.StatusMode m) {
        return m == BridgeModes.StatusMode.TAGGED ? BridgeModes.StatusMode.CYCLES : BridgeModes.StatusMode.TAGGED;
    }

    private static String text(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    // ------------------------------------------------------------------ analysis

    /**
     * What the bitstream's CONFIG register says the bridge is; {@code blocked}, when not null, why
     * nothing more can be decided from the registers.
     */
    private record Hardware(BridgeModes.WordOrder wordOrder, boolean paperIds, boolean cycles, String blocked) {
        static Hardware blocked(String why) {
            return new Hardware(null, false, false, why);
        }
    }

    /** Decides every check from {@code obs}, the observation of {@code plan}. */
    public static BringupReport analyse(BringupPlan plan, BringupTarget.Observation obs, String target, List<String> injected) {
        if (obs.statuses().size() != plan.probes().size()) {
            throw new IllegalArgumentException(target + " returned " + obs.statuses().size() + " statuses for "
                    + plan.probes().size() + " descriptors");
        }
        for (String r : plan.reads()) {
            if (!obs.registers().containsKey(r)) {
                throw new IllegalArgumentException(target + " did not read register " + r);
            }
        }
        BridgeConfig config = plan.config();
        String overlay = config.manifest().toString();
        String issued = plan.probes().size() / 2 + " descriptors per direction of " + BringupPlan.BYTES + " bytes (kernel "
                + "examples/kernels/direkt_bringup.cl), window " + BringupPlan.WINDOW + " on [" + Bytes.hex(plan.window().base())
                + ", " + Bytes.hex(plan.window().last()) + "]";
        List<Check> checks = new ArrayList<>();
        List<Latency> latencies = new ArrayList<>();

        Hardware hw = bitstream(config, obs.registers(), checks);
        if (hw.blocked() != null) {
            String why = hw.blocked();
            for (String name : List.of(BringupReport.WORD_ORDER, BringupReport.KERNEL_STATUS, BringupReport.MOVER_STATUS)) {
                checks.add(Check.notChecked(name, why));
            }
            for (Direction d : Direction.values()) {
                latencies.add(new Latency(d, List.of(), List.of(), BringupPlan.BYTES, obs.dmaClockPs(), why));
            }
            return new BringupReport(overlay, target, injected, issued, checks, latencies);
        }

        Map<Direction, BridgeModes.WordOrder> placement = wordOrder(plan, obs.registers(), checks);
        BridgeModes.StatusMode mode = null;
        String unknown;
        if (placement.size() != Direction.values().length) {
            unknown = "how the bridge read the descriptors is not known (see word order)";
            checks.add(Check.notChecked(BringupReport.KERNEL_STATUS, unknown));
        } else {
            mode = kernelStatus(plan, obs, hw, placement, checks);
            unknown = "the statuses decode with neither status layout (see kernel status)";
        }
        Map<Direction, List<BringupPlan.Probe>> completed = new EnumMap<>(Direction.class);
        if (mode != null) {
            BridgeModes.StatusMode m = mode;
            for (Direction d : Direction.values()) {
                completed.put(d, plan.probes(d).stream()
                        .filter(p -> expected(view(p, placement.get(d), hw), m == BridgeModes.StatusMode.CYCLES, hw.paperIds())
                                == Layout.Error.OK).toList());
            }
        }
        moverStatus(obs.registers(), mode, completed, unknown, checks);
        for (Direction d : Direction.values()) {
            latencies.add(latency(d, obs, mode, completed.get(d), unknown));
        }
        return new BringupReport(overlay, target, injected, issued, checks, latencies);
    }

    // ------------------------------------------------------------------ bitstream

    private static Hardware bitstream(BridgeConfig config, Map<String, Long> regs, List<Check> checks) {
        long magic = regs.get("MAGIC");
        if (magic != Layout.CSR_MAGIC) {
            checks.add(Check.mismatch(BringupReport.BITSTREAM, "MAGIC reads " + hex32(magic) + ", a direkt bridge answers "
                    + hex32(Layout.CSR_MAGIC) + " (\"DRKT\"): the CSR reads do not reach a direkt bridge",
                    "check the bridge's CSR address in the board system (direkt_integrate.tcl, MANUAL CHECK) and that the "
                            + "bitstream was built with the overlay"));
            return Hardware.blocked("the CSR does not answer as a direkt bridge (see bitstream)");
        }
        long version = regs.get("VERSION");
        if (version != Layout.VERSION) {
            checks.add(Check.mismatch(BringupReport.BITSTREAM, "VERSION reads " + version + ": the bitstream's bridge speaks "
                    + "layout version " + version + ", the overlay and this runtime " + Layout.VERSION,
                    "rebuild the bitstream from this overlay (or use the direkt of the bitstream's layout version)"));
            return Hardware.blocked("the bitstream's registers may sit elsewhere in another layout version (see bitstream)");
        }
        Map<String, BigInteger> cfg = Layout.CSR_CONFIG.unpack(BigInteger.valueOf(regs.get("CONFIG")));
        Function<String, Long> f = name -> cfg.get(name).longValueExact();
        Hardware hw = new Hardware(f.apply("x0_high") != 0 ? BridgeModes.WordOrder.X0_HIGH : BridgeModes.WordOrder.X0_LOW,
                f.apply("paper_ids") != 0, f.apply("cycles_status") != 0, null);
        Map<String, String> built = new LinkedHashMap<>();
        built.put("windows", Long.toString(f.apply("window_entries")));
        built.put("inflight", Long.toString(f.apply("inflight")));
        built.put("id_mode", text(hw.paperIds() ? BridgeModes.IdMode.PAPER : BridgeModes.IdMode.MANAGED));
        built.put("status_mode", text(hw.cycles() ? BridgeModes.StatusMode.CYCLES : BridgeModes.StatusMode.TAGGED));
        built.put("word_order", text(hw.wordOrder()));
        built.put("sync_stages", Long.toString(f.apply("sync_stages")));
        built.put("counters", Boolean.toString(f.apply("counters") != 0));
        built.put("bringup", Boolean.toString(f.apply("bringup") != 0));
        List<String> differ = new ArrayList<>();
        List<String> fix = new ArrayList<>();
        built.forEach((name, value) -> {
            String mine = config.setting(name);
            if (!mine.equals(value)) {
                differ.add(name + ": bitstream " + value + ", overlay " + mine);
                fix.add(name + "=" + value);
            }
        });
        if (differ.isEmpty()) {
            checks.add(Check.ok(BringupReport.BITSTREAM, "MAGIC \"DRKT\", layout version " + version + ", CONFIG as the overlay says ("
                    + String.join(", ", built.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()) + ")"));
        } else {
            checks.add(Check.mismatch(BringupReport.BITSTREAM, "CONFIG differs from the overlay: " + String.join("; ", differ),
                    "use the overlay the bitstream was built from (" + String.join(", ", fix)
                            + ") and recompile the kernel against its header, or rebuild the bitstream from this overlay"));
        }
        if (f.apply("bringup") == 0) {
            return Hardware.blocked("the bitstream's bridge has no bring-up registers (CONFIG bringup=0, see bitstream)");
        }
        return hw;
    }

    // ------------------------------------------------------------------ word order

    /** Each direction's channel word order as LAST_DESC shows it; a direction missing from the map showed neither. */
    private static Map<Direction, BridgeModes.WordOrder> wordOrder(BringupPlan plan, Map<String, Long> regs, List<Check> checks) {
        BridgeModes.WordOrder configured = plan.config().params().wordOrder();
        Map<Direction, BridgeModes.WordOrder> found = new EnumMap<>(Direction.class);
        List<String> problems = new ArrayList<>();
        List<String> changes = new ArrayList<>();
        for (Direction d : Direction.values()) {
            long[] sent = plan.probes(d).getLast().words();
            long[] got = BringupPlan.lastDesc(d).stream().mapToLong(regs::get).toArray();
            if (java.util.Arrays.equals(got, sent)) {
                found.put(d, BridgeModes.WordOrder.X0_LOW);
            } else if (java.util.Arrays.equals(got, BringupPlan.reversed(sent))) {
                found.put(d, BridgeModes.WordOrder.X0_HIGH);
            } else if (java.util.Arrays.stream(got).allMatch(v -> v == 0)) {
                problems.add(d.tag() + ": LAST_DESC reads 0: no descriptor reached the bridge's " + d.tag() + " channel");
                changes.add("check the kernel's " + d.tag() + " descriptor channel reaches the bridge (board_spec.xml, "
                        + "direkt_integrate.tcl)");
            } else {
                problems.add(d.tag() + ": LAST_DESC holds the last descriptor in neither word order (" + landed(sent, got) + ")");
                changes.add("the kernel's channel carries cldesc_t in a layout the bridge cannot take (it takes x0_low and "
                        + "x0_high): check the kernel declares the channel as cldesc_t of the overlay's header");
            }
        }
        if (!problems.isEmpty()) {
            checks.add(Check.mismatch(BringupReport.WORD_ORDER, String.join("; ", problems), String.join("; ", changes.stream()
                    .distinct().toList())));
            return found;
        }
        BridgeModes.WordOrder rd = found.get(Direction.RD);
        BridgeModes.WordOrder wr = found.get(Direction.WR);
        if (rd != wr) {
            checks.add(Check.mismatch(BringupReport.WORD_ORDER, "the directions differ: rd carries x0 " + SimulatedTarget.where(rd)
                    + ", wr " + SimulatedTarget.where(wr), "check both descriptor channels are declared as cldesc_t of the "
                    + "overlay's header (direkt lint-kernel); the bridge has one word_order for both"));
            return found;
        }
        String seen = "rd, wr: LAST_DESC holds the last descriptor with x0 " + SimulatedTarget.where(rd) + " (LAST_DESC_"
                + (rd == BridgeModes.WordOrder.X0_LOW ? 0 : Layout.CSR_LAST_DESC_REGS - 1) + ")";
        if (rd == configured) {
            checks.add(Check.ok(BringupReport.WORD_ORDER, seen + ", as word_order=" + text(configured) + " says"));
        } else {
            checks.add(Check.mismatch(BringupReport.WORD_ORDER, seen + ": the kernel's channel carries word_order=" + text(rd)
                    + ", the overlay says " + text(configured), "word_order=" + text(rd) + ": regenerate the overlay with it "
                    + "(direkt overlay --config FILE, FILE holding {\"word_order\": \"" + text(rd) + "\"}) and rebuild the bitstream; "
                    + "the kernel's source stays as it is"));
        }
        return found;
    }

    /** Where each word of {@code sent} landed in {@code got}. */
    private static String landed(long[] sent, long[] got) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < sent.length; i++) {
            int at = -1;
            for (int j = 0; j < got.length && at < 0; j++) {
                if (got[j] == sent[i]) {
                    at = j;
                }
            }
            out.add("x" + i + " " + hex32(sent[i]) + (at < 0 ? " not found" : " in LAST_DESC_" + at));
        }
        return String.join(", ", out);
    }

    // ------------------------------------------------------------------ kernel status

    /** The words as the bridge read them: as written when the channel's order is the bridge's own, reversed otherwise. */
    private static long[] view(BringupPlan.Probe p, BridgeModes.WordOrder channel, Hardware hw) {
        return channel == hw.wordOrder() ? p.words() : BringupPlan.reversed(p.words());
    }

    private static BigInteger value(long[] words) {
        BigInteger v = BigInteger.ZERO;
        for (int i = words.length - 1; i >= 0; i--) {
            v = v.shiftLeft(Layout.CLDESC_WORD_BITS).or(BigInteger.valueOf(words[i]));
        }
        return v;
    }

    /**
     * The bridge's answer to a descriptor read as {@code view}, by its first checks in Layout.Error's
     * order; the plan's descriptors pass every later check (aligned, inside the window, inside FPGA
     * memory) when read as built, and a reversed one always fails RESERVED (its non-zero source is in x6/x7).
     */
    static Layout.Error expected(long[] view, boolean cycles, boolean paperIds) {
        Map<String, BigInteger> f = Layout.CLDESC.unpack(value(view));
        Function<String, Boolean> set = name -> f.get(name).signum() != 0;
        if (set.apply("flags") || set.apply("reserved") || cycles && set.apply("tag")) {
            return Layout.Error.RESERVED;
        }
        if (set.apply("len_overflow") || !paperIds && set.apply("id")) {
            return Layout.Error.TOO_LONG;
        }
        if (!set.apply("dwords")) {
            return Layout.Error.ZERO_LENGTH;
        }
        if (paperIds && f.get("id").intValue() < Layout.KERNEL_ID_FIRST) {
            return Layout.Error.BAD_ID;
        }
        return Layout.Error.OK;
    }

    /** Why {@code raw} is not the status {@code mode} gives for a descriptor read as {@code view}; null when it is. */
    private static String disagreement(long raw, long[] view, BridgeModes.StatusMode mode, boolean paperIds) {
        BigInteger s = new BigInteger(Long.toUnsignedString(raw));
        boolean cycles = mode == BridgeModes.StatusMode.CYCLES;
        Layout.Error want = expected(view, cycles, paperIds);
        List<String> wrong = new ArrayList<>();
        if (!cycles) {
            Map<String, BigInteger> got = Layout.KERNEL_STATUS_TAGGED.unpack(s);
            long tag = Layout.CLDESC.field("tag").getLong(value(view));
            long error = got.get("error").longValueExact();
            if (got.get("tag").longValueExact() != tag) {
                wrong.add("tag " + hex32(got.get("tag").longValueExact()) + ", the bridge read " + hex32(tag));
            }
            if (error != want.code()) {
                wrong.add("error " + errorName(error) + ", expected " + want);
            } else if (want == Layout.Error.OK && got.get("elapsed").signum() == 0) {
                wrong.add("elapsed 0 for a completed descriptor");
            }
        } else {
            Map<String, BigInteger> got = Layout.KERNEL_STATUS_CYCLES.unpack(s);
            BigInteger failed = got.get("failed");
            BigInteger ones = Layout.KERNEL_STATUS_CYCLES.field("failed").mask();
            if (want == Layout.Error.OK && failed.signum() != 0) {
                wrong.add("failed " + hex(failed) + ", expected 0 (completed)");
            } else if (want == Layout.Error.OK && got.get("cycles").signum() == 0) {
                wrong.add("cycles 0 for a completed descriptor");
            } else if (want != Layout.Error.OK && !failed.equals(ones)) {
                wrong.add("failed " + hex(failed) + ", expected all ones (rejected: " + want + ")");
            }
        }
        return wrong.isEmpty() ? null : String.join(", ", wrong);
    }

    private static String errorName(long code) {
        Layout.Error[] all = Layout.Error.values();
        return code < all.length ? all[(int) code].name() : "code " + code;
    }

    /** Adds the kernel status check; returns the status mode the statuses decode with, or null if neither. */
    private static BridgeModes.StatusMode kernelStatus(BringupPlan plan, BringupTarget.Observation obs, Hardware hw,
                                                  Map<Direction, BridgeModes.WordOrder> placement, List<Check> checks) {
        BridgeModes.StatusMode configured = plan.config().params().statusMode();
        Map<BridgeModes.StatusMode, String> firstWrong = new EnumMap<>(BridgeModes.StatusMode.class);
        for (BridgeModes.StatusMode m : List.of(configured, other(configured))) {
            for (BringupPlan.Probe p : plan.probes()) {
                long raw = obs.statuses().get(p.index());
                String why = disagreement(raw, view(p, placement.get(p.direction()), hw), m, hw.paperIds());
                if (why != null) {
                    firstWrong.put(m, p.describe() + ": status " + hex64(raw) + " as " + text(m) + " status: " + why);
                    break;
                }
            }
        }
        String layout = configured == BridgeModes.StatusMode.TAGGED ? "tagged (tag, error, elapsed)" : "cycles (cycles, failed)";
        if (!firstWrong.containsKey(configured)) {
            Map<Layout.Error, Integer> counts = new EnumMap<>(Layout.Error.class);
            for (BringupPlan.Probe p : plan.probes()) {
                counts.merge(expected(view(p, placement.get(p.direction()), hw), configured == BridgeModes.StatusMode.CYCLES,
                        hw.paperIds()), 1, Integer::sum);
            }
            List<String> what = new ArrayList<>();
            counts.forEach((e, n) -> what.add(n + (e == Layout.Error.OK ? " completed" : " " + e)));
            checks.add(Check.ok(BringupReport.KERNEL_STATUS, plan.probes().size() + " statuses decode as status_mode="
                    + text(configured) + " says, " + layout + ", with the answers the bridge owes the descriptors as it read them: "
                    + String.join(", ", what)));
            return configured;
        }
        BridgeModes.StatusMode alt = other(configured);
        if (!firstWrong.containsKey(alt)) {
            checks.add(Check.mismatch(BringupReport.KERNEL_STATUS, "the statuses do not decode as status_mode=" + text(configured)
                    + " says (" + firstWrong.get(configured) + ") but all decode as status_mode=" + text(alt),
                    "status_mode=" + text(alt) + ": the bitstream's bridge returns " + text(alt) + " statuses; use the overlay "
                            + "it was built from (status_mode=" + text(alt) + ") and recompile the kernel against its header, or "
                            + "rebuild the bitstream from this overlay"));
            return alt;
        }
        checks.add(Check.mismatch(BringupReport.KERNEL_STATUS, "the statuses decode with neither status layout ("
                + firstWrong.get(configured) + "; " + firstWrong.get(alt) + ")",
                "the bridge's kernel status differs from Layout's kernel_status words: rebuild the bitstream from this overlay"));
        return null;
    }

    // ------------------------------------------------------------------ mover status

    private static void moverStatus(Map<String, Long> regs, BridgeModes.StatusMode mode, Map<Direction, List<BringupPlan.Probe>> completed,
                                    String unknown, List<Check> checks) {
        if (mode == null) {
            checks.add(Check.notChecked(BringupReport.MOVER_STATUS, "which descriptors completed is not known: " + unknown));
            return;
        }
        List<String> seen = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        List<String> none = new ArrayList<>();
        for (Direction d : Direction.values()) {
            List<BringupPlan.Probe> done = completed.get(d);
            if (done.isEmpty()) {
                none.add(d.tag());
                continue;
            }
            BringupPlan.Probe last = done.getLast();
            long raw = regs.get(BringupPlan.lastMoverStatus(d));
            Map<String, BigInteger> f = Layout.MOVER_STATUS.unpack(BigInteger.valueOf(raw));
            int id = f.get("id").intValue();
            boolean kernelId = Layout.DESC_ID.field("kernel").getLong(BigInteger.valueOf(id)) == 1
                    && (last.id() == 0 || id == last.id());
            boolean good = f.get("completed").intValue() == 1 && f.get("aborted").signum() == 0 && f.get("flushed").signum() == 0
                    && kernelId;
            String decoded = d.tag() + ": " + hex32(raw) + " = id " + id + ", completed " + f.get("completed") + ", aborted "
                    + f.get("aborted") + ", flushed " + f.get("flushed");
            if (good) {
                seen.add(decoded);
            } else {
                wrong.add(decoded + ", for " + last.describe() + ", which completed"
                        + (last.id() != 0 ? " with ID " + last.id() : " with a kernel ID (" + Layout.KERNEL_ID_FIRST + ".."
                        + Layout.KERNEL_ID_LAST + ")"));
            }
        }
        if (!wrong.isEmpty()) {
            checks.add(Check.mismatch(BringupReport.MOVER_STATUS, "LAST_MOVER_STATUS does not decode with the overlay's mover_status "
                    + "as a completion: " + String.join("; ", wrong), "the hard IP's status word is not Layout.MOVER_STATUS (a "
                    + "format from an older public source, not confirmed): correct its fields in generators' Layout to the "
                    + "user guide's, regenerate the overlay and rebuild the bitstream"));
        } else if (seen.isEmpty()) {
            checks.add(Check.notChecked(BringupReport.MOVER_STATUS, "no descriptor completed on " + String.join(" or ", none)));
        } else {
            checks.add(new Check(BringupReport.MOVER_STATUS, none.isEmpty() ? BringupReport.Verdict.OK
                    : BringupReport.Verdict.NOT_CHECKED, "LAST_MOVER_STATUS decodes with the overlay's mover_status as the "
                    + "completion of the direction's last completed descriptor: " + String.join("; ", seen)
                    + (none.isEmpty() ? "" : "; no descriptor completed on " + String.join(" or ", none)), ""));
        }
    }

    // ------------------------------------------------------------------ latency

    private static Latency latency(Direction d, BringupTarget.Observation obs, BridgeModes.StatusMode mode,
                                   List<BringupPlan.Probe> completed, String unknown) {
        if (mode == null || completed.isEmpty()) {
            return new Latency(d, List.of(), List.of(), BringupPlan.BYTES, obs.dmaClockPs(), mode == null
                    ? unknown : "no descriptor completed on " + d.tag());
        }
        Layout.Field elapsed = mode == BridgeModes.StatusMode.TAGGED ? Layout.KERNEL_STATUS_TAGGED.field("elapsed")
                : Layout.KERNEL_STATUS_CYCLES.field("cycles");
        List<Long> dma = new ArrayList<>();
        List<Long> kernel = new ArrayList<>();
        for (BringupPlan.Probe p : completed) {
            dma.add(elapsed.getLong(new BigInteger(Long.toUnsignedString(obs.statuses().get(p.index())))));
            long k = obs.kernelCycles().get(p.index());
            if (k >= 0) {
                kernel.add(k);
            }
        }
        return new Latency(d, dma, kernel.size() == dma.size() ? kernel : List.of(), BringupPlan.BYTES, obs.dmaClockPs(), "");
    }

    // ------------------------------------------------------------------ text

    private static String hex32(long v) {
        return String.format(Locale.ROOT, "0x%08x", v & 0xFFFF_FFFFL);
    }

    private static String hex64(long v) {
        return String.format(Locale.ROOT, "0x%016x", v);
    }

    private static String hex(BigInteger v) {
        return "0x" + v.toString(16);
    }
}
