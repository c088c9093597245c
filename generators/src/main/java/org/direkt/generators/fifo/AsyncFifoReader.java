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
 * Read-domain half of {@link AsyncFifo}: the read pointer in binary and Gray, and the empty flag
 * against the synchronised write pointer. Empty is pessimistic: a word becomes visible only once
 * its write pointer has passed the synchroniser, by which time the RAM holds it.
 *
 * <p>With a registered output the RAM is read one word ahead ({@code rd_addr} is the pointer of the
 * word to show next) into the read-data register, and {@code valid} is registered with it, so
 * {@code m_data} and {@code m_valid} both come from flops; only then has it an {@code rd_en} output.
 */
public final class AsyncFifoReader extends Unit<AsyncFifoReader.Params, AsyncFifoReader.Io> {

    /**
     * The read side's ports; {@code rdEn} is null unless the output is registered, {@code wrRstSync}
     * (the write side's reset, synchronised) unless {@link Params#sideReset}.
     */
    public record Io(Signal ready, Signal wrPtrGraySync, Signal valid, Signal rdAddr, Signal rdPtrGray, Signal rdEn,
            Signal wrRstSync) {
    }

    /**
     * {@code lookahead}: the pointer one ahead is kept in registers too, in binary and Gray, so the pop
     * only picks between flip-flops: the next pointers (and with a registered output the RAM address
     * and the next valid flag) are one multiplexer from the pop instead of an increment, a Gray encode
     * and a compare.
     * A few flip-flops more, for a read side that keeps its speed inside a large design.
     * {@code sideReset}: no reset moves a register (each starts at its power-up value); while its own
     * reset or the write side's ({@code wr_rst_sync}) is high the side flushes: {@code valid} is low
     * and every word present is dropped, one a cycle, so the read pointer walks up to the write
     * pointer one Gray step at a time.
     */
    public record Params(int depth, boolean registeredOutput, boolean lookahead, boolean sideReset) {
        public Params {
            require(Check.isPowerOfTwo(depth) && depth >= 2, "AsyncFifoReader", "depth", depth, "must be a power of two >= 2");
        }

        public Params(int depth, boolean registeredOutput, boolean lookahead) {
            this(depth, registeredOutput, lookahead, false);
        }

        public Params(int depth, boolean registeredOutput) {
            this(depth, registeredOutput, false);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_rd_d" + p.depth() + (p.registeredOutput() ? "_r" : "") + (p.lookahead() ? "_la" : "")
                + (p.sideReset() ? "_sr" : "");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.READ);
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        return new Io(at.in("ready", 1, cd), at.in("wr_ptr_gray_sync", pw, cd), at.out("valid", 1, cd),
                at.out("rd_addr", aw, cd), at.out("rd_ptr_gray", pw, cd), p.registeredOutput() ? at.out("rd_en", 1, cd) : null,
                p.sideReset() ? at.in("wr_rst_sync", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = Domains.READ;
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        Signal ready = io.ready();
        Signal wrPtrGray = io.wrPtrGraySync();
        Signal valid = io.valid();
        Signal rdAddr = io.rdAddr();
        Signal rdPtrGrayOut = io.rdPtrGray();

        boolean sr = p.sideReset();
        // With sideReset and lookahead the next pointer is needed only as an address: its low bits.
        boolean nextLow = sr && p.lookahead();
        Signal rdBin = null;
        Reg rdGray;
        Reg rdLow = null;
        if (sr) {
            // Power-up values only: a pointer that a reset cleared would jump, and the write side's
            // synchroniser could catch a mix of old and new bits. The binary pointer's top bit is
            // the Gray pointer's, so only the low bits are kept apart.
            rdLow = m.reg("rd_ptr_bin_lo", aw, cd).powerUp(0);
            rdGray = m.reg("rd_ptr_gray_q", pw, cd).powerUp(0);
            if (!nextLow) {
                rdBin = m.wire("rd_ptr_bin", pw);
                rdBin.set(Expr.cat(rdGray.bit(aw), rdLow));
            }
        } else {
            rdBin = m.reg("rd_ptr_bin", pw, cd).init(0);
            rdGray = m.reg("rd_ptr_gray_q", pw, cd).init(0);
        }
        Signal next = nextLow ? m.wire("rd_ptr_next_lo", aw) : m.wire("rd_ptr_next", pw);
        Signal nextGray = m.wire("rd_ptr_next_gray", pw);
        Signal pop = m.wire("pop", 1);
        // What takes the word shown: the consumer, and with sideReset a flush (either side's reset
        // high), which drops it unseen, so the FIFO empties a word a cycle and the space goes back.
        Expr take = ready;
        Expr shown = null;
        if (sr) {
            Signal flush = m.wire("flush", 1);
            flush.set(m.reset(cd).or(io.wrRstSync()));
            take = ready.or(flush);
            shown = flush.not();
        }

        if (p.lookahead() && p.registeredOutput()) {
            Reg validQ = sr ? m.reg("valid_q", 1, cd).powerUp(0) : m.reg("valid_q", 1, cd).init(0);
            pop.set(validQ.and(take));
            Ahead ahead = ahead(m, p, pop, next, nextGray, rdBin, rdLow, rdGray);
            // The word at `next` exists when its pointer differs from the synchronised write pointer.
            validQ.set(Expr.mux(pop, ahead.gray().ne(wrPtrGray), rdGray.ne(wrPtrGray)));
            valid.set(sr ? validQ.and(shown) : validQ);
            io.rdEn().set(validQ.not().or(take));
            // The address the RAM is read at only matters when it is read: with a word shown, that is
            // a pop (read the one after); without, the head. So a register picks it, and neither the
            // consumer's ready nor a flush reaches the RAM's many address inputs.
            rdAddr.set(nextLow ? Expr.mux(validQ, ahead.low(), rdLow) : Expr.mux(validQ, ahead.bin(), rdBin).trunc(aw));
        } else if (p.registeredOutput()) {
            Reg validQ = sr ? m.reg("valid_q", 1, cd).powerUp(0) : m.reg("valid_q", 1, cd).init(0);
            pop.set(validQ.and(take));
            next.set(sr ? rdBin.plus(pop.zext(pw)) : Expr.mux(pop, rdBin.plus(1), rdBin));
            nextGray.set(Gray.encode(next));
            // The word at `next` exists when its pointer differs from the synchronised write pointer.
            validQ.set(nextGray.ne(wrPtrGray));
            valid.set(sr ? validQ.and(shown) : validQ);
            // Read only when the read-data register may change, so a stalled word stays put.
            io.rdEn().set(validQ.not().or(take));
            rdAddr.set(next.trunc(aw));
        } else {
            Signal notEmpty = m.wire("not_empty", 1);
            notEmpty.set(rdGray.ne(wrPtrGray));
            pop.set(notEmpty.and(take));
            if (p.lookahead()) {
                ahead(m, p, pop, next, nextGray, rdBin, rdLow, rdGray);
            } else {
                next.set(sr ? rdBin.plus(pop.zext(pw)) : Expr.mux(pop, rdBin.plus(1), rdBin));
                nextGray.set(Gray.encode(next));
            }
            valid.set(sr ? notEmpty.and(shown) : notEmpty);
            rdAddr.set(sr ? rdLow : rdBin.trunc(aw));
        }
        if (sr) {
            rdLow.set(nextLow ? next : next.trunc(aw));
        } else {
            ((Reg) rdBin).set(next);
        }
        rdGray.set(nextGray);
        rdPtrGrayOut.set(rdGray);
    }

    /** The read pointer one ahead, in registers: {@code bin} (null with sideReset), {@code low} (its low bits with sideReset) and {@code gray}. */
    private record Ahead(Signal bin, Reg low, Reg gray) {
    }

    /**
     * The pointer one ahead kept in registers beside the read pointer, so a pop picks {@code next} and
     * {@code nextGray} between flip-flops: no increment or Gray encode after the pop.
     */
    private static Ahead ahead(ModuleBuilder m, Params p, Signal pop, Signal next, Signal nextGray, Signal rdBin, Reg rdLow, Reg rdGray) {
        ClockDomain cd = Domains.READ;
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        boolean sr = p.sideReset();
        // (declared in this order: the binary pointer's register, or its low bits, before the Gray one)
        Reg low = sr ? m.reg("rd_ptr_bin_inc_lo", aw, cd).powerUp(1) : null;
        Signal bin = sr ? null : m.reg("rd_ptr_bin_inc", pw, cd).init(1);
        Reg gray = sr ? m.reg("rd_ptr_gray_inc", pw, cd).powerUp(1) : m.reg("rd_ptr_gray_inc", pw, cd).init(1);
        if (sr) {
            bin = m.wire("rd_ptr_bin_inc", pw);
            bin.set(Expr.cat(gray.bit(aw), low));
        }
        next.set(sr ? Expr.mux(pop, low, rdLow) : Expr.mux(pop, bin, rdBin));
        nextGray.set(Expr.mux(pop, gray, rdGray));
        Signal bin2 = m.wire("rd_ptr_bin_inc2", pw);
        bin2.set(bin.plus(1));
        if (sr) {
            low.set(Expr.mux(pop, bin2.trunc(aw), low));
        } else {
            ((Reg) bin).set(Expr.mux(pop, bin2, bin));
        }
        gray.set(Expr.mux(pop, Gray.encode(bin2), gray));
        return new Ahead(bin, low, gray);
    }
}
