// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * The licence direkt puts on what it generates: 0BSD, so the Verilog, Tcl, headers and documents an
 * overlay writes can go into any BSP, open or closed, without conditions. direkt itself is
 * Apache-2.0 (LICENSE); its kernel module is GPL-2.0 OR MIT.
 */
public final class GeneratedLicence {
    private GeneratedLicence() {
    }

    /** The SPDX identifier every generated file carries. */
    public static final String SPDX = "0BSD";

    /** The SPDX line's text, without comment marks. */
    public static final String SPDX_LINE = "SPDX-License-Identifier: " + SPDX;

    /** One sentence saying what the identifier means for the user. */
    public static final String NOTE = "Generated output: free to use, change and ship without conditions (0BSD).";
}
