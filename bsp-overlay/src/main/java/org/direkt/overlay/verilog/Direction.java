// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

/** Direction of a module port, as declared with {@code input}, {@code output} or {@code inout}. */
public enum Direction {
    /** {@code input} */
    IN,
    /** {@code output} */
    OUT,
    /** {@code inout} */
    INOUT
}
