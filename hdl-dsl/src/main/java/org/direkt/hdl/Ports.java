// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * Where a {@link Unit} declares its interface. The same declaration runs twice: inside the unit,
 * where each call creates a port, and at every instance in a parent, where each call returns the
 * instance's pin for that port. A unit's interface record is therefore written once, and a parent
 * reaches a child's ports through record fields that javac checks, never through names.
 */
public interface Ports {

    /** A clock domain of the unit (its clock and reset ports inside; at an instance, bind it with {@link Sub#clock}). */
    ClockDomain domain(ClockDomain cd);

    /** A domain whose signals the unit only passes through (no clock or reset port). */
    ClockDomain passThrough(ClockDomain cd);

    /** An input port: the unit reads it, the parent drives it. */
    Signal in(String name, int width, ClockDomain cd);

    /** An output port: the unit drives it, the parent reads it. */
    Signal out(String name, int width, ClockDomain cd);

    /** A stream the unit takes words from; {@code type} is the stream as its producer sees it. */
    Stream sink(String name, AvalonSt type, ClockDomain cd);

    /** A stream the unit offers words on; {@code type} is the stream as its producer sees it. */
    Stream source(String name, AvalonSt type, ClockDomain cd);

    /** The producer's view of {@code type} (a sink type flipped back), so both calls take either form. */
    static AvalonSt producerSide(AvalonSt type) {
        return type.side() == AvalonSt.Side.SOURCE ? type : type.flip();
    }
}
