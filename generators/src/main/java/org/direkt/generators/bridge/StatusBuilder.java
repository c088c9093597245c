// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.Map;

import org.direkt.contract.BridgeModes.IdMode;
import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
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
 * Kernel statuses. Each admitted descriptor's issue time (and tag) is stamped into a table by its
 * slot. A mover status for a kernel ID that is waiting for one (managed: its slot is issued; paper:
 * some descriptor is outstanding) or, when none arrives, a rejected descriptor, enters one register
 * stage that also reads the slot's stamp; the status word is built from it and pushed the next
 * cycle. Mover statuses with host IDs (0..127) go to {@code hs_*} untouched, at once.
 */
public final class StatusBuilder extends Unit<StatusBuilder.Params, StatusBuilder.Io> {

    /** {@code events}: report completions, aborts and spurious statuses (for the counters). */
    public record Params(IdMode idMode, int inflight, boolean tagged, boolean events, int fetchIds) {
        public Params {
            require(idMode != null, "StatusBuilder", "idMode", idMode, "must be MANAGED or PAPER");
            require(inflight >= 1 && inflight <= 128, "StatusBuilder", "inflight", inflight, "must be in 1..128");
            require(fetchIds >= 0 && fetchIds <= Bridge.Params.MAX_TABLE_FETCH_IDS, "StatusBuilder", "fetchIds", fetchIds,
                    "must be in 0.." + Bridge.Params.MAX_TABLE_FETCH_IDS);
            require(idMode == IdMode.PAPER || inflight <= 128 - fetchIds, "StatusBuilder", "inflight", inflight,
                    "must leave the table-fetch IDs out of the managed range");
        }

        public Params(IdMode idMode, int inflight, boolean tagged, boolean events) {
            this(idMode, inflight, tagged, events, 0);
        }

        /** Slots of the stamp table: one per managed ID, or one per kernel ID (128) in paper mode. */
        public int slots() {
            return idMode == IdMode.MANAGED ? Math.max(2, inflight) : 128;
        }

        public int slotBits() {
            return Check.indexWidth(slots());
        }

        public int countBits() {
            return Check.indexWidth(inflight + 1);
        }
    }

    /** {@code late}/{@code lateSlot} (managed): a slot handed over last cycle, issued though not yet in {@code waiting}. */
    public record Io(Signal msValid, Signal msData, Signal hsValid, Signal hsData, Signal waiting, Signal late,
            Signal lateSlot, Signal reject,
            Signal rejectLoad, Signal rejectSlot, Signal rejectError, Signal rejectTaken, Signal stamp, Signal stampSlot, Signal stampTag,
            Signal now, Signal back, Signal backSlot, Signal push, Signal pushSlot, Signal pushData, Signal evCompleted,
            Signal evAborted, Signal evSpurious) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_status_n" + p.inflight() + (p.idMode() == IdMode.PAPER ? "_pid" : "") + (p.tagged() ? "" : "_cyc")
                + (p.events() ? "" : "_ne") + (p.fetchIds() == 0 ? "" : "_f" + p.fetchIds());
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int sw = p.slotBits();
        int sb = Layout.MOVER_STATUS.bits();
        // managed: the issued slots; paper: the outstanding count
        int waitingBits = p.idMode() == IdMode.MANAGED ? p.inflight() : p.countBits();
        boolean managed = p.idMode() == IdMode.MANAGED;
        return new Io(at.in("ms_valid", 1, cd), at.in("ms_data", sb, cd), at.out("hs_valid", 1, cd), at.out("hs_data", sb, cd),
                at.in("waiting", waitingBits, cd), managed ? at.in("late", 1, cd) : null,
                managed ? at.in("late_slot", sw, cd) : null, at.in("reject", 1, cd),
                p.tagged() ? null : at.in("reject_load", 1, cd), p.tagged() || managed ? at.in("reject_slot", sw, cd) : null,
                at.in("reject_error", 4, cd), at.out("reject_taken", 1, cd), at.in("stamp", 1, cd), at.in("stamp_slot", sw, cd),
                p.tagged() ? at.in("stamp_tag", 32, cd) : null, at.in("now", 32, cd), managed ? at.out("back", 1, cd) : null,
                managed ? at.out("back_slot", sw, cd) : null, at.out("push", 1, cd), managed ? at.out("push_slot", sw, cd) : null,
                at.out("push_data", 64, cd), p.events() ? at.out("ev_completed", 1, cd) : null,
                p.events() ? at.out("ev_aborted", 1, cd) : null, p.events() ? at.out("ev_spurious", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Kernel statuses: stamps at admission, mover statuses and rejections through one register stage, "
                + (p.tagged() ? "tag, error and elapsed cycles." : "elapsed cycles, high word all ones on error."));
        ClockDomain cd = Domains.MAIN;
        int sw = p.slotBits();
        Layout.Word ms = Layout.MOVER_STATUS;
        Signal msId = m.wire("ms_id", 8);
        msId.set(HdlWords.get(io.msData(), ms, "id"));
        Signal msKernel = m.wire("ms_kernel", 1);
        Expr msIsKernel = HdlWords.get(msId, Layout.DESC_ID, "kernel");
        msKernel.set(io.msValid().and(msIsKernel));
        Signal msSlot = m.wire("ms_slot", sw);
        msSlot.set(HdlWords.get(msId, Layout.DESC_ID, "slot").trunc(sw));

        Reg stValid = m.reg("m1_valid", 1, cd).init(0);
        Reg stSlot = io.pushSlot() != null ? m.reg("m1_slot", sw, cd).init(0) : null;
        Reg stError = m.reg("m1_error", 4, cd).init(0);
        Reg stMover = p.events() ? m.reg("m1_mover", 1, cd).init(0) : null;
        Signal legit = m.wire("ms_legit", 1);
        // A table fetch's status (IDs 256 - fetchIds .. 255, kernel range) is the descriptor controller's:
        // never believed, never spurious. It holds a rejection back for its cycle like any kernel-range one.
        Signal msFetch = null;
        if (p.fetchIds() > 0) {
            msFetch = m.wire("ms_fetch", 1);
            msFetch.set(msId.ge(m.lit(Layout.KERNEL_ID_LAST + 1 - p.fetchIds(), 8)));
        }
        if (p.idMode() == IdMode.MANAGED) {
            Expr inRange = HdlWords.get(msId, Layout.DESC_ID, "slot").zext(8).lt(m.lit(p.inflight(), 8));
            Expr issued = io.waiting().and(m.lit(1, p.inflight()).shl(msSlot)).orR()
                    .or(io.late().and(io.lateSlot().eq(msSlot)));
            legit.set(msKernel.and(inRange).and(issued));
        } else {
            // One status per outstanding descriptor at most: the one in the stage is already counted.
            Expr believed = msKernel.and(io.waiting().ne(stValid.zext(p.countBits())));
            legit.set(msFetch == null ? believed : believed.and(msFetch.not()));
        }
        io.hsValid().set(io.msValid().and(msIsKernel.not()));
        io.hsData().set(io.msData());

        // A rejection waits while any kernel-range status arrives (the mover's cannot be held back).
        Signal taken = m.wire("reject_take", 1);
        taken.set(io.reject().and(msKernel.not()));
        io.rejectTaken().set(taken);
        Expr moverError = HdlWords.get(io.msData(), ms, "aborted").or(HdlWords.get(io.msData(), ms, "flushed"));
        // Tagged: the stamp is read for any kernel-range status (believed or not) or else for the
        // waiting rejection: the address does not wait for the legitimacy check. Cycles: only mover
        // statuses read the table, straight at their ID, with no multiplexer in front of a deep table;
        // the rejection keeps its own stamp.
        Signal slot = io.rejectSlot() == null ? null : m.wire("m0_slot", sw);
        if (slot != null) {
            slot.set(Expr.mux(msKernel, msSlot, io.rejectSlot()));
        }
        stValid.set(legit.or(taken));
        if (stMover != null) {
            stMover.set(legit);
        }
        if (stSlot != null) {
            stSlot.set(slot);
        }
        // Picked by the kind of status, not its legitimacy: a kernel-range status that is not believed
        // leaves the stage empty (a rejection waits in that cycle), so the error it loads is never
        // used, and the legitimacy check stays off the error register's path.
        stError.set(Expr.mux(msKernel, Expr.mux(moverError, m.lit(Layout.Error.ABORTED.code(), 4), m.lit(0, 4)), io.rejectError()));
        if (io.back() != null) {
            io.back().set(legit);
            io.backSlot().set(msSlot);
        }

        int tw = p.tagged() ? 64 : 32;
        Signal elapsed = m.wire("elapsed", 32);
        if (p.tagged()) {
            // The subtraction before the register, so that only the saturation is left between the
            // register and the status FIFO. The stamp is the cycle before admission (now_prev), so the
            // difference taken a cycle early is the same count of cycles.
            Reg nowPrev = m.reg("now_prev", 32, cd).init(0xFFFF_FFFFL);
            nowPrev.set(io.now());
            Reg elapsedQ = m.reg("elapsed_q", 32, cd).init(0);
            Expr tag;
            if (stSlot != null) {
                // Managed: the stamps and the tags in tables of their own, so the slot's multiplexer
                // drives half the RAM it would (distributed: a block RAM's unregistered output, about
                // 5 ns on ECP5, would leave no time for the subtraction). The tag is read a cycle
                // later, at the registered slot: a slot is stamped only while free, and the one whose
                // status is in the stage stays issued until it is pushed.
                Memory stamps = m.memory("stamp_table", 32, p.slots(), cd).distributed();
                Memory tags = m.memory("tag_table", 32, p.slots(), cd).distributed();
                stamps.write(io.stampSlot(), nowPrev, io.stamp());
                tags.write(io.stampSlot(), io.stampTag(), io.stamp());
                elapsedQ.set(io.now().minus(stamps.readAsync(slot)));
                Signal tagRead = m.wire("m1_tag", 32);
                tagRead.set(tags.readAsync(stSlot));
                tag = tagRead;
            } else {
                Memory table = m.memory("stamp_table", tw, p.slots(), cd).distributed();
                table.write(io.stampSlot(), HdlWords.pack(m, Layout.STAMP_TAGGED, Map.of("tag", io.stampTag(), "stamp", nowPrev)),
                        io.stamp());
                Signal entry = m.wire("entry", tw);
                entry.set(table.readAsync(slot));
                Reg tagQ = m.reg("tag_q", 32, cd).init(0);
                // Loaded every cycle: only a cycle with a status behind it (m1_valid) uses them.
                tagQ.set(HdlWords.get(entry, Layout.STAMP_TAGGED, "tag"));
                elapsedQ.set(io.now().minus(HdlWords.get(entry, Layout.STAMP_TAGGED, "stamp")));
                tag = tagQ;
            }
            elapsed.set(elapsedQ);
            int eb = Layout.ELAPSED_BITS;
            Expr sat = Expr.mux(elapsed.bits(31, eb).orR(), m.lit((1L << eb) - 1, eb), elapsed.bits(eb - 1, 0));
            io.pushData().set(HdlWords.pack(m, Layout.KERNEL_STATUS_TAGGED, Map.of("tag", tag, "error", stError, "elapsed", sat)));
        } else {
            // 32 bits need no saturation: the read is registered (a plain read register, so a block
            // RAM can hold the table where LUTs are dear) and the subtraction follows it. A rejection
            // takes its stamp when it is loaded (the stamp the table would have) and its status picks
            // that instead of the table's word.
            Memory table = m.memory("stamp_table", tw, p.slots(), cd).distributed();
            table.write(io.stampSlot(), io.now(), io.stamp());
            // Read every cycle: only a cycle with a status behind it (m1_valid) uses the word.
            Signal entry = m.wire("entry", tw);
            entry.set(table.readSync("entry_q", msSlot, m.lit(1, 1), cd));
            Reg rejStamp = m.reg("reject_stamp", 32, cd).init(0);
            m.when(io.rejectLoad(), () -> rejStamp.set(io.now()));
            Reg fromReject = m.reg("m1_reject", 1, cd).init(0);
            fromReject.set(taken);
            elapsed.set(io.now().minus(Expr.mux(fromReject, rejStamp, entry)));
            io.pushData().set(HdlWords.pack(m, Layout.KERNEL_STATUS_CYCLES,
                    Map.of("cycles", elapsed, "failed", stError.ne(0).repeat(32))));
        }

        io.push().set(stValid);
        if (io.pushSlot() != null) {
            io.pushSlot().set(stSlot);
        }
        if (p.events()) {
            io.evCompleted().set(stValid.and(stMover));
            io.evAborted().set(stValid.and(stMover).and(stError.ne(0)));
            Expr unbelieved = msKernel.and(legit.not());
            io.evSpurious().set(msFetch == null ? unbelieved : unbelieved.and(msFetch.not()));
        }
    }
}
