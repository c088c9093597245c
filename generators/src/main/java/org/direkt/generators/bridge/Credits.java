// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * Status credits: a kernel descriptor is admitted only while the descriptors awaiting their status
 * ({@code outstanding}) plus the status FIFO's fill as its write side sees it leave a place, and
 * fewer than {@code inflight} are outstanding. Every admitted descriptor pushes exactly one status,
 * so a mover status, which cannot be held back, always finds room.
 *
 * <p>The sum is the FIFO's write pointer ({@code wr_ptr}) plus outstanding less the read pointer the
 * write side sees ({@code rd_ptr}, lagging the real one: the sum is never understated). The FIFO's
 * pointers are not moved by a reset (it tolerates either side's reset alone), so the sum is taken
 * from the FIFO's own write pointer rather than from a count of this unit's: a reset clears
 * {@code outstanding} (the descriptors it forgets push no status) and leaves the FIFO's words
 * counted. {@code ok} is a register computed a cycle ahead, from the sum then plus the admission
 * then (the sum can only have fallen since), so it is never more permissive than the rule.
 */
public final class Credits extends Unit<Credits.Params, Credits.Io> {

    public record Params(int inflight, int statusDepth) {
        public Params {
            require(inflight >= 1 && inflight <= 128, "Credits", "inflight", inflight, "must be in 1..128");
            require(Check.isPowerOfTwo(statusDepth) && statusDepth >= inflight, "Credits", "statusDepth", statusDepth,
                    "must be a power of two >= inflight (" + inflight + ")");
        }

        public int countBits() {
            return Check.indexWidth(inflight + 1);
        }

        /** The status FIFO's pointer width: one bit over its address. */
        public int fillBits() {
            return Check.log2(statusDepth) + 1;
        }
    }

    /** {@code drained}: nothing outstanding and the FIFO empty as its write side sees it. */
    public record Io(Signal admit, Signal release, Signal wrPtr, Signal rdPtr, Signal ok, Signal outstanding, Signal drained) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_credits_n" + p.inflight() + "_s" + p.statusDepth();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        return new Io(at.in("admit", 1, cd), at.in("retire", 1, cd), at.in("wr_ptr", p.fillBits(), cd),
                at.in("rd_ptr", p.fillBits(), cd), at.out("ok", 1, cd),
                at.out("outstanding", p.countBits(), cd), at.out("drained", 1, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Status credits: at most " + p.inflight() + " kernel descriptors outstanding, never more than the "
                + p.statusDepth() + "-word status FIFO can take.");
        ClockDomain cd = Domains.MAIN;
        int ow = p.countBits();
        int pw = p.fillBits();
        int aw = pw - 1;
        Reg outstanding = m.reg("outstanding_q", ow, cd).init(0);
        // 0 out of reset: the FIFO may still hold words from before it, counted from the next cycle on.
        Reg ok = m.reg("ok_q", 1, cd).init(0);
        outstanding.set(outstanding.upDown(io.admit(), io.release()));
        // Outstanding never exceeds inflight <= the FIFO's depth, so it fits the pointer width.
        Expr out = ow == pw ? outstanding : outstanding.zext(pw);
        Expr okIfNone;
        Expr okIfAdmit;
        if (p.inflight() == 1) {
            // The one admitted now uses the only place in flight up; the FIFO's room then matters
            // only while none is outstanding: a place is left unless wr_ptr is a whole lap (the
            // depth) ahead of rd_ptr, an equality with rd_ptr's top bit flipped.
            Expr lapAhead = Expr.cat(io.rdPtr().bit(aw).not(), io.rdPtr().bits(aw - 1, 0));
            okIfNone = outstanding.eq(0).and(io.wrPtr().ne(lapAhead));
            okIfAdmit = m.lit(0, 1);
            io.drained().set(outstanding.eq(0).and(io.wrPtr().eq(io.rdPtr())));
        } else {
            // The sum never exceeds the depth (the rule keeps it there; a lagging rd_ptr only lowers
            // it later), so it fits the pointer width and the bounds are bit tests, not comparators:
            // sum < depth is a clear top bit, sum < depth - 1 also excludes depth - 1 (all low bits set).
            Signal sum = m.wire("sum", pw);
            sum.set(io.wrPtr().plus(out).minus(io.rdPtr()));
            okIfNone = sum.bit(aw).not();
            okIfAdmit = okIfNone.and(sum.bits(aw - 1, 0).andR().not());
            // Both terms are never negative, so a sum of 0 is each of them 0.
            io.drained().set(sum.eq(0));
            if (p.inflight() < p.statusDepth()) {
                // With as many places as descriptors in flight the first bound implies the second.
                okIfNone = okIfNone.and(outstanding.lt(m.lit(p.inflight(), ow)));
                okIfAdmit = okIfAdmit.and(outstanding.lt(m.lit(p.inflight() - 1, ow)));
            }
        }
        ok.set(Expr.mux(io.admit(), okIfAdmit, okIfNone));
        io.ok().set(ok);
        io.outstanding().set(outstanding);
    }
}
