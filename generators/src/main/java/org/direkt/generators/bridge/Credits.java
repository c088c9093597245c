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
 * <p>{@code ok} is a register computed a cycle ahead, from the sum then plus the admission then
 * (the sum can only have fallen since: a push moves one from outstanding to the fill, a pop the
 * write side sees lowers the fill), so it is never more permissive than the rule and its path
 * starts at a flip-flop.
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

        public int fillBits() {
            return Check.log2(statusDepth) + 1;
        }
    }

    public record Io(Signal admit, Signal release, Signal fill, Signal ok, Signal outstanding) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_credits_n" + p.inflight() + "_s" + p.statusDepth();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        return new Io(at.in("admit", 1, cd), at.in("retire", 1, cd), at.in("fill", p.fillBits(), cd), at.out("ok", 1, cd),
                at.out("outstanding", p.countBits(), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Status credits: at most " + p.inflight() + " kernel descriptors outstanding, never more than the "
                + p.statusDepth() + "-word status FIFO can take.");
        ClockDomain cd = Domains.MAIN;
        int ow = p.countBits();
        int sw = Math.max(ow, p.fillBits()) + 1;
        Reg outstanding = m.reg("outstanding_q", ow, cd).init(0);
        Reg ok = m.reg("ok_q", 1, cd).init(1);
        m.when(io.admit().and(io.release().not()), () -> outstanding.set(outstanding.plus(1)))
                .elseWhen(io.admit().not().and(io.release()), () -> outstanding.set(outstanding.minus(1)));
        Signal sum = m.wire("sum", sw);
        sum.set(outstanding.zext(sw).plus(io.fill().zext(sw)));
        // Both outcomes ready before the late admit decides between them.
        Expr okIfNone = sum.lt(m.lit(p.statusDepth(), sw));
        Expr okIfAdmit = sum.lt(m.lit(p.statusDepth() - 1, sw));
        if (p.inflight() < p.statusDepth()) {
            // With as many places as descriptors in flight the first bound implies the second.
            okIfNone = okIfNone.and(outstanding.lt(m.lit(p.inflight(), ow)));
            // With one in flight, the one admitted now uses it up.
            okIfAdmit = p.inflight() == 1 ? m.lit(0, 1) : okIfAdmit.and(outstanding.lt(m.lit(p.inflight() - 1, ow)));
        }
        ok.set(Expr.mux(io.admit(), okIfAdmit, okIfNone));
        io.ok().set(ok);
        io.outstanding().set(outstanding);
    }
}
