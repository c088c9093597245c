// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** An elaborated, checked module definition: what the emitter writes and what parents instantiate. */
public final class Module {
    private final String name;
    private final String generatorClass;
    private final Record params;
    private final List<ClockDomain> domains;
    private final Map<String, Signal> clocks;
    private final Map<String, Signal> resets;
    private final List<Signal> ports;
    private final List<Signal> signals;
    private final List<Memory> memories;
    private final List<Instance> instances;
    private final Map<String, AvalonSt> streams;
    private final List<Stmt> body;
    private final List<Diagnostic> warnings;
    private final Map<String, Set<String>> combPaths;
    private final Map<String, String> crossingInputs;
    private final List<String> doc;

    Module(ModuleBuilder b, List<Diagnostic> warnings, Map<String, Set<String>> combPaths,
            Map<String, String> crossingInputs) {
        this.name = b.name();
        this.generatorClass = b.generatorClass();
        this.params = b.params();
        this.domains = List.copyOf(b.domains);
        this.clocks = Map.copyOf(b.clocks);
        this.resets = Map.copyOf(b.resets);
        this.ports = List.copyOf(b.ports);
        this.signals = List.copyOf(b.signals);
        this.memories = List.copyOf(b.memories);
        this.instances = List.copyOf(b.instances);
        this.streams = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(b.streams));
        this.body = List.copyOf(b.body);
        this.warnings = List.copyOf(warnings);
        this.combPaths = Map.copyOf(combPaths);
        this.crossingInputs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(crossingInputs));
        this.doc = List.copyOf(b.doc);
    }

    public String name() {
        return name;
    }

    /** The designer's notes for users of the module, line by line. */
    public List<String> doc() {
        return doc;
    }

    /** The generator class that built this module. */
    public String generatorClass() {
        return generatorClass;
    }

    /** The parameter record it was built from. */
    public Record params() {
        return params;
    }

    public List<ClockDomain> domains() {
        return domains;
    }

    /** The declared domain named {@code domainName}, or null. */
    public ClockDomain domain(String domainName) {
        return domains.stream().filter(d -> d.name().equals(domainName)).findFirst().orElse(null);
    }

    /** True when the module has a clock port for the domain (false for a pass-through domain). */
    public boolean isClocked(ClockDomain d) {
        return clocks.containsKey(d.name());
    }

    /** True when the module has a reset port for the domain (false for a clock-only or pass-through domain). */
    public boolean hasReset(ClockDomain d) {
        return resets.containsKey(d.name());
    }

    Signal clockOf(ClockDomain d) {
        return clocks.get(d.name());
    }

    Signal resetOf(ClockDomain d) {
        return resets.get(d.name());
    }

    /** Ports in declaration order, clocks and resets included. */
    public List<Signal> ports() {
        return ports;
    }

    /** The port named {@code portName}, or null. */
    public Signal port(String portName) {
        return ports.stream().filter(p -> p.name().equals(portName)).findFirst().orElse(null);
    }

    /** Stream ports by name, with the side this module presents. */
    public Map<String, AvalonSt> streams() {
        return streams;
    }

    List<Signal> signals() {
        return signals;
    }

    List<Memory> memories() {
        return memories;
    }

    public List<Instance> instances() {
        return instances;
    }

    List<Stmt> body() {
        return body;
    }

    /** Findings that do not stop elaboration: unused inputs, signals never read. */
    public List<Diagnostic> warnings() {
        return warnings;
    }

    /**
     * True when output {@code portName} comes straight from a flip-flop (a register, a registered
     * memory read, or a child output that does), with no logic after it: such an output may feed
     * a synchroniser in the parent.
     */
    public boolean isRegisteredOutput(String portName) {
        Signal p = port(portName);
        if (p == null || p.kind() != Signal.Kind.OUTPUT) {
            return false;
        }
        Stmt.Assign a = Drivers.single(Drivers.project(body, p));
        return a != null && a.value() instanceof Signal src && isFlop(src);
    }

    static boolean isFlop(Signal s) {
        return switch (s.kind()) {
            case REG, MEM_READ -> true;
            case INST_OUT -> s.instance.child().isRegisteredOutput(s.pin);
            default -> false;
        };
    }

    /**
     * The input ports that reach a synchroniser inside this module with nothing in between, each
     * with the synchroniser's instance path (e.g. {@code 'u_rd.u_sync'}): what drives them must be
     * a register of the source domain, which a parent's elaboration checks.
     */
    public Map<String, String> crossingInputs() {
        return crossingInputs;
    }

    /** For each output port, the input ports it depends on combinationally. */
    public Map<String, Set<String>> combPaths() {
        return combPaths;
    }
}
