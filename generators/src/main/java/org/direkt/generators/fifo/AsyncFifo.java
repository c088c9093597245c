// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.fifo;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Gray;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Sync;
import org.direkt.hdl.Unit;

/**
 * Dual-clock FIFO (Cummings, SNUG 2002): sink {@code s} in the write domain ({@code wr_clk},
 * {@code wr_rst}), source {@code m} in the read domain ({@code rd_clk}, {@code rd_rst}). One
 * submodule per domain ({@link AsyncFifoWriter}, {@link AsyncFifoReader}); the only signals that
 * cross are the two Gray-coded pointers (and, with {@code sideReset}, {@code wr_rst}), each through
 * a {@link Sync} chain of {@code syncStages} attributed flops. The RAM is written in the write
 * domain and read in the read domain; the pointer protocol keeps every read away from a word being
 * written. 1 word per cycle in each
 * domain while neither full nor empty, provided the depth covers the pointer round trip (a word's
 * write pointer reaches the reader and the freed slot's read pointer comes back, about
 * {@code 2 * syncStages + 4} cycles of the slower clock): depth 16 with 2 stages sustains full
 * rate at every clock ratio measured; depth 2 or 4 does not.
 *
 * <p>Reset, without {@code sideReset}: {@code wr_rst} clears the write pointer (and the read
 * pointer's synchroniser in the write domain), {@code rd_rst} clears the read pointer and
 * {@code m_valid}. Both pointers must restart together: assert both resets, overlapping, for at
 * least {@code syncStages + 1} cycles of the slower clock, and keep {@code s_valid} low until
 * {@code wr_rst} is released. Resetting one side alone while the FIFO holds words loses or replays
 * them.
 *
 * <p>With {@link Params#sideReset} (module suffix {@code _sr}) either side may be reset alone, at any
 * time and for any length, or never. No reset moves a pointer: the pointers, the synchroniser flops
 * and the read side's valid flag hold power-up values (declaration initialisers, which Intel's and
 * AMD's tools load at configuration; an FPGA design, then) and change only as words move, so each
 * crossing Gray pointer changes in at most one bit at a time, and a synchroniser flop that samples
 * it mid-change resolves to the old or the new pointer. While {@code wr_rst} is high
 * {@code s_ready} is low. {@code wr_rst} crosses to the read domain through its own synchroniser
 * (power-up 0: the FIFO powers up empty, with nothing to drain) and comes out as
 * {@code rd_wr_rst}. While {@code rd_rst} or {@code rd_wr_rst} is high the read side flushes:
 * {@code m_valid} is low and the word it holds is dropped in every {@code rd_clk} cycle, so the FIFO
 * empties and the write side sees the space come back; a reset held for
 * {@code syncStages + depth + 2} {@code rd_clk} cycles empties a full FIFO while nothing is written
 * (a shorter one drops fewer words, and the rest come out afterwards, in order). Every word accepted
 * is delivered once, in order, or dropped by a flush; outside a flush the FIFO behaves exactly as
 * without {@code sideReset}. {@code wr_rst} must be free of glitches (from a flip-flop, as a reset
 * synchroniser's output is), or a glitch would flush the read side; a {@code wr_rst} pulse shorter
 * than an {@code rd_clk} cycle may not reach the read side at all. The words taken right after
 * {@code wr_rst} falls are kept (their pointer reaches the read side no earlier than the release),
 * except where a synchroniser flop resolves the release a cycle late: a producer that must not
 * lose them waits {@code syncStages + 1} {@code rd_clk} cycles' time after the release.
 * {@code formal/async_fifo_sr.sv} proves the contract with the clocks and both resets free from
 * power-up on. 160 x 16 with registered output: 29 ALUTs and 201 flip-flops on Yosys'
 * {@code synth_intel_alm -family cyclonev}, against 38 and 201 without {@code sideReset}.
 */
public final class AsyncFifo extends Unit<AsyncFifo.Params, AsyncFifo.Io> {

    /**
     * Sink {@code s} (write domain), source {@code m} (read domain); {@code wrRdPtr} and {@code wrPtr}
     * are null unless {@link Params#writeReadPointer}, {@code rdWrRst} (the write side's reset as the
     * read domain sees it) unless {@link Params#sideReset}.
     */
    public record Io(Stream s, Stream m, Signal wrRdPtr, Signal rdWrRst, Signal wrPtr, Signal wrEmpty) {
    }

    /**
     * {@code writeReadPointer}: also output {@code wr_rd_ptr}, the read pointer in binary as the write
     * domain sees it (from a register after the synchroniser: it lags the real one by a few cycles, so
     * the write pointer less it is never fewer than the words really held), and {@code wr_ptr}, the
     * write pointer in binary, for credit schemes and for a write side that waits for the FIFO to
     * empty (the two equal: every word written has left).
     * {@code lookahead}: the flags a cycle ahead, for a FIFO inside a large design where routing
     * stretches every logic level: {@code s_ready} straight from a flip-flop (full computed a cycle
     * ahead from the synchronised read pointer: it rises as soon as the last place is taken and falls
     * a cycle later than the plain flag, when the read pointer it saw reaches the register), and, with
     * a registered output, a read side that keeps the next pointer in registers too
     * ({@link AsyncFifoReader.Params#lookahead}). The full flag then sees the read pointer exactly as
     * late as {@code wr_rd_ptr} does, so a credit scheme on {@code wr_rd_ptr} never meets it.
     * {@code readAhead}: that read side without a registered output too (the next pointers a
     * multiplexer between flip-flops after the pop, no increment or Gray encode): for a consumer
     * whose own logic sits on the pop's path; a few flip-flops more.
     * {@code sideReset}: either side may be reset alone (see the class comment); adds the output
     * {@code rd_wr_rst}. {@code writeEmpty}: also output {@code wr_empty}, high when the write side
     * sees the FIFO empty (its pointer equals the read pointer it sees, which lags: never high while
     * a word is held), for a write side that waits until every word it wrote has left.
     */
    public record Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer,
            boolean lookahead, boolean sideReset, boolean writeEmpty, boolean readAhead) {
        public Params {
            require(width >= 1 && width <= 4096, "AsyncFifo", "width", width, "must be in 1..4096");
            require(Check.isPowerOfTwo(depth) && depth >= 2 && depth <= 65536, "AsyncFifo", "depth", depth,
                    "must be a power of two in 2..65536 (Gray pointers need a power-of-two lap)");
            require(syncStages >= 2 && syncStages <= 8, "AsyncFifo", "syncStages", syncStages,
                    "must be in 2..8 (at least two flops against metastability)");
        }

        public Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer,
                boolean lookahead, boolean sideReset, boolean writeEmpty) {
            this(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, sideReset, writeEmpty, false);
        }

        public Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer,
                boolean lookahead, boolean sideReset) {
            this(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, sideReset, false);
        }

        public Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer,
                boolean lookahead) {
            this(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, false);
        }

        public Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer) {
            this(width, depth, syncStages, registeredOutput, writeReadPointer, false);
        }

        public Params(int width, int depth, int syncStages, boolean registeredOutput) {
            this(width, depth, syncStages, registeredOutput, false);
        }

        /** Two synchroniser stages, registered output. */
        public static Params of(int width, int depth) {
            return new Params(width, depth, 2, true);
        }

        /** The same FIFO with {@code sideReset}: either side may be reset alone. */
        public Params withSideReset() {
            return new Params(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, true, writeEmpty, readAhead);
        }

        /** The same FIFO with {@code writeEmpty}: the write side says when it sees the FIFO empty. */
        public Params withWriteEmpty() {
            return new Params(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, sideReset, true, readAhead);
        }

        /** The same FIFO with {@code readAhead}: the read side keeps its pointer one ahead in registers. */
        public Params withReadAhead() {
            return new Params(width, depth, syncStages, registeredOutput, writeReadPointer, lookahead, sideReset, writeEmpty, true);
        }

        /** Whether the read side keeps its pointer one ahead ({@link AsyncFifoReader.Params#lookahead}). */
        public boolean readerAhead() {
            return lookahead && registeredOutput || readAhead;
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_w" + p.width() + "_d" + p.depth()
                + (p.syncStages() == 2 ? "" : "_s" + p.syncStages()) + (p.registeredOutput() ? "_r" : "") + (p.writeReadPointer() ? "_p" : "")
                + (p.lookahead() ? "_la" : "") + (p.readAhead() ? "_ra" : "") + (p.writeEmpty() ? "_we" : "") + (p.sideReset() ? "_sr" : "");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain wr = at.domain(Domains.WRITE);
        ClockDomain rd = at.domain(Domains.READ);
        AvalonSt type = AvalonSt.source(p.width());
        return new Io(at.sink("s", type, wr), at.source("m", type, rd),
                 p.writeReadPointer() ? at.out("wr_rd_ptr", Check.log2(p.depth()) + 1, wr) : null,
                 p.sideReset() ? at.out("rd_wr_rst", 1, rd) : null,
                 p.writeReadPointer() ? at.out("wr_ptr", Check.log2(p.depth()) + 1, wr) : null,
                 p.writeEmpty() ? at.out("wr_empty", 1, wr) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        if (p.sideReset()) {
            m.doc(String.format("""
                    Dual-clock FIFO, %d words of %d bits. Only the Gray-coded pointers and wr_rst cross,
                    each through %d synchroniser flops. Write-to-readable latency: at most %d rd_clk
                    cycles after the wr_clk edge that accepts a word. Full and empty are pessimistic.
                    Reset: either side alone, at any time. No reset moves a pointer (power-up values
                    only), so each Gray pointer changes by one bit at a time, always. While wr_rst is
                    high s_ready is low. rd_wr_rst is wr_rst synchronised to rd_clk; while it or rd_rst
                    is high m_valid is low and the read side drops the word it holds in every rd_clk
                    cycle: a reset held for %d rd_clk cycles empties a full FIFO. Every word accepted
                    is delivered once, in order, or dropped by such a flush. wr_rst must come from a
                    flip-flop.""",
                    p.depth(), p.width(), p.syncStages(), p.syncStages() + 2, p.syncStages() + p.depth() + 2));
        } else {
            m.doc(String.format("""
                Dual-clock FIFO, %d words of %d bits. Only the Gray-coded pointers cross, each through
                %d synchroniser flops. Write-to-readable latency: at most %d rd_clk cycles after the
                wr_clk edge that accepts a word. Full and empty are pessimistic.
                Reset: wr_rst clears the write side, rd_rst the read side. Assert both together,
                overlapping, for at least %d cycles of the slower clock, with s_valid low while
                wr_rst is high. Resetting one side alone while words are held loses or replays them.""",
                p.depth(), p.width(), p.syncStages(), p.syncStages() + 2, p.syncStages() + 1));
        }
        ClockDomain wr = Domains.WRITE;
        ClockDomain rd = Domains.READ;
        Stream s = io.s();
        Stream mo = io.m();

        AsyncFifoWriter.Io writer = m.sub("u_wr", new AsyncFifoWriter(),
                new AsyncFifoWriter.Params(p.depth(), p.writeReadPointer(), p.lookahead(), p.sideReset(), p.writeEmpty()))
                .clock(Domains.WRITE, wr).io();
        AsyncFifoReader.Io reader = m.sub("u_rd", new AsyncFifoReader(),
                new AsyncFifoReader.Params(p.depth(), p.registeredOutput(), p.readerAhead(), p.sideReset()))
                .clock(Domains.READ, rd).io();

        if (p.sideReset()) {
            // Synchronisers no reset clears, starting where the pointers start (0). wr_rst's starts
            // at 0 too: the FIFO powers up empty with both pointers equal, so there is nothing to
            // drain, and a 1 would tell the read side of a write-side reset that never happened.
            Signal rdPtrInWr = Sync.bitsWithoutReset(m, "u_rd_ptr_sync", reader.rdPtrGray(), wr, p.syncStages(), 0);
            Signal wrPtrInRd = Sync.bitsWithoutReset(m, "u_wr_ptr_sync", writer.wrPtrGray(), rd, p.syncStages(), 0);
            Signal wrRstInRd = Sync.bitsWithoutReset(m, "u_wr_rst_sync", m.reset(wr), rd, p.syncStages(), 0);
            writer.rdPtrGraySync().set(rdPtrInWr);
            reader.wrPtrGraySync().set(wrPtrInRd);
            reader.wrRstSync().set(wrRstInRd);
            io.rdWrRst().set(wrRstInRd);
        } else {
            Signal rdPtrInWr = Sync.bits(m, "u_rd_ptr_sync", reader.rdPtrGray(), wr, p.syncStages());
            Signal wrPtrInRd = Sync.bits(m, "u_wr_ptr_sync", writer.wrPtrGray(), rd, p.syncStages());
            writer.rdPtrGraySync().set(rdPtrInWr);
            reader.wrPtrGraySync().set(wrPtrInRd);
        }

        if (p.writeReadPointer()) {
            io.wrRdPtr().set(writer.rdPtrSeen());
            io.wrPtr().set(writer.wrPtr());
        }
        if (p.writeEmpty()) {
            io.wrEmpty().set(writer.empty());
        }
        writer.valid().set(s.valid());
        s.ready().set(writer.ready());
        reader.ready().set(mo.ready());
        mo.valid().set(reader.valid());

        Memory mem = m.memory("mem", p.width(), p.depth(), wr);
        mem.write(writer.wrAddr(), s.data(), writer.wrEn());
        if (p.registeredOutput()) {
            mo.data().set(mem.readSync("rd_data_q", reader.rdAddr(), reader.rdEn(), rd));
        } else {
            mo.data().set(mem.readAsync(reader.rdAddr(), rd));
        }
    }
}
