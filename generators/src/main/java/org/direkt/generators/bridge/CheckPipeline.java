// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Bits;
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
 * The checks as a stream: crossing word in ({@code k}), checked word out ({@code q}). Stage A
 * ({@link DescChecks} and {@link WindowCheck}) is a register, stage B combines them into a small
 * show-ahead queue; neither stage stalls. Instead a word is taken from {@code k} only while the queue has a
 * place for it that no word already in flight has claimed ({@code room}), so no ready signal runs
 * back through the stages: {@code k_ready} is a register's output. {@code idle}: no word in either
 * stage (every place unclaimed).
 */
public final class CheckPipeline extends Unit<CheckPipeline.Params, CheckPipeline.Io> {

    /** Places in the queue: enough for full rate with two words in flight in front of it. */
    static final int QUEUE_DEPTH = 4;

    public record Params(WindowCheck.Params window) {
        public Params {
            require(window != null, "CheckPipeline", "window", window, "must be given");
        }
    }

    public record Io(Stream k, Signal winBase, Signal winMask, Signal winAllow, Stream q, Signal idle) {
    }

    @Override
    public String moduleName(Params p) {
        return new WindowCheck().moduleName(p.window()).replace("_windows_", "_check_pipe_") + p.window().checks().memTag();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int e = p.window().windows();
        DescChecks.Params c = p.window().checks();
        return new Io(at.sink("k", AvalonSt.source(DescChecks.crossWord(c).bits()), cd),
                at.in("win_base", WindowCheck.BITS * e, cd), at.in("win_mask", WindowCheck.MASK_BITS * e, cd), at.in("win_allow", e, cd),
                at.source("q", AvalonSt.source(WindowCheck.checkedWord(p.window()).bits()), cd), at.out("idle", 1, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Kernel descriptor checks: stage A (cheap checks, 1 MB crossing, FPGA end, window compares), stage B "
                + "(window hits, FPGA range) into a " + QUEUE_DEPTH + "-word queue; a word enters only when the queue has room for it.");
        ClockDomain cd = Domains.MAIN;
        int rw = Check.indexWidth(QUEUE_DEPTH + 1);
        Reg room = m.reg("room", rw, cd).init(QUEUE_DEPTH);
        // room != 0 in a register of its own: the crossing FIFO's read side hangs on a flip-flop.
        Reg ready = m.reg("k_ready_q", 1, cd).init(1);
        Signal take = m.wire("take", 1);
        take.set(io.k().valid().and(ready));
        io.k().ready().set(ready);
        io.idle().set(room.eq(QUEUE_DEPTH));

        DescChecks.Params cp = p.window().checks();
        DescChecks.Io a = m.sub("u_checks", new DescChecks(), cp).clock(cd).io();
        a.inValid().set(take);
        a.inData().set(io.k().data());
        WindowCheck.Io w = m.sub("u_windows", new WindowCheck(), p.window()).clock(cd).io();
        Layout.Word cross = DescChecks.crossWord(cp);
        String pcie = cp.direction() == BridgeModes.Direction.RD ? "src" : "dst";
        w.pcie().set(HdlWords.get(io.k().data(), cross, pcie).bits(63, Layout.WINDOW_MIN_LOG2));
        w.winBase().set(io.winBase());
        w.winMask().set(io.winMask());
        w.winAllow().set(io.winAllow());
        Layout.Word aWord = DescChecks.checkedWord(cp);
        w.cross().set(HdlWords.get(a.outData(), aWord, "cross_1m"));

        // ---- stage B: the word the admission stage reads
        Layout.Word out = WindowCheck.checkedWord(p.window());
        Map<String, Expr> fields = new LinkedHashMap<>();
        for (Layout.Field f : DescChecks.payload(cp.idMode(), cp.tagged())) {
            fields.put(f.name(), HdlWords.get(a.outData(), aWord, f.name()));
        }
        fields.put("cheap_error", HdlWords.get(a.outData(), aWord, "cheap_error"));
        fields.put("hits", w.hits());
        Signal fpgaOk = m.wire("fpga_ok", 1);
        fpgaOk.set(DescChecks.fpgaInRange(cp, a.outData()));
        fields.put("fpga_ok", fpgaOk);
        fields.put("pass", HdlWords.get(a.outData(), aWord, "cheap_error").eq(0).and(w.anyHit()).and(fpgaOk));
        Signal checked = m.wire("checked", out.bits());
        checked.set(HdlWords.pack(m, out, fields));

        // The queue: show-ahead, written by every word leaving stage A (room guarantees a place). What
        // stage A registered goes into a LUT RAM. With several windows, the verdict computed here (hits,
        // fpga_ok, pass: a deeper tree) goes into flip-flops, which sit by the logic that computes it
        // rather than in the RAM's slices; with one window it is shallow and stays in the RAM, which
        // costs fewer LUTs.
        int qa = Check.log2(QUEUE_DEPTH);
        boolean verdictInFlops = p.window().windows() > 1;
        int verdictLsb = verdictInFlops ? out.field("hits").lsb() : out.bits();
        Memory queue = m.memory("queue", verdictLsb, QUEUE_DEPTH, cd);
        List<Reg> verdicts = new ArrayList<>();
        for (int i = 0; verdictInFlops && i < QUEUE_DEPTH; i++) {
            verdicts.add(m.reg("verdict_" + i, out.bits() - verdictLsb, cd).powerUp(0));
        }
        Reg wr = m.reg("queue_wr", qa + 1, cd).init(0);
        Reg rd = m.reg("queue_rd", qa + 1, cd).init(0);
        Reg count = m.reg("queue_count", qa + 1, cd).init(0);
        Reg valid = m.reg("queue_valid", 1, cd).init(0);
        Signal push = m.wire("queue_push", 1);
        push.set(a.outValid());
        Signal pop = m.wire("queue_pop", 1);
        pop.set(io.q().fire());
        queue.write(wr.trunc(qa), checked.bits(verdictLsb - 1, 0), push);
        for (int i = 0; i < verdicts.size(); i++) {
            Reg v = verdicts.get(i);
            m.when(push.and(wr.trunc(qa).eq(i)), () -> v.set(checked.bits(out.bits() - 1, verdictLsb)));
        }
        m.when(push, () -> wr.set(wr.plus(1)));
        m.when(pop, () -> rd.set(rd.plus(1)));
        count.set(count.upDown(push, pop));
        // The head's valid flag is a register: a word pushed now, or one that stays.
        valid.set(push.or(count.ge(2)).or(count.eq(1).and(pop.not())));
        io.q().valid().set(valid);
        Expr head = queue.readAsync(rd.trunc(qa));
        io.q().data().set(verdicts.isEmpty() ? head : Expr.cat(Bits.select(verdicts, rd.trunc(qa)), head));
        // A place is claimed when a word is taken and given back when the admission stage pops one.
        room.set(room.upDown(io.q().fire(), take));
        // Next cycle's room != 0: a place given back leaves one; otherwise the last one is gone
        // when it is taken now (a take needs room != 0).
        ready.set(io.q().fire().or(Expr.mux(take, room.ne(1), room.ne(0))));
    }
}
