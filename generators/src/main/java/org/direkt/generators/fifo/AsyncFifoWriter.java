package org.direkt.generators.fifo;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Gray;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;

/**
 * Write-domain half of {@link AsyncFifo}: the write pointer in binary (RAM address) and Gray (what
 * crosses), and the full flag against the synchronised read pointer. Full is pessimistic: the read
 * pointer it sees lags the real one, so it may stay set a few cycles after a read, never the reverse.
 */
public final class AsyncFifoWriter extends Generator<AsyncFifoWriter.Params> {

    /** {@code fillOutput}: also output {@code fill}, the words held as the write side sees them. */
    public record Params(int depth, boolean fillOutput) {
        public Params {
            require(Check.isPowerOfTwo(depth) && depth >= 2, "AsyncFifoWriter", "depth", depth, "must be a power of two >= 2");
        }

        public Params(int depth) {
            this(depth, false);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_wr_d" + p.depth() + (p.fillOutput() ? "_f" : "");
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain cd = m.domain(Domains.WRITE);
        int aw = Check.log2(p.depth());
        int pw = aw + 1;
        Signal valid = m.input("valid", 1, cd);
        Signal rdPtrGray = m.input("rd_ptr_gray_sync", pw, cd);
        Signal ready = m.output("ready", 1, cd);
        Signal wrEn = m.output("wr_en", 1, cd);
        Signal wrAddr = m.output("wr_addr", aw, cd);
        Signal wrPtrGrayOut = m.output("wr_ptr_gray", pw, cd);

        Reg wrBin = m.reg("wr_ptr_bin", pw, cd).init(0);
        Reg wrGray = m.reg("wr_ptr_gray_q", pw, cd).init(0);

        // Full: the Gray write pointer equals the read pointer with its top two bits inverted
        // (Cummings), i.e. the writer is exactly one lap ahead.
        Expr lapAhead = pw == 2
                ? rdPtrGray.not()
                : Expr.cat(rdPtrGray.bits(pw - 1, pw - 2).not(), rdPtrGray.bits(pw - 3, 0));
        Signal full = m.wire("full", 1);
        full.set(wrGray.eq(lapAhead));
        Signal push = m.wire("push", 1);
        push.set(valid.and(full.not()));
        Signal next = m.wire("wr_ptr_next", pw);
        next.set(Expr.mux(push, wrBin.plus(1), wrBin));
        wrBin.set(next);
        wrGray.set(Gray.encode(next));

        ready.set(full.not());
        wrEn.set(push);
        wrAddr.set(wrBin.trunc(aw));
        wrPtrGrayOut.set(wrGray);
        if (p.fillOutput()) {
            // Pessimistic: the read pointer lags, so this is never less than the words really held.
            m.output("fill", pw, cd).set(wrBin.minus(Gray.decode(rdPtrGray)));
        }
    }
}
