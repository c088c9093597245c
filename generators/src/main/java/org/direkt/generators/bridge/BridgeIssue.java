// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.Map;

import org.direkt.contract.BridgeModes.IdMode;
import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Unit;

/**
 * Admission of checked kernel descriptors, dma_clk side: the final error code, a status credit
 * ({@link Credits}), an ID ({@link IdPool}, managed mode) and an issue stamp ({@link StatusBuilder})
 * for each. A passing descriptor goes, as a mover descriptor, into a 4-word queue the arbiter reads
 * (its valid flag a register, so neither the arbiter nor the mover's ready reaches back into the
 * admission logic); a failing one waits in a register for the status builder. A rejected
 * descriptor never reaches the mover; every admitted descriptor pushes exactly one status.
 *
 * <p>From the cycle after {@code absorb} rises until the cycle after it falls ({@code absorbing},
 * a register), while the kernel side is being reset, nothing is admitted: every checked
 * descriptor is taken and discarded (it was the old kernel's), and what was admitted before runs
 * its course, its status pushed as ever for the kernel side to drop.
 */
public final class BridgeIssue extends Unit<BridgeIssue.Params, BridgeIssue.Io> {

    /** Places in the mover queue (it holds one less): a few, so the arbiter's pace never stalls admission. */
    static final int MOVER_QUEUE = 4;

    /**
     * {@code events}: report completions, aborts and spurious statuses (for the counters).
     * {@code fetchIds}: the top kernel-range IDs a descriptor controller's table fetches use; their statuses are ignored.
     */
    public record Params(WindowCheck.Params window, int inflight, int statusDepth, boolean events, int fetchIds) {
        public Params {
            require(window != null, "BridgeIssue", "window", window, "must be given");
            new Credits.Params(inflight, statusDepth);
        }

        public Params(WindowCheck.Params window, int inflight, int statusDepth, boolean events) {
            this(window, inflight, statusDepth, events, 0);
        }

        public DescChecks.Params checks() {
            return window.checks();
        }

        public boolean managed() {
            return checks().idMode() == IdMode.MANAGED;
        }

        StatusBuilder.Params status() {
            return new StatusBuilder.Params(checks().idMode(), inflight, checks().tagged(), events, fetchIds);
        }
    }

    public record Io(Stream q, Stream d, Signal msValid, Signal msData, Signal hsValid, Signal hsData, Signal ksValid,
            Signal ksData, Signal ksWrPtr, Signal ksRdPtr, Signal absorb, Signal absorbing, Signal now, Signal outstanding, Signal drained, Signal evRejected, Signal evError,
            Signal evCompleted, Signal evAborted, Signal evSpurious) {
    }

    @Override
    public String moduleName(Params p) {
        return new WindowCheck().moduleName(p.window()).replace("_windows_", "_issue_") + p.checks().memTag() + "_n" + p.inflight()
                + "_s" + p.statusDepth() + (p.events() ? "" : "_ne") + (p.fetchIds() == 0 || p.checks().fetchIds() > 0 ? "" : "_f" + p.fetchIds());
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int sb = Layout.MOVER_STATUS.bits();
        Credits.Params c = new Credits.Params(p.inflight(), p.statusDepth());
        return new Io(at.sink("q", AvalonSt.source(WindowCheck.checkedWord(p.window()).bits()), cd),
                at.source("d", AvalonSt.source(Layout.MOVER_DESC.bits()), cd), at.in("ms_valid", 1, cd), at.in("ms_data", sb, cd),
                at.out("hs_valid", 1, cd), at.out("hs_data", sb, cd), at.out("ks_valid", 1, cd), at.out("ks_data", 64, cd),
                at.in("ks_wr_ptr", c.fillBits(), cd), at.in("ks_rd_ptr", c.fillBits(), cd), at.in("absorb", 1, cd), at.out("absorbing", 1, cd),
                at.in("now", 32, cd), at.out("outstanding", c.countBits(), cd), at.out("drained", 1, cd),
                at.out("ev_rejected", 1, cd), at.out("ev_error", 4, cd), p.events() ? at.out("ev_completed", 1, cd) : null,
                p.events() ? at.out("ev_aborted", 1, cd) : null, p.events() ? at.out("ev_spurious", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Kernel descriptors of the %s direction, dma_clk side: final error code, %s IDs, status credits
                (%d in flight at most, status FIFO of %d), issue stamps, statuses. A rejected descriptor never
                reaches the arbiter; it comes back as a status with its error code.""",
                p.checks().direction().describe(), p.managed() ? "managed (128.." + (127 + p.inflight()) + ")" : "paper-compatible",
                p.inflight(), p.statusDepth()));
        ClockDomain cd = Domains.MAIN;
        Layout.Word w = WindowCheck.checkedWord(p.window());
        Expr q = io.q().data();
        StatusBuilder.Params sp = p.status();
        int sw = sp.slotBits();

        Expr cheap = HdlWords.get(q, w, "cheap_error");
        Expr err = Expr.mux(HdlWords.get(q, w, "fpga_ok").not(), m.lit(Layout.Error.FPGA_RANGE.code(), 4), m.lit(0, 4));
        err = Expr.mux(HdlWords.get(q, w, "hits").orR().not(), m.lit(Layout.Error.WINDOW.code(), 4), err);
        Signal error = m.wire("check_error", 4);
        error.set(Expr.mux(cheap.ne(0), cheap, err));

        Credits.Io credits = m.sub("u_credits", new Credits(), new Credits.Params(p.inflight(), p.statusDepth())).clock(cd).io();
        StatusBuilder.Io status = m.sub("u_status", new StatusBuilder(), sp).clock(cd).io();
        IdPool.Io pool = p.managed() ? m.sub("u_ids", new IdPool(), new IdPool.Params(p.inflight())).clock(cd).io() : null;

        // ---- the mover queue: passing descriptors, in order, for the arbiter
        int qa = Check.log2(MOVER_QUEUE);
        Memory queue = m.memory("mover_queue", Layout.MOVER_DESC.bits(), MOVER_QUEUE, cd);
        Reg qWr = m.reg("mover_queue_wr", qa + 1, cd).init(0);
        Reg qRd = m.reg("mover_queue_rd", qa + 1, cd).init(0);
        Reg qCount = m.reg("mover_queue_count", qa + 1, cd).init(0);
        Reg qValid = m.reg("mover_queue_valid", 1, cd).init(0);
        io.d().valid().set(qValid);
        io.d().data().set(queue.readAsync(qRd.trunc(qa)));
        // ---- a rejected descriptor, holding its slot until the status builder takes it
        Reg reject = m.reg("reject_valid", 1, cd).init(0);
        Reg rejErr = m.reg("reject_error", 4, cd).init(0);
        // The rejection's slot, where its status needs one (a tagged status reads its stamp; managed
        // IDs release it).
        Reg rejSlot = status.rejectSlot() != null ? m.reg("reject_slot", sw, cd).init(0) : null;

        // Admission needs a credit, an ID, a place in the queue and the reject register free,
        // all flip-flops, whether the descriptor passes or not. The queue keeps one place free, so
        // the word at its write pointer is never one it holds; that it has one is a register too.
        // The queue place, the free reject register and not absorbing are one register, computed a
        // cycle ahead (gate); absorbing is a register too (absorb_q), rising and falling with it.
        Reg gate = m.reg("admit_gate", 1, cd).init(0);
        Reg absorbing = m.reg("absorb_q", 1, cd).init(1);
        absorbing.set(io.absorb());
        Signal load = m.wire("load", 1);
        Expr room = credits.ok().and(gate);
        if (pool != null) {
            room = room.and(pool.anyFree());
        }
        load.set(io.q().valid().and(room));
        // Ready does not wait for valid (absorbing: every word is taken and discarded).
        io.q().ready().set(room.or(absorbing));
        io.absorbing().set(absorbing);

        Expr kid = p.managed() ? null : HdlWords.get(q, w, "id");
        Signal slot = m.wire("alloc_slot", sw);
        slot.set(p.managed() ? pool.freeSlot() : HdlWords.get(kid, Layout.DESC_ID, "slot"));
        Expr id = p.managed() ? HdlWords.pack(m, Layout.DESC_ID, Map.of("kernel", m.lit(1, 1),
                "slot", slot.zext(Layout.DESC_ID.field("slot").width()))) : kid;
        Signal push = m.wire("mover_push", 1);
        push.set(load.and(HdlWords.get(q, w, "pass")));
        Signal pop = m.wire("mover_pop", 1);
        pop.set(io.d().fire());
        // Written every cycle at the free place (the write enable waits for nothing); it counts once pushed.
        queue.write(qWr.trunc(qa), HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", HdlWords.get(q, w, "src"),
                "dst", HdlWords.get(q, w, "dst"), "dwords", HdlWords.get(q, w, "dwords"), "id", id)), m.lit(1, 1));
        m.when(push, () -> qWr.set(qWr.plus(1)));
        m.when(pop, () -> qRd.set(qRd.plus(1)));
        Signal qCountNext = m.wire("mover_queue_count_next", qa + 1);
        qCountNext.set(qCount.upDown(push, pop));
        qCount.set(qCountNext);
        Expr rejectNext = load.and(HdlWords.get(q, w, "pass").not()).or(reject.and(status.rejectTaken().not()));
        gate.set(qCountNext.lt(m.lit(MOVER_QUEUE - 1, qa + 1)).and(rejectNext.not()).and(io.absorb().not()));
        // Valid next cycle: a word pushed now, or one that stays (two or more, or one not popped).
        qValid.set(push.or(qCount.ge(2)).or(qCount.eq(1).and(pop.not())));
        m.when(load.and(HdlWords.get(q, w, "pass").not()), () -> {
            reject.set(1);
            rejErr.set(error);
            if (rejSlot != null) {
                rejSlot.set(slot);
            }
        }).elseWhen(status.rejectTaken(), () -> reject.set(0));

        credits.admit().set(load);
        credits.release().set(status.push());
        credits.wrPtr().set(io.ksWrPtr());
        credits.rdPtr().set(io.ksRdPtr());
        if (pool != null) {
            pool.alloc().set(load);
            pool.handed().set(pop);
            pool.handedSlot().set(HdlWords.get(HdlWords.get(io.d().data(), Layout.MOVER_DESC, "id"), Layout.DESC_ID, "slot").trunc(sw));
            pool.back().set(status.back());
            pool.backSlot().set(status.backSlot());
            pool.release().set(status.push());
            pool.releaseSlot().set(status.pushSlot());
        }

        status.msValid().set(io.msValid());
        status.msData().set(io.msData());
        io.hsValid().set(status.hsValid());
        io.hsData().set(status.hsData());
        status.waiting().set(pool != null ? pool.issued() : credits.outstanding());
        if (pool != null) {
            status.late().set(pool.late());
            status.lateSlot().set(pool.lateSlot());
        }
        status.reject().set(reject);
        if (status.rejectSlot() != null) {
            status.rejectSlot().set(rejSlot);
        }
        if (status.rejectLoad() != null) {
            status.rejectLoad().set(load.and(HdlWords.get(q, w, "pass").not()));
        }
        status.rejectError().set(rejErr);
        // Stamped whenever a descriptor is offered and a slot is free (managed; paper: the kernel's
        // own), so never over a slot in use; the stamp is written again in the cycle it is admitted.
        status.stamp().set(pool != null ? io.q().valid().and(pool.anyFree()) : io.q().valid());
        status.stampSlot().set(slot);
        if (status.stampTag() != null) {
            status.stampTag().set(HdlWords.get(q, w, "tag"));
        }
        status.now().set(io.now());
        io.ksValid().set(status.push());
        io.ksData().set(status.pushData());

        io.outstanding().set(credits.outstanding());
        io.drained().set(credits.drained());
        io.evRejected().set(status.rejectTaken());
        io.evError().set(rejErr);
        if (p.events()) {
            io.evCompleted().set(status.evCompleted());
            io.evAborted().set(status.evAborted());
            io.evSpurious().set(status.evSpurious());
        }
    }
}
