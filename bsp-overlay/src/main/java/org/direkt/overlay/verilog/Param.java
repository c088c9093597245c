// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.util.Objects;

/**
 * A module parameter.
 *
 * @param name  the parameter name
 * @param expr  the default value expression as written in the source (comments included)
 * @param value the integer value of {@code expr} (or of an override), or {@code null} when it has
 *              none: a string or real parameter, x/z digits, or a reference to such a parameter
 * @param local true for a {@code localparam}, and for a body {@code parameter} of a module that
 *              has a {@code #(...)} parameter port list (Verilog-2005 12.2): these cannot be
 *              overridden
 */
public record Param(String name, String expr, Long value, boolean local) {

    /** Checks that name and expression are present. */
    public Param {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(expr, "expr");
    }

    /** An overridable parameter. */
    public Param(String name, String expr, Long value) {
        this(name, expr, value, false);
    }
}
