// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.util.Objects;

/**
 * A module port.
 *
 * @param name      the port name (an escaped identifier without its backslash)
 * @param direction input, output or inout
 * @param width     the bit width: |msb - lsb| + 1 with the module's parameter values, 1 without a
 *                  range, 32 for {@code integer} and 64 for {@code time} ports
 * @param rangeText the range as written, e.g. {@code [W-1:0]}, or the empty string
 * @param signed    declared {@code signed} (or {@code integer})
 * @param line      1-based line of the port name in the declaration that gives its direction
 *                  (the ANSI header item, or the body declaration of a non-ANSI port)
 * @param col       1-based column of that name
 */
public record Port(String name, Direction direction, int width, String rangeText, boolean signed,
                   int line, int col) {

    /** Checks the components. */
    public Port {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(rangeText, "rangeText");
        if (width < 1) {
            throw new IllegalArgumentException("port " + name + ": width " + width + " < 1");
        }
    }
}
