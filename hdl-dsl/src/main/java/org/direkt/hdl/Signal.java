// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * A named net of a module: a port, a wire, a register, an instance pin or a memory read register.
 * Signals are created by {@link ModuleBuilder}; {@link #set} drives them.
 */
public sealed class Signal extends Expr permits Reg {

    /** What a signal is; decides who may drive it and how it is emitted. */
    public enum Kind {
        INPUT, OUTPUT, WIRE, REG, CLOCK, RESET,
        /** An input pin of a child instance, driven in this module. */
        INST_IN,
        /** An output pin of a child instance, driven by the child. */
        INST_OUT,
        /** The registered read data of a synchronous memory read port. */
        MEM_READ,
        /** The one input that may come from any domain: the synchroniser primitive's data input. */
        ASYNC_INPUT
    }

    private final Kind kind;
    private final ModuleBuilder owner;
    private final ClockDomain domain;
    private String name;
    private SourceLoc nameLoc;
    final Instance instance;
    final String pin;

    Signal(ModuleBuilder owner, Kind kind, String name, int width, ClockDomain domain, SourceLoc loc) {
        this(owner, kind, name, width, domain, loc, null, null);
    }

    Signal(ModuleBuilder owner, Kind kind, String name, int width, ClockDomain domain, SourceLoc loc,
           Instance instance, String pin) {
        super(width, loc);
        this.owner = owner;
        this.kind = kind;
        this.name = name;
        this.domain = domain;
        this.instance = instance;
        this.pin = pin;
        if (name != null) {
            this.nameLoc = loc;
        }
    }

    public final Kind kind() {
        return kind;
    }

    /** The designer's name, or null for a register not yet named. */
    public final String name() {
        return name;
    }

    /** The clock domain, or null for a wire (its domain is that of what drives it). */
    public final ClockDomain domain() {
        return domain;
    }

    final SourceLoc nameLoc() {
        return nameLoc;
    }

    final void rename(String newName, SourceLoc loc) {
        owner.checkNewName(newName, loc);
        this.name = newName;
        this.nameLoc = loc;
        owner.registerName(newName, this, loc);
    }

    @Override
    final ModuleBuilder owner() {
        return owner;
    }

    @Override
    final String describe() {
        String what = switch (kind) {
            case INPUT, ASYNC_INPUT -> "input";
            case OUTPUT -> "output";
            case WIRE -> "wire";
            case REG -> "register";
            case CLOCK -> "clock";
            case RESET -> "reset";
            case INST_IN -> "instance input";
            case INST_OUT -> "instance output";
            case MEM_READ -> "memory read data";
        };
        return what + " '" + (name == null ? "<unnamed>" : name) + "'";
    }

    /**
     * Drives this signal with {@code value}: a continuous assignment for wires and outputs, the next
     * value for registers. Inside {@link ModuleBuilder#when} it applies only on that branch.
     */
    public final void set(Expr value) {
        SourceLoc loc = SourceLoc.capture();
        switch (kind) {
            case OUTPUT, WIRE, REG, INST_IN -> { }
            default -> throw ElaborationException.at(loc, "%s cannot be driven here: it is driven %s",
                    describe(), kind == Kind.INST_OUT ? "by its instance" : "from outside this module");
        }
        mergeOwner(owner, value, loc);
        if (value.width() != width()) {
            throw ElaborationException.at(loc, "width mismatch: cannot assign %d-bit %s to %d-bit %s",
                    value.width(), value.describe(), width(), describe());
        }
        owner.addAssign(this, value, loc);
    }

    /** Drives this signal with a constant of its own width. */
    public final void set(long value) {
        SourceLoc loc = SourceLoc.capture();
        Lit lit = Expr.lit(java.math.BigInteger.valueOf(value), width(), loc);
        switch (kind) {
            case OUTPUT, WIRE, REG, INST_IN -> owner.addAssign(this, lit, loc);
            default -> throw ElaborationException.at(loc, "%s cannot be driven here", describe());
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
