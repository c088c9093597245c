// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;

/**
 * The synchroniser module for state that must outlive every reset: the chain of {@link SyncCell}
 * (at least two flip-flops, each marked {@code ASYNC_REG} and with Intel's synchroniser
 * identification) with a clock and no reset port; every flop holds its power-up value from
 * configuration on and no reset moves it. Use it through {@link Sync#bitsWithoutReset}.
 */
public final class ResetlessSyncCell extends Generator<ResetlessSyncCell.Params> {

    /** Width, number of flops, and the value each flop holds at configuration. */
    public record Params(int width, int stages, BigInteger powerUp) {
        public Params {
            if (width < 1) {
                throw new IllegalArgumentException("synchroniser width " + width + ": must be >= 1");
            }
            if (stages < 2) {
                throw new IllegalArgumentException("synchroniser stages " + stages
                        + ": must be >= 2 (one flop does not give metastability time to settle)");
            }
            if (powerUp.signum() < 0 || powerUp.bitLength() > width) {
                throw new IllegalArgumentException("synchroniser power-up value " + powerUp + ": must fit in " + width + " unsigned bits");
            }
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_sync_w" + p.width() + "_s" + p.stages() + "_pu" + p.powerUp();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain dst = m.clockOnlyDomain(new ClockDomain("dst", "clk", "rst",
                ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        SyncCell.chain(m, dst, p.width(), p.stages(), r -> r.powerUp(p.powerUp()));
    }
}
