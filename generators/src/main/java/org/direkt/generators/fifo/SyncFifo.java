// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.fifo;

import static org.direkt.generators.Check.require;

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
 * Single-clock FIFO with Avalon-ST ports: sink {@code s}, source {@code m}, plus {@code fill}
 * (words held; left out with {@code withoutFill}) and {@code almost_full} ({@code fill >= almostFull}; left out with
 * {@code withoutFill} where the threshold is the depth, as {@code !s_ready} says the same). 1 word per cycle in and out
 * at any fill level between empty and full; {@code s_ready} and {@code m_valid} come from state,
 * never combinationally from the other side, so a FIFO never lengthens a timing path through it.
 *
 * <ul>
 * <li>show-ahead, unregistered: {@code m_data} is the head word, read asynchronously (MLAB/LUTRAM);
 *     latency 1 cycle.</li>
 * <li>show-ahead, registered output: the head word sits in an output register loaded from the
 *     RAM; latency 2 cycles; capacity stays {@code depth} (the register counts toward it), so
 *     full rate needs depth 4 or more.</li>
 * <li>not show-ahead: {@code m} has ready latency 1, the classic read-request FIFO: the word comes
 *     from a register the cycle after {@code m_ready}.</li>
 * </ul>
 *
 * <p>{@code rst} empties the FIFO; {@code s_ready} may be high while it is asserted, and words
 * offered then are not taken: keep the upstream in the same reset.
 */
public final class SyncFifo extends Unit<SyncFifo.Params, SyncFifo.Io> {

    /** Sink {@code s}, source {@code m}, the words held and the almost-full flag. */
    public record Io(Stream s, Stream m, Signal fill, Signal almostFull) {
    }

    /**
     * {@code registeredFlags}: {@code s_ready}, {@code almost_full} and {@code fill} (and the
     * unregistered show-ahead output's {@code m_valid}) straight from flip-flops (a count of the words
     * held, kept beside the pointers, and the flags computed from its next value), so neither
     * handshake waits on a pointer subtraction: for a wide FIFO whose write enable reaches many RAM
     * cells.
     */
    public record Params(int width, int depth, boolean showAhead, boolean registeredOutput, int almostFull,
            boolean registeredFlags, boolean fillPort) {
        public Params(int width, int depth, boolean showAhead, boolean registeredOutput, int almostFull) {
            this(width, depth, showAhead, registeredOutput, almostFull, false, true);
        }

        public Params {
            require(width >= 1 && width <= 4096, "SyncFifo", "width", width, "must be in 1..4096");
            require(Check.isPowerOfTwo(depth) && depth >= 2 && depth <= 65536, "SyncFifo", "depth", depth,
                    "must be a power of two in 2..65536");
            require(almostFull >= 1 && almostFull <= depth, "SyncFifo", "almostFull", almostFull,
                    "must be in 1..depth (" + depth + ")");
            require(showAhead || registeredOutput, "SyncFifo", "registeredOutput", registeredOutput,
                    "must be true when showAhead is false (the word comes from a register a cycle after m_ready)");
            // In steady state the RAM head and the output register both hold a word: with depth 2
            // s_ready would drop one cycle in three.
            require(!(showAhead && registeredOutput) || depth >= 4, "SyncFifo", "depth", depth,
                    "must be >= 4 with a registered show-ahead output (two words are in flight at full rate)");
        }

        /** Whether {@code almost_full} is a port: not without the fill port where it would be {@code !s_ready}. */
        public boolean almostFullPort() {
            return fillPort || almostFull != depth;
        }

        /** Show-ahead, unregistered, almost full when full. */
        public static Params of(int width, int depth) {
            return new Params(width, depth, true, false, depth);
        }

        public Params withRegisteredOutput(boolean r) {
            return new Params(width, depth, showAhead, r, almostFull, registeredFlags, fillPort);
        }

        public Params withShowAhead(boolean s) {
            return new Params(width, depth, s, s ? registeredOutput : true, almostFull, registeredFlags, fillPort);
        }

        public Params withAlmostFull(int threshold) {
            return new Params(width, depth, showAhead, registeredOutput, threshold, registeredFlags, fillPort);
        }

        public Params withRegisteredFlags(boolean r) {
            return new Params(width, depth, showAhead, registeredOutput, almostFull, r, fillPort);
        }

        /** Without the {@code fill} output, where almost_full says all the user needs. */
        public Params withoutFill() {
            return new Params(width, depth, showAhead, registeredOutput, almostFull, registeredFlags, false);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_sync_fifo_w" + p.width() + "_d" + p.depth()
                + (!p.showAhead() ? "_rl1" : p.registeredOutput() ? "_r" : "")
                + (p.almostFull() == p.depth() ? "" : "_af" + p.almostFull()) + (p.registeredFlags() ? "_rg" : "") + (p.fillPort() ? "" : "_nf");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int pw = Check.log2(p.depth()) + 1;
        return new Io(at.sink("s", AvalonSt.source(p.width()), cd), at.source("m", AvalonSt.source(p.width(), p.showAhead() ? 0 : 1), cd),
                p.fillPort() ? at.out("fill", pw, cd) : null, p.almostFullPort() ? at.out("almost_full", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Single-clock FIFO, %d words of %d bits, %s. s_ready and m_valid come from state only.
                fill counts the words held; almost_full is fill >= %d. rst empties the FIFO; words offered
                while rst is high are not taken (keep the upstream in the same reset).""",
                p.depth(), p.width(), !p.showAhead() ? "read request (m has ready latency 1; data one cycle after m_ready)"
                        : p.registeredOutput() ? "show-ahead with registered output (latency 2 cycles)"
                        : "show-ahead (latency 1 cycle)", p.almostFull()));
        ClockDomain cd = Domains.MAIN;
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        Stream s = io.s();
        Stream mo = io.m();
        Signal fill = io.fill();
        Signal almostFull = io.almostFull();

        Memory mem = m.memory("mem", p.width(), p.depth(), cd);
        // Pointers one bit wider than the address: equal means empty, differing only in the top bit means full.
        Reg wrPtr = m.reg("wr_ptr", pw, cd).init(0);
        Reg rdPtr = m.reg("rd_ptr", pw, cd).init(0);
        // The words in the RAM (not with registered flags and an unregistered output: the count says it).
        boolean countOnly = p.registeredFlags() && p.showAhead() && !p.registeredOutput();
        Signal stored = countOnly ? null : m.wire("stored", pw);
        if (stored != null) {
            stored.set(wrPtr.minus(rdPtr));
        }
        Signal pop = m.wire("pop", 1);

        Signal push = m.wire("push", 1);
        push.set(s.fire());
        // With registered flags the free place at the write pointer is written in every cycle s_ready
        // is high, word or not (it counts only once pushed): the write enables hang on a flip-flop.
        mem.write(wrPtr.trunc(aw), s.data(), p.registeredFlags() ? s.ready() : push);
        m.when(push, () -> wrPtr.set(wrPtr.plus(1)));
        m.when(pop, () -> rdPtr.set(rdPtr.plus(1)));
        // The words held (the output register's included); with registered flags a count register.
        Signal total = p.registeredFlags() ? null : m.wire("total", pw);

        // With registered flags, m_valid of the unregistered show-ahead output is a register too.
        Reg validQ = countOnly ? m.reg("valid_q", 1, cd).init(0) : null;
        if (p.showAhead() && !p.registeredOutput()) {
            if (total != null) {
                total.set(stored);
            }
            mo.valid().set(countOnly ? validQ : stored.ne(0));
            mo.data().set(mem.readAsync(rdPtr.trunc(aw)));
            pop.set(mo.fire());
        } else if (p.showAhead()) {
            Reg outValid = m.reg("out_valid", 1, cd).init(0);
            Reg outData = m.reg("out_data", p.width(), cd);
            // The output register takes the RAM's head when it is empty or its word leaves now.
            Signal advance = m.wire("advance", 1);
            advance.set(outValid.not().or(mo.ready()));
            pop.set(advance.and(stored.ne(0)));
            m.when(advance, () -> outValid.set(stored.ne(0)));
            m.when(pop, () -> outData.set(mem.readAsync(rdPtr.trunc(aw))));
            if (total != null) {
                total.set(stored.plus(outValid.zext(pw)));
            }
            mo.valid().set(outValid);
            mo.data().set(outData);
        } else {
            // Ready latency 1: a word read in the cycle m_ready is high is valid the next cycle, and
            // is accepted by definition, so the output register never holds a word back.
            Reg outValid = m.reg("out_valid", 1, cd).init(0);
            Reg outData = m.reg("out_data", p.width(), cd);
            pop.set(mo.ready().and(stored.ne(0)));
            outValid.set(pop);
            m.when(pop, () -> outData.set(mem.readAsync(rdPtr.trunc(aw))));
            if (total != null) {
                total.set(stored);
            }
            mo.valid().set(outValid);
            mo.data().set(outData);
        }
        if (p.registeredFlags()) {
            // The count follows total: words come in by push and leave by m's transfers (show-ahead)
            // or by pop (ready latency 1, where the output register's word is already accepted).
            Reg count = m.reg("count_q", pw, cd).init(0);
            Reg readyQ = m.reg("ready_q", 1, cd).init(1);
            Reg afQ = almostFull == null ? null : m.reg("almost_full_q", 1, cd).init(0);
            Expr leave = p.showAhead() ? mo.valid().and(mo.ready()) : pop;
            Signal countNext = m.wire("count_next", pw);
            countNext.set(count.upDown(push, leave));
            count.set(countNext);
            if (validQ != null) {
                validQ.set(countNext.ne(0));
            }
            readyQ.set(countNext.ne(p.depth()));
            if (afQ != null) {
                afQ.set(countNext.ge(p.almostFull()));
            }
            s.ready().set(readyQ);
            if (fill != null) {
                fill.set(count);
            }
            if (almostFull != null) {
                almostFull.set(afQ);
            }
        } else {
            s.ready().set(total.ne(p.depth()));
            if (fill != null) {
                fill.set(total);
            }
            if (almostFull != null) {
                almostFull.set(total.ge(p.almostFull()));
            }
        }
    }
}
