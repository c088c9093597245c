// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The structural rules of a module, checked once its generator has returned: every output, wire
 * and instance input driven exactly once on each path; no combinational loop; registers named;
 * no read across clock domains except through the synchroniser; child domains bound. Unused
 * inputs and signals never read are warnings (Verilator's -Wall would flag them too).
 */
final class Checker {
    private final ModuleBuilder m;
    private final List<Diagnostic> out = new ArrayList<>();
    private final Map<Signal, List<Stmt>> drivers = new LinkedHashMap<>();
    private final Map<Signal, Map<ClockDomain, String>> domainMemo = new HashMap<>();
    private final Set<Signal> domainInProgress = new HashSet<>();
    private final Map<String, Set<String>> combPaths = new LinkedHashMap<>();
    private final Set<Expr> reportedTemps = new HashSet<>();
    private final Map<String, String> crossingInputs = new LinkedHashMap<>();

    Checker(ModuleBuilder m) {
        this.m = m;
    }

    Map<String, Set<String>> combPaths() {
        return combPaths;
    }

    /** The input ports that reach a synchroniser straight, each with the synchroniser's path. */
    Map<String, String> crossingInputs() {
        return crossingInputs;
    }

    List<Diagnostic> run() {
        for (Signal s : assignables()) {
            drivers.put(s, Drivers.project(m.body, s));
        }
        checkNames();
        checkDrivers();
        checkBindings();
        checkSynchroniserInputs();
        checkDomains();
        checkLoops();
        checkUsage();
        return out;
    }

    private List<Signal> assignables() {
        List<Signal> r = new ArrayList<>();
        for (Signal p : m.ports) {
            if (p.kind() == Signal.Kind.OUTPUT) {
                r.add(p);
            }
        }
        for (Signal s : m.signals) {
            if (s.kind() == Signal.Kind.WIRE || s.kind() == Signal.Kind.REG || s.kind() == Signal.Kind.INST_IN) {
                r.add(s);
            }
        }
        return r;
    }

    private void error(SourceLoc loc, String format, Object... args) {
        out.add(Diagnostic.error(loc, String.format(format, args)));
    }

    private void warning(SourceLoc loc, String format, Object... args) {
        out.add(Diagnostic.warning(loc, String.format(format, args)));
    }

    // ---------------------------------------------------------------- names

    private void checkNames() {
        for (Signal s : m.signals) {
            if (s.name() == null) {
                error(s.loc(), "register declared here has no name: give it one with named(\"...\")");
            }
        }
    }

    // ---------------------------------------------------------------- drivers

    private void checkDrivers() {
        for (Map.Entry<Signal, List<Stmt>> e : drivers.entrySet()) {
            Signal s = e.getKey();
            List<Stmt> d = e.getValue();
            checkMultiple(s, d);
            if (d.isEmpty()) {
                switch (s.kind()) {
                    case OUTPUT -> error(s.loc(), "output '%s' is never driven", s.name());
                    case WIRE -> error(s.loc(), "wire '%s' is never driven", s.name());
                    case REG -> error(s.loc(), "register '%s' is never assigned: give it a next value", s.name());
                    case INST_IN -> error(s.instance.loc(), "input '%s' of instance '%s' (%s) is not connected",
                            s.pin, s.instance.name(), s.instance.child().name());
                    default -> throw new IllegalStateException(s.kind().name());
                }
            } else if (s.kind() != Signal.Kind.REG && !Drivers.complete(d)) {
                Stmt.Assign first = Drivers.first(d);
                error(first.loc(), "%s is not driven on every path: it would infer a latch; give it a default value before the when",
                        s.describe());
            }
        }
        for (Memory mem : m.memories) {
            if (mem.writePort == null) {
                error(mem.loc(), "memory '%s' is never written: give it a write port", mem.name());
            }
        }
    }

    /**
     * An assignment is a second driver when an earlier statement of the same scope already drives
     * the target (a default followed by a when that overrides it is the one legal pattern).
     */
    private void checkMultiple(Signal s, List<Stmt> stmts) {
        Stmt.Assign prior = null;
        for (Stmt st : stmts) {
            if (st instanceof Stmt.Assign a) {
                if (prior != null) {
                    error(a.loc(), "multiple drivers: %s is already driven at %s on this path", s.describe(), prior.loc());
                } else {
                    prior = a;
                }
            } else if (st instanceof Stmt.When w) {
                checkMultiple(s, w.then());
                checkMultiple(s, w.otherwise());
                if (prior == null) {
                    prior = Drivers.first(List.of(w));
                }
            }
        }
    }

    // ---------------------------------------------------------------- instances

    private void checkBindings() {
        for (Instance inst : m.instances) {
            for (ClockDomain cd : inst.child().domains()) {
                if (!inst.bindings.containsKey(cd.name())) {
                    error(inst.loc(), "clock domain '%s' of instance '%s' (%s) is not bound: call clock(\"%s\", <domain>)",
                            cd.name(), inst.name(), inst.child().name(), cd.name());
                }
            }
        }
    }

    /**
     * Cummings' rule: what crosses comes straight from a flop of its source domain, no logic in
     * between, at every level of the hierarchy. A pin that reaches a synchroniser (the primitive's
     * own data input, or an input port that a child passes on to one, however deep) must be driven
     * by a register (or a child's registered output) or by an input port of this module, and such
     * an input port is then a crossing input of this module in turn, checked where it is driven.
     * A domain's reset port may feed one too (a reset carried into another domain): the parent
     * connects it through the domain binding, so no logic of this module sits in between, and a
     * module that carries its reset states that the reset must come from a flip-flop.
     */
    private void checkSynchroniserInputs() {
        for (Instance inst : m.instances) {
            for (Signal childPort : inst.child().ports()) {
                String reaches = childPort.kind() == Signal.Kind.ASYNC_INPUT ? null
                        : inst.child().crossingInputs().get(childPort.name());
                if (childPort.kind() != Signal.Kind.ASYNC_INPUT && reaches == null) {
                    continue;
                }
                Signal pin = inst.pin(childPort.name());
                List<Stmt> d = drivers.get(pin);
                if (d == null || d.isEmpty()) {
                    continue;
                }
                String what = reaches == null ? "synchroniser '" + inst.name() + "' input"
                        : "input '" + childPort.name() + "' of instance '" + inst.name() + "' (" + inst.child().name()
                                + ") reaches synchroniser " + reaches + " and";
                Stmt.Assign a = Drivers.single(d);
                boolean straight = a != null && a.value() instanceof Signal src
                        && (Module.isFlop(src) || src.kind() == Signal.Kind.INPUT || src.kind() == Signal.Kind.RESET);
                if (!straight) {
                    Stmt.Assign at = Drivers.first(d);
                    error(at.loc(), "%s is driven by %s: what crosses a clock domain must come straight from a register of its source domain, with no logic or condition in between",
                            what, a == null ? "conditional assignments" : a.value().describe());
                } else if (((Signal) a.value()).kind() == Signal.Kind.INPUT) {
                    String path = "'" + inst.name() + (reaches == null ? "'" : "." + reaches.substring(1));
                    crossingInputs.putIfAbsent(((Signal) a.value()).name(), path);
                }
            }
        }
    }

    // ---------------------------------------------------------------- clock domains

    private void checkDomains() {
        for (Map.Entry<Signal, List<Stmt>> e : drivers.entrySet()) {
            Signal s = e.getKey();
            ClockDomain expected = switch (s.kind()) {
                case REG, OUTPUT -> s.domain();
                case INST_IN -> s.instance.parentDomainOf(s.pin);
                default -> null;
            };
            boolean asyncPin = s.kind() == Signal.Kind.INST_IN && s.instance.child().port(s.pin).kind() == Signal.Kind.ASYNC_INPUT;
            if (asyncPin) {
                continue;
            }
            if (expected == null) {
                Map<ClockDomain, String> ds = signalDomains(s);
                if (ds.size() > 1 && s.kind() == Signal.Kind.WIRE) {
                    List<String> parts = new ArrayList<>();
                    ds.forEach((d, via) -> parts.add("'" + d.name() + "' (via " + via + ")"));
                    error(s.loc(), "wire '%s' mixes clock domains %s: only a synchroniser may bring a signal into another domain",
                            s.name(), String.join(" and ", parts));
                }
                continue;
            }
            checkAssignDomains(s, expected, e.getValue(), new ArrayList<>(), new HashSet<>());
            if (s instanceof Reg r && r.enable() != null) {
                checkRead(s, expected, r.enable(), s.loc(), new HashSet<>());
            }
        }
        for (Memory mem : m.memories) {
            Memory.WritePort w = mem.writePort;
            if (w != null) {
                String what = "write port of memory '" + mem.name() + "'";
                for (Expr x : List.of(w.addr(), w.data(), w.enable())) {
                    checkReadBy(what, mem.writeDomain(), x, w.loc(), new HashSet<>());
                }
            }
            for (Memory.SyncRead r : mem.syncReads) {
                String what = "read port '" + r.data().name() + "' of memory '" + mem.name() + "'";
                checkReadBy(what, r.domain(), r.addr(), r.loc(), new HashSet<>());
                checkReadBy(what, r.domain(), r.enable(), r.loc(), new HashSet<>());
            }
            for (Memory.AsyncRead r : mem.asyncReads) {
                checkReadBy("asynchronous read of memory '" + mem.name() + "'", r.domain, r.addr, r.loc(), new HashSet<>());
            }
        }
    }

    private void checkAssignDomains(Signal target, ClockDomain expected, List<Stmt> stmts, List<Expr> conds, Set<ClockDomain> reported) {
        for (Stmt st : stmts) {
            if (st instanceof Stmt.Assign a) {
                checkRead(target, expected, a.value(), a.loc(), reported);
                for (Expr c : conds) {
                    checkRead(target, expected, c, a.loc(), reported);
                }
            } else if (st instanceof Stmt.When w) {
                conds.add(w.cond());
                checkAssignDomains(target, expected, w.then(), conds, reported);
                checkAssignDomains(target, expected, w.otherwise(), conds, reported);
                conds.removeLast();
            }
        }
    }

    private void checkRead(Signal target, ClockDomain expected, Expr value, SourceLoc loc, Set<ClockDomain> reported) {
        checkReadBy(target.describe(), expected, value, loc, reported);
    }

    private void checkReadBy(String reader, ClockDomain expected, Expr value, SourceLoc loc, Set<ClockDomain> reported) {
        for (Map.Entry<ClockDomain, String> d : exprDomains(value).entrySet()) {
            if (!d.getKey().equals(expected) && reported.add(d.getKey())) {
                error(loc, "cross-domain read: %s (domain '%s') reads %s (domain '%s') without a synchroniser: pass it through Sync.bits(...)",
                        reader, expected.name(), d.getValue(), d.getKey().name());
            }
        }
    }

    /** The domains an expression draws on, each with one signal that brings it in. */
    private Map<ClockDomain, String> exprDomains(Expr e) {
        Map<ClockDomain, String> r = new LinkedHashMap<>();
        collectDomains(e, r);
        return r;
    }

    private void collectDomains(Expr e, Map<ClockDomain, String> into) {
        if (e instanceof Signal s) {
            signalDomains(s).forEach(into::putIfAbsent);
        } else if (e instanceof Memory.AsyncRead r) {
            into.putIfAbsent(r.domain, r.describe());
            collectDomains(r.addr, into);
        } else {
            for (Expr c : e.children()) {
                collectDomains(c, into);
            }
        }
    }

    private Map<ClockDomain, String> signalDomains(Signal s) {
        Map<ClockDomain, String> memo = domainMemo.get(s);
        if (memo != null) {
            return memo;
        }
        Map<ClockDomain, String> r = new LinkedHashMap<>();
        switch (s.kind()) {
            case INPUT, OUTPUT, CLOCK, RESET, REG, MEM_READ -> r.put(s.domain(), s.describe());
            case ASYNC_INPUT -> { }
            case INST_OUT -> {
                ClockDomain d = s.instance.parentDomainOf(s.pin);
                if (d != null) {
                    r.put(d, s.describe());
                }
            }
            case WIRE, INST_IN -> {
                if (!domainInProgress.add(s)) {
                    return r;
                }
                List<Stmt> d = drivers.getOrDefault(s, List.of());
                Drivers.forEachExpr(d, x -> collectDomains(x, r));
                domainInProgress.remove(s);
            }
        }
        domainMemo.put(s, r);
        return r;
    }

    // ---------------------------------------------------------------- combinational loops and paths

    private static boolean combinational(Signal s) {
        return switch (s.kind()) {
            case WIRE, OUTPUT, INST_IN, INST_OUT -> true;
            default -> false;
        };
    }

    /** Signals {@code s} reads combinationally. */
    private List<Signal> reads(Signal s) {
        Set<Signal> r = new LinkedHashSet<>();
        if (s.kind() == Signal.Kind.INST_OUT) {
            Set<String> ins = s.instance.child().combPaths().getOrDefault(s.pin, Set.of());
            for (String in : new TreeSet<>(ins)) {
                r.add(s.instance.pin(in));
            }
        } else {
            Drivers.forEachExpr(drivers.getOrDefault(s, List.of()), x -> x.forEachSignal(r::add));
        }
        return new ArrayList<>(r);
    }

    private void checkLoops() {
        Map<Signal, Integer> state = new HashMap<>();
        List<Signal> stack = new ArrayList<>();
        List<Signal> nodes = new ArrayList<>();
        for (Signal p : m.ports) {
            if (combinational(p)) {
                nodes.add(p);
            }
        }
        for (Signal s : m.signals) {
            if (combinational(s)) {
                nodes.add(s);
            }
        }
        for (Signal n : nodes) {
            if (!state.containsKey(n)) {
                dfs(n, state, stack);
            }
        }
        for (Signal p : m.ports) {
            if (p.kind() == Signal.Kind.OUTPUT) {
                Set<String> ins = new TreeSet<>();
                Set<Signal> seen = new HashSet<>();
                List<Signal> work = new ArrayList<>(List.of(p));
                while (!work.isEmpty()) {
                    Signal s = work.removeLast();
                    if (!seen.add(s)) {
                        continue;
                    }
                    if (s.kind() == Signal.Kind.INPUT) {
                        ins.add(s.name());
                    } else if (combinational(s)) {
                        work.addAll(reads(s));
                    }
                }
                combPaths.put(p.name(), ins);
            }
        }
    }

    private void dfs(Signal n, Map<Signal, Integer> state, List<Signal> stack) {
        state.put(n, 1);
        stack.add(n);
        for (Signal next : reads(n)) {
            if (!combinational(next)) {
                continue;
            }
            Integer st = state.get(next);
            if (st == null) {
                dfs(next, state, stack);
            } else if (st == 1) {
                reportLoop(new ArrayList<>(stack.subList(stack.indexOf(next), stack.size())));
            }
        }
        stack.removeLast();
        state.put(n, 2);
    }

    /**
     * Reports a loop at the first assignment of its earliest-declared member that has one, and
     * lists the loop from that member, so the report does not depend on search order.
     */
    private void reportLoop(List<Signal> cycle) {
        int start = 0;
        Stmt.Assign at = null;
        List<Signal> order = new ArrayList<>(m.ports);
        order.addAll(m.signals);
        for (Signal s : order) {
            int i = cycle.indexOf(s);
            Stmt.Assign a = i < 0 ? null : Drivers.first(drivers.getOrDefault(s, List.of()));
            if (a != null) {
                start = i;
                at = a;
                break;
            }
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i <= cycle.size(); i++) {
            names.add(cycle.get((start + i) % cycle.size()).describe());
        }
        error(at != null ? at.loc() : cycle.get(start).loc(), "combinational loop: %s", String.join(" -> ", names));
    }

    // ---------------------------------------------------------------- usage

    private void checkUsage() {
        Map<Signal, BitSet> used = new HashMap<>();
        java.util.function.Consumer<Expr> mark = e -> markUsed(e, used);
        reportedTemps.clear();
        for (List<Stmt> d : drivers.values()) {
            Drivers.forEachExpr(d, mark);
        }
        Set<ClockDomain> clocked = new HashSet<>();
        Set<ClockDomain> reset = new HashSet<>();
        for (Signal s : m.signals) {
            if (s instanceof Reg r) {
                clocked.add(r.domain());
                if (r.resetValue() != null) {
                    reset.add(r.domain());
                    if (m.isClocked(r.domain()) && !m.hasReset(r.domain())) {
                        error(r.loc(), "%s has a reset value, but domain '%s' has no reset in module %s (declared with clockOnlyDomain): give it a power-up value instead",
                                r.describe(), r.domain().name(), m.name());
                    }
                }
                if (r.enable() != null) {
                    mark.accept(r.enable());
                }
            }
        }
        for (Memory mem : m.memories) {
            if (mem.writePort != null) {
                clocked.add(mem.writeDomain());
                mark.accept(mem.writePort.addr());
                mark.accept(mem.writePort.data());
                mark.accept(mem.writePort.enable());
            }
            for (Memory.SyncRead r : mem.syncReads) {
                clocked.add(r.domain());
                mark.accept(r.addr());
                mark.accept(r.enable());
            }
            if (mem.syncReads.isEmpty() && mem.asyncReads.isEmpty()) {
                warning(mem.loc(), "memory '%s' is never read", mem.name());
            }
        }
        for (Instance inst : m.instances) {
            inst.bindings.forEach((childDomain, parent) -> {
                ClockDomain cd = inst.child().domain(childDomain);
                if (inst.child().isClocked(cd)) {
                    clocked.add(parent);
                }
                if (inst.child().hasReset(cd)) {
                    reset.add(parent);
                }
            });
        }
        for (ClockDomain d : m.domains) {
            Signal clk = m.clocks.get(d.name());
            Signal rst = m.resets.get(d.name());
            if (clk == null) {
                continue;
            }
            if (rst != null && used.containsKey(rst)) {
                reset.add(d);
            }
            if (!clocked.contains(d)) {
                warning(clk.loc(), "clock '%s' of domain '%s' is never used", clk.name(), d.name());
            } else if (rst != null && !reset.contains(d)) {
                warning(rst.loc(), "reset '%s' of domain '%s' is never used: no register of the domain has a reset value", rst.name(), d.name());
            }
        }
        List<Signal> all = new ArrayList<>(m.ports);
        all.addAll(m.signals);
        for (Signal s : all) {
            boolean check = switch (s.kind()) {
                case INPUT, ASYNC_INPUT, WIRE, REG, MEM_READ, INST_OUT -> true;
                default -> false;
            };
            if (!check) {
                continue;
            }
            BitSet u = used.getOrDefault(s, new BitSet());
            if (u.cardinality() == s.width()) {
                continue;
            }
            String what = s.kind() == Signal.Kind.INST_OUT
                    ? "output '" + s.pin + "' of instance '" + s.instance.name() + "'"
                    : s.describe();
            if (u.isEmpty()) {
                warning(s.loc(), "%s is never read", what);
            } else {
                warning(s.loc(), "%s bits %s are never read", what, ranges(u, s.width()));
            }
        }
    }

    /** Marks the bits {@code e} reads, seeing selections the way the emitter writes them. */
    private void markUsed(Expr e, Map<Signal, BitSet> used) {
        if (e instanceof Expr.Op op && op.kind == Expr.OpKind.SLICE) {
            Expr pushed = Slices.push(op.args.getFirst(), op.a, op.b);
            if (pushed instanceof Expr.Op p && p.kind == Expr.OpKind.SLICE) {
                if (p.args.getFirst() instanceof Signal s) {
                    used.computeIfAbsent(s, k -> new BitSet()).set(p.b, p.a + 1);
                    return;
                }
                if (Slices.needsTemporary(p) && reportedTemps.add(p.args.getFirst())) {
                    warning(p.loc(), "only bits [%d:%d] of this %d-bit %s are read; the others would be computed and never used"
                            + " (Verilator -Wall reports them): put the whole value in a wire and read all of it",
                            p.a, p.b, p.args.getFirst().width(), p.args.getFirst().describe());
                }
                markUsed(p.args.getFirst(), used);
                return;
            }
            markUsed(pushed, used);
        } else if (e instanceof Signal s) {
            used.computeIfAbsent(s, k -> new BitSet()).set(0, s.width());
        } else {
            for (Expr c : e.children()) {
                markUsed(c, used);
            }
        }
    }

    /** Unused bit ranges, most significant first: "[7:4], [1]". */
    private static String ranges(BitSet used, int width) {
        List<String> r = new ArrayList<>();
        int i = width - 1;
        while (i >= 0) {
            if (used.get(i)) {
                i--;
                continue;
            }
            int hi = i;
            while (i >= 0 && !used.get(i)) {
                i--;
            }
            int lo = i + 1;
            r.add(hi == lo ? "[" + hi + "]" : "[" + hi + ":" + lo + "]");
        }
        return String.join(", ", r);
    }
}
