// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A register of one clock domain: optional reset value, optional power-up value, optional clock
 * enable, and Verilog attributes. A register must have a name before elaboration ends.
 */
public final class Reg extends Signal {
    private BigInteger resetValue;
    private BigInteger powerUpValue;
    private Expr enable;
    private SourceLoc enableLoc;
    private final Map<String, String> attributes = new LinkedHashMap<>();

    Reg(ModuleBuilder owner, String name, int width, ClockDomain domain, SourceLoc loc) {
        super(owner, Kind.REG, name, width, domain, loc);
    }

    /** Gives the register its name (for registers declared without one). */
    public Reg named(String newName) {
        rename(newName, SourceLoc.capture());
        return this;
    }

    /** The value the domain's reset loads; without it the register is not reset. */
    public Reg init(long value) {
        return init(BigInteger.valueOf(value));
    }

    public Reg init(BigInteger value) {
        resetValue = Expr.lit(value, width(), SourceLoc.capture()).value();
        return this;
    }

    /**
     * The value the register holds when the FPGA is configured, emitted as the declaration's
     * initialiser ({@code reg [4:0] x = 5'd0;}), which Intel's and AMD's tools load into the flop at
     * configuration and Yosys keeps as its {@code init} attribute. Independent of {@link #init}: a
     * register may have a power-up value, a reset value, or both; without a reset value it has no
     * reset branch, so no reset ever moves it (a pointer that crosses clock domains and must never
     * jump). Not for ASIC flows, where flops have no defined power-up state.
     */
    public Reg powerUp(long value) {
        return powerUp(BigInteger.valueOf(value));
    }

    public Reg powerUp(BigInteger value) {
        SourceLoc loc = SourceLoc.capture();
        if (value.signum() < 0) {
            throw ElaborationException.at(loc, "power-up value %s of %s is negative: register values are unsigned", value, describe());
        }
        if (value.bitLength() > width()) {
            throw ElaborationException.at(loc, "power-up value %s of %s needs %d bits and does not fit in its %d bits",
                    value, describe(), value.bitLength(), width());
        }
        powerUpValue = value;
        return this;
    }

    /** The register takes its next value only in cycles where {@code en} is 1. */
    public Reg enableWhen(Expr en) {
        SourceLoc loc = SourceLoc.capture();
        if (en.width() != 1) {
            throw ElaborationException.at(loc, "enable %s of %s is %d bits wide: it must be 1 bit", en.describe(), describe(), en.width());
        }
        if (enable != null) {
            throw ElaborationException.at(loc, "%s already has an enable (set at %s)", describe(), enableLoc);
        }
        mergeOwner(owner(), en, loc);
        enable = en;
        enableLoc = loc;
        return this;
    }

    /** A Verilog attribute emitted on the declaration, such as {@code ASYNC_REG = "TRUE"}. */
    public Reg attribute(String key, String value) {
        Names.requireIdentifier(key, "attribute name");
        attributes.put(key, value);
        return this;
    }

    public BigInteger resetValue() {
        return resetValue;
    }

    /** The power-up value, or null when the register has none. */
    public BigInteger powerUpValue() {
        return powerUpValue;
    }

    public Expr enable() {
        return enable;
    }

    public Map<String, String> attributes() {
        return Collections.unmodifiableMap(attributes);
    }
}
