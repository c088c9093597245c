// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.examples;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Gray;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Sync;

/**
 * A counter in domain a observed from domain b: the count is Gray-coded in a register of domain a,
 * crosses through the synchroniser primitive, and is decoded back to binary in domain b. The
 * smallest design that exercises the one legal clock-domain crossing.
 */
public final class GrayCrossing extends Generator<GrayCrossing.Params> {

    public record Params(int width, int syncStages) {
        public Params {
            if (width < 2) {
                throw new IllegalArgumentException("GrayCrossing width " + width + ": must be >= 2");
            }
            if (syncStages < 2) {
                throw new IllegalArgumentException("GrayCrossing syncStages " + syncStages + ": must be >= 2");
            }
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_gray_crossing_w" + p.width() + (p.syncStages() == 2 ? "" : "_s" + p.syncStages());
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain a = m.domain(ClockDomain.of("a"));
        ClockDomain b = m.domain(ClockDomain.of("b"));
        Signal inc = m.input("a_inc", 1, a);
        Signal aCount = m.output("a_count", p.width(), a);
        Signal bCount = m.output("b_count", p.width(), b);

        Reg aBin = m.reg("a_bin", p.width(), a).init(0);
        Reg aGray = m.reg("a_gray", p.width(), a).init(0);
        Reg bBin = m.reg("b_bin", p.width(), b).init(0);

        Signal next = m.wire("a_next", p.width());
        next.set(Expr.mux(inc, aBin.plus(1), aBin));
        aBin.set(next);
        // Gray code of the next value, so a_gray and a_bin always describe the same count.
        aGray.set(Gray.encode(next));

        Signal grayInB = Sync.bits(m, "u_gray_sync", aGray, b, p.syncStages());
        bBin.set(Gray.decode(grayInB));

        aCount.set(aBin);
        bCount.set(bBin);
    }
}
