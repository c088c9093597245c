// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.aperture;

import static org.direkt.generators.Check.require;

import java.util.LinkedHashMap;
import java.util.Map;

import org.direkt.generators.Domains;
import org.direkt.generators.Json;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;

/**
 * The GPU-master aperture: part of FPGA memory on a flat, prefetchable BAR, so that a GPU's copy
 * engine reads and writes it with no kernel on the FPGA side. The BAR's bursting RX master (on
 * Arria 10, BAR2 with {@code enable_rxm_burst_hwtcl}) drives agent {@code s} in its clock; master
 * {@code m}, in the memory's clock, reaches FPGA memory at {@code fpgaBase} + the BAR offset, a fixed
 * window set when the overlay is made, never paged per transfer.
 *
 * <pre>
 * RX master -> s -> ApertureFront -> cmd FIFO (pcie_clk -> mem_clk) -> m -> FPGA memory
 *           <- s <- ApertureFront <- response buffer (mem_clk -> pcie_clk) <- m
 * </pre>
 *
 * <p>Writes are posted: a beat is taken whenever the command FIFO has a place. Reads are built for
 * throughput (GPU reads are non-posted, so their rate is outstanding bytes over the round trip):
 * the response buffer holds {@code responseBeats} beats and {@link ApertureFront} keeps up to
 * {@link ApertureFront.Params#outstandingReads} bursts outstanding, each with its room reserved, so
 * the memory's read data is never held back and the RX master's never waits on the memory clock.
 * Commands keep their order across the crossing, so a read after a write to the same address sees it.
 */
public final class Aperture extends Generator<Aperture.Params> {

    /** The RX master's clock: the hard IP's application clock. */
    public static final ClockDomain PCIE = new ClockDomain("pcie", "pcie_clk", "pcie_rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);
    /** FPGA memory's clock (the memory controller's user clock). */
    public static final ClockDomain MEM = new ClockDomain("mem", "mem_clk", "mem_rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);

    /** Command FIFO words: enough for two longest write bursts in flight across the crossing. */
    public static final int COMMAND_DEPTH = 32;

    /**
     * @param barBytes       the BAR's size: the part of FPGA memory exposed (a power of two)
     * @param fpgaBase       FPGA memory byte address at BAR offset 0 (a multiple of barBytes)
     * @param memAddressBits byte address bits of FPGA memory (the window must lie inside it)
     * @param dataBits       data bits of the RX master and the memory
     * @param maxBurst       the longest burst in beats
     * @param responseBeats  read data beats the response buffer holds
     */
    public record Params(long barBytes, long fpgaBase, int memAddressBits, int dataBits, int maxBurst, int responseBeats) {
        public Params {
            require(barBytes > 0 && (barBytes & (barBytes - 1)) == 0 && barBytes >= 4096, "Aperture", "barBytes", barBytes,
                    "must be a power of two of at least 4096 (a PCIe BAR's size)");
            require(memAddressBits >= 12 && memAddressBits <= 40, "Aperture", "memAddressBits", memAddressBits, "must be in 12..40");
            require(barBytes <= (1L << memAddressBits), "Aperture", "barBytes", barBytes,
                    "must be at most FPGA memory's " + (1L << memAddressBits) + " bytes");
            require(fpgaBase >= 0 && fpgaBase % barBytes == 0 && fpgaBase + barBytes <= (1L << memAddressBits), "Aperture", "fpgaBase",
                    fpgaBase, "must be a multiple of barBytes (" + barBytes + ") with the window inside FPGA memory ("
                            + (1L << memAddressBits) + " bytes)");
            new ApertureFront.Params(Long.numberOfTrailingZeros(barBytes), dataBits, maxBurst, responseBeats);
        }

        /** 1 GiB of FPGA memory from address 0 on a 256-bit RX master, bursts of 16 (512 bytes), a 256-beat response buffer. */
        public static Params defaults() {
            return new Params(1L << 30, 0, 33, 256, 16, 256);
        }

        public ApertureFront.Params front() {
            return new ApertureFront.Params(Long.numberOfTrailingZeros(barBytes), dataBits, maxBurst, responseBeats);
        }

        public int addressBits() {
            return Long.numberOfTrailingZeros(barBytes);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_aperture";
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ApertureFront.Params fp = p.front();
        m.doc(String.format("""
                direkt GPU-master aperture: a %d-byte BAR onto FPGA memory at 0x%x (%d-bit data, bursts up to %d
                beats); writes posted, up to %d read bursts outstanding into a %d-beat response buffer; s in pcie_clk,
                m in mem_clk.""", p.barBytes(), p.fpgaBase(), p.dataBits(), p.maxBurst(), fp.outstandingReads(), p.responseBeats()));
        ClockDomain pcie = m.domain(PCIE);
        ClockDomain mem = m.domain(MEM);
        int ab = p.addressBits();
        int bb = fp.burstBits();
        int db = p.dataBits();

        ApertureFront.Io front = m.sub("u_front", new ApertureFront(), fp).clock(pcie).io();
        ApertureFront.Agent s = front.s();
        s.address().set(m.input("s_address", ab, pcie));
        s.read().set(m.input("s_read", 1, pcie));
        s.write().set(m.input("s_write", 1, pcie));
        s.burstcount().set(m.input("s_burstcount", bb, pcie));
        s.writedata().set(m.input("s_writedata", db, pcie));
        s.byteenable().set(m.input("s_byteenable", db / 8, pcie));
        m.output("s_waitrequest", 1, pcie).set(s.waitrequest());
        m.output("s_readdata", db, pcie).set(s.readdata());
        m.output("s_readdatavalid", 1, pcie).set(s.readdatavalid());
        m.output("reserved_beats", fp.reservedBits(), pcie).set(front.reserved());

        // (both FIFOs with lookahead flags: their ready and valid straight from flip-flops)
        AsyncFifo.Io cmd = m.sub("u_cmd_fifo", new AsyncFifo(), new AsyncFifo.Params(fp.commandBits(), COMMAND_DEPTH, 2, true, false, true))
                .clock(Domains.WRITE, pcie).clock(Domains.READ, mem).io();
        m.connect(front.cmd(), cmd.s());
        AsyncFifo.Io resp = m.sub("u_resp_fifo", new AsyncFifo(), new AsyncFifo.Params(db, p.responseBeats(), 2, true, false, true))
                .clock(Domains.WRITE, mem).clock(Domains.READ, pcie).io();
        m.connect(resp.m(), front.resp());

        // ---- the memory side: the command word at the FIFO's head on the master's signals
        Stream c = cmd.m();
        Signal word = m.wire("cmd_word", fp.commandBits());
        word.set(c.data());
        int be = db / 8;
        Expr isWrite = word.bit(fp.commandBits() - 1);
        Expr offset = word.bits(fp.commandBits() - 2, be + db + bb);
        Expr burst = word.bits(be + db + bb - 1, be + db);
        Signal waitrequest = m.input("m_waitrequest", 1, mem);
        Expr base = m.lit(p.fpgaBase() >>> ab, p.memAddressBits() - ab);
        m.output("m_address", p.memAddressBits(), mem).set(p.memAddressBits() == ab ? offset : Expr.cat(base, offset));
        m.output("m_read", 1, mem).set(c.valid().and(isWrite.not()));
        m.output("m_write", 1, mem).set(c.valid().and(isWrite));
        m.output("m_burstcount", bb, mem).set(burst);
        m.output("m_writedata", db, mem).set(word.bits(be + db - 1, be));
        m.output("m_byteenable", be, mem).set(word.bits(be - 1, 0));
        c.ready().set(waitrequest.not());

        // read data into the response buffer, which always has room (ApertureFront reserves it); a
        // beat it could not take would be a broken promise: kept, sticky, for bring-up
        Signal readdatavalid = m.input("m_readdatavalid", 1, mem);
        resp.s().valid().set(readdatavalid);
        resp.s().data().set(m.input("m_readdata", db, mem));
        Reg overrun = m.reg("resp_overrun", 1, mem).init(0);
        m.when(readdatavalid.and(resp.s().ready().not()), () -> overrun.set(1));
        m.output("overrun", 1, mem).set(overrun);
    }

    /** What the overlay's manifest says of the aperture ({@code aperture} section). */
    public static Map<String, Object> manifest(Params p, int bar) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("bar", bar);
        a.put("bar_bytes", p.barBytes());
        a.put("fpga_base", p.fpgaBase());
        a.put("outstanding_reads", p.front().outstandingReads());
        a.put("max_read_bytes", p.maxBurst() * (p.dataBits() / 8));
        return a;
    }

    public static String manifestJson(Params p, int bar) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("aperture", manifest(p, bar));
        return Json.write(root);
    }
}
