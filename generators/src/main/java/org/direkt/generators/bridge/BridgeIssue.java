package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.Map;

import org.direkt.generators.Domains;
import org.direkt.generators.bridge.Bridge.IdMode;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Unit;

/**
 * Admission of checked kernel descriptors, dma_clk side: the final error code, a status credit
 * ({@link Credits}), an ID ({@link IdPool}, managed mode) and an issue stamp ({@link StatusBuilder})
 * for each, then one register stage that offers a passing descriptor to the arbiter as a mover
 * descriptor and hands a failing one to the status builder. A rejected descriptor never reaches
 * the mover; every admitted descriptor pushes exactly one status.
 */
public final class BridgeIssue extends Unit<BridgeIssue.Params, BridgeIssue.Io> {

    /** {@code events}: report completions, aborts and spurious statuses (for the counters). */
    public record Params(WindowCheck.Params window, int inflight, int statusDepth, boolean events) {
        public Params {
            require(window != null, "BridgeIssue", "window", window, "must be given");
            new Credits.Params(inflight, statusDepth);
        }

        public DescChecks.Params checks() {
            return window.checks();
        }

        public boolean managed() {
            return checks().idMode() == IdMode.MANAGED;
        }

        StatusBuilder.Params status() {
            return new StatusBuilder.Params(checks().idMode(), inflight, checks().tagged(), events);
        }
    }

    public record Io(Stream q, Stream d, Signal msValid, Signal msData, Signal hsValid, Signal hsData, Signal ksValid,
            Signal ksData, Signal ksFill, Signal now, Signal outstanding, Signal evRejected, Signal evError,
            Signal evCompleted, Signal evAborted, Signal evSpurious) {
    }

    @Override
    public String moduleName(Params p) {
        return new WindowCheck().moduleName(p.window()).replace("_window_check_", "_issue_") + "_n" + p.inflight()
                + "_s" + p.statusDepth() + (p.events() ? "" : "_ne");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int sb = Layout.MOVER_STATUS.bits();
        Credits.Params c = new Credits.Params(p.inflight(), p.statusDepth());
        return new Io(at.sink("q", AvalonSt.source(WindowCheck.checkedWord(p.window()).bits()), cd),
                at.source("d", AvalonSt.source(Layout.MOVER_DESC.bits()), cd), at.in("ms_valid", 1, cd), at.in("ms_data", sb, cd),
                at.out("hs_valid", 1, cd), at.out("hs_data", sb, cd), at.out("ks_valid", 1, cd), at.out("ks_data", 64, cd),
                at.in("ks_fill", c.fillBits(), cd), at.in("now", 32, cd), at.out("outstanding", c.countBits(), cd),
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

        // ---- the stage: one descriptor, checked, holding its slot
        Reg pass = m.reg("st_pass", 1, cd).init(0);
        Reg reject = m.reg("st_reject", 1, cd).init(0);
        Reg stErr = m.reg("st_error", 4, cd).init(0);
        Reg stSlot = m.reg("st_slot", sw, cd).init(0);
        Reg stDesc = m.reg("st_desc", Layout.MOVER_DESC.bits(), cd);
        io.d().valid().set(pass);
        io.d().data().set(stDesc);

        Signal leaving = m.wire("st_leaving", 1);
        leaving.set(io.d().fire().or(status.rejectTaken()));
        Signal load = m.wire("load", 1);
        Expr room = credits.ok();
        if (pool != null) {
            room = room.and(pool.anyFree());
        }
        load.set(io.q().valid().and(room).and(pass.or(reject).not().or(leaving)));
        io.q().ready().set(load);

        Expr kid = p.managed() ? null : HdlWords.get(q, w, "id");
        Signal slot = m.wire("alloc_slot", sw);
        slot.set(p.managed() ? pool.freeSlot() : kid.bits(6, 0));
        Expr id = p.managed() ? m.lit(Layout.KERNEL_ID_FIRST, 8).or(slot.zext(8)) : kid;
        m.when(load, () -> {
            pass.set(error.eq(0));
            reject.set(error.ne(0));
            stErr.set(error);
            stSlot.set(slot);
            stDesc.set(HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", HdlWords.get(q, w, "src"),
                    "dst", HdlWords.get(q, w, "dst"), "dwords", HdlWords.get(q, w, "dwords"), "id", id)));
        }).elseWhen(leaving, () -> {
            pass.set(0);
            reject.set(0);
        });

        credits.admit().set(load);
        credits.release().set(status.push());
        credits.fill().set(io.ksFill());
        if (pool != null) {
            pool.alloc().set(load);
            pool.handed().set(io.d().fire());
            pool.handedSlot().set(stSlot);
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
        status.reject().set(reject);
        status.rejectSlot().set(stSlot);
        status.rejectError().set(stErr);
        status.stamp().set(load);
        status.stampSlot().set(slot);
        if (status.stampTag() != null) {
            status.stampTag().set(HdlWords.get(q, w, "tag"));
        }
        status.now().set(io.now());
        io.ksValid().set(status.push());
        io.ksData().set(status.pushData());

        io.outstanding().set(credits.outstanding());
        io.evRejected().set(status.rejectTaken());
        io.evError().set(stErr);
        if (p.events()) {
            io.evCompleted().set(status.evCompleted());
            io.evAborted().set(status.evAborted());
            io.evSpurious().set(status.evSpurious());
        }
    }
}
