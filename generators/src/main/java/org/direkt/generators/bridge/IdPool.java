// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * Managed descriptor IDs: slot s of {@code n} is ID {@code 128 + s}. Slots are handed out first in
 * order (a counter of slots never used since reset), then from a small RAM queue of the slots
 * whose status has been pushed, so the offered slot always comes from a register or the queue's
 * head, with no search over a bit vector. A slot is {@code issued} from its hand-over to the mover
 * until the mover reports it; only an issued slot's report is believed, so a stray status cannot
 * retire a slot whose descriptor the mover never had.
 */
public final class IdPool extends Unit<IdPool.Params, IdPool.Io> {

    public record Params(int slots) {
        public Params {
            require(slots >= 1 && slots <= 128, "IdPool", "slots", slots, "must be in 1..128 (kernel IDs are 128..255)");
        }

        public int slotBits() {
            return Check.indexWidth(Math.max(2, slots));
        }
    }

    public record Io(Signal alloc, Signal freeSlot, Signal anyFree, Signal handed, Signal handedSlot, Signal back,
            Signal backSlot, Signal release, Signal releaseSlot, Signal issued, Signal late, Signal lateSlot) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_id_pool_n" + p.slots();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int sw = p.slotBits();
        return new Io(at.in("alloc", 1, cd), at.out("free_slot", sw, cd), at.out("any_free", 1, cd),
                at.in("handed", 1, cd), at.in("handed_slot", sw, cd), at.in("back", 1, cd), at.in("back_slot", sw, cd),
                at.in("retire", 1, cd), at.in("retire_slot", sw, cd), at.out("issued", p.slots(), cd),
                at.out("late", 1, cd), at.out("late_slot", sw, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Kernel descriptor IDs 128.." + (127 + p.slots()) + ": never-used slots first, then a queue of retired ones; "
                + "issued while the mover has it.");
        ClockDomain cd = Domains.MAIN;
        int n = p.slots();
        int sw = p.slotBits();
        int qa = Check.indexWidth(Math.max(2, n));
        int depth = 1 << qa;
        Reg fresh = m.reg("fresh", sw + 1, cd).init(0);
        Memory retired = m.memory("retired", sw, depth, cd);
        Reg head = m.reg("retired_rd", qa + 1, cd).init(0);
        Reg tail = m.reg("retired_wr", qa + 1, cd).init(0);
        Signal unused = m.wire("fresh_left", 1);
        unused.set(fresh.lt(m.lit(n, sw + 1)));
        io.freeSlot().set(Expr.mux(unused, fresh.trunc(sw), retired.readAsync(head.trunc(qa))));
        // any_free from a register, computed a cycle ahead from a count of the free slots and this
        // cycle's allocation and release (exact, so never more permissive than the slots are).
        int cw = Check.indexWidth(n + 1);
        Reg freeCount = m.reg("free_count", cw, cd).init(n);
        Reg anyFree = m.reg("any_free_q", 1, cd).init(1);
        // alloc is decided late (it waits for the checks and the credits): it only selects.
        freeCount.set(freeCount.upDownSelected(io.release(), io.alloc()));
        Expr atLeast1 = freeCount.ne(0);
        Expr atLeast2 = cw == 1 ? m.lit(0, 1) : freeCount.bits(cw - 1, 1).orR();
        anyFree.set(Expr.mux(io.release(), Expr.mux(io.alloc(), atLeast1, m.lit(1, 1)),
                Expr.mux(io.alloc(), atLeast2, atLeast1)));
        io.anyFree().set(anyFree);
        m.when(io.alloc().and(unused), () -> fresh.set(fresh.plus(1)));
        m.when(io.alloc().and(unused.not()), () -> head.set(head.plus(1)));
        retired.write(tail.trunc(qa), io.releaseSlot(), io.release());
        m.when(io.release(), () -> tail.set(tail.plus(1)));

        // The hand-over is registered before it marks its slot (its path starts at the arbiter). In
        // the cycle between, the slot is issued all the same: {@code late} and {@code late_slot} name
        // it, for the user to OR in (a mover that reports at once is believed). A report clears
        // what the hand-over set, even in the cycle the mark lands.
        Reg issued = m.reg("slot_issued", n, cd).init(0);
        Reg handedQ = m.reg("handed_q", 1, cd).init(0);
        Reg handedSlotQ = m.reg("handed_slot_q", sw, cd).init(0);
        handedQ.set(io.handed());
        handedSlotQ.set(io.handedSlot());
        Expr one = m.lit(1, n);
        Expr none = m.lit(0, n);
        Expr marking = issued.or(Expr.mux(handedQ, one.shl(handedSlotQ), none));
        Expr back = Expr.mux(io.back(), one.shl(io.backSlot()), none);
        issued.set(marking.and(back.not()));
        io.issued().set(issued);
        io.late().set(handedQ);
        io.lateSlot().set(handedSlotQ);
    }
}
