// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A named instance of a child module. Each data pin appears in the parent as a signal named
 * {@code <instance>_<pin>}; each child clock domain is bound to a parent domain, which connects
 * its clock and reset.
 */
public final class Instance {
    private final ModuleBuilder owner;
    private final String name;
    private final Module child;
    private final SourceLoc loc;
    private final Map<String, Signal> pins = new LinkedHashMap<>();
    final Map<String, ClockDomain> bindings = new LinkedHashMap<>();
    final Map<String, SourceLoc> bindingLocs = new LinkedHashMap<>();
    final Map<String, Reg> resetOverrides = new LinkedHashMap<>();

    Instance(ModuleBuilder owner, String name, Module child, SourceLoc loc) {
        this.owner = owner;
        this.name = name;
        this.child = child;
        this.loc = loc;
        for (Signal p : child.ports()) {
            Signal.Kind k = switch (p.kind()) {
                case INPUT, ASYNC_INPUT -> Signal.Kind.INST_IN;
                case OUTPUT -> Signal.Kind.INST_OUT;
                default -> null;
            };
            if (k != null) {
                pins.put(p.name(), owner.newPin(this, p.name(), k, p.width(), loc));
            }
        }
    }

    public String name() {
        return name;
    }

    public Module child() {
        return child;
    }

    SourceLoc loc() {
        return loc;
    }

    Map<String, Signal> pins() {
        return Collections.unmodifiableMap(pins);
    }

    /** Connects the child's domain {@code childDomain} to this module's domain {@code parent}. */
    public Instance clock(String childDomain, ClockDomain parent) {
        SourceLoc at = SourceLoc.capture();
        ClockDomain cd = child.domain(childDomain);
        if (cd == null) {
            throw ElaborationException.at(at, "instance '%s' of %s has no clock domain '%s' (it has %s)",
                    name, child.name(), childDomain, child.domains().stream().map(ClockDomain::name).toList());
        }
        owner.requireDomain(parent, at);
        if (child.isClocked(cd) && !owner.isClocked(parent)) {
            throw ElaborationException.at(at, "domain '%s' of instance '%s' needs a clock, but '%s' has none in module %s (declared with passThroughDomain)",
                    childDomain, name, parent.name(), owner.name());
        }
        if (child.hasReset(cd) && owner.isClocked(parent) && !owner.hasReset(parent)) {
            throw ElaborationException.at(at, "domain '%s' of instance '%s' needs a reset, but '%s' has none in module %s (declared with clockOnlyDomain)",
                    childDomain, name, parent.name(), owner.name());
        }
        if (bindings.containsKey(childDomain)) {
            throw ElaborationException.at(at, "domain '%s' of instance '%s' is already bound (at %s)",
                    childDomain, name, bindingLocs.get(childDomain));
        }
        // Opposite polarity of the same kind is a plain inversion (emitted as ~rst at the pin);
        // a synchronous and an asynchronous reset cannot be joined that way.
        if (child.hasReset(cd) && cd.kind() != parent.kind()) {
            throw ElaborationException.at(at, "reset mismatch binding domain '%s' of instance '%s' to '%s': child reset is %s %s, parent's is %s %s",
                    childDomain, name, parent.name(), cd.polarity(), cd.kind(), parent.polarity(), parent.kind());
        }
        bindings.put(childDomain, parent);
        bindingLocs.put(childDomain, at);
        return this;
    }

    /**
     * Resets the child's domain {@code childDomain}, already bound to a parent domain, with
     * register {@code rst} of that parent domain (high: asserted) in place of the parent's reset
     * port: for a child that must also be held by a condition of the parent's own (a side of a
     * FIFO that drops words while the parent holds it). A register, so the reset never glitches.
     */
    public Instance reset(String childDomain, Reg rst) {
        SourceLoc at = SourceLoc.capture();
        ClockDomain parent = bindings.get(childDomain);
        if (parent == null) {
            throw ElaborationException.at(at, "reset of domain '%s' of instance '%s': bind the domain with clock(...) first",
                    childDomain, name);
        }
        ClockDomain cd = child.domain(childDomain);
        if (!child.hasReset(cd)) {
            throw ElaborationException.at(at, "domain '%s' of instance '%s' (%s) has no reset to drive", childDomain, name, child.name());
        }
        if (rst.width() != 1 || rst.domain() == null || !rst.domain().name().equals(parent.name())) {
            throw ElaborationException.at(at, "reset of domain '%s' of instance '%s': %s must be a 1-bit register of domain '%s'",
                    childDomain, name, rst.describe(), parent.name());
        }
        if (resetOverrides.containsKey(childDomain)) {
            throw ElaborationException.at(at, "reset of domain '%s' of instance '%s' is already driven", childDomain, name);
        }
        resetOverrides.put(childDomain, rst);
        return this;
    }

    /** Binds every child domain to {@code parent} (the common case of a single-domain child). */
    public Instance clock(ClockDomain parent) {
        for (ClockDomain cd : child.domains()) {
            clock(cd.name(), parent);
        }
        return this;
    }

    /** The parent-side signal of data pin {@code pin}. */
    public Signal pin(String pin) {
        Signal s = pins.get(pin);
        if (s == null) {
            throw ElaborationException.at(SourceLoc.capture(), "%s has no data pin '%s' (it has %s)",
                    child.name(), pin, pins.keySet());
        }
        return s;
    }

    /** The parent-side end of the child's stream port {@code port}. */
    public Stream stream(String port) {
        SourceLoc at = SourceLoc.capture();
        AvalonSt t = child.streams().get(port);
        if (t == null) {
            throw ElaborationException.at(at, "%s has no stream port '%s' (it has %s)", child.name(), port, child.streams().keySet());
        }
        Stream.Role role = t.side() == AvalonSt.Side.SINK ? Stream.Role.CONSUMER : Stream.Role.PRODUCER;
        return new Stream(name + "." + port, t, role, pin(port + "_data"), pin(port + "_valid"), pin(port + "_ready"), at);
    }

    /** The instance's pins in the shape of the child's {@link Ports}: each call checks the port's kind and width. */
    Ports ports() {
        Instance inst = this;
        return new Ports() {
            @Override
            public ClockDomain domain(ClockDomain cd) {
                return cd;
            }

            @Override
            public ClockDomain passThrough(ClockDomain cd) {
                return cd;
            }

            @Override
            public Signal in(String name, int width, ClockDomain cd) {
                return inst.typedPin(name, width, Signal.Kind.INST_IN);
            }

            @Override
            public Signal out(String name, int width, ClockDomain cd) {
                return inst.typedPin(name, width, Signal.Kind.INST_OUT);
            }

            @Override
            public Stream sink(String name, AvalonSt type, ClockDomain cd) {
                return inst.stream(name);
            }

            @Override
            public Stream source(String name, AvalonSt type, ClockDomain cd) {
                return inst.stream(name);
            }
        };
    }

    private Signal typedPin(String pin, int width, Signal.Kind kind) {
        Signal s = pin(pin);
        if (s.width() != width || s.kind() != kind) {
            throw ElaborationException.at(SourceLoc.capture(), "%s pin '%s' is %s of %d bits, its unit declares %s of %d bits",
                    child.name(), pin, s.kind(), s.width(), kind, width);
        }
        return s;
    }

    /** The parent domain a child port's domain is bound to, or null if unbound or asynchronous. */
    ClockDomain parentDomainOf(String pin) {
        Signal p = child.port(pin);
        return p == null || p.domain() == null ? null : bindings.get(p.domain().name());
    }
}
