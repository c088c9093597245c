// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
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
 * The host-protocol front of {@link HostDescController}, all in dma_clk: the two {@link HostDescSide}s,
 * their registers on one Avalon-MM agent, the mover statuses routed by ID range, the Read Data
 * Mover's descriptors (both sides' table fetches and the rd side's entries) and the completion flags
 * of both sides on one write-only host.
 *
 * <p>What it promises:
 * <ul>
 * <li>{@code regs}: 32-bit words, word addressed; address bit 6 (byte address bit 8) picks the side,
 *     words 0..15 of a side are its registers ({@link HostDescSide#REGISTERS}, the rest read 0);
 *     read data two cycles after the read ({@link #REGS_READ_LATENCY}), 0 without one; never waits.</li>
 * <li>Mover statuses: an ID in the table-fetch range ({@link #fetchId}: rd side's, then wr side's) on
 *     the Read Data Mover's status is that side's fetch report; on the Write Data Mover's (where no
 *     fetch runs) it is counted in the wr side's DIAG. Every status goes to the bridge unchanged, in
 *     the same cycle: the bridge, built with these table-fetch IDs, ignores theirs.</li>
 * <li>The Read Data Mover's host descriptors: the rd side's table fetch first, then the wr side's,
 *     then the rd side's entries.</li>
 * <li>{@code dcm}: one write of 1 per flag, the two sides taking turns when both have one.</li>
 * </ul>
 */
public final class HostDescFront extends Unit<HostDescFront.Params, HostDescFront.Io> {

    /** Cycles from {@code regs_read} to its data on {@code regs_readdata} (a fixed read latency, no readdatavalid). */
    public static final int REGS_READ_LATENCY = 2;
    /** Word address bits of {@code regs}: 512 bytes. */
    public static final int REGS_ADDRESS_BITS = 7;
    /** Kernel IDs the table fetches use: the top two (rd side's, wr side's). */
    public static final int FETCH_IDS = 2;

    /** The table-fetch ID of side {@code d}: 254 (rd), 255 (wr). */
    public static int fetchId(BridgeModes.Direction d) {
        return Layout.KERNEL_ID_LAST + 1 - FETCH_IDS + d.ordinal();
    }

    /** @param entries descriptor table entries per side (128 for the host protocol; fewer for proofs) */
    public record Params(int entries) {
        public Params {
            require(Check.isPowerOfTwo(entries) && entries >= 4 && entries <= Layout.HOST_ID_LAST + 1, "HostDescFront", "entries",
                    entries, "must be a power of two in 4.." + (Layout.HOST_ID_LAST + 1) + " (host IDs)");
        }

        public HostDescSide.Params side(BridgeModes.Direction d) {
            return new HostDescSide.Params(d, entries, fetchId(d));
        }
    }

    /** The register agent: fixed read latency, no waitrequest. */
    public record Regs(Signal address, Signal read, Signal write, Signal writedata, Signal readdata) {
    }

    /** The completion-flag host: write only, 64-bit byte address, 32-bit data. */
    public record Dcm(Signal address, Signal write, Signal writedata, Signal waitrequest) {
    }

    /** A mover status word: valid for one cycle, no ready. */
    public record Status(Signal valid, Signal data) {
    }

    /** Per mover ({@code rd}, {@code wr}): the status from the mover, the status on to the bridge, the bridge's host status back. */
    public record Mover(Status fromMover, Status toBridge, Status hostStatus, Stream hostDesc, HostDescSide.Dts dts) {
    }

    public record Io(Regs regs, Dcm dcm, Mover rd, Mover wr) {
        public Mover mover(BridgeModes.Direction d) {
            return d == BridgeModes.Direction.RD ? rd : wr;
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_host_desc_front_e" + p.entries();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int sb = Layout.MOVER_STATUS.bits();
        Regs regs = new Regs(at.in("regs_address", REGS_ADDRESS_BITS, cd), at.in("regs_read", 1, cd), at.in("regs_write", 1, cd),
                at.in("regs_writedata", 32, cd), at.out("regs_readdata", 32, cd));
        Dcm dcm = new Dcm(at.out("dcm_address", 64, cd), at.out("dcm_write", 1, cd), at.out("dcm_writedata", 32, cd),
                at.in("dcm_waitrequest", 1, cd));
        Mover[] movers = new Mover[2];
        for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
            String t = d.tag();
            movers[d.ordinal()] = new Mover(new Status(at.in(t + "_ms_valid", 1, cd), at.in(t + "_ms_data", sb, cd)),
                    new Status(at.out(t + "_bs_valid", 1, cd), at.out(t + "_bs_data", sb, cd)),
                    new Status(at.in(t + "_hs_valid", 1, cd), at.in(t + "_hs_data", sb, cd)),
                    at.source(t + "_host_desc", AvalonSt.source(Layout.MOVER_DESC.bits()), cd),
                    new HostDescSide.Dts(at.in(t + "_dts_write", 1, cd), at.in(t + "_dts_address", HostDescSide.DTS_ADDRESS_BITS, cd),
                            at.in(t + "_dts_burstcount", HostDescSide.DTS_BURSTCOUNT_BITS, cd), at.in(t + "_dts_writedata", 256, cd)));
        }
        return new Io(regs, dcm, movers[0], movers[1]);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Host descriptor controller front, %d-entry tables: registers (rd side at word 0, wr side at word 64),
                table fetches with IDs %d (rd) and %d (wr) on the Read Data Mover, statuses routed by ID range,
                completion flags on one write-only host.""", p.entries(), fetchId(BridgeModes.Direction.RD), fetchId(BridgeModes.Direction.WR)));
        ClockDomain cd = Domains.MAIN;
        BridgeModes.Direction rdDir = BridgeModes.Direction.RD;
        BridgeModes.Direction wrDir = BridgeModes.Direction.WR;
        HostDescSide.Io rd = m.sub("u_rd", new HostDescSide(), p.side(rdDir)).clock(cd).io();
        HostDescSide.Io wr = m.sub("u_wr", new HostDescSide(), p.side(wrDir)).clock(cd).io();

        // ---- registers: bit 6 the side, bits [5:4] zero for a side's 16 words
        Regs regs = io.regs();
        Expr isWr = regs.address().bit(REGS_ADDRESS_BITS - 1);
        Expr inSide = regs.address().bits(REGS_ADDRESS_BITS - 2, HostDescSide.INDEX_BITS).eq(0);
        Expr index = regs.address().bits(HostDescSide.INDEX_BITS - 1, 0);
        for (HostDescSide.Io s : new HostDescSide.Io[] {rd, wr}) {
            Expr mine = s == rd ? isWr.not() : isWr;
            s.regs().we().set(regs.write().and(inSide).and(mine));
            s.regs().index().set(index);
            s.regs().wdata().set(regs.writedata());
        }
        // Read back in two registered steps: first the request, its word's place and the copy (the
        // words host software writes whole, from a copy in a LUT RAM: both sides, a word each, 0 until
        // written, a bit each in flip-flops), then one multiplexer for both sides over that and what
        // the sides hold.
        Memory copies = m.memory("reg_copies", 32, 16, cd);
        Reg written = m.reg("reg_written", 16, cd).init(0);
        Expr slot = Expr.cat(isWr, index.bits(2, 0));
        Expr copied = index.bit(HostDescSide.INDEX_BITS - 1).not().and(index.bits(2, 1).ne(2));
        Expr copyWrite = regs.write().and(inSide).and(copied);
        copies.write(slot, regs.writedata(), copyWrite);
        m.when(copyWrite, () -> written.set(written.or(m.lit(1, 16).shl(slot))));
        Reg regsReadQ = m.reg("regs_read_q", 1, cd).init(0);
        regsReadQ.set(regs.read().and(inSide));
        Reg regsReadWr = m.reg("regs_read_wr", 1, cd).init(0);
        regsReadWr.set(isWr);
        Reg regsReadIndex = m.reg("regs_read_index", HostDescSide.INDEX_BITS, cd).init(0);
        regsReadIndex.set(index);
        Reg regsReadCopy = m.reg("regs_read_copy", 32, cd).init(0);
        regsReadCopy.set(copies.readAsync(slot));
        Reg regsReadWritten = m.reg("regs_read_written", 1, cd).init(0);
        regsReadWritten.set(written.and(m.lit(1, 16).shl(slot)).orR());
        Expr own = Expr.mux(regsReadWr,
                Expr.mux(regsReadIndex.bit(0), wr.regs().tableSize().zext(32), wr.regs().lastPtr().zext(32)),
                Expr.mux(regsReadIndex.bit(0), rd.regs().tableSize().zext(32), rd.regs().lastPtr().zext(32)));
        Expr diag = Expr.mux(regsReadWr, wr.regs().diag(), rd.regs().diag());
        Expr status = Expr.mux(regsReadWr, wr.regs().lastStatus(), rd.regs().lastStatus());
        Expr upper = Expr.mux(regsReadIndex.eq(8), diag, Expr.mux(regsReadIndex.eq(9), status, m.lit(0, 32)));
        Expr lower = Expr.mux(regsReadIndex.bits(2, 1).eq(2), own, Expr.mux(regsReadWritten, regsReadCopy, m.lit(0, 32)));
        Reg readQ = m.reg("regs_readdata_q", 32, cd).init(0);
        readQ.set(Expr.mux(regsReadQ, Expr.mux(regsReadIndex.bit(HostDescSide.INDEX_BITS - 1), upper, lower), m.lit(0, 32)));
        regs.readdata().set(readQ);

        // ---- statuses: a table fetch's (top IDs) reported to its side here; every one on to the bridge
        int fetchFirst = fetchId(rdDir);
        Layout.Word ms = Layout.MOVER_STATUS;
        Status fromRd = io.rd().fromMover();
        Status fromWr = io.wr().fromMover();
        Signal rdId = m.wire("rd_ms_id", 8);
        rdId.set(HdlWords.get(fromRd.data(), ms, "id"));
        Signal wrId = m.wire("wr_ms_id", 8);
        wrId.set(HdlWords.get(fromWr.data(), ms, "id"));
        Signal wrFetch = m.wire("wr_ms_fetch", 1);
        wrFetch.set(wrId.ge(fetchFirst));
        Expr rdFailed = HdlWords.get(fromRd.data(), ms, "aborted").or(HdlWords.get(fromRd.data(), ms, "flushed"));
        rd.fetchDone().set(fromRd.valid().and(rdId.eq(fetchId(rdDir))));
        wr.fetchDone().set(fromRd.valid().and(rdId.eq(fetchId(wrDir))));
        rd.fetchFailed().set(rdFailed);
        wr.fetchFailed().set(rdFailed);
        // (every ID of the range is a side's on the Read Data Mover; none is on the Write Data Mover)
        rd.misrouted().set(m.lit(0, 1));
        wr.misrouted().set(fromWr.valid().and(wrFetch));
        // Every status goes on to the bridge as it came: the bridge (its tableFetchIds) ignores the fetch
        // IDs' itself, so its status logic does not wait on this range decode.
        io.rd().toBridge().valid().set(fromRd.valid());
        io.rd().toBridge().data().set(fromRd.data());
        io.wr().toBridge().valid().set(fromWr.valid());
        io.wr().toBridge().data().set(fromWr.data());
        rd.hsValid().set(io.rd().hostStatus().valid());
        rd.hsData().set(io.rd().hostStatus().data());
        wr.hsValid().set(io.wr().hostStatus().valid());
        wr.hsData().set(io.wr().hostStatus().data());
        for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
            HostDescSide.Dts from = io.mover(d).dts();
            HostDescSide.Dts to = (d == rdDir ? rd : wr).dts();
            to.write().set(from.write());
            to.address().set(from.address());
            to.burstcount().set(from.burstcount());
            to.writedata().set(from.writedata());
        }

        // ---- the Read Data Mover's host descriptors: rd fetch, wr fetch, rd entries, in that priority
        Stream toRd = io.rd().hostDesc();
        Expr pickRdFetch = rd.fetch().valid();
        Expr pickWrFetch = wr.fetch().valid().and(pickRdFetch.not());
        Expr pickEntry = pickRdFetch.or(wr.fetch().valid()).not();
        toRd.valid().set(rd.fetch().valid().or(wr.fetch().valid()).or(rd.entry().valid()));
        toRd.data().set(Expr.mux(pickRdFetch, rd.fetch().data(), Expr.mux(pickWrFetch, wr.fetch().data(), rd.entry().data())));
        rd.fetch().ready().set(toRd.ready().and(pickRdFetch));
        wr.fetch().ready().set(toRd.ready().and(pickWrFetch));
        rd.entry().ready().set(toRd.ready().and(pickEntry));
        m.connect(wr.entry(), io.wr().hostDesc());

        // ---- completion flags: one write of 1 each; with both sides waiting, the one not served last
        Dcm dcm = io.dcm();
        Reg write = m.reg("dcm_write_q", 1, cd).init(0);
        Reg address = m.reg("dcm_address_q", 64, cd).init(0);
        Reg lastWr = m.reg("dcm_last_wr", 1, cd).init(0);
        Signal free = m.wire("dcm_free", 1);
        free.set(write.not().or(dcm.waitrequest().not()));
        Signal pickWr = m.wire("dcm_pick_wr", 1);
        pickWr.set(wr.flag().valid().and(rd.flag().valid().not().or(lastWr.not())));
        rd.flag().ready().set(free.and(pickWr.not()));
        wr.flag().ready().set(free.and(pickWr));
        m.when(free, () -> {
            write.set(rd.flag().valid().or(wr.flag().valid()));
            address.set(Expr.mux(pickWr, wr.flag().data(), rd.flag().data()));
        });
        m.when(free.and(rd.flag().valid().or(wr.flag().valid())), () -> lastWr.set(pickWr));
        dcm.write().set(write);
        dcm.address().set(address);
        dcm.writedata().set(m.lit(1, 32));
    }
}
