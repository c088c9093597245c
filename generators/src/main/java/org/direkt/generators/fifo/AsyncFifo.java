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
 * cross are the two Gray-coded pointers, each through a {@link Sync} chain of {@code syncStages}
 * attributed flops. The RAM is written in the write domain and read in the read domain; the
 * pointer protocol keeps every read away from a word being written. 1 word per cycle in each
 * domain while neither full nor empty, provided the depth covers the pointer round trip (a word's
 * write pointer reaches the reader and the freed slot's read pointer comes back, about
 * {@code 2 * syncStages + 4} cycles of the slower clock): depth 16 with 2 stages sustains full
 * rate at every clock ratio measured; depth 2 or 4 does not.
 *
 * <p>Reset: {@code wr_rst} clears the write pointer (and the read pointer's synchroniser in the
 * write domain), {@code rd_rst} clears the read pointer and {@code m_valid}. Both pointers must
 * restart together: assert both resets, overlapping, for at least {@code syncStages + 1} cycles of
 * the slower clock, and keep {@code s_valid} low until {@code wr_rst} is released. Resetting one
 * side alone while the FIFO holds words loses or replays them.
 */
public final class AsyncFifo extends Unit<AsyncFifo.Params, AsyncFifo.Io> {

    /**
     * Sink {@code s} (write domain), source {@code m} (read domain); {@code wrRdPtr} is null unless
     * {@link Params#writeReadPointer}.
     */
    public record Io(Stream s, Stream m, Signal wrRdPtr) {
    }

    /**
     * {@code writeReadPointer}: also output {@code wr_rd_ptr}, the read pointer in binary as the write
     * domain sees it (from a register after the synchroniser: it lags the real one by a few cycles, so
     * the write pointer less it is never fewer than the words really held), for credit schemes.
     * {@code lookahead}: the flags a cycle ahead, for a FIFO inside a large design where routing
     * stretches every logic level: {@code s_ready} straight from a flip-flop (full computed a cycle
     * ahead from the synchronised read pointer: it rises as soon as the last place is taken and falls
     * a cycle later than the plain flag, when the read pointer it saw reaches the register), and, with
     * a registered output, a read side that keeps the next pointer in registers too
     * ({@link AsyncFifoReader.Params#lookahead}). The full flag then sees the read pointer exactly as
     * late as {@code wr_rd_ptr} does, so a credit scheme on {@code wr_rd_ptr} never meets it.
     */
    public record Params(int width, int depth, int syncStages, boolean registeredOutput, boolean writeReadPointer,
            boolean lookahead) {
        public Params {
            require(width >= 1 && width <= 4096, "AsyncFifo", "width", width, "must be in 1..4096");
            require(Check.isPowerOfTwo(depth) && depth >= 2 && depth <= 65536, "AsyncFifo", "depth", depth,
                    "must be a power of two in 2..65536 (Gray pointers need a power-of-two lap)");
            require(syncStages >= 2 && syncStages <= 8, "AsyncFifo", "syncStages", syncStages,
                    "must be in 2..8 (at least two flops against metastability)");
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
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_async_fifo_w" + p.width() + "_d" + p.depth()
                + (p.syncStages() == 2 ? "" : "_s" + p.syncStages()) + (p.registeredOutput() ? "_r" : "") + (p.writeReadPointer() ? "_p" : "")
                + (p.lookahead() ? "_la" : "");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain wr = at.domain(Domains.WRITE);
        ClockDomain rd = at.domain(Domains.READ);
        AvalonSt type = AvalonSt.source(p.width());
        return new Io(at.sink("s", type, wr), at.source("m", type, rd),
                 p.writeReadPointer() ? at.out("wr_rd_ptr", Check.log2(p.depth()) + 1, wr) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Dual-clock FIFO, %d words of %d bits. Only the Gray-coded pointers cross, each through
                %d synchroniser flops. Write-to-readable latency: at most %d rd_clk cycles after the
                wr_clk edge that accepts a word. Full and empty are pessimistic.
                Reset: wr_rst clears the write side, rd_rst the read side. Assert both together,
                overlapping, for at least %d cycles of the slower clock, with s_valid low while
                wr_rst is high. Resetting one side alone while words are held loses or replays them.""",
                p.depth(), p.width(), p.syncStages(), p.syncStages() + 2, p.syncStages() + 1));
        ClockDomain wr = Domains.WRITE;
        ClockDomain rd = Domains.READ;
        Stream s = io.s();
        Stream mo = io.m();

        AsyncFifoWriter.Io writer = m.sub("u_wr", new AsyncFifoWriter(), new AsyncFifoWriter.Params(p.depth(), p.writeReadPointer(), p.lookahead()))
                .clock(Domains.WRITE, wr).io();
        AsyncFifoReader.Io reader = m.sub("u_rd", new AsyncFifoReader(),
                new AsyncFifoReader.Params(p.depth(), p.registeredOutput(), p.lookahead() && p.registeredOutput())).clock(Domains.READ, rd).io();

        Signal rdPtrInWr = Sync.bits(m, "u_rd_ptr_sync", reader.rdPtrGray(), wr, p.syncStages());
        Signal wrPtrInRd = Sync.bits(m, "u_wr_ptr_sync", writer.wrPtrGray(), rd, p.syncStages());
        writer.rdPtrGraySync().set(rdPtrInWr);
        reader.wrPtrGraySync().set(wrPtrInRd);

        if (p.writeReadPointer()) {
            io.wrRdPtr().set(writer.rdPtrSeen());
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
