// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a system the overlay edited against the system it read, without Platform Designer: each
 * check a line a user can read, passed or failed with the reason and where.
 */
public final class SystemCheck {
    /** One check: what was checked, whether it held, and (when it did not) why. */
    public record Result(String what, boolean ok, String detail) {
        @Override
        public String toString() {
            return (ok ? "ok    " : "FAIL  ") + what + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /** An agent that must sit on a host at a base address (a register block host software writes). */
    public record Placement(String host, String agent, BigInteger base, BigInteger minSpan, String why) {
    }

    /**
     * An aperture (FACTS section 10) as the model check sees it: BAR {@code bar} of {@code hardIp},
     * served by {@code rxMaster} once {@code burstParameter} is 1, reaches only {@code instance}'s agent
     * {@code s}; its host {@code m} reaches FPGA memory agent {@code memory} as {@code mover} does;
     * the window [{@code fpgaBase}, +{@code barBytes}) lies inside the board's {@code memoryBytes}
     * ({@code memorySource} says where that size comes from).
     */
    public record ApertureWindow(String hardIp, int bar, String rxMaster, String burstParameter, String instance, BigInteger barBytes,
            BigInteger fpgaBase, String mover, String memory, BigInteger memoryBytes, String memorySource) {
    }

    private final SystemModel before;
    private final SystemModel after;
    private final List<Result> results = new ArrayList<>();

    private SystemCheck(SystemModel before, SystemModel after) {
        this.before = before;
        this.after = after;
    }

    /**
     * Runs every check. {@code touched}: the instances the overlay added or changed (each of their
     * interfaces must be served); {@code hostMasters}: the hosts host software reaches the board through
     * (every agent they reached keeps its address); {@code placements}: agents that must sit where host
     * software expects them; {@code unserved}: interfaces of touched instances that may stay open, each
     * {@code inst.ifc}.
     */
    public static List<Result> run(SystemModel before, SystemModel after, Set<String> touched, List<String> hostMasters,
            List<Placement> placements, Set<String> unserved) {
        SystemCheck c = new SystemCheck(before, after);
        c.ends();
        c.served(touched, unserved);
        c.domains(touched);
        c.addresses(hostMasters);
        placements.forEach(c::placed);
        c.conduits();
        return List.copyOf(c.results);
    }

    /**
     * The aperture's checks, on the system after the edits: its BAR (type, size, bursting RX master),
     * its agent alone on that master over the whole BAR, its host reaching FPGA memory where the read
     * mover does, the window inside the board's FPGA memory, and no export of its own.
     */
    public static List<Result> aperture(SystemModel before, SystemModel after, ApertureWindow a) {
        SystemCheck c = new SystemCheck(before, after);
        c.apertureBar(a);
        c.apertureAlone(a);
        c.apertureReach(a);
        c.apertureWindow(a);
        c.apertureExports(a);
        return List.copyOf(c.results);
    }

    private void apertureBar(ApertureWindow a) {
        List<String> bad = new ArrayList<>();
        Optional<DmaView> view = DmaView.of(after).filter(v -> v.hardIp().name().equals(a.hardIp()));
        Optional<DmaView.Bar> bar = view.flatMap(v -> v.bars().stream().filter(b -> b.index() == a.bar()).findFirst());
        if (bar.isEmpty() || !bar.get().enabled()) {
            bad.add("BAR" + a.bar() + " is not enabled" + bar.map(b -> " (" + b.type() + ")").orElse(""));
        } else {
            DmaView.Bar b = bar.get();
            if (b.bits() != 64 || !b.prefetchable()) {
                bad.add("BAR" + a.bar() + " is " + b.type());
            }
            if (!b.size().equals(Optional.of(a.barBytes()))) {
                bad.add("BAR" + a.bar() + " states " + b.size().map(SystemCheck::size).orElse("no size") + ", not " + size(a.barBytes()));
            }
            if (!b.rxMaster().equals(Optional.of(a.rxMaster()))) {
                bad.add("BAR" + a.bar() + " is served by " + b.rxMaster().orElse("no RX master") + ", not " + a.rxMaster());
            }
        }
        view.flatMap(v -> v.bars().stream().filter(b -> b.index() == a.bar() + 1 && b.enabled()).findFirst())
                .ifPresent(b -> bad.add("BAR" + b.index() + " is enabled (" + b.type() + ") but is BAR" + a.bar() + "'s upper half"));
        String burst = after.instance(a.hardIp()).flatMap(i -> i.parameter(a.burstParameter())).orElse("").strip();
        if (!burst.equals("1")) {
            bad.add(a.burstParameter() + " is " + (burst.isEmpty() ? "not stated" : burst));
        }
        boolean bursts = after.iface(a.rxMaster()).map(f -> f.ports().stream().anyMatch(p -> p.role().equals("burstcount"))).orElse(false);
        if (!bursts) {
            bad.add(a.rxMaster() + " has no burstcount: it does not burst");
        }
        add("BAR" + a.bar() + " of " + a.hardIp() + " is 64-bit prefetchable, " + size(a.barBytes()) + ", on the bursting RX master "
                + a.rxMaster() + " (" + a.burstParameter() + " = 1)", bad);
    }

    private void apertureAlone(ApertureWindow a) {
        List<String> bad = new ArrayList<>();
        String agent = a.instance() + ".s";
        List<SystemModel.Mapped> map = after.addressMaps().getOrDefault(a.rxMaster(), List.of());
        for (SystemModel.Mapped m : map) {
            if (!m.agent().equals(agent)) {
                bad.add(m.agent() + " is on it too, at " + hex(m.base()));
            } else if (m.base().signum() != 0 || !m.span().equals(Optional.of(a.barBytes()))) {
                bad.add(agent + " is at " + hex(m.base()) + span(m) + ", not at 0x0 over the whole BAR (" + hex(a.barBytes()) + " bytes)");
            }
        }
        if (map.stream().noneMatch(m -> m.agent().equals(agent))) {
            bad.add(agent + " is not on " + a.rxMaster());
        }
        add(agent + " is the only agent on " + a.rxMaster() + ", at 0x0 across all of BAR" + a.bar() + " ("
                + size(a.barBytes()) + ": Platform Designer sizes the BAR from it)", bad);
    }

    private void apertureReach(ApertureWindow a) {
        List<String> bad = new ArrayList<>();
        String host = a.instance() + ".m";
        Optional<DmaView.Reach> mine = DmaView.reach(after, host).stream().filter(r -> r.agent().equals(a.memory())).findFirst();
        Optional<DmaView.Reach> mover = DmaView.reach(after, a.mover()).stream().filter(r -> r.agent().equals(a.memory())).findFirst();
        String path = mine.map(r -> r.via().isEmpty() ? "" : " through " + String.join(" > ", r.via())).orElse("");
        if (mine.isEmpty()) {
            bad.add(host + " does not reach " + a.memory());
        } else {
            if (mine.get().base().signum() != 0) {
                bad.add(host + " reaches " + a.memory() + " at " + hex(mine.get().base()) + ": FPGA memory address 0 is not its byte 0");
            }
            if (mover.isPresent() && !mover.get().via().equals(mine.get().via())) {
                bad.add(host + " reaches it through " + String.join(" > ", mine.get().via()) + ", " + a.mover() + " through "
                        + String.join(" > ", mover.get().via()));
            }
            BigInteger end = a.fpgaBase().add(a.barBytes());
            if (mine.get().span().isPresent() && mine.get().span().get().compareTo(end) < 0) {
                bad.add(a.memory() + " spans " + hex(mine.get().span().get()) + " bytes, the window ends at " + hex(end));
            }
        }
        if (mover.isEmpty()) {
            bad.add(a.mover() + " does not reach " + a.memory());
        }
        add(host + " reaches FPGA memory as " + a.mover() + " does: " + a.memory() + " at 0x0" + path, bad);
    }

    private void apertureWindow(ApertureWindow a) {
        BigInteger end = a.fpgaBase().add(a.barBytes());
        List<String> bad = new ArrayList<>();
        if (end.compareTo(a.memoryBytes()) > 0) {
            bad.add("it ends at " + hex(end) + ", past " + hex(a.memoryBytes()));
        }
        add("the window [" + hex(a.fpgaBase()) + ", " + hex(end) + ") lies inside the board's FPGA memory (" + size(a.memoryBytes())
                + ": " + a.memorySource() + ")", bad);
    }

    private void apertureExports(ApertureWindow a) {
        List<String> bad = new ArrayList<>();
        for (Export e : after.exports()) {
            if (e.internal().startsWith(a.instance() + ".")) {
                bad.add("export " + e.name() + " of " + e.internal());
            }
        }
        add(a.instance() + " adds no export to the system (its bring-up outputs are terminated)", bad);
    }

    private static String size(BigInteger bytes) {
        return Units.size(bytes);
    }

    private void add(String what, List<String> problems) {
        results.add(new Result(what, problems.isEmpty(), String.join("; ", problems)));
    }

    /** Every connection's two ends exist. */
    private void ends() {
        List<String> bad = new ArrayList<>();
        for (Connection c : after.connections()) {
            for (String end : List.of(c.start(), c.end())) {
                if (after.iface(end).isEmpty() && after.instance(end.substring(0, Math.max(0, end.indexOf('.')))).isPresent()) {
                    bad.add(c.where() + ": " + c.start() + " -> " + c.end() + ": " + end + " does not exist");
                }
            }
        }
        add("every connection ends at an interface that exists (" + after.connections().size() + " connections)", bad);
    }

    private void served(Set<String> touched, Set<String> unserved) {
        for (String name : touched) {
            Optional<Instance> inst = after.instance(name);
            if (inst.isEmpty()) {
                add("instance " + name + " exists", List.of("it is not in the system"));
                continue;
            }
            List<String> bad = new ArrayList<>();
            int n = 0;
            for (Interface f : inst.get().interfaces()) {
                String q = name + "." + f.name();
                boolean wasServed = before.iface(q).isPresent() && !before.connectionsOf(q).isEmpty() || !before.exportsOf(q).isEmpty();
                boolean isNew = before.iface(q).isEmpty();
                if (unserved.contains(q) || (!isNew && !wasServed)) {
                    continue; // open before the overlay, or allowed open
                }
                n++;
                if (after.connectionsOf(q).isEmpty() && after.exportsOf(q).isEmpty()) {
                    bad.add(q + " (" + f.type() + (f.start() ? ", start" : ", end") + ") is connected to nothing and not exported");
                }
            }
            add("every interface of " + name + " that must be served is connected or exported (" + n + " interfaces)", bad);
        }
    }

    private static final Pattern CLOCK_PASS = Pattern.compile(".*(clock_bridge|clock_source|clock_in|clk_in).*", Pattern.CASE_INSENSITIVE);

    /** The clock output that drives {@code inst.clockIfc}, followed through clock bridges; empty when the files do not say. */
    Optional<String> clockSource(String inst, String clockIfc, int depth) {
        Optional<Interface> f = after.iface(inst + "." + clockIfc);
        if (f.isEmpty() || depth > 8) {
            return Optional.empty();
        }
        if (f.get().start()) {
            Instance i = after.instance(inst).orElseThrow();
            if (CLOCK_PASS.matcher(i.kind()).matches()) {
                List<Interface> ins = i.interfaces().stream().filter(x -> x.type().equals("clock") && !x.start()).toList();
                if (ins.size() == 1) {
                    return clockSource(inst, ins.getFirst().name(), depth + 1).or(() -> Optional.of(inst + "." + clockIfc));
                }
            }
            return Optional.of(inst + "." + clockIfc);
        }
        for (Connection c : after.connections()) {
            if (c.kind().equals("clock") && c.end().equals(inst + "." + clockIfc)) {
                return clockSource(c.startInstance(), c.startInterface(), depth + 1);
            }
        }
        for (Export e : after.exports()) {
            if (e.internal().equals(inst + "." + clockIfc)) {
                return Optional.of("exported clock input " + e.name());
            }
        }
        return Optional.empty();
    }

    /** The clock domain of an interface: the clock output its associated clock comes from. */
    Optional<String> domain(String qualified) {
        int dot = qualified.indexOf('.');
        Optional<Interface> f = after.iface(qualified);
        if (f.isEmpty()) {
            return Optional.empty();
        }
        if (f.get().type().equals("clock")) {
            return clockSource(qualified.substring(0, dot), f.get().name(), 0);
        }
        return f.get().associatedClock().flatMap(clk -> clockSource(qualified.substring(0, dot), clk, 0));
    }

    private void domains(Set<String> touched) {
        List<String> bad = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        int n = 0;
        for (Connection c : after.connections()) {
            if (!(c.kind().startsWith("avalon")) || !(touched.contains(c.startInstance()) || touched.contains(c.endInstance()))) {
                continue;
            }
            if (before.connections().stream().anyMatch(b -> b.start().equals(c.start()) && b.end().equals(c.end()))) {
                continue;
            }
            n++;
            Optional<String> a = domain(c.start());
            Optional<String> b = domain(c.end());
            if (a.isEmpty() || b.isEmpty()) {
                unknown.add(c.start() + " -> " + c.end());
            } else if (!a.get().equals(b.get())) {
                bad.add(c.where() + ": " + c.start() + " runs on " + a.get() + " but " + c.end() + " on " + b.get());
            }
        }
        for (String u : unknown) {
            bad.add(u + ": the clock of an end is not known (no associated clock, or its clock input is not connected)");
        }
        add("each new Avalon connection joins two interfaces of one clock domain (" + n + " connections)", bad);
        // each touched instance's reset inputs are driven by a reset of the clock they are associated with
        List<String> resetBad = new ArrayList<>();
        int r = 0;
        for (String name : touched) {
            Instance inst = after.instance(name).orElse(null);
            if (inst == null) {
                continue;
            }
            for (Interface f : inst.interfaces()) {
                if (!f.type().equals("reset") || f.start()) {
                    continue;
                }
                r++;
                String q = name + "." + f.name();
                Optional<Connection> drive = after.connections().stream().filter(c -> c.kind().equals("reset") && c.end().equals(q)).findFirst();
                if (drive.isEmpty()) {
                    if (after.exportsOf(q).isEmpty()) {
                        resetBad.add(q + " is driven by no reset");
                    }
                    continue;
                }
                Optional<String> want = f.associatedClock().flatMap(clk -> clockSource(name, clk, 0));
                Optional<String> got = domain(drive.get().start());
                if (want.isPresent() && got.isPresent() && !want.get().equals(got.get())) {
                    resetBad.add(drive.get().where() + ": " + q + " belongs to " + want.get() + " but is driven by "
                            + drive.get().start() + ", synchronous to " + got.get());
                }
            }
        }
        add("each reset input of the new and changed instances is driven by a reset of its own clock (" + r + " resets)", resetBad);
    }

    /** Every agent any of {@code hosts} reached before keeps its base address and span; nothing new overlaps it. */
    private void addresses(List<String> hosts) {
        Map<String, List<SystemModel.Mapped>> was = before.addressMaps();
        Map<String, List<SystemModel.Mapped>> is = after.addressMaps();
        for (String host : hosts) {
            List<String> bad = new ArrayList<>();
            List<SystemModel.Mapped> old = was.getOrDefault(host, List.of());
            List<SystemModel.Mapped> now = is.getOrDefault(host, List.of());
            List<String> replaced = new ArrayList<>();
            for (SystemModel.Mapped m : old) {
                boolean kept = now.stream().anyMatch(x -> x.agent().equals(m.agent()) && x.base().equals(m.base()) && x.span().equals(m.span()));
                if (kept) {
                    continue;
                }
                // an agent that went away is still served where another now answers at its base, over at least its span
                Optional<SystemModel.Mapped> by = now.stream().filter(x -> old.stream().noneMatch(o -> o.agent().equals(x.agent()))
                        && x.base().equals(m.base()) && covers(x, m)).findFirst();
                if (by.isPresent() && after.iface(m.agent()).isEmpty()) {
                    replaced.add(m.agent() + " by " + by.get().agent());
                } else {
                    bad.add(m.agent() + " at " + hex(m.base()) + " moved or went away");
                }
            }
            for (SystemModel.Mapped m : now) {
                if (old.stream().anyMatch(x -> x.agent().equals(m.agent()))) {
                    continue;
                }
                for (SystemModel.Mapped o : now) {
                    if (o != m && overlaps(m, o)) {
                        bad.add(m.agent() + " at " + hex(m.base()) + span(m) + " overlaps " + o.agent() + " at " + hex(o.base()) + span(o));
                    }
                }
            }
            long added = now.stream().filter(x -> old.stream().noneMatch(o -> o.agent().equals(x.agent()))).count() - replaced.size();
            add("no address host software uses on " + host + " moved (" + (old.size() - replaced.size()) + " agents kept"
                    + (replaced.isEmpty() ? "" : ", " + String.join(", ", replaced) + " at the same address")
                    + (added > 0 ? ", " + added + " added in free space" : "") + ")", bad);
        }
    }

    /** {@code x} answers over all of {@code m}'s span (an unknown span counts as one byte). */
    private static boolean covers(SystemModel.Mapped x, SystemModel.Mapped m) {
        BigInteger need = m.span().orElse(BigInteger.ONE);
        return x.span().map(s -> s.compareTo(need) >= 0).orElse(false);
    }

    private static boolean overlaps(SystemModel.Mapped a, SystemModel.Mapped b) {
        BigInteger aEnd = a.end().orElse(a.base().add(BigInteger.ONE));
        BigInteger bEnd = b.end().orElse(b.base().add(BigInteger.ONE));
        return a.base().compareTo(bEnd) < 0 && b.base().compareTo(aEnd) < 0;
    }

    private static String span(SystemModel.Mapped m) {
        return m.span().map(s -> " (" + hex(s) + " bytes)").orElse("");
    }

    static String hex(BigInteger v) {
        return "0x" + v.toString(16).toUpperCase(Locale.ROOT);
    }

    private void placed(Placement p) {
        List<String> bad = new ArrayList<>();
        Optional<SystemModel.Mapped> m = after.addressMaps().getOrDefault(p.host(), List.of()).stream()
                .filter(x -> x.agent().equals(p.agent())).findFirst();
        if (m.isEmpty()) {
            bad.add(p.agent() + " is not on " + p.host());
        } else {
            if (!m.get().base().equals(p.base())) {
                bad.add(p.agent() + " is at " + hex(m.get().base()) + ", host software expects " + hex(p.base()));
            }
            if (m.get().span().isPresent() && m.get().span().get().compareTo(p.minSpan()) < 0) {
                bad.add(p.agent() + " spans " + hex(m.get().span().get()) + " bytes, host software uses " + hex(p.minSpan()));
            }
        }
        add(p.agent() + " at " + p.host() + " " + hex(p.base()) + " (" + p.why() + ")", bad);
    }

    /** A conduit joins exactly two ends: no conduit interface in two connections or exported and connected. */
    private void conduits() {
        Map<String, List<String>> uses = new LinkedHashMap<>();
        for (Connection c : after.connections()) {
            if (c.kind().equals("conduit")) {
                uses.computeIfAbsent(c.start(), k -> new ArrayList<>()).add(c.where().toString());
                uses.computeIfAbsent(c.end(), k -> new ArrayList<>()).add(c.where().toString());
            }
        }
        for (Export e : after.exports()) {
            Optional<Interface> f = after.iface(e.internal());
            if (f.isPresent() && f.get().type().equals("conduit") || "conduit".equals(e.type())) {
                uses.computeIfAbsent(e.internal(), k -> new ArrayList<>()).add("export " + e.name());
            }
        }
        List<String> bad = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        uses.forEach((ifc, where) -> {
            if (where.size() > 1 && seen.add(ifc)) {
                bad.add(ifc + " has " + where.size() + " ends (" + String.join(", ", where) + ")");
            }
        });
        add("no conduit has more than one other end (" + uses.size() + " conduit ends)", bad);
    }
}
