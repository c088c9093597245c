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

    /** The read side's ports; {@code rdEn} is null unless the output is registered. */
    public record Io(Signal ready, Signal wrPtrGraySync, Signal valid, Signal rdAddr, Signal rdPtrGray, Signal rdEn) {
    }

    /**
     * {@code lookahead} (registered output only): the pointer one ahead is kept in registers too, in
     * binary and Gray, so the pop only picks between flip-flops: the RAM address and the next valid
     * flag are one multiplexer from the pop instead of an increment, a Gray encode and a compare.
     * A few flip-flops more, for a read side that keeps its speed inside a large design.
     */
    public record Params(int depth, boolean registeredOutput, boolean lookahead) {
        public Params {
            require(Check.isPowerOfTwo(depth) && depth >= 2, "AsyncFifoReader", "depth", depth, "must be a power of two >= 2");
            require(!lookahead || registeredOutput, "AsyncFifoReader", "lookahead", lookahead, "needs registeredOutput");
        }

        public Params(int depth, boolean registeredOutput) {
            this(depth, registeredOutput, false);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_rd_d" + p.depth() + (p.registeredOutput() ? "_r" : "") + (p.lookahead() ? "_la" : "");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.READ);
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        return new Io(at.in("ready", 1, cd), at.in("wr_ptr_gray_sync", pw, cd), at.out("valid", 1, cd),
                at.out("rd_addr", aw, cd), at.out("rd_ptr_gray", pw, cd), p.registeredOutput() ? at.out("rd_en", 1, cd) : null);
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

        Reg rdBin = m.reg("rd_ptr_bin", pw, cd).init(0);
        Reg rdGray = m.reg("rd_ptr_gray_q", pw, cd).init(0);
        Signal next = m.wire("rd_ptr_next", pw);
        Signal nextGray = m.wire("rd_ptr_next_gray", pw);
        Signal pop = m.wire("pop", 1);

        if (p.lookahead()) {
            Reg validQ = m.reg("valid_q", 1, cd).init(0);
            Reg binInc = m.reg("rd_ptr_bin_inc", pw, cd).init(1);
            Reg grayInc = m.reg("rd_ptr_gray_inc", pw, cd).init(1);
            pop.set(validQ.and(ready));
            next.set(Expr.mux(pop, binInc, rdBin));
            nextGray.set(Expr.mux(pop, grayInc, rdGray));
            Signal binInc2 = m.wire("rd_ptr_bin_inc2", pw);
            binInc2.set(binInc.plus(1));
            binInc.set(Expr.mux(pop, binInc2, binInc));
            grayInc.set(Expr.mux(pop, Gray.encode(binInc2), grayInc));
            // The word at `next` exists when its pointer differs from the synchronised write pointer.
            validQ.set(Expr.mux(pop, grayInc.ne(wrPtrGray), rdGray.ne(wrPtrGray)));
            valid.set(validQ);
            io.rdEn().set(validQ.not().or(ready));
            rdAddr.set(next.trunc(aw));
        } else if (p.registeredOutput()) {
            Reg validQ = m.reg("valid_q", 1, cd).init(0);
            pop.set(validQ.and(ready));
            next.set(Expr.mux(pop, rdBin.plus(1), rdBin));
            nextGray.set(Gray.encode(next));
            // The word at `next` exists when its pointer differs from the synchronised write pointer.
            validQ.set(nextGray.ne(wrPtrGray));
            valid.set(validQ);
            // Read only when the read-data register may change, so a stalled word stays put.
            io.rdEn().set(validQ.not().or(ready));
            rdAddr.set(next.trunc(aw));
        } else {
            Signal notEmpty = m.wire("not_empty", 1);
            notEmpty.set(rdGray.ne(wrPtrGray));
            pop.set(notEmpty.and(ready));
            next.set(Expr.mux(pop, rdBin.plus(1), rdBin));
            nextGray.set(Gray.encode(next));
            valid.set(notEmpty);
            rdAddr.set(rdBin.trunc(aw));
        }
        rdBin.set(next);
        rdGray.set(nextGray);
        rdPtrGrayOut.set(rdGray);
    }
}
