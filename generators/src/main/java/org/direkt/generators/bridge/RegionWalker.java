// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes.Direction;
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
 * GPU regions translated on the FPGA: one request names a byte range of a region (a list of 64 KB
 * GPU pages in a page table, a length, the directions allowed) and an FPGA address; the walker
 * checks it against the region, reads the region's pages one a cycle, joins pages whose bus
 * addresses follow each other into one mover descriptor (at most {@link #MAX_PAGES_PER_PIECE}
 * pages, so a piece stays under the mover's 1 MB - 4 B), hands the pieces to the data mover with
 * IDs of its own, and returns one status per request when every piece has reported: the
 * request's tag, its error (the first failing piece's, or the check's) and the cycles from
 * admission to that status.
 *
 * <p>Defined behaviour while requests are in flight: a request is checked against its region's
 * entry as it stands in the cycle the request enters the check stage (the first cycle after it
 * is taken in which the stage is free or its entry moves on), and walks the page table as it
 * stands at its admission: a
 * page table write lands in the cycle after it is offered, unless its entry is one the request being
 * walked when it is offered has still to read: then it is refused (not written; {@code pt_refused}
 * is high in the cycle after the write; {@code pt_conflict} tells the same without the probes, and in
 * the bridge {@code pt_veto} refuses the held write from outside). A write offered in the cycle a
 * request's walk starts lands before the walk reads it. The host closes a region by writing its
 * entry (length 0 or no direction allowed): requests checked from the next
 * cycle on are rejected ({@code REGION}); requests checked before finish under the old entry and
 * pages. {@code rg_read_busy} is high while a request naming region {@code rg_read_idx} is in the
 * walker past its region table read, until its last piece has reported: once it reads 0 after the
 * close, the mover is done with the region's pages and the host may rewrite their entries and
 * release them (a request that has not read the table yet reads the closed entry).
 */
public final class RegionWalker extends Unit<RegionWalker.Params, RegionWalker.Io> {

    /** Pages joined into one mover descriptor at most: 15 x 64 KB = 960 KB, under the mover's 1 MB - 4 B. */
    public static final int MAX_PAGES_PER_PIECE = 15;

    static final int PAGE = 1 << Layout.PAGE_BITS;

    /** Chunks (page reads) in flight or queued between the page table and the piece being joined. */
    static final int CHUNK_QUEUE = 8;

    /** Walked entries' FPGA addresses waiting for their first piece: more than CHUNK_QUEUE + 2. */
    static final int ENTRY_FPGA_QUEUE = 16;

    /**
     * @param direction    RD: GPU pages are the source (Read Data Mover); WR: the destination
     * @param entries      page table entries (64 KB pages), a power of two
     * @param regions      region table entries
     * @param pieces       mover descriptors in flight at once (their IDs are idBase .. idBase + pieces - 1)
     * @param requests     requests admitted and not yet reported at once
     * @param statusDepth  statuses held for the consumer (every admitted or rejected request owns one place)
     * @param idBase       first mover ID (kernel IDs are 128..255)
     * @param fpgaMemBytes FPGA memory size: a request reaching beyond it is rejected
     * @param probes       standalone: the outputs a bench watches (walking, can_issue, pt_refused,
     *                     last_mover_status, spurious, ev_completed, ev_aborted) and the whole mover status
     *                     word in. Inside the bridge (false): the mover status as {failed, id} (9 bits), the
     *                     event outputs only with {@code events}. Pieces leave at ready latency 1 either way
     *                     (as the mover takes them), so the downstream's ready reaches the walker only
     *                     through a register
     * @param events       the counters' events (spurious, ev_completed, ev_aborted), where probes is false
     */
    public record Params(Direction direction, int entries, int regions, int pieces, int requests, int statusDepth, int idBase,
            long fpgaMemBytes, boolean probes, boolean events) {
        public Params {
            require(direction != null, "RegionWalker", "direction", direction, "must be RD or WR");
            require(Check.isPowerOfTwo(entries) && entries >= 16 && entries <= (1 << Layout.REGION_ENTRY.field("first").width()),
                    "RegionWalker", "entries", entries, "must be a power of two in 16..65536 (64 KB pages: 1 MB .. 4 GB)");
            require(regions >= 1 && regions <= 64, "RegionWalker", "regions", regions, "must be in 1..64");
            require(pieces >= 1 && pieces <= 64, "RegionWalker", "pieces", pieces, "must be in 1..64");
            require(requests >= 1 && requests <= 16, "RegionWalker", "requests", requests, "must be in 1..16");
            require(Check.isPowerOfTwo(statusDepth) && statusDepth >= Math.max(2, requests) && statusDepth <= 64, "RegionWalker",
                    "statusDepth", statusDepth, "must be a power of two >= max(2, requests = " + requests + ") and <= 64");
            require(idBase >= Layout.KERNEL_ID_FIRST && idBase + pieces - 1 <= Layout.KERNEL_ID_LAST, "RegionWalker", "idBase",
                    idBase, "IDs idBase .. idBase + pieces - 1 must lie in the kernel range 128..255");
            require(fpgaMemBytes >= 4096 && fpgaMemBytes % 4 == 0, "RegionWalker", "fpgaMemBytes", fpgaMemBytes,
                    "must be a multiple of 4, at least 4096");
        }

        /** A walker with its probes. */
        public Params(Direction direction, int entries, int regions, int pieces, int requests, int statusDepth, int idBase,
                long fpgaMemBytes) {
            this(direction, entries, regions, pieces, requests, statusDepth, idBase, fpgaMemBytes, true, true);
        }

        /**
         * A 1024-page table (64 MB of GPU memory mapped at once per direction), 16 regions, 16 pieces
         * and 4 requests in flight. More pages are a parameter; past one block RAM cascade the
         * table's read mux sets the clock (bench/timing.py measures this size).
         */
        public static Params of(Direction d) {
            return new Params(d, 1024, 16, 16, 4, 8, 192, 8L << 30);
        }

        /** The region entry read back ({@code rg_read_data}): standalone, and in the bridge the rd walker's copy only. */
        boolean readBack() {
            return probes || direction == Direction.RD;
        }

        int entryBits() {
            return Check.log2(entries);
        }

        int regionBits() {
            return Check.indexWidth(Math.max(2, regions));
        }

        int requestBits() {
            return Check.indexWidth(Math.max(2, requests));
        }

        IdPool.Params pool() {
            return new IdPool.Params(pieces);
        }

        /**
         * Bits of an FPGA address inside the walker: enough for every byte of the FPGA memory. A
         * request whose address has a bit set above them is rejected (FPGA_RANGE) before the walk.
         */
        int fpgaBits() {
            return Math.max(Layout.PAGE_BITS + 1, 64 - Long.numberOfLeadingZeros(fpgaMemBytes - 1));
        }
    }

    public record Io(Stream req, Stream st, Signal ptWe, Signal ptAddr, Signal ptData, Signal ptRefused, Signal ptVeto, Signal rgWe, Signal rgIdx,
            Signal rgData, Signal rgOpen, Signal rgReadIdx, Signal rgReadData, Stream desc, Signal msValid, Signal msData, Signal now, Signal outstanding, Signal walking, Signal canIssue,
            Signal spurious, Signal lastStatus, Signal rgReadBusy, Signal ptConflict, Signal idle, Signal abandon, Signal evRejected,
            Signal evError, Signal evCompleted, Signal evAborted) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_region_walker_" + p.direction().tag() + "_e" + p.entries() + "_r" + p.regions() + "_p" + p.pieces() + "_q"
                + p.requests() + "_s" + p.statusDepth() + "_id" + p.idBase() + "_mem" + Long.toHexString(p.fpgaMemBytes())
                + (p.probes() ? "" : p.events() ? "_b" : "_bn");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int ow = Check.indexWidth(p.statusDepth() + 1);
        return new Io(at.sink("req", AvalonSt.source(Layout.REGION_REQ.bits()), cd),
                at.source("st", AvalonSt.source(Layout.KERNEL_STATUS_TAGGED.bits()), cd),
                at.in("pt_we", 1, cd), at.in("pt_addr", p.entryBits(), cd), at.in("pt_data", Layout.PAGE_ENTRY.bits(), cd),
                p.probes() ? at.out("pt_refused", 1, cd) : null, p.probes() ? null : at.in("pt_veto", 1, cd), at.in("rg_we", 1, cd), at.in("rg_idx", p.regionBits(), cd),
                at.in("rg_data", Layout.REGION_ENTRY.bits(), cd), p.probes() ? null : at.in("rg_open", 1, cd),
                at.in("rg_read_idx", p.regionBits(), cd),
                p.readBack() ? at.out("rg_read_data", Layout.REGION_ENTRY.bits(), cd) : null,
                at.source("dma_desc", AvalonSt.source(Layout.MOVER_DESC.bits(), 1), cd),
                at.in("dma_status_valid", 1, cd), at.in("dma_status_data", p.probes() ? Layout.MOVER_STATUS.bits() : 9, cd),
                p.probes() ? null : at.in("now", 32, cd),
                at.out("outstanding", ow, cd), p.probes() ? at.out("walking", 1, cd) : null,
                p.probes() ? at.out("can_issue", 1, cd) : null, p.events() || p.probes() ? at.out("spurious", 1, cd) : null,
                p.probes() ? at.out("last_mover_status", Layout.MOVER_STATUS.bits(), cd) : null, at.out("rg_read_busy", 1, cd),
                at.out("pt_conflict", 1, cd), at.out("idle", 1, cd), at.in("abandon", 1, cd), at.out("ev_rejected", 1, cd),
                at.out("ev_error", 4, cd),
                p.events() || p.probes() ? at.out("ev_completed", 1, cd) : null,
                p.events() || p.probes() ? at.out("ev_aborted", 1, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                GPU regions, %s: a request (region, offset, length, FPGA address, tag) is checked against its region,
                walked through a %d-entry page table one 64 KB page a cycle, split at every page discontinuity and
                every %d pages, and issued as mover descriptors (IDs %d..%d); one status per request.""",
                p.direction().describe(), p.entries(), MAX_PAGES_PER_PIECE, p.idBase(), p.idBase() + p.pieces() - 1));
        ClockDomain cd = Domains.MAIN;
        int ew = p.entryBits();
        int qw = p.requestBits();
        int nq = p.requests();
        int sd = p.statusDepth();
        int sa = Check.log2(sd);
        int ow = Check.indexWidth(sd + 1);
        Layout.Word rq = Layout.REGION_REQ;
        Layout.Word re = Layout.REGION_ENTRY;
        Layout.Word ks = Layout.KERNEL_STATUS_TAGGED;

        // ---------------------------------------------------------------- tables
        // Each entry is stored with an "open" mark worked out as it is written: reserved bits 0, a
        // length, and its pages (first .. first + ceil(bytes / 64 KB) - 1) inside the page table (one
        // adder whose carry in counts a partial last page). A request's check then only reads it. In
        // the bridge the CSR works the mark out (rg_open) as it stages the entry.
        int fw = re.field("first").width();
        Expr wBytes = HdlWords.get(io.rgData(), re, "bytes");
        Expr open = HdlWords.get(io.rgData(), re, "reserved").eq(0);
        if (p.probes()) {
            Expr regionEnd = addCarry(HdlWords.get(io.rgData(), re, "first").zext(fw + 1), wBytes.bits(31, Layout.PAGE_BITS).zext(fw + 1),
                    wBytes.bits(Layout.PAGE_BITS - 1, 0).orR());
            open = open.and(wBytes.ne(0)).and(regionEnd.le(m.lit(p.entries(), fw + 1)));
        } else {
            open = open.and(io.rgOpen());
        }
        Memory regionTable = m.memory("region_table", re.bits() + 1, 1 << p.regionBits(), cd).distributed();
        regionTable.write(io.rgIdx(), Expr.cat(open, io.rgData()), io.rgWe());
        if (p.readBack()) {
            io.rgReadData().set(regionTable.readAsync(io.rgReadIdx()).bits(re.bits() - 1, 0));
        }
        // A read that is used never meets a write (the walk reads nothing in a cycle a write lands), so
        // the block RAM needs no collision bypass in soft logic.
        Memory pageTable = m.memory("page_table", Layout.PAGE_ENTRY.bits(), p.entries(), cd).noReadWriteCheck();
        Reg heldWe = m.reg("pt_held_we", 1, cd).init(0); // a page table write lands in this cycle (below)

        // ---------------------------------------------------------------- stage A: the request as taken
        Reg aValid = m.reg("a_valid", 1, cd).init(0);
        Reg aReq = m.reg("a_req", rq.bits(), cd).init(0);
        Signal aMove = m.wire("a_move", 1);
        // Ready from the stage's register alone: nothing downstream reaches back into the producer's
        // read logic. One request every two cycles at most, as fast as the walk admits them.
        io.req().ready().set(aValid.not());
        m.when(io.req().fire(), () -> aReq.set(io.req().data()));
        aValid.set(io.req().fire().or(aValid.and(aMove.not())));

        // ---------------------------------------------------------------- stage B: sums and checks of the request alone, its region's entry
        int rfw = rq.field("region").width();
        Reg bValid = m.reg("b_valid", 1, cd).init(0);
        Reg bOff = m.reg("b_offset", Layout.PAGE_BITS + ew, cd).init(0); // as far as a table index reaches
        int fa = p.fpgaBits();
        int fe = Math.max(fa, 32) + 1;
        Reg bFpga = m.reg("b_fpga", fa, cd).init(0);
        Reg bTag = m.reg("b_tag", 32, cd).init(0);
        Reg bRegion = m.reg("b_region", rfw, cd).init(0);
        Reg bCheap = m.reg("b_request_error", 4, cd).init(0); // the checks of the request alone
        Reg bMore = m.reg("b_more", 1, cd).init(0); // another entry of the request follows
        Reg bCheck = m.reg("b_check", 1, cd).init(0); // a check entry: nothing moves
        Reg bEnd = m.reg("b_end", 33, cd).init(0); // offset + bytes: one past the last byte's offset
        // the end's offset in its page is 0 (worked out with the sum, so the page sums below take
        // their carry in from a flip-flop)
        Reg bEndInPage0 = m.reg("b_end_page_aligned", 1, cd).init(1);
        Reg bFpgaOk = m.reg("b_fpga_ok", 1, cd).init(0); // fpga + bytes within the FPGA memory's size
        Reg bFpgaHigh = m.reg("b_fpga_high", 1, cd).init(0); // an FPGA address bit set above the memory's
        // the region's entry as it stood when the request came here: usable for this request, first page, length
        Reg bUsable = m.reg("b_region_usable", 1, cd).init(0);
        Reg bFirst = m.reg("b_region_first", ew, cd).init(0);
        Reg bBytes = m.reg("b_region_bytes", 32, cd).init(0);
        Signal bMove = m.wire("b_move", 1);
        // B holds an entry for two cycles at least: its compares (the region range, a carry chain
        // over the sum of two registers) end in flip-flops in the first, and the decisions that need
        // them are taken from those in the second (b_checked). K moves only when empty, and B's move
        // is a function of flip-flops alone; so A moves into B as B moves on, and no stage's move
        // waits on admission's credit, slot and walk at the end of the chain. One request every two
        // cycles, as fast as A takes them and the walk admits them.
        Reg bChecked = m.reg("b_checked", 1, cd).init(0);
        aMove.set(aValid.and(bValid.not().or(bMove)));
        Expr aOff = HdlWords.get(aReq, rq, "offset");
        Expr aBytes = HdlWords.get(aReq, rq, "bytes");
        Expr aFpga = HdlWords.get(aReq, rq, "fpga");
        Expr aRegion = HdlWords.get(aReq, rq, "region");
        Expr unaligned = aOff.bits(1, 0).or(aBytes.bits(1, 0)).or(aFpga.bits(1, 0)).orR();
        Expr cheapE = Expr.mux(unaligned, code(m, Layout.Error.UNALIGNED), code(m, Layout.Error.OK));
        cheapE = Expr.mux(aBytes.eq(0), code(m, Layout.Error.ZERO_LENGTH), cheapE);
        cheapE = Expr.mux(HdlWords.get(aReq, rq, "kind").ne(Layout.KIND_REGION), code(m, Layout.Error.KIND), cheapE);
        Expr cheap = Expr.mux(HdlWords.get(aReq, rq, "reserved").ne(0), code(m, Layout.Error.RESERVED), cheapE);
        Expr read = regionTable.readAsync(aRegion.trunc(p.regionBits()));
        Expr rFirstRead = HdlWords.get(read, re, "first");
        Expr usable = read.bit(re.bits()).and(HdlWords.get(read, re, p.direction() == Direction.RD ? "allow_rd" : "allow_wr"));
        if (p.regions() < (1 << rfw)) {
            usable = usable.and(aRegion.lt(m.lit(p.regions(), rfw)));
        }
        Expr usableNow = usable;
        // The FPGA range, checked here in one carry chain: fpga + bytes <= size exactly when
        // fpga + bytes + k < 2^w, with k = 2^w - size - 1. The three terms go through one level of
        // carry-save logic (each bit's sum and carry), and the sum of those two overflows w bits
        // exactly when the carries exceed the sum's complement: one less-than.
        int w = fe + 1;
        Expr fx = aFpga.trunc(fa).zext(w);
        Expr fy = aBytes.zext(w);
        Expr fk = m.lit((1L << w) - p.fpgaMemBytes() - 1, w);
        Signal csaSum = m.wire("fpga_range_sum", w);
        csaSum.set(fx.xor(fy).xor(fk));
        Signal csaCarry = m.wire("fpga_range_carry", w);
        csaCarry.set(Expr.cat(fx.and(fy).or(fx.and(fk)).or(fy.and(fk)).bits(w - 2, 0), m.lit(0, 1)));
        Expr fpgaFits = csaSum.not().lt(csaCarry).not();
        Expr rBytesRead = HdlWords.get(read, re, "bytes");
        m.when(aMove, () -> {
            bOff.set(aOff.trunc(Layout.PAGE_BITS + ew));
            bFpga.set(aFpga.trunc(fa));
            bTag.set(HdlWords.get(aReq, rq, "tag"));
            bRegion.set(aRegion);
            bCheap.set(cheap);
            Expr end = aOff.zext(33).plus(aBytes.zext(33));
            bEnd.set(end);
            bEndInPage0.set(end.bits(Layout.PAGE_BITS - 1, 0).eq(0));
            bFpgaOk.set(fpgaFits);
            bFpgaHigh.set(aFpga.bits(63, fa).orR());
            bMore.set(HdlWords.get(aReq, rq, "more"));
            bCheck.set(HdlWords.get(aReq, rq, "check"));
            bUsable.set(usableNow);
            bFirst.set(rFirstRead.trunc(ew));
            bBytes.set(rBytesRead);
        });
        bValid.set(aMove.or(bValid.and(bMove.not())));

        // Inside the region (every byte below its length; an open region lies inside the table): the
        // request's pages are then table entries, so its first page and the page after its last are
        // computed as wide as the table only (their values matter only for a request that passes).
        // (written as "not length < end": a less-than is one carry chain, where a less-or-equal
        // also needs an equality test over every bit)
        Reg bInRegion = m.reg("b_in_region", 1, cd).init(0);
        bInRegion.set(bBytes.zext(33).lt(bEnd).not());
        bChecked.set(bValid.and(bMove.not()));
        Expr inRegion = bInRegion;
        Signal pFirst = m.wire("first_page", ew);
        pFirst.set(bFirst.plus(bOff.bits(Layout.PAGE_BITS + ew - 1, Layout.PAGE_BITS)));
        Signal pEnd = m.wire("end_page", ew + 1);
        pEnd.set(addCarry(bFirst.zext(ew + 1), bEnd.bits(Layout.PAGE_BITS + ew, Layout.PAGE_BITS),
                bEndInPage0.not()));
        // The request's pages less one, from its own offset and end (not from the table): the walk
        // counts them down, so its last page is a zero test rather than a compare after an add.
        Signal pMore = m.wire("more_pages", ew);
        pMore.set(addCarry(bEnd.bits(Layout.PAGE_BITS + ew - 1, Layout.PAGE_BITS), bOff.bits(Layout.PAGE_BITS + ew - 1, Layout.PAGE_BITS).not(),
                bEndInPage0.not()).trunc(ew));
        Expr fpgaOk = bFpgaOk.and(bFpgaHigh.not());

        // ---------------------------------------------------------------- stage K: the request checked
        // The checks' outcomes are registered as flags, each compare ending in its own flip-flop; the
        // error code is picked from them after the register (by priority: the request's own checks,
        // then REGION, REGION_RANGE, FPGA_RANGE).
        Reg kValid = m.reg("k_valid", 1, cd).init(0);
        Reg kCheap = m.reg("k_request_error", 4, cd).init(0);
        // (reset to "passed", so the error code reads 0 from reset, as a register of it would)
        Reg kUsable = m.reg("k_region_usable", 1, cd).init(1);
        Reg kInRegion = m.reg("k_in_region", 1, cd).init(1);
        Reg kFpgaOk = m.reg("k_fpga_ok", 1, cd).init(1);
        Signal kErr = m.wire("k_error", 4);
        Expr e = Expr.mux(kFpgaOk.not(), code(m, Layout.Error.FPGA_RANGE), code(m, Layout.Error.OK));
        e = Expr.mux(kInRegion.not(), code(m, Layout.Error.REGION_RANGE), e);
        e = Expr.mux(kUsable.not(), code(m, Layout.Error.REGION), e);
        kErr.set(Expr.mux(kCheap.ne(0), kCheap, e));
        // every check passed: the request's own, its region usable and its FPGA range in one flip-flop
        // (the admission's view of them), and the range in its region (the longest compare) in its own
        Reg kOkRest = m.reg("k_ok_but_range", 1, cd).init(1);
        Signal kOk = m.wire("k_ok", 1);
        kOk.set(kOkRest.and(kInRegion));
        Reg kTag = m.reg("k_tag", 32, cd).init(0);
        Reg kRegion = m.reg("k_region", rfw, cd).init(0);
        Reg kFirstPage = m.reg("k_first_page", ew, cd).init(0);
        Reg kEndPage = m.reg("k_end_page", ew + 1, cd).init(0); // the page after the last
        Reg kMore = m.reg("k_more_pages", ew, cd).init(0); // pages - 1
        Reg kOff0 = m.reg("k_first_offset", Layout.PAGE_BITS, cd).init(0);
        Reg kEndOff = m.reg("k_end_offset", Layout.PAGE_BITS - 1, cd).init(0); // in dwords, 1 .. 16384
        Reg kFpga = m.reg("k_fpga", fa, cd).init(0);
        Reg kFollows = m.reg("k_more", 1, cd).init(0);
        Reg kCheck = m.reg("k_check", 1, cd).init(0);
        Signal kMove = m.wire("k_move", 1);
        // The request's entries: a request whose first entry has "more" set goes on with the entries
        // after it (they join its slot, each checked on its own, and must name its region) up to its
        // last. chain_open: the request is admitted and its next entry joins it; chain_skip: an entry
        // failed (the request's, if it is open) and the entries up to the last are taken and dropped.
        // (The region the request's entries must name is the one the entry before left K with.)
        Reg chOpen = m.reg("chain_open", 1, cd).init(0);
        Reg chSkip = m.reg("chain_skip", 1, cd).init(0);
        // The chain's state after K's entry leaves, worked out as the entry comes in; the registers
        // take it in the cycle after the move (k_moved), so the move's logic does not reach them.
        // In that cycle K is empty, and what reads the chain then reads chain_*_now.
        Reg kNextOpen = m.reg("k_next_chain_open", 1, cd).init(0);
        Reg kNextSkip = m.reg("k_next_chain_skip", 1, cd).init(0);
        Reg kMoved = m.reg("k_moved", 1, cd).init(0);
        Signal chOpenNow = m.wire("chain_open_now", 1);
        Signal chSkipNow = m.wire("chain_skip_now", 1);
        chOpenNow.set(Expr.mux(kMoved, kNextOpen, chOpen));
        chSkipNow.set(Expr.mux(kMoved, kNextSkip, chSkip));
        // What K's entry does when it leaves, worked out as it comes in: the chain's state changes
        // only as an entry leaves K or while K is empty, so it holds while the entry waits. Admits:
        // a new request (once a slot, the walk and a pending close allow); rejects: a rejection; joins:
        // the open request's next entry, walked; consumed: a later entry that moves nothing.
        Reg kAdmits = m.reg("k_admits", 1, cd).init(0);
        Reg kRejects = m.reg("k_rejects", 1, cd).init(0);
        Reg kJoins = m.reg("k_joins", 1, cd).init(0);
        Reg kConsumed = m.reg("k_consumed", 1, cd).init(0);
        Reg kAdmitWalks = m.reg("k_admit_walks", 1, cd).init(0); // admits, and is walked (not a check entry)
        bMove.set(bValid.and(bChecked).and(kValid.not()));
        // (K is empty when B moves: the entries before this one have left it, the chain's state is theirs)
        // An open chain's entries name its region: the entry before this one left K with it (it was
        // admitted or joined), and k_region holds it until this entry moves in. It is compared as
        // this entry moves into B: the entry before is then in B (moving on to K in the same cycle)
        // or has moved into K, and K is loaded only from B, so k_region stays until this one moves in.
        Reg bSameRegion = m.reg("b_same_region", 1, cd).init(0);
        m.when(aMove, () -> bSameRegion.set(aRegion.eq(Expr.mux(bValid, bRegion, kRegion))));
        Expr chainUsable = bUsable.and(chOpenNow.not().or(bSameRegion));
        // Each decision is one function of the range compare's flip-flop and a term from registers
        // alone (*_checked: every check but the range).
        Expr restOk = bCheap.eq(0).and(chainUsable).and(fpgaOk);
        Expr idleNow = chOpenNow.or(chSkipNow).not();
        Signal admitsPre = m.wire("k_admits_checked", 1);
        admitsPre.set(idleNow.and(restOk));
        Signal walksPre = m.wire("k_admit_walks_checked", 1);
        walksPre.set(idleNow.and(restOk).and(bCheck.not()));
        Signal rejectsPre = m.wire("k_rejects_checked", 1);
        rejectsPre.set(idleNow.and(restOk.not()));
        Signal joinsPre = m.wire("k_joins_checked", 1);
        joinsPre.set(chOpenNow.and(chSkipNow.not()).and(restOk).and(bCheck.not()));
        Signal consumedPre = m.wire("k_consumed_checked", 1);
        consumedPre.set(idleNow.not().and(chSkipNow.or(bCheck).or(restOk.not())));
        Signal openPre = m.wire("k_next_chain_open_checked", 1);
        openPre.set(bMore.and(idleNow).and(restOk));
        Signal stillOpen = m.wire("k_next_chain_still_open", 1);
        stillOpen.set(bMore.and(idleNow.not()).and(chOpenNow));
        Signal skipPre = m.wire("k_next_chain_skip_checked", 1);
        skipPre.set(bMore.and(chSkipNow.or(restOk.not())));
        m.when(bMove, () -> {
            kCheap.set(bCheap);
            kUsable.set(chainUsable);
            kInRegion.set(inRegion);
            kFpgaOk.set(fpgaOk);
            kOkRest.set(restOk);
            kAdmits.set(admitsPre.and(inRegion));
            kAdmitWalks.set(walksPre.and(inRegion));
            kRejects.set(rejectsPre.or(idleNow.and(inRegion.not())));
            kJoins.set(joinsPre.and(inRegion));
            kConsumed.set(consumedPre.or(idleNow.not().and(inRegion.not())));
            // after an admission the chain is open if more entries follow, after a rejection it
            // skips them; a later entry keeps it open, or makes it skip if it fails
            kNextOpen.set(openPre.and(inRegion).or(stillOpen));
            kNextSkip.set(skipPre.or(bMore.and(inRegion.not())));
            kTag.set(bTag);
            kRegion.set(bRegion);
            kFirstPage.set(pFirst);
            kEndPage.set(pEnd);
            kMore.set(pMore);
            kOff0.set(bOff.bits(Layout.PAGE_BITS - 1, 0));
            kEndOff.set(Expr.cat(bEndInPage0, bEnd.bits(Layout.PAGE_BITS - 1, 2)));
            kFpga.set(bFpga);
            kFollows.set(bMore);
            kCheck.set(bCheck);
        });
        kValid.set(bMove.or(kValid.and(kMove.not())));

        // ---------------------------------------------------------------- request slots, statuses owed
        Reg owed = m.reg("owed", ow, cd).init(0);
        Expr room = owed.lt(m.lit(sd, ow));
        List<Reg> qValid = new ArrayList<>();
        List<Reg> qOpen = new ArrayList<>();
        List<Reg> qCount = new ArrayList<>();
        List<Reg> qErr = new ArrayList<>();
        List<Reg> qRegion = new ArrayList<>();
        int cw = Check.indexWidth(p.pieces() + 1);
        for (int q = 0; q < nq; q++) {
            qValid.add(m.reg("req" + q + "_valid", 1, cd).init(0));
            qOpen.add(m.reg("req" + q + "_open", 1, cd).init(0));
            qCount.add(m.reg("req" + q + "_pieces", cw, cd).init(0));
            qErr.add(m.reg("req" + q + "_error", 4, cd).init(0));
            // (an admitted request's region is below regions: its index is enough)
            qRegion.add(m.reg("req" + q + "_region", p.regionBits(), cd).init(0));
        }
        // The lowest free request slot, and room for one more status, from registers: worked out
        // from the cycle before. K moves at most every other cycle (it refills only in a cycle after
        // it is empty), so between two moves nothing is admitted: the slot a move took is marked
        // taken, and the status it owes counted, before the next move reads them. A slot freed or a
        // status read in the cycle before is seen a cycle late, which only waits.
        Reg freeQ = m.reg("free_request", qw, cd).init(0);
        Reg slotReady = m.reg("request_slot_ready", 1, cd).init(0);
        Expr pick = m.lit(0, qw);
        Expr anyFree = m.lit(0, 1);
        for (int q = nq - 1; q >= 0; q--) {
            pick = Expr.mux(qValid.get(q).not(), m.lit(q, qw), pick);
            anyFree = anyFree.or(qValid.get(q).not());
        }
        // the same pick one-hot (with room for a status), so a slot's admission needs no decode of it
        List<Reg> slotHot = new ArrayList<>();
        Expr lower = m.lit(1, 1); // every slot below q is taken
        for (int q = 0; q < nq; q++) {
            Reg hot = m.reg("req" + q + "_next", 1, cd).init(0);
            hot.set(lower.and(qValid.get(q).not()).and(room));
            lower = lower.and(qValid.get(q));
            slotHot.add(hot);
        }
        Reg statusRoom = m.reg("status_room", 1, cd).init(0);
        freeQ.set(pick);
        slotReady.set(anyFree.and(room));
        statusRoom.set(room);

        // ---------------------------------------------------------------- the walk: one page table read a cycle
        Reg wBusy = m.reg("w_busy", 1, cd).init(0);
        Reg wQ = m.reg("w_request", qw, cd).init(0);
        Reg wPage = m.reg("w_page", ew, cd).init(0);
        Reg wEnd = m.reg("w_end_page", ew + 1, cd).init(0);
        Reg wLeft = m.reg("w_pages_left", ew, cd).init(0); // pages after w_page still to read
        Reg wFirst = m.reg("w_first", 1, cd).init(0);
        Reg wOff0 = m.reg("w_first_offset", Layout.PAGE_BITS, cd).init(0);
        Reg wEndOff = m.reg("w_end_offset", Layout.PAGE_BITS - 1, cd).init(0);
        Reg wFinal = m.reg("w_final", 1, cd).init(0); // the request's last entry is walked

        Signal admit = m.wire("admit", 1);
        Signal reject = m.wire("reject", 1);
        Reg completion = m.reg("completed", 1, cd).init(0);
        Reg outValid = m.reg("status_valid", 1, cd).init(0);
        // A request's end without a piece of its own (its last entry a check entry, or failed, or
        // dropped, or the kernel reset before it came): close_pending holds it until every piece
        // walked so far has gone to the mover (walk and pipeline empty) and reported (the slot's
        // count 0); the slot then frees and its status goes. Nothing is admitted meanwhile, so
        // w_request stays the slot. chain_error: the first failing entry's error (ABORTED for a reset).
        Reg closeReq = m.reg("close_pending", 1, cd).init(0);
        Reg chErr = m.reg("chain_error", 4, cd).init(0);
        Expr chIdle = chOpenNow.or(chSkipNow).not();
        // admit_when_free: K's entry goes in as a new request if a slot is free
        Signal admitCore = m.wire("admit_when_free", 1);
        admitCore.set(kValid.and(kAdmits).and(wBusy.not()).and(closeReq.not()));
        admit.set(admitCore.and(slotReady));
        Signal join = m.wire("entry_join", 1); // a later entry joins the open request's slot and is walked
        join.set(kValid.and(kJoins).and(wBusy.not()));
        Signal consume = m.wire("entry_consume", 1); // a later entry that moves nothing: checked, failed or dropped
        consume.set(kValid.and(kConsumed));
        Signal walkStart = m.wire("walk_start", 1);
        walkStart.set(kValid.and(kAdmitWalks).and(wBusy.not()).and(closeReq.not()).and(slotReady).or(join));
        // A rejection waits in a register for the status stages (a completion goes first), so taking it
        // never waits on a mover status. Its tag waits in the stamp memory's place after the request
        // slots', so completions and rejections leave through the same registers, with no mux of tags.
        Reg rejValid = m.reg("reject_valid", 1, cd).init(0);
        Reg rejErr = m.reg("reject_error", 4, cd).init(0);
        reject.set(kValid.and(kRejects).and(statusRoom).and(rejValid.not()));
        kMove.set(admit.or(reject).or(join).or(consume));
        // an entry that fails in an open request: the request's error, if it has none yet
        Signal chFail = m.wire("entry_failed", 1);
        chFail.set(consume.and(chSkip.not()).and(kOk.not()));
        // a kernel reset while a request waits for its next entry: the request ends (ABORTED)
        Signal abandoned = m.wire("chain_abandoned", 1);
        abandoned.set(io.abandon().and(chIdle.not()).and(aValid.or(bValid).or(kValid).not()));
        Expr kLast = kFollows.not();
        kMoved.set(kMove);
        m.when(abandoned, () -> {
            chOpen.set(0);
            chSkip.set(0);
        }).elseWhen(kMoved, () -> {
            chOpen.set(kNextOpen);
            chSkip.set(kNextSkip);
        });
        m.when(admit, () -> chErr.set(0))
                .elseWhen(chFail.and(chErr.eq(0)), () -> chErr.set(kErr))
                .elseWhen(abandoned.and(chOpenNow).and(chErr.eq(0)), () -> chErr.set(Layout.Error.ABORTED.code()));
        Signal closeGo = m.wire("close_go", 1);
        // (in a cycle K's entry moves, the chain registers are up to date: it came in after the last move)
        m.when(admit.and(kCheck).and(kLast).or(consume.and(kLast).and(chOpen)).or(abandoned.and(chOpenNow)), () -> closeReq.set(1))
                .elseWhen(closeGo, () -> closeReq.set(0));
        Signal completing = m.wire("completing", 1); // a request's last piece reports in this cycle
        Signal rejGo = m.wire("reject_go", 1);
        // the waiting rejection goes first: a close waits for a cycle without one (a rejection needs
        // reject_valid low for a cycle before the next, so a close never waits for long)
        rejGo.set(rejValid.and(completing.not()));
        m.when(reject, () -> {
            rejValid.set(1);
            rejErr.set(kErr);
        }).elseWhen(rejGo, () -> rejValid.set(0));

        // ---------------------------------------------------------------- stage R: page reads, their chunks queued
        // A page load comes from registers alone (a credit: reads in flight plus
        // chunks queued stay below the queue's depth), so no path runs from the RAM's output back to
        // the load. R0: the read; RQ: the RAM's word in a register whose only load is R1's register
        // (so it can sit by the RAM: the block RAM's read is slow on its own); R1: the frame compared
        // with the previous chunk's frame + 1; then a small queue of chunks, each marked contiguous
        // with the one before it.
        int cq = CHUNK_QUEUE;
        int ca = Check.log2(cq);
        int lenBits = Layout.PAGE_BITS + 1;
        Reg r0Valid = m.reg("r0_valid", 1, cd).init(0);
        Reg rqValid = m.reg("rq_valid", 1, cd).init(0);
        Reg r1Valid = m.reg("r1_valid", 1, cd).init(0);
        Reg qFill = m.reg("chunk_fill", ca + 1, cd).init(0);
        Reg hdValid = m.reg("chunk_head_valid", 1, cd).init(0);
        Signal rLoad = m.wire("r_load", 1);
        Signal rTake = m.wire("r_take", 1);
        // Where the downstream's ready enters: O hands its piece over in a cycle with go, and has room
        // for C's piece when it is empty or hands over (o_room). The loads before O take o_room as one
        // term of an OR, so ready (it comes through the bridge's arbiter) passes no logic of C or of the
        // chunk head on its way to them.
        Signal go = m.wire("o_go", 1);
        Signal oRoom = m.wire("o_room", 1);
        // the head chunk, if there is one, leaves in this cycle (into C, or joining C's piece)
        Signal headMoves = m.wire("chunk_head_moves", 1);
        // The chunks between a page read and the head's hand-over (R0, RQ, R1, the queue, the head),
        // counted as they come and go: at most CHUNK_QUEUE, so the top bit says the credit is spent.
        Reg inFlight = m.reg("chunks_in_flight", ca + 1, cd).init(0);
        inFlight.set(inFlight.upDown(rLoad, rTake));
        rLoad.set(wBusy.and(inFlight.bit(ca).not()).and(heldWe.not()));
        // The table is read every cycle at the walk's page (no read enable, which block RAMs without
        // a clock enable on the read port alone would need a hold register and a mux for): the word
        // read in the cycle of a load is the one R1 registers.
        Signal frame = pageTable.readSync("page_frame", wPage, m.lit(1, 1), cd);

        Expr isLast = wLeft.eq(0);
        Expr startOff = Expr.mux(wFirst, wOff0, m.lit(0, Layout.PAGE_BITS));
        Expr endOff = Expr.mux(isLast, wEndOff, m.lit(PAGE >> 2, lenBits - 2)); // in dwords
        // a chunk's fields besides its frame: end (in dwords) and start offset in its page, last, first, request
        int endBits = lenBits - 2;
        int metaBits = endBits + Layout.PAGE_BITS + 3 + qw;
        Reg r0Meta = m.reg("r0_chunk", metaBits, cd).init(0);
        Reg rqMeta = m.reg("rq_chunk", metaBits, cd).init(0);
        Reg r1Meta = m.reg("r1_chunk", metaBits, cd).init(0);
        // No enable: the RAM's word goes straight into a flip-flop (with a reset, so that synthesis
        // packs these flip-flops apart from R1's and the placer can put them by the RAM).
        Reg rqFrame = m.reg("rq_frame", Layout.PAGE_ENTRY.bits(), cd);
        Reg r1Frame = m.reg("r1_frame", Layout.PAGE_ENTRY.bits(), cd);
        // The frame after the previous chunk's, as its low 16 bits + 1 with their carry and its high
        // bits: a chunk whose frame follows across a 4 GB line of bus addresses starts a piece of its
        // own. The low and the high bits are compared apart and both outcomes queued with the chunk
        // (the head ANDs them), so neither compare is more than half as wide.
        int fb = Layout.PAGE_ENTRY.bits();
        Reg nextLo = m.reg("next_frame_low", Layout.PAGE_BITS + 1, cd).init(0);
        Reg nextHi = m.reg("next_frame_high", fb - Layout.PAGE_BITS, cd).init(0);
        r0Valid.set(rLoad);
        rqValid.set(r0Valid);
        r1Valid.set(rqValid);
        m.when(rLoad, () -> {
            r0Meta.set(Expr.cat(endOff, startOff, isLast.and(wFinal), isLast, wFirst, wQ));
            wPage.set(wPage.plus(1));
            wLeft.set(wLeft.minus(1));
            wFirst.set(0);
        });
        // The RAM's word straight into a register every cycle, so the register can be the RAM's own
        // output register where the device has one, and on into R1's.
        rqFrame.set(frame);
        r1Frame.set(rqFrame);
        m.when(r0Valid, () -> rqMeta.set(r0Meta));
        m.when(rqValid, () -> r1Meta.set(rqMeta));
        m.when(r1Valid, () -> {
            nextLo.set(r1Frame.bits(Layout.PAGE_BITS - 1, 0).zext(Layout.PAGE_BITS + 1).plus(1));
            nextHi.set(r1Frame.bits(fb - 1, Layout.PAGE_BITS));
        });
        // chunk word: {frame, high bits as the chunk before's, low bits follow it (and not the
        // entry's first chunk), meta}: the chunk is contiguous with the one before when both are set
        Expr r1First = r1Meta.bit(qw);
        Signal r1LowFollows = m.wire("r1_frame_low_follows", 1);
        r1LowFollows.set(r1Frame.bits(Layout.PAGE_BITS - 1, 0).eq(nextLo.bits(Layout.PAGE_BITS - 1, 0))
                .and(nextLo.bit(Layout.PAGE_BITS).not()).and(r1First.not()));
        Signal r1HighSame = m.wire("r1_frame_high_same", 1);
        r1HighSame.set(r1Frame.bits(fb - 1, Layout.PAGE_BITS).eq(nextHi));
        // queued with the first-chunk mark: a request's first piece takes the request's FPGA address
        int queuedBits = Layout.PAGE_ENTRY.bits() + 2 + metaBits;
        Memory chunks = m.memory("chunk_queue", queuedBits, cq, cd).distributed();
        Reg cqWr = m.reg("chunk_wr", ca, cd).init(0);
        Reg cqRd = m.reg("chunk_rd", ca, cd).init(0);
        chunks.write(cqWr, Expr.cat(r1Frame, r1HighSame, r1LowFollows, r1Meta), r1Valid);
        m.when(r1Valid, () -> cqWr.set(cqWr.plus(1)));
        // The queue's head in a register, so the joining logic starts from flip-flops.
        Reg head = m.reg("chunk_head", queuedBits, cd).init(0);
        Signal hdLoad = m.wire("chunk_head_load", 1);
        Expr queued = qFill.ne(0);
        hdLoad.set(queued.and(hdValid.not().or(headMoves)));
        m.when(hdLoad, () -> {
            head.set(chunks.readAsync(cqRd));
            cqRd.set(cqRd.plus(1));
        });
        hdValid.set(hdLoad.or(hdValid.and(rTake.not())));
        qFill.set(qFill.upDown(r1Valid, hdLoad));
        Expr rValid = hdValid;
        int at = 0;
        Expr rQ = head.bits(at + qw - 1, at);
        at += qw;
        Expr rFirst = head.bit(at);
        at += 1;
        Expr rLast = head.bit(at); // the entry's last chunk
        at += 1;
        Expr rFinal = head.bit(at); // the request's last chunk
        at += 1;
        Expr rOff = head.bits(at + Layout.PAGE_BITS - 1, at);
        at += Layout.PAGE_BITS;
        Expr rEnd = head.bits(at + endBits - 1, at);
        at += endBits;
        Expr rContig = head.bit(at).and(head.bit(at + 1));
        at += 2;
        Expr hFrame = head.bits(at + Layout.PAGE_ENTRY.bits() - 1, at);
        m.when(admit, () -> wQ.set(freeQ));
        m.when(walkStart, () -> {
            wBusy.set(1);
            wFinal.set(kLast);
            wPage.set(kFirstPage);
            wEnd.set(kEndPage);
            wLeft.set(kMore);
            wFirst.set(1);
            wOff0.set(kOff0);
            wEndOff.set(kEndOff);
        }).elseWhen(rLoad.and(isLast), () -> wBusy.set(0));

        // A page table write lands in the cycle after it is offered, unless its entry is one the walk
        // under way when it was offered (w_page .. w_end_page - 1) has still to read. The range is
        // compared with the offered index and the outcome registered, so the compare never reaches
        // the block RAM's write enable in the same cycle; the walk reads nothing in a cycle a write
        // lands (r_load waits), so no read that is used ever meets a write. A write offered in the
        // cycle a walk starts lands before that walk's first read. pt_veto refuses the held write from
        // outside (in the bridge: the other direction's walker refuses it, and both tables stay equal).
        Expr inWalk = wBusy.and(io.ptAddr().ge(wPage)).and(io.ptAddr().zext(ew + 1).lt(wEnd));
        Reg heldAddr = m.reg("pt_held_addr", ew, cd).init(0);
        Reg heldData = m.reg("pt_held_data", Layout.PAGE_ENTRY.bits(), cd).init(0);
        Reg heldConflict = m.reg("pt_held_conflict", 1, cd).init(0);
        heldWe.set(io.ptWe());
        heldConflict.set(io.ptWe().and(inWalk));
        m.when(io.ptWe(), () -> {
            heldAddr.set(io.ptAddr());
            heldData.set(io.ptData());
        });
        Signal refused = m.wire("pt_write_refused", 1);
        refused.set(heldWe.and(p.probes() ? heldConflict : heldConflict.or(io.ptVeto())));
        io.ptConflict().set(heldConflict);
        pageTable.write(heldAddr, heldData, heldWe.and(refused.not()));
        if (p.probes()) {
            io.ptRefused().set(refused);
        }

        // ---------------------------------------------------------------- stage C: the piece being joined
        int pb = Check.indexWidth(MAX_PAGES_PER_PIECE * PAGE + 1);
        Reg cValid = m.reg("c_valid", 1, cd).init(0);
        Reg cPcie = m.reg("c_pcie", 64, cd).init(0);
        Reg cFirst = m.reg("c_first", 1, cd).init(0); // the request's first piece
        // The piece's bytes follow from its pages: every chunk but its first starts at offset 0 and
        // every chunk but its last ends at 64 KB, so bytes = (pages - 1) x 64 KB + last end - first start.
        Reg cStart = m.reg("c_start", Layout.PAGE_BITS - 2, cd).init(0); // in dwords
        Reg cEnd = m.reg("c_end", endBits, cd).init(0);
        Reg cPages = m.reg("c_more_pages", 4, cd).init(0); // pages - 1
        Reg cFinal = m.reg("c_final", 1, cd).init(0); // the request's last piece
        Reg cQ = m.reg("c_request", qw, cd).init(0);
        // closed: no chunk joins the piece any more (its entry's last chunk is in, or it has its
        // pages): worked out as the piece takes a chunk, so the joining logic reads a register
        Reg closed = m.reg("c_closed", 1, cd).init(0);
        // The head chunk joins the piece when it follows the piece's last chunk on the bus (the
        // piece's last chunk is always the one queued before the head).
        Signal contig = m.wire("c_contiguous", 1);
        contig.set(cValid.and(closed.not()).and(rContig));
        Signal cGo = m.wire("c_go", 1);
        Signal cWants = m.wire("c_wants", 1); // the piece is complete and waits for O
        cWants.set(cValid.and(closed.or(rValid.and(contig.not()))));
        cGo.set(cWants.and(oRoom));
        // The head leaves when C is empty, when it joins C's piece, or when O has room: then C's piece,
        // if it takes no more chunks (closed, or the head does not follow it), moves on to O. Written
        // out in this form, it is two levels of logic from registers.
        headMoves.set(oRoom.or(cValid.not()).or(closed.not().and(rContig)));
        rTake.set(rValid.and(headMoves));
        m.when(rTake.and(contig), () -> {
            cEnd.set(rEnd);
            cPages.set(cPages.plus(1));
            closed.set(rLast.or(cPages.eq(MAX_PAGES_PER_PIECE - 2)));
            cFinal.set(rFinal);
        }).elseWhen(rTake, () -> {
            cPcie.set(Expr.cat(hFrame, rOff));
            cFirst.set(rFirst);
            cStart.set(rOff.bits(Layout.PAGE_BITS - 1, 2));
            cEnd.set(rEnd);
            cPages.set(0);
            closed.set(rLast);
            cFinal.set(rFinal);
            cQ.set(rQ);
        });
        cValid.set(rTake.or(cValid.and(cGo.not())));

        // ---------------------------------------------------------------- stage O: the piece offered to the mover
        IdPool.Io pool = m.sub("u_ids", new IdPool(), p.pool()).clock(cd).io();
        int sw = p.pool().slotBits();
        Reg oValid = m.reg("o_valid", 1, cd).init(0);
        Reg oPcie = m.reg("o_pcie", 64, cd).init(0);
        Reg oFpga = m.reg("o_fpga", fa, cd).init(0);
        Reg oDwords = m.reg("o_dwords", Layout.MOVER_DESC.field("dwords").width(), cd).init(0);
        Reg oLast = m.reg("o_last", 1, cd).init(0); // the request's last piece
        Reg oQ = m.reg("o_request", qw, cd).init(0);
        // Ready latency 1: a piece goes in a cycle after ready was high. The downstream's ready (in the
        // bridge it comes through the arbiter) enters the walker as this register alone, so no path runs
        // from the arbiter's state through the hand-over into the loads of C and the chunk head.
        Reg readyQ = m.reg("desc_ready_q", 1, cd).init(0);
        readyQ.set(io.desc().ready());
        Expr readyNow = readyQ;
        Signal fire = m.wire("handover", 1);
        go.set(readyNow.and(pool.anyFree()));
        fire.set(oValid.and(go));
        oRoom.set(go.or(oValid.not()));
        boolean rd = p.direction() == Direction.RD;
        int dwb = pb - 2;
        int pageDw = Layout.PAGE_BITS - 2;
        Expr cUpper = cPages.zext(dwb - pageDw).plus(cEnd.bit(pageDw).zext(dwb - pageDw));
        Signal cDwords = m.wire("c_dwords", dwb);
        cDwords.set(Expr.cat(cUpper, cEnd.bits(pageDw - 1, 0)).minus(cStart.zext(dwb)));
        // An entry's FPGA addresses are contiguous: its first piece's is the entry's, every later
        // piece's follows the piece before, which is still in the O registers. Each walked entry's
        // FPGA address waits in a queue from its walk's start to its first piece's move into O, in
        // order. An entry whose first piece has not moved is walked, or has its first chunk in R0,
        // R1, the chunk queue, its head (the walk's credit keeps those at most CHUNK_QUEUE) or C: at
        // most CHUNK_QUEUE + 2 entries, fewer than the queue's places.
        int fq = Check.log2(ENTRY_FPGA_QUEUE);
        Memory entryFpga = m.memory("entry_fpga", fa, ENTRY_FPGA_QUEUE, cd).distributed();
        Reg efWr = m.reg("entry_fpga_wr", fq, cd).init(0);
        Reg efRd = m.reg("entry_fpga_rd", fq, cd).init(0);
        entryFpga.write(efWr, kFpga, walkStart);
        m.when(walkStart, () -> efWr.set(efWr.plus(1)));
        m.when(cGo.and(cFirst), () -> efRd.set(efRd.plus(1)));
        Expr pieceBytes = Expr.cat(oDwords, m.lit(0, 2));
        Expr followOn = oFpga.plus(fa >= pieceBytes.width() ? pieceBytes.zext(fa) : pieceBytes.trunc(fa));
        m.when(cGo, () -> {
            oPcie.set(cPcie);
            oFpga.set(Expr.mux(cFirst, entryFpga.readAsync(efRd), followOn));
            oDwords.set(cDwords.zext(Layout.MOVER_DESC.field("dwords").width()));
            oLast.set(cFinal);
            oQ.set(cQ);
        });
        oValid.set(cGo.or(oValid.and(fire.not())));
        Expr id = p.pieces() == 1 << sw && p.idBase() % (1 << sw) == 0
                ? Expr.cat(m.lit(p.idBase() >> sw, 8 - sw), pool.freeSlot())
                : m.lit(p.idBase(), 8).plus(pool.freeSlot().zext(8));
        io.desc().valid().set(fire);
        Expr fpga64 = oFpga.zext(64);
        io.desc().data().set(HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", rd ? oPcie : fpga64, "dst", rd ? fpga64 : oPcie, "dwords", oDwords, "id", id)));
        if (p.probes()) {
            io.canIssue().set(readyNow.and(pool.anyFree()));
        }
        pool.alloc().set(fire);
        pool.handed().set(fire);
        pool.handedSlot().set(pool.freeSlot());
        Memory pieceRequest = m.memory("piece_request", qw, 1 << sw, cd).distributed();
        pieceRequest.write(pool.freeSlot(), oQ, fire);

        // ---------------------------------------------------------------- mover statuses: one per piece
        Layout.Word ms = Layout.MOVER_STATUS;
        // The mover's status, registered first: nothing from the mover's port reaches the admission logic.
        Reg msValid = m.reg("mover_status_valid", 1, cd).init(0);
        Reg msData = m.reg("mover_status_data", io.msData().width(), cd).init(0);
        msValid.set(io.msValid());
        msData.set(io.msData());
        // standalone: the mover's word; in the bridge: {failed, id}
        Expr msId = p.probes() ? HdlWords.get(msData, ms, "id") : msData.bits(7, 0);
        Signal slot = m.wire("status_slot", sw);
        // IDs that fill an aligned power-of-two block: the slot is the ID's low bits, the range a
        // compare of its high bits (no subtraction, no carry chain)
        boolean aligned = p.pieces() == 1 << sw && p.idBase() % (1 << sw) == 0;
        slot.set(aligned ? msId.bits(sw - 1, 0) : msId.minus(p.idBase()).trunc(sw));
        Expr inRange = aligned ? msId.bits(7, sw).eq(p.idBase() >> sw)
                : msId.ge(p.idBase()).and(msId.lt(m.lit(p.idBase() + p.pieces(), 8)));
        Expr issued = pool.late().and(pool.lateSlot().eq(slot));
        for (int i = 0; i < p.pieces(); i++) {
            issued = issued.or(pool.issued().bit(i).and(slot.eq(i)));
        }
        Signal believed = m.wire("status_believed", 1);
        believed.set(msValid.and(inRange).and(issued));
        if (io.spurious() != null) {
            io.spurious().set(msValid.and(believed.not()));
        }
        // The last status believed, as the mover sent it (for bring-up: every bit, the reserved ones
        // too), a cycle after it is taken (status_taken): the word waits a cycle in a register of its own.
        Reg lastStatus = null;
        Reg msDataQ = null;
        if (p.probes()) {
            lastStatus = m.reg("last_status", Layout.MOVER_STATUS.bits(), cd).init(0);
            msDataQ = m.reg("mover_status_data_q", Layout.MOVER_STATUS.bits(), cd).init(0);
            msDataQ.set(msData);
            io.lastStatus().set(lastStatus);
        }
        // The status is taken in two steps: in its cycle the slot stops being issued (a second status
        // for it is not believed); the cycle after, the slot goes back to the pool and the piece's
        // request, read from piece_request before the slot can be handed out again, hears of it.
        Reg taken = m.reg("status_taken", 1, cd).init(0);
        Reg takenSlot = m.reg("status_taken_slot", sw, cd).init(0);
        Reg takenQ = m.reg("status_request", qw, cd).init(0);
        Reg takenFailed = m.reg("status_failed", 1, cd).init(0);
        // (a status for an ID in range clears the slot's issued mark: a no-op unless it is issued, so
        // the clear needs no lookup of the mark)
        pool.back().set(msValid.and(inRange));
        pool.backSlot().set(slot);
        pool.release().set(taken);
        pool.releaseSlot().set(takenSlot);
        taken.set(believed);
        if (p.probes()) {
            Reg last = lastStatus;
            Reg word = msDataQ;
            m.when(taken, () -> last.set(word));
        }
        m.when(believed, () -> {
            takenSlot.set(slot);
            takenQ.set(pieceRequest.readAsync(slot));
            takenFailed.set(p.probes() ? HdlWords.get(msData, ms, "aborted").or(HdlWords.get(msData, ms, "flushed")) : msData.bit(8));
        });
        Expr sq = takenQ;
        Expr failed = takenFailed;

        // Each request slot's tag and admission time, in LUT RAM: written at admission, read once at its status.
        // A free-running cycle counter: the walker's own standalone, the bridge's (shared) inside it.
        Expr now;
        if (p.probes()) {
            Reg own = m.reg("now", 32, cd).init(0);
            own.set(own.plus(1));
            now = own;
        } else {
            now = io.now();
        }
        Layout.Word st = Layout.STAMP_TAGGED;
        int slots = nq + 1; // the request slots, then the waiting rejection's
        int slw = Check.indexWidth(slots);
        Expr rejSlot = m.lit(nq, slw);
        Memory stamps = m.memory("request_stamp", st.bits(), 1 << slw, cd).distributed();
        stamps.write(Expr.mux(admit, freeQ.zext(slw), rejSlot), HdlWords.pack(m, st, Map.of("stamp", now, "tag", kTag)),
                admit.or(reject));

        // Every piece walked so far has gone to the mover and reported: a pending close frees its slot
        // and sends its status, in a cycle with no mover status taken (so no completion takes the
        // status stages; nothing is admitted while a close is pending, so such a cycle comes).
        // close_ready is registered: once the walk's pipeline is empty and the slot counts no piece,
        // both stay so while the close is pending (no walk starts, so no piece is issued). In the
        // cycle the close becomes pending the register is a cycle old; the walk started no piece in
        // the cycle before (a close is set only by a move that walks nothing), and a request admitted
        // then has a count of 0, so it is right then too.
        Expr pipeEmpty = wBusy.or(inFlight.ne(0)).or(cValid).or(oValid).not();
        Expr noPieces = m.lit(0, 1);
        for (int q = 0; q < nq; q++) {
            noPieces = Expr.mux(wQ.eq(q), qCount.get(q).eq(0), noPieces);
        }
        Reg closeReady = m.reg("close_ready", 1, cd).init(0);
        closeReady.set(pipeEmpty.and(noPieces));
        closeGo.set(closeReq.and(closeReady).and(taken.not()).and(rejValid.not()));
        Expr done = m.lit(0, 1);
        for (int q = 0; q < nq; q++) {
            final int qi = q;
            Expr inc = fire.and(oQ.eq(q));
            Expr dec = taken.and(sq.eq(q));
            Reg count = qCount.get(q);
            Expr last = dec.and(count.eq(1)).and(qOpen.get(q).not());
            done = done.or(last);
            Expr admitHere = admitCore.and(slotHot.get(q));
            Expr closeHere = closeGo.and(wQ.eq(q));
            m.when(admitHere, () -> {
                qValid.get(qi).set(1);
                qOpen.get(qi).set(1);
                count.set(0);
                qRegion.get(qi).set(kRegion.trunc(p.regionBits()));
                qErr.get(qi).set(0);
            }).otherwise(() -> {
                count.set(count.upDown(inc, dec));
                m.when(inc.and(oLast), () -> qOpen.get(qi).set(0));
                m.when(dec.and(failed).and(qErr.get(qi).eq(0)), () -> qErr.get(qi).set(Layout.Error.ABORTED.code()));
                m.when(last.or(closeHere), () -> qValid.get(qi).set(0));
            });
        }
        completing.set(done);
        // The request whose last piece reported, or the waiting rejection: the next cycle reads its
        // slot's stamp and error (a request slot is reused at the earliest at the end of that cycle,
        // the rejection's place at the earliest then too) and registers the elapsed cycles; the cycle
        // after saturates them (0 for a rejection) and writes the status.
        Reg compQ = m.reg("completed_request", slw, cd).init(0);
        Reg compRej = m.reg("completed_rejection", 1, cd).init(0);
        Reg compClose = m.reg("completed_close", 1, cd).init(0);
        completion.set(done.or(closeGo).or(rejGo));
        compQ.set(Expr.mux(done, sq.zext(slw), Expr.mux(closeGo, wQ.zext(slw), rejSlot)));
        compRej.set(done.or(closeGo).not());
        compClose.set(closeGo);
        Expr errPick = rejErr;
        for (int q = 0; q < nq; q++) {
            errPick = Expr.mux(compQ.eq(q), qErr.get(q), errPick);
        }
        // a closed request: its pieces' error (ABORTED), else its failing entry's
        Expr doneErr = Expr.mux(compClose.and(errPick.eq(0)), chErr, errPick);
        Expr stamp = stamps.readAsync(compQ);
        Reg outTag = m.reg("status_tag", 32, cd).init(0);
        Reg outErr = m.reg("status_error", 4, cd).init(0);
        Reg outElapsed = m.reg("status_elapsed", 32, cd).init(0);
        Reg outRej = m.reg("status_rejection", 1, cd).init(0);
        outValid.set(completion);
        m.when(completion, () -> {
            outTag.set(HdlWords.get(stamp, st, "tag"));
            outErr.set(doneErr);
            outElapsed.set(now.minus(HdlWords.get(stamp, st, "stamp")));
            outRej.set(compRej);
        });

        // ---------------------------------------------------------------- statuses out
        int lw = Layout.ELAPSED_BITS;
        // saturated, and 0 for a rejection (in the same LUT per bit)
        Expr saturated = Expr.mux(outRej, m.lit(0, lw),
                Expr.mux(outElapsed.bits(31, lw).orR(), m.lit((1L << lw) - 1, lw), outElapsed.bits(lw - 1, 0)));
        Expr compWord = HdlWords.pack(m, ks, Map.of("tag", outTag, "error", outErr, "elapsed", saturated));
        Memory statuses = m.memory("status_fifo", ks.bits(), sd, cd).distributed();
        Reg stWr = m.reg("status_wr", sa + 1, cd).init(0);
        Reg stRd = m.reg("status_rd", sa + 1, cd).init(0);
        statuses.write(stWr.trunc(sa), compWord, outValid);
        m.when(outValid, () -> stWr.set(stWr.plus(1)));
        io.st().valid().set(stWr.ne(stRd));
        io.st().data().set(statuses.readAsync(stRd.trunc(sa)));
        m.when(io.st().fire(), () -> stRd.set(stRd.plus(1)));
        owed.set(owed.upDown(admit.or(reject), io.st().fire()));
        io.outstanding().set(owed);
        // A region is busy while a request naming it is in the walker past its region read, until its
        // status is pushed (by then every piece has reported: the mover is done with the region's
        // pages). A request in stage A has not read the region table yet: it reads the entry as it
        // stands when it moves on, so a region closed meanwhile rejects it.
        Expr r = io.rgReadIdx().zext(rfw);
        Expr busy = bValid.and(bRegion.eq(r)).or(kValid.and(kRegion.eq(r)));
        for (int q = 0; q < nq; q++) {
            busy = busy.or(qValid.get(q).and(qRegion.get(q).eq(io.rgReadIdx())));
        }
        io.rgReadBusy().set(busy);
        // Nothing taken and not yet reported: no request in the check stages, no status owed.
        io.idle().set(aValid.or(bValid).or(kValid).or(closeReq).not().and(chIdle).and(owed.eq(0)));
        io.evRejected().set(reject);
        io.evError().set(kErr);
        if (io.evCompleted() != null) {
            io.evCompleted().set(outValid.and(outRej.not()));
            io.evAborted().set(outValid.and(outRej.not()).and(outErr.ne(0)));
        }
        if (p.probes()) {
            io.walking().set(wBusy.or(r0Valid).or(rqValid).or(r1Valid).or(qFill.ne(0)).or(rValid).or(cValid).or(oValid));
        }
    }

    /** The file the generator writes beside the walker's Verilog: its parameters, words and error codes, for benches. */
    public static final String DESCRIPTION_FILE = "region_walker.json";

    /** The walker's description: parameters, the words on its ports, the error codes. */
    public static String describe(Params p) {
        Map<String, Object> words = new java.util.LinkedHashMap<>();
        for (Layout.Word w : List.of(Layout.REGION_REQ, Layout.REGION_ENTRY, Layout.PAGE_ENTRY, Layout.MOVER_DESC,
                Layout.MOVER_STATUS, Layout.KERNEL_STATUS_TAGGED)) {
            words.put(w.name(), Manifest.word(w));
        }
        Map<String, Object> walker = Manifest.ordered("module", new RegionWalker().moduleName(p), "direction",
                p.direction().tag(), "entries", p.entries(), "regions", p.regions(), "pieces", p.pieces(), "requests",
                p.requests(), "status_depth", p.statusDepth(), "id_base", p.idBase(), "page_bytes", PAGE,
                "max_pages_per_piece", MAX_PAGES_PER_PIECE);
        return org.direkt.generators.Json.write(Manifest.ordered("format", "direkt-region-walker", "walker", walker,
                "layout", Manifest.ordered("max_dwords", Layout.MAX_DWORDS, "words", words, "errors", Manifest.errors()),
                "bridge", Manifest.ordered("fpga_mem_bytes", p.fpgaMemBytes()))) + "\n";
    }

    /** a + b + carryIn, as wide as a and b: synthesis makes the one-bit term the adder's carry in. */
    static Expr addCarry(Expr a, Expr b, Expr carryIn) {
        return a.plus(b).plus(carryIn.zext(a.width()));
    }

    private static Expr code(ModuleBuilder m, Layout.Error e) {
        return m.lit(e.code(), 4);
    }
}
