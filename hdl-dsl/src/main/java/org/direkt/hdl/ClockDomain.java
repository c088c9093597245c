// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.Objects;

/**
 * A clock domain: the clock and reset port names, the reset polarity and whether the reset acts
 * synchronously or asynchronously. Every register, memory port and data port names its domain.
 */
public record ClockDomain(String name, String clock, String reset, ResetPolarity polarity, ResetKind kind) {

    public enum ResetPolarity { ACTIVE_HIGH, ACTIVE_LOW }

    public enum ResetKind { SYNC, ASYNC }

    public ClockDomain {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(reset, "reset");
        Objects.requireNonNull(polarity, "polarity");
        Objects.requireNonNull(kind, "kind");
        Names.requireIdentifier(name, "clock domain name");
        Names.requireIdentifier(clock, "clock port of domain " + name);
        Names.requireIdentifier(reset, "reset port of domain " + name);
        if (clock.equals(reset)) {
            throw new IllegalArgumentException("domain " + name + ": clock and reset share the name " + clock);
        }
    }

    /** Domain {@code <name>} with ports {@code <name>_clk} and {@code <name>_rst}, active-high synchronous reset. */
    public static ClockDomain of(String name) {
        return new ClockDomain(name, name + "_clk", name + "_rst", ResetPolarity.ACTIVE_HIGH, ResetKind.SYNC);
    }

    public ClockDomain withPorts(String clockPort, String resetPort) {
        return new ClockDomain(name, clockPort, resetPort, polarity, kind);
    }

    public ClockDomain withPolarity(ResetPolarity p) {
        return new ClockDomain(name, clock, reset, p, kind);
    }

    public ClockDomain withKind(ResetKind k) {
        return new ClockDomain(name, clock, reset, polarity, k);
    }

    public boolean activeLow() {
        return polarity == ResetPolarity.ACTIVE_LOW;
    }

    @Override
    public String toString() {
        return name;
    }
}
