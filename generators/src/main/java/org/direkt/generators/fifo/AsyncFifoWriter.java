// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.fifo;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Gray;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * Write-domain half of {@link AsyncFifo}: the write pointer in binary (RAM address) and Gray (what
 * crosses), and the full flag against the synchronised read pointer. Full is pessimistic: the read
 * pointer it sees lags the real one, so it may stay set a few cycles after a read, never the reverse.
 */
public final class AsyncFifoWriter extends Unit<AsyncFifoWriter.Params, AsyncFifoWriter.Io> {

    /** The write side's ports; {@code rdPtrSeen} and {@code wrPtr} are null unless {@link Params#readPointerOutput}. */
    public record Io(Signal valid, Signal rdPtrGraySync, Signal ready, Signal wrEn, Signal wrAddr, Signal wrPtrGray,
            Signal rdPtrSeen, Signal wrPtr, Signal empty) {
    }

    /**
     * {@code readPointerOutput}: also output {@code rd_ptr_seen}, the synchronised read pointer decoded
     * into a register (a cycle staler still than the synchroniser; the write pointer less it is never
     * below the words really held), and {@code wr_ptr}, the write pointer in binary. {@code registeredFull}: the full flag from a flip-flop.
     * {@code sideReset}: no reset moves a register (each starts at its power-up value); the reset
     * only refuses words while it is high, so the Gray pointer never jumps. {@code emptyOutput}: also
     * output {@code empty}, the Gray pointer equal to the synchronised read pointer (which lags, so
     * it is never high while a word is held).
     */
    public record Params(int depth, boolean readPointerOutput, boolean registeredFull, boolean sideReset, boolean emptyOutput) {
        public Params {
            require(Check.isPowerOfTwo(depth) && depth >= 2, "AsyncFifoWriter", "depth", depth, "must be a power of two >= 2");
        }

        public Params(int depth, boolean readPointerOutput, boolean registeredFull, boolean sideReset) {
            this(depth, readPointerOutput, registeredFull, sideReset, false);
        }

        public Params(int depth, boolean readPointerOutput, boolean registeredFull) {
            this(depth, readPointerOutput, registeredFull, false);
        }

        public Params(int depth, boolean readPointerOutput) {
            this(depth, readPointerOutput, false);
        }

        public Params(int depth) {
            this(depth, false);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_wr_d" + p.depth() + (p.readPointerOutput() ? "_p" : "") + (p.registeredFull() ? "_rf" : "")
                + (p.emptyOutput() ? "_e" : "") + (p.sideReset() ? "_sr" : "");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.WRITE);
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        return new Io(at.in("valid", 1, cd), at.in("rd_ptr_gray_sync", pw, cd), at.out("ready", 1, cd),
                at.out("wr_en", 1, cd), at.out("wr_addr", aw, cd), at.out("wr_ptr_gray", pw, cd),
                p.readPointerOutput() ? at.out("rd_ptr_seen", pw, cd) : null, p.readPointerOutput() ? at.out("wr_ptr", pw, cd) : null,
                p.emptyOutput() ? at.out("empty", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = Domains.WRITE;
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        Signal valid = io.valid();
        Signal rdPtrGray = io.rdPtrGraySync();
        Signal ready = io.ready();
        Signal wrEn = io.wrEn();
        Signal wrAddr = io.wrAddr();
        Signal wrPtrGrayOut = io.wrPtrGray();

        Signal wrBin;
        Reg wrGray;
        Reg wrLow = null;
        if (p.sideReset()) {
            // Power-up values only: a pointer that a reset cleared would jump, and the read side's
            // synchroniser could catch a mix of old and new bits. The binary pointer's top bit is
            // the Gray pointer's (Gray code keeps the top bit), so only the low bits are kept apart.
            wrLow = m.reg("wr_ptr_bin_lo", aw, cd).powerUp(0);
            wrGray = m.reg("wr_ptr_gray_q", pw, cd).powerUp(0);
            wrBin = m.wire("wr_ptr_bin", pw);
            wrBin.set(Expr.cat(wrGray.bit(aw), wrLow));
        } else {
            wrBin = m.reg("wr_ptr_bin", pw, cd).init(0);
            wrGray = m.reg("wr_ptr_gray_q", pw, cd).init(0);
        }

        // Full: the Gray write pointer equals the read pointer with its top two bits inverted
        // (Cummings), i.e. the writer is exactly one lap ahead.
        Expr lapAhead = pw == 2
                ? rdPtrGray.not()
                : Expr.cat(rdPtrGray.bits(pw - 1, pw - 2).not(), rdPtrGray.bits(pw - 3, 0));
        Signal full = m.wire("full", 1);
        Signal push = m.wire("push", 1);
        // With sideReset nothing is taken while the reset is high, and the read side drains what
        // it holds.
        Expr room = p.sideReset() ? full.not().and(m.reset(cd).not()) : full.not();
        push.set(p.sideReset() ? valid.and(ready) : valid.and(room));
        Signal next = m.wire("wr_ptr_next", pw);
        // The push as the adder's carry in is the smaller circuit; with the registered flag the
        // increment is computed for it anyway, and the push only picks.
        next.set(p.sideReset() && !p.registeredFull() ? wrBin.plus(push.zext(pw)) : Expr.mux(push, wrBin.plus(1), wrBin));
        if (p.sideReset()) {
            wrLow.set(next.trunc(aw));
        } else {
            ((Reg) wrBin).set(next);
        }
        wrGray.set(Gray.encode(next));
        if (p.registeredFull()) {
            // Next cycle's flag against the read pointer seen now (which can only move on, so the flag
            // is never late to rise): both outcomes from flip-flops, the push picks one.
            Signal wrGrayInc = m.wire("wr_ptr_gray_inc", pw);
            wrGrayInc.set(Gray.encode(wrBin.plus(1)));
            Reg fullQ = p.sideReset() ? m.reg("full_q", 1, cd).powerUp(0) : m.reg("full_q", 1, cd).init(0);
            fullQ.set(Expr.mux(push, wrGrayInc.eq(lapAhead), wrGray.eq(lapAhead)));
            full.set(fullQ);
        } else {
            full.set(wrGray.eq(lapAhead));
        }

        ready.set(room);
        if (p.registeredFull()) {
            // The free place at the write pointer is written in every cycle the flag allows, word or
            // not (it counts only once pushed): the RAM's many write enables hang on a flip-flop,
            // not on the push.
            wrEn.set(full.not());
        } else {
            wrEn.set(push);
        }
        wrAddr.set(p.sideReset() ? wrLow : wrBin.trunc(aw));
        wrPtrGrayOut.set(wrGray);
        if (p.emptyOutput()) {
            io.empty().set(wrGray.eq(rdPtrGray));
        }
        if (p.readPointerOutput()) {
            // Registered: the Gray decode stays off its users' paths; one cycle more of lag is harmless
            // (a lagging read pointer only ever overstates the words held).
            Reg rdBin = p.sideReset() ? m.reg("rd_ptr_seen_q", pw, cd).powerUp(0) : m.reg("rd_ptr_seen_q", pw, cd).init(0);
            rdBin.set(Gray.decode(rdPtrGray));
            io.rdPtrSeen().set(rdBin);
            io.wrPtr().set(wrBin);
        }
    }
}
