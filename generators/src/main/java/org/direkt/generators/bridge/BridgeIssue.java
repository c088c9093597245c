package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.generators.Bits;
import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.generators.bridge.Bridge.Direction;
import org.direkt.generators.bridge.Bridge.IdMode;
import org.direkt.generators.bridge.Bridge.StatusMode;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.AvalonSt;

/**
 * The dma_clk half of one direction's kernel path: it checks each kernel descriptor, gives it an
 * ID and a status credit, timestamps it, offers it to the arbiter as a mover descriptor, and turns
 * mover statuses (and rejections) into kernel statuses.
 *
 * <p>Credits: a descriptor is admitted only while {@code outstanding + ks_fill < statusDepth},
 * where {@code outstanding} counts admitted descriptors whose status has not been pushed yet and
 * {@code ks_fill} is the status FIFO's fill as its write side sees it (never less than the truth).
 * Every admitted descriptor pushes exactly one status, so the status FIFO always has room when a
 * mover status arrives: no status is ever dropped, whatever the kernel does.
 *
 * <p>Managed IDs: slot s of {@code inflight} carries ID {@code 128 + s}; the lowest free slot is
 * taken at admission and freed when its status is pushed. Paper IDs: the kernel's ID (x4[25:18])
 * goes to the mover unchanged and must be in 128..255.
 */
public final class BridgeIssue extends Generator<BridgeIssue.Params> {

    public record Params(Direction direction, int inflight, int statusDepth, IdMode idMode, StatusMode statusMode,
            int windowEntries, long fpgaMemBytes) {
        public Params {
            require(direction != null, "BridgeIssue", "direction", direction, "must be RD or WR");
            require(inflight >= 1 && inflight <= 128, "BridgeIssue", "inflight", inflight, "must be in 1..128");
            require(Check.isPowerOfTwo(statusDepth) && statusDepth >= inflight, "BridgeIssue", "statusDepth", statusDepth,
                    "must be a power of two >= inflight (" + inflight + ")");
            require(windowEntries >= 1 && windowEntries <= 32, "BridgeIssue", "windowEntries", windowEntries, "must be in 1..32");
            require(fpgaMemBytes >= 4, "BridgeIssue", "fpgaMemBytes", fpgaMemBytes, "must be at least 4");
        }

        public boolean tagged() {
            return statusMode == StatusMode.TAGGED;
        }

        /** Slots of the timestamp/tag table: one per managed ID, or one per kernel ID (128) in paper mode. */
        public int slots() {
            return idMode == IdMode.MANAGED ? inflight : 128;
        }
    }

    /** What crosses from kernel_clk to dma_clk for one descriptor (the cldesc less what is checked there). */
    public static Layout.Word crossWord(Params p) {
        List<Layout.Field> f = new ArrayList<>(List.of(
                new Layout.Field("src", 0, 64, "source address"),
                new Layout.Field("dst", 64, 64, "destination address"),
                new Layout.Field("dwords", 128, 18, "length in dwords"),
                new Layout.Field("too_long", 146, 1, "x4 bits above the length (and, managed, the ID) not zero"),
                new Layout.Field("reserved_set", 147, 1, "x6 or x7 not zero")));
        int next = 148;
        if (p.idMode() == IdMode.PAPER) {
            f.add(new Layout.Field("id", next, 8, "the kernel's ID"));
            next += 8;
        }
        if (p.tagged()) {
            f.add(new Layout.Field("tag", next, 32, "the kernel's tag"));
            next += 32;
        }
        return new Layout.Word("cross", next, f);
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_issue_" + p.direction().tag() + "_n" + p.inflight()
                + (p.idMode() == IdMode.PAPER ? "_pid" : "") + (p.tagged() ? "" : "_cyc");
    }

    private static Expr field(Expr word, Layout.Field f) {
        return word.bits(f.msb(), f.lsb());
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        m.doc(String.format("""
                Kernel descriptors of the %s direction, dma_clk side: checks, %s IDs, status credits
                (%d in flight at most, status FIFO of %d), timestamps, status building (%s).
                A rejected descriptor never reaches the arbiter; it comes back as a status with its
                error code. Mover statuses with IDs 0..127 go to hs_* untouched.""",
                p.direction().describe(), p.idMode() == IdMode.MANAGED ? "managed (128.." + (127 + p.inflight()) + ")" : "paper-compatible",
                p.inflight(), p.statusDepth(), p.tagged() ? "tag, error, elapsed cycles" : "elapsed cycles alone"));
        ClockDomain cd = m.domain(Domains.MAIN);
        Layout.Word cross = crossWord(p);
        int e = p.windowEntries();
        int slots = Math.max(2, p.slots()); // a one-entry table is still a memory of two
        int sw = Check.indexWidth(slots);
        int fw = Check.log2(p.statusDepth()) + 1;
        int ow = Check.indexWidth(p.inflight() + 1);
        int cw = Math.max(fw, ow) + 1;

        Stream k = m.stream("k", AvalonSt.source(cross.bits()).flip(), cd);
        Signal winBase = m.input("win_base", 64 * e, cd);
        Signal winLast = m.input("win_last", 64 * e, cd);
        Signal winAllow = m.input("win_allow", e, cd);
        Stream d = m.stream("d", AvalonSt.source(Layout.MOVER_DESC.bits()), cd);
        Signal msValid = m.input("ms_valid", 1, cd);
        Signal msData = m.input("ms_data", Layout.MOVER_STATUS.bits(), cd);
        Signal hsValid = m.output("hs_valid", 1, cd);
        Signal hsData = m.output("hs_data", Layout.MOVER_STATUS.bits(), cd);
        Signal ksValid = m.output("ks_valid", 1, cd);
        Signal ksData = m.output("ks_data", 64, cd);
        Signal ksFill = m.input("ks_fill", fw, cd);
        Signal outstandingOut = m.output("outstanding", ow, cd);
        Signal evRejected = m.output("ev_rejected", 1, cd);
        Signal evError = m.output("ev_error", 4, cd);
        Signal evCompleted = m.output("ev_completed", 1, cd);
        Signal evAborted = m.output("ev_aborted", 1, cd);
        Signal evSpurious = m.output("ev_spurious", 1, cd);

        // ---- checks on the head of the crossing FIFO, in Layout.Error order
        Signal src = m.wire("src", 64);
        Signal dst = m.wire("dst", 64);
        Signal dwords = m.wire("dwords", 18);
        src.set(field(k.data(), cross.field("src")));
        dst.set(field(k.data(), cross.field("dst")));
        dwords.set(field(k.data(), cross.field("dwords")));
        // The kernel's own ID crosses only in paper ID mode.
        Expr kid = p.idMode() == IdMode.PAPER ? field(k.data(), cross.field("id")) : null;
        Signal bytesLess1 = m.wire("bytes_less_1", 65);
        bytesLess1.set(Expr.cat(dwords, m.lit(0, 2)).zext(65).minus(1));
        boolean rd = p.direction() == Direction.RD;
        Signal pcie = m.wire("pcie_addr", 64);
        Signal fpga = m.wire("fpga_addr", 64);
        pcie.set(rd ? src : dst);
        fpga.set(rd ? dst : src);
        Signal pcieLast = m.wire("pcie_last", 65);
        Signal fpgaLast = m.wire("fpga_last", 65);
        pcieLast.set(pcie.zext(65).plus(bytesLess1));
        fpgaLast.set(fpga.zext(65).plus(bytesLess1));
        List<Expr> inside = new ArrayList<>();
        for (int i = 0; i < e; i++) {
            Expr base = winBase.bits(64 * i + 63, 64 * i);
            Expr last = winLast.bits(64 * i + 63, 64 * i);
            inside.add(winAllow.bit(i).and(pcie.ge(base)).and(pcieLast.le(last.zext(65))));
        }
        Signal inWindow = m.wire("in_window", 1);
        inWindow.set(inside.size() == 1 ? inside.getFirst() : Expr.cat(inside.toArray(Expr[]::new)).orR());
        Signal inFpga = m.wire("in_fpga", 1);
        inFpga.set(fpgaLast.le(Expr.lit(BigInteger.valueOf(p.fpgaMemBytes() - 1), 65)));

        Expr err = m.lit(Layout.Error.OK.code(), 4);
        // Applied last-to-first so the first failing check in Layout.Error order wins.
        err = Expr.mux(inFpga.not(), m.lit(Layout.Error.FPGA_RANGE.code(), 4), err);
        err = Expr.mux(inWindow.not(), m.lit(Layout.Error.WINDOW.code(), 4), err);
        err = Expr.mux(src.bits(1, 0).or(dst.bits(1, 0)).orR(), m.lit(Layout.Error.UNALIGNED.code(), 4), err);
        if (p.idMode() == IdMode.PAPER) {
            err = Expr.mux(kid.bit(7).not(), m.lit(Layout.Error.BAD_ID.code(), 4), err);
        }
        err = Expr.mux(dwords.eq(0), m.lit(Layout.Error.ZERO_LENGTH.code(), 4), err);
        err = Expr.mux(field(k.data(), cross.field("too_long")), m.lit(Layout.Error.TOO_LONG.code(), 4), err);
        err = Expr.mux(field(k.data(), cross.field("reserved_set")), m.lit(Layout.Error.RESERVED.code(), 4), err);
        Signal checkErr = m.wire("check_error", 4);
        checkErr.set(err);

        // ---- credits and slots
        Reg outstanding = m.reg("outstanding_q", ow, cd).init(0);
        Expr credit = outstanding.zext(cw).plus(ksFill.zext(cw)).lt(m.lit(p.statusDepth(), cw))
                .and(outstanding.lt(m.lit(p.inflight(), ow)));
        Signal creditOk = m.wire("credit_ok", 1);
        // slot_busy: admitted, status not pushed yet; slot_issued: handed to the mover, status not back yet.
        Reg busy = p.idMode() == IdMode.MANAGED ? m.reg("slot_busy", p.inflight(), cd).init(0) : null;
        Reg issued = p.idMode() == IdMode.MANAGED ? m.reg("slot_issued", p.inflight(), cd).init(0) : null;
        Signal allocSlot = m.wire("alloc_slot", sw);
        if (busy != null) {
            Signal freeOneHot = m.wire("free_onehot", p.inflight());
            freeOneHot.set(Bits.lowestClear(busy));
            allocSlot.set(p.inflight() == 1 ? m.lit(0, sw) : Bits.oneHotIndex(freeOneHot, p.inflight(), sw));
            // The counter already bounds admissions; a free slot is required as well, so an ID can
            // never be handed out twice even if the two disagreed.
            creditOk.set(credit.and(freeOneHot.orR()));
        } else {
            allocSlot.set(kid.bits(6, 0));
            creditOk.set(credit);
        }

        // ---- the stage: one descriptor, checked, holding its slot
        Reg stValid = m.reg("st_valid", 1, cd).init(0);
        Reg stErr = m.reg("st_error", 4, cd).init(0);
        Reg stSlot = m.reg("st_slot", sw, cd).init(0);
        Reg stDesc = m.reg("st_desc", Layout.MOVER_DESC.bits(), cd);

        // ---- mover statuses
        Layout.Word ms = Layout.MOVER_STATUS;
        Signal msId = m.wire("ms_id", 8);
        msId.set(field(msData, ms.field("id")));
        Signal msKernel = m.wire("ms_kernel", 1);
        msKernel.set(msValid.and(msId.bit(7)));
        Signal msSlot = m.wire("ms_slot", sw);
        msSlot.set(msId.bits(sw - 1, 0));
        Signal msLegit = m.wire("ms_legit", 1);
        if (busy != null) {
            // A kernel-range ID is ours only if it names a slot that is waiting for its status.
            Expr inRange = msId.bits(6, 0).zext(8).lt(m.lit(p.inflight(), 8));
            // ... and whose descriptor the mover has actually been given (not one still in the stage).
            Expr slotWaiting = issued.and(m.lit(1, p.inflight()).shl(msSlot)).orR();
            msLegit.set(msKernel.and(inRange).and(slotWaiting));
        } else {
            msLegit.set(msKernel.and(outstanding.ne(0)));
        }
        hsValid.set(msValid.and(msId.bit(7).not()));
        hsData.set(msData);

        Signal rejectPush = m.wire("reject_push", 1);
        rejectPush.set(stValid.and(stErr.ne(0)).and(msLegit.not()));
        d.valid().set(stValid.and(stErr.eq(0)));
        d.data().set(stDesc);
        Signal leaving = m.wire("st_leaving", 1);
        leaving.set(d.fire().or(rejectPush));
        Signal load = m.wire("load", 1);
        load.set(k.valid().and(creditOk).and(stValid.not().or(leaving)));
        k.ready().set(load);

        Signal freeSlotValid = m.wire("free_valid", 1);
        freeSlotValid.set(msLegit.or(rejectPush));
        Signal freeSlot = m.wire("free_slot", sw);
        freeSlot.set(Expr.mux(msLegit, msSlot, stSlot));

        m.when(load, () -> {
            stValid.set(1);
            stErr.set(checkErr);
            stSlot.set(allocSlot);
            Expr id = p.idMode() == IdMode.MANAGED ? m.lit(Layout.KERNEL_ID_FIRST, 8).or(allocSlot.zext(8)) : kid;
            stDesc.set(HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", src, "dst", dst, "dwords", dwords, "id", id)));
        }).elseWhen(leaving, () -> stValid.set(0));

        // Counter: +1 per admission, -1 per pushed status; never more than inflight.
        m.when(load.and(freeSlotValid.not()), () -> outstanding.set(outstanding.plus(1)))
                .elseWhen(load.not().and(freeSlotValid), () -> outstanding.set(outstanding.minus(1)));
        if (busy != null) {
            Expr one = m.lit(1, p.inflight());
            Expr set = Expr.mux(load, one.shl(allocSlot), m.lit(0, p.inflight()));
            Expr clear = Expr.mux(freeSlotValid, one.shl(freeSlot), m.lit(0, p.inflight()));
            busy.set(busy.and(clear.not()).or(set));
            Expr handed = Expr.mux(d.fire(), one.shl(stSlot), m.lit(0, p.inflight()));
            Expr back = Expr.mux(msLegit, one.shl(msSlot), m.lit(0, p.inflight()));
            issued.set(issued.and(back.not()).or(handed));
        }

        // ---- timestamps (and tags) per slot
        Reg now = m.reg("now", 32, cd).init(0);
        now.set(now.plus(1));
        int tw = p.tagged() ? 64 : 32;
        Memory table = m.memory("issue_table", tw, slots, cd);
        Expr stamp = p.tagged() ? Expr.cat(field(k.data(), cross.field("tag")), now) : now;
        table.write(allocSlot, stamp, load);
        Signal entry = m.wire("issue_entry", tw);
        entry.set(table.readAsync(freeSlot));
        Signal elapsed = m.wire("elapsed", 32);
        elapsed.set(now.minus(entry.bits(31, 0)));

        Signal moverErr = m.wire("mover_error", 1);
        moverErr.set(field(msData, ms.field("aborted")).or(field(msData, ms.field("flushed"))));
        Signal code = m.wire("status_error", 4);
        code.set(Expr.mux(msLegit, Expr.mux(moverErr, m.lit(Layout.Error.ABORTED.code(), 4), m.lit(0, 4)), stErr));
        ksValid.set(freeSlotValid);
        if (p.tagged()) {
            int eb = Layout.ELAPSED_BITS;
            Expr sat = Expr.mux(elapsed.bits(31, eb).orR(), m.lit((1L << eb) - 1, eb), elapsed.bits(eb - 1, 0));
            ksData.set(Expr.cat(sat, code, entry.bits(63, 32)));
        } else {
            ksData.set(Expr.mux(code.ne(0), Expr.lit(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), 64), elapsed.zext(64)));
        }

        outstandingOut.set(outstanding);
        evRejected.set(rejectPush);
        evError.set(stErr);
        evCompleted.set(msLegit);
        evAborted.set(msLegit.and(moverErr));
        evSpurious.set(msKernel.and(msLegit.not()));
    }
}
