// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API a generator describes its module with: clock domains, ports, streams, wires, registers,
 * memories, child instances and when/otherwise logic. Structural rules that need the whole module
 * (drivers, loops, domain crossings, unused inputs) are checked when the generator returns.
 */
public final class ModuleBuilder {
    private final Design design;
    private final String name;
    private final String generatorClass;
    private final Record params;

    final List<ClockDomain> domains = new ArrayList<>();
    final Map<String, Signal> clocks = new LinkedHashMap<>();
    final Map<String, Signal> resets = new LinkedHashMap<>();
    final List<Signal> ports = new ArrayList<>();
    final List<Signal> signals = new ArrayList<>();
    final List<Memory> memories = new ArrayList<>();
    final List<Instance> instances = new ArrayList<>();
    final Map<String, AvalonSt> streams = new LinkedHashMap<>();
    final List<Stmt> body = new ArrayList<>();
    private final Map<String, SourceLoc> names = new LinkedHashMap<>();
    final List<String> doc = new ArrayList<>();
    private final Deque<List<Stmt>> scopes = new ArrayDeque<>();
    private boolean finished;

    ModuleBuilder(Design design, String name, String generatorClass, Record params) {
        this.design = design;
        this.name = name;
        this.generatorClass = generatorClass;
        this.params = params;
        scopes.push(body);
    }

    /** The Verilog module name. */
    public String name() {
        return name;
    }

    /** The design this module is elaborated in; children instantiated here share its module cache. */
    public Design design() {
        return design;
    }

    /**
     * A paragraph for the comment block at the top of the emitted Verilog: what a user of the
     * module must know (reset rules, latency, protocol). Lines are wrapped as given.
     */
    public void doc(String text) {
        checkOpen(SourceLoc.capture());
        doc.addAll(List.of(text.strip().split("\n")));
    }

    // ---------------------------------------------------------------- interface

    /** Declares a clock domain of this module: adds its clock and reset input ports. */
    public ClockDomain domain(ClockDomain cd) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewDomain(cd, loc);
        Signal clk = newPort(Signal.Kind.CLOCK, cd.clock(), 1, cd, loc);
        Signal rst = newPort(Signal.Kind.RESET, cd.reset(), 1, cd, loc);
        domains.add(cd);
        clocks.put(cd.name(), clk);
        resets.put(cd.name(), rst);
        return cd;
    }

    /**
     * Declares a clock domain with a clock port and no reset port: its registers hold their power-up
     * values ({@link Reg#powerUp}) and no reset moves them (a reset value there is an error). For
     * state that must outlive every reset, such as the synchroniser of a pointer that never jumps.
     */
    public ClockDomain clockOnlyDomain(ClockDomain cd) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewDomain(cd, loc);
        Signal clk = newPort(Signal.Kind.CLOCK, cd.clock(), 1, cd, loc);
        domains.add(cd);
        clocks.put(cd.name(), clk);
        return cd;
    }

    /**
     * The reset port of domain {@code cd}, to read as logic, asserted at the domain's polarity: for
     * logic that must follow the reset although no register of it is cleared (a FIFO side that
     * refuses words while its reset is high), or a reset carried to another domain through
     * {@link Sync}. Reading it counts as using the reset.
     */
    public Signal reset(ClockDomain cd) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        requireDomain(cd, loc);
        Signal rst = resets.get(cd.name());
        if (rst == null) {
            throw ElaborationException.at(loc, "domain '%s' has no reset port in module %s (declared with %s)",
                    cd.name(), name, isClocked(cd) ? "clockOnlyDomain" : "passThroughDomain");
        }
        return rst;
    }

    /**
     * Declares a domain this module only passes signals through: its ports belong to the domain,
     * but the module has no clock or reset port for it, so it can hold no register or memory. A
     * purely combinational module (a connection, a multiplexer) declares its domains this way.
     */
    public ClockDomain passThroughDomain(ClockDomain cd) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewDomain(cd, loc);
        domains.add(cd);
        return cd;
    }

    private void checkNewDomain(ClockDomain cd, SourceLoc loc) {
        for (ClockDomain d : domains) {
            if (d.name().equals(cd.name())) {
                throw ElaborationException.at(loc, "clock domain '%s' is already declared in module %s", cd.name(), name);
            }
        }
    }

    /** True when the domain has a clock port here (declared with {@link #domain} or {@link #clockOnlyDomain}). */
    boolean isClocked(ClockDomain cd) {
        return clocks.containsKey(cd.name());
    }

    boolean hasReset(ClockDomain cd) {
        return resets.containsKey(cd.name());
    }

    void requireClocked(ClockDomain cd, String what, SourceLoc loc) {
        if (!isClocked(cd)) {
            throw ElaborationException.at(loc, "%s needs a clock, but domain '%s' has none in module %s (declared with passThroughDomain): declare it with domain(...)",
                    what, cd.name(), name);
        }
    }

    public Signal input(String portName, int width, ClockDomain domain) {
        SourceLoc loc = SourceLoc.capture();
        requireDomain(domain, loc);
        return newPort(Signal.Kind.INPUT, portName, width, domain, loc);
    }

    public Signal output(String portName, int width, ClockDomain domain) {
        SourceLoc loc = SourceLoc.capture();
        requireDomain(domain, loc);
        return newPort(Signal.Kind.OUTPUT, portName, width, domain, loc);
    }

    /**
     * An Avalon-ST port named {@code portName}: a {@code SINK} type makes this module take words,
     * a {@code SOURCE} type makes it offer them. Inside the module, a sink port is a producer.
     */
    public Stream stream(String portName, AvalonSt type, ClockDomain domain) {
        SourceLoc loc = SourceLoc.capture();
        requireDomain(domain, loc);
        boolean sink = type.side() == AvalonSt.Side.SINK;
        Signal.Kind in = Signal.Kind.INPUT;
        Signal.Kind out = Signal.Kind.OUTPUT;
        Signal data = newPort(sink ? in : out, portName + "_data", type.dataWidth(), domain, loc);
        Signal valid = newPort(sink ? in : out, portName + "_valid", 1, domain, loc);
        Signal ready = newPort(sink ? out : in, portName + "_ready", 1, domain, loc);
        streams.put(portName, type);
        return new Stream(portName, type, sink ? Stream.Role.PRODUCER : Stream.Role.CONSUMER, data, valid, ready, loc);
    }

    /**
     * Joins a producer to a consumer: data and valid flow forward, ready flows back. The two ends
     * must have the same width and ready latency, and must face each other.
     */
    public void connect(Stream from, Stream to) {
        SourceLoc loc = SourceLoc.capture();
        if (from.role() != Stream.Role.PRODUCER || to.role() != Stream.Role.CONSUMER) {
            throw ElaborationException.at(loc,
                    "bundle direction conflict: connect(from, to) needs a producer and a consumer, got '%s' (%s) and '%s' (%s)",
                    from.name(), from.role().name().toLowerCase(java.util.Locale.ROOT),
                    to.name(), to.role().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (from.type().dataWidth() != to.type().dataWidth()) {
            throw ElaborationException.at(loc, "width mismatch connecting stream '%s' (%d bits) to '%s' (%d bits)",
                    from.name(), from.type().dataWidth(), to.name(), to.type().dataWidth());
        }
        if (from.type().readyLatency() != to.type().readyLatency()) {
            throw ElaborationException.at(loc,
                    "ready latency mismatch connecting stream '%s' (ready latency %d) to '%s' (ready latency %d): insert a ready-latency adapter",
                    from.name(), from.type().readyLatency(), to.name(), to.type().readyLatency());
        }
        addAssign(to.data(), from.data(), loc);
        addAssign(to.valid(), from.valid(), loc);
        addAssign(from.ready(), to.ready(), loc);
    }

    // ---------------------------------------------------------------- state and nets

    /** A combinational net; its domain is that of whatever drives it. */
    public Signal wire(String wireName, int width) {
        SourceLoc loc = SourceLoc.capture();
        return newSignal(Signal.Kind.WIRE, wireName, width, null, loc);
    }

    /** A register of {@code domain}. */
    public Reg reg(String regName, int width, ClockDomain domain) {
        SourceLoc loc = SourceLoc.capture();
        return newReg(regName, width, domain, loc);
    }

    /** A register to be named later with {@link Reg#named}; elaboration fails if it never is. */
    public Reg reg(int width, ClockDomain domain) {
        SourceLoc loc = SourceLoc.capture();
        return newReg(null, width, domain, loc);
    }

    private Reg newReg(String regName, int width, ClockDomain domain, SourceLoc loc) {
        checkOpen(loc);
        requireDomain(domain, loc);
        requireClocked(domain, "register '" + regName + "'", loc);
        if (regName != null) {
            checkNewName(regName, loc);
        }
        Reg r = new Reg(this, regName, width, domain, loc);
        if (regName != null) {
            registerName(regName, r, loc);
        }
        signals.add(r);
        return r;
    }

    /** A memory of {@code depth} words of {@code width} bits, written in {@code writeDomain}. */
    public Memory memory(String memName, int width, int depth, ClockDomain writeDomain) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        requireDomain(writeDomain, loc);
        requireClocked(writeDomain, "memory '" + memName + "'", loc);
        checkNewName(memName, loc);
        Memory mem = new Memory(this, memName, width, depth, writeDomain, loc);
        names.put(memName, loc);
        memories.add(mem);
        return mem;
    }

    /** An instance of the module {@code generator} makes for {@code params} (one definition per distinct params). */
    public <P extends Record> Instance instance(String instName, Generator<P> generator, P params) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewName(instName, loc);
        Module child = design.elaborate(generator, params);
        return addInstance(instName, child, loc);
    }

    /** An instance of a unit, with its interface record on the instance's pins. */
    public <P extends Record, IO> Sub<IO> sub(String instName, Unit<P, IO> unit, P params) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewName(instName, loc);
        Instance inst = addInstance(instName, design.elaborate(unit, params), loc);
        return new Sub<>(inst, unit.portsAt(inst, params));
    }

    /** The ports of this module, for a {@link Unit} declaring its interface. */
    Ports ports() {
        ModuleBuilder m = this;
        return new Ports() {
            @Override
            public ClockDomain domain(ClockDomain cd) {
                return m.domain(cd);
            }

            @Override
            public ClockDomain passThrough(ClockDomain cd) {
                return m.passThroughDomain(cd);
            }

            @Override
            public Signal in(String name, int width, ClockDomain cd) {
                return m.input(name, width, cd);
            }

            @Override
            public Signal out(String name, int width, ClockDomain cd) {
                return m.output(name, width, cd);
            }

            @Override
            public Stream sink(String name, AvalonSt type, ClockDomain cd) {
                return m.stream(name, Ports.producerSide(type).flip(), cd);
            }

            @Override
            public Stream source(String name, AvalonSt type, ClockDomain cd) {
                return m.stream(name, Ports.producerSide(type), cd);
            }
        };
    }

    /** An instance of an already elaborated module. */
    public Instance instance(String instName, Module child) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        checkNewName(instName, loc);
        return addInstance(instName, child, loc);
    }

    private Instance addInstance(String instName, Module child, SourceLoc loc) {
        names.put(instName, loc);
        Instance inst = new Instance(this, instName, child, loc);
        instances.add(inst);
        return inst;
    }

    /** An unsigned constant of exactly {@code width} bits. */
    public Expr lit(long value, int width) {
        return Expr.lit(BigInteger.valueOf(value), width, SourceLoc.capture());
    }

    // ---------------------------------------------------------------- conditional logic

    /** Runs {@code body} under {@code cond}: assignments made in it apply only when cond is 1. */
    public WhenChain when(Expr cond, Runnable thenBody) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        Stmt.When w = newWhen(cond, loc);
        scopes.peek().add(w);
        inScope(w.then(), thenBody);
        return new WhenChain(this, w);
    }

    Stmt.When newWhen(Expr cond, SourceLoc loc) {
        Expr.mergeOwner(this, cond, loc);
        if (cond.width() != 1) {
            throw ElaborationException.at(loc, "when condition %s is %d bits wide: it must be 1 bit", cond.describe(), cond.width());
        }
        return new Stmt.When(cond, loc);
    }

    void inScope(List<Stmt> scope, Runnable body) {
        scopes.push(scope);
        try {
            body.run();
        } finally {
            scopes.pop();
        }
    }

    void addAssign(Signal target, Expr value, SourceLoc loc) {
        checkOpen(loc);
        scopes.peek().add(new Stmt.Assign(target, value, loc));
    }

    // ---------------------------------------------------------------- internals

    /** The synchroniser primitive's data input: the only port without a clock domain. */
    Signal asyncInput(String portName, int width) {
        return newPort(Signal.Kind.ASYNC_INPUT, portName, width, null, SourceLoc.capture());
    }

    void requireDomain(ClockDomain domain, SourceLoc loc) {
        if (domain == null) {
            throw ElaborationException.at(loc, "no clock domain given: every port, register and memory port needs one");
        }
        if (!domains.contains(domain)) {
            throw ElaborationException.at(loc, "clock domain '%s' is not declared in module %s: call domain(...) first",
                    domain.name(), name);
        }
    }

    private Signal newPort(Signal.Kind kind, String portName, int width, ClockDomain domain, SourceLoc loc) {
        checkOpen(loc);
        checkNewName(portName, loc);
        Signal s = new Signal(this, kind, portName, width, domain, loc);
        registerName(portName, s, loc);
        ports.add(s);
        return s;
    }

    Signal newSignal(Signal.Kind kind, String signalName, int width, ClockDomain domain, SourceLoc loc) {
        checkOpen(loc);
        checkNewName(signalName, loc);
        Signal s = new Signal(this, kind, signalName, width, domain, loc);
        registerName(signalName, s, loc);
        signals.add(s);
        return s;
    }

    Signal newPin(Instance inst, String pin, Signal.Kind kind, int width, SourceLoc loc) {
        String pinName = inst.name() + "_" + pin;
        checkNewName(pinName, loc);
        Signal s = new Signal(this, kind, pinName, width, null, loc, inst, pin);
        registerName(pinName, s, loc);
        signals.add(s);
        return s;
    }

    void checkNewName(String n, SourceLoc loc) {
        if (n == null || !Names.isIdentifier(n)) {
            throw ElaborationException.at(loc, "name '%s' is not a legal Verilog identifier (letters, digits and '_', not starting with a digit, not a keyword)", n);
        }
        if (n.startsWith("_")) {
            throw ElaborationException.at(loc, "name '%s' starts with '_': such names are kept for temporaries the emitter makes", n);
        }
        SourceLoc first = names.get(n);
        if (first != null) {
            throw ElaborationException.at(loc, "name '%s' is already used in module %s (declared at %s)", n, name, first);
        }
    }

    void registerName(String n, Signal s, SourceLoc loc) {
        names.put(n, loc);
    }

    private void checkOpen(SourceLoc loc) {
        if (finished) {
            throw ElaborationException.at(loc, "module %s is already elaborated: it cannot change any more", name);
        }
    }

    Module finish() {
        Checker checker = new Checker(this);
        List<Diagnostic> found = checker.run();
        finished = true;
        List<Diagnostic> errors = found.stream().filter(Diagnostic::isError).toList();
        if (!errors.isEmpty()) {
            throw new ElaborationException(errors);
        }
        return new Module(this, found.stream().filter(d -> !d.isError()).toList(), checker.combPaths(),
                checker.crossingInputs());
    }

    String generatorClass() {
        return generatorClass;
    }

    Record params() {
        return params;
    }
}
