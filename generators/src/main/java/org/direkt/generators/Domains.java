// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import org.direkt.hdl.ClockDomain;

/** The clock domains the generated IP uses; port names follow what Platform Designer components expect. */
public final class Domains {
    private Domains() {
    }

    /** Single-clock IP: {@code clk}, active-high synchronous {@code rst}. */
    public static final ClockDomain MAIN = new ClockDomain("main", "clk", "rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);

    /** Write side of an asynchronous FIFO. */
    public static final ClockDomain WRITE = new ClockDomain("wr", "wr_clk", "wr_rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);

    /** Read side of an asynchronous FIFO. */
    public static final ClockDomain READ = new ClockDomain("rd", "rd_clk", "rd_rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);
}
