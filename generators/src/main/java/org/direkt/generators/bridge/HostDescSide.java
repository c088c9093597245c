// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.List;
import java.util.Map;

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
 * One side (rd: the Read Data Mover's descriptors, wr: the Write Data Mover's) of the host's
 * descriptor controller, register-compatible with the hard IP's own (Intel's {@code dma_control}):
 * the host writes a table of descriptors into its memory and LAST_PTR last; this side fetches the
 * new entries through a table-fetch descriptor, hands them to its mover with their IDs, and for
 * each completed ID writes 1 to the ID's status word in the host table.
 *
 * <p>What it promises:
 * <ul>
 * <li>IDs: writing LAST_PTR asks for the IDs after the last one asked for ({@code prev}, 0xFF after
 *     reset: from 0) up to the value written, wrapping after TABLE_SIZE; a write beyond TABLE_SIZE
 *     is ignored (DIAG.bad_last_ptr). One batch at a time: a batch that would wrap ends at
 *     TABLE_SIZE and the rest is the next batch; LAST_PTR writes during a batch are taken up after it.</li>
 * <li>Fetch: entry {@code k} of a batch is read from the host table's entry {@code base + k}
 *     (RC base + 0x200 + 32 (base + k)) into the DTS agent's word {@code base + k} (the EP
 *     base's bits from 13 up and from 4 down around 32 (base + k): the agent's word in the 8 KB
 *     span that holds the EP base, which host software sets to the agent's own base). {@code base} starts at 0, is set back to 0 by a write of EP FIFO base (low)
 *     and after a batch ending at TABLE_SIZE, and otherwise moves on by each batch's size: so host
 *     software that rewrites the EP base before each LAST_PTR (the a10_ref drivers do) has its
 *     batch's entries at the table's start, whatever their IDs, as Intel's controller reads them.</li>
 * <li>The DTS agent takes every beat (no waitrequest; bursts by burstcount); a beat counts only at
 *     the word the batch expects next, so an entry goes to the mover only after its own beat
 *     arrived, and a beat of nothing expected is dropped (DIAG.stray_dts).</li>
 * <li>Entries go to the mover in ID order, each once, with the controller's ID for it (the entry's
 *     own ID field, kept beside it, is compared as it goes, DIAG.entry_id; its reserved bits must be
 *     0 as it arrives, DIAG.entry_reserved).</li>
 * <li>Completion: a host status counts only when it names the oldest ID handed to the mover and not
 *     yet completed (the movers complete in order); then that ID's flag is written once, in the
 *     order the IDs were handed over. Any other status writes nothing (DIAG.stray_status). At most
 *     {@link #HANDED_MAX} - 1 IDs are between their hand-over and their flag; the next entry waits
 *     for a flag beyond that.</li>
 * <li>A batch ends when its fetch has reported and each entry went to the mover; an aborted fetch
 *     (DIAG.fetch_failed) ends it with the entries that arrived.</li>
 * </ul>
 */
public final class HostDescSide extends Unit<HostDescSide.Params, HostDescSide.Io> {

    /**
     * @param side    which mover the entries go to (its fetches always go to the Read Data Mover)
     * @param entries descriptor table entries, IDs 0..entries-1 (128 for the host protocol; fewer for proofs)
     * @param fetchId the ID of this side's table fetches (a kernel-range ID the bridge keeps)
     */
    public record Params(BridgeModes.Direction side, int entries, int fetchId) {
        public Params {
            require(side != null, "HostDescSide", "side", side, "must be RD or WR");
            require(Check.isPowerOfTwo(entries) && entries >= 4 && entries <= Layout.HOST_ID_LAST + 1, "HostDescSide",
                    "entries", entries, "must be a power of two in 4.." + (Layout.HOST_ID_LAST + 1) + " (host IDs)");
            require(fetchId >= Layout.KERNEL_ID_FIRST && fetchId <= Layout.KERNEL_ID_LAST, "HostDescSide", "fetchId", fetchId,
                    "must be a kernel-range ID (" + Layout.KERNEL_ID_FIRST + ".." + Layout.KERNEL_ID_LAST + "), apart from every host ID");
        }

        public int idBits() {
            return Check.log2(entries);
        }
    }

    /** The side's registers, in word order from the side's base (0x000 rd, 0x100 wr). */
    public static final List<String> REGISTERS = List.of("RC_BASE_LO", "RC_BASE_HI", "EP_BASE_LO", "EP_BASE_HI", "LAST_PTR",
            "TABLE_SIZE", "CONTROL", "INT_CONTROL", "DIAG", "LAST_HOST_STATUS");

    /** Register index bits: 16 words from the side's base; words beyond {@link #REGISTERS} read 0. */
    public static final int INDEX_BITS = 4;

    /** DIAG: sticky bits (any write clears them) and, from bit 16, live state. */
    public static final Layout.Word DIAG = new Layout.Word("host_desc_diag", 32, List.of(
            new Layout.Field("bad_last_ptr", 0, 1, "a LAST_PTR write beyond TABLE_SIZE (ignored)"),
            new Layout.Field("stray_dts", 1, 1, "a DTS beat no fetch expected (dropped)"),
            new Layout.Field("entry_id", 2, 1, "an entry's own ID field differs from the ID the controller gave it"),
            new Layout.Field("entry_reserved", 3, 1, "an entry's reserved bits (control [31:25], dwords 5..7) not zero"),
            new Layout.Field("fetch_failed", 4, 1, "a table fetch came back aborted or flushed"),
            new Layout.Field("stray_status", 5, 1, "a host status that named no ID awaiting completion (no flag)"),
            new Layout.Field("stray_fetch_status", 6, 1, "a table-fetch status nothing waited for"),
            new Layout.Field("host_aborted", 7, 1, "a host descriptor completed aborted or flushed (its flag is written)"),
            new Layout.Field("reserved", 8, 8, "0"),
            new Layout.Field("busy", 16, 1, "live: a batch is being fetched or handed over"),
            new Layout.Field("reserved_hi", 17, 15, "0")));

    /**
     * Register access: a write strobe by index, and the values only this side holds for reading
     * back (LAST_PTR, TABLE_SIZE, DIAG, LAST_HOST_STATUS). The words host software writes whole
     * (the bases, CONTROL, INT_CONTROL: words 0..3, 6 and 7) the parent reads back from a copy of its own.
     */
    public record Regs(Signal we, Signal index, Signal wdata, Signal lastPtr, Signal tableSize, Signal diag, Signal lastStatus) {
    }


    /** A write-only Avalon-MM agent of 256-bit words, word addressed (0x2000 bytes), always ready. */
    public record Dts(Signal write, Signal address, Signal burstcount, Signal writedata) {
    }

    /**
     * {@code fetch}: this side's table fetches (to the Read Data Mover); {@code fetchDone} /
     * {@code fetchFailed}: a mover status with {@link Params#fetchId}; {@code misrouted}: a status
     * in the table-fetch range that belongs to no fetch (counted in DIAG); {@code entry}: the
     * host's descriptors for this side's mover; {@code hsValid} / {@code hsData}: the mover's
     * statuses for host IDs; {@code flag}: the status words to set, by bus address.
     */
    public record Io(Regs regs, Dts dts, Stream fetch, Signal fetchDone, Signal fetchFailed, Signal misrouted, Stream entry,
            Signal hsValid, Signal hsData, Stream flag) {
    }

    /**
     * Places in the ring of IDs handed to the mover and not yet flagged (the whole table where it is
     * smaller): ample to keep a mover busy, and a ring read shallow enough to reach a register in a
     * cycle (two 16-word LUT RAMs on ECP5, one MLAB on Intel).
     */
    public static final int HANDED_MAX = 32;

    /**
     * Address bits below which the table fetch's and the flags' sums run (8 KB): the table's status
     * words and entries (0x200 + 128 x 32 bytes) fit, and so does the DTS agent's span.
     */
    static final int SPAN_BITS = 13;

    /** The DTS agent's address bits: 0x2000 bytes of 256-bit words. */
    public static final int DTS_ADDRESS_BITS = 8;
    /** Beats a DTS burst may have at most (burstcount 1..16). */
    public static final int DTS_BURSTCOUNT_BITS = 5;

    /**
     * An entry as it waits for the mover: the mover descriptor's addresses and length. Its ID is the
     * batch's first plus the entries handed over before it (the store holds one batch at a time).
     */
    static final Layout.Word ENTRY = new Layout.Word("host_entry", 153, List.of(
            new Layout.Field("src", 0, 64, "source address"),
            new Layout.Field("dst", 64, 64, "destination address"),
            new Layout.Field("dwords", 128, 18, "length in dwords"),
            new Layout.Field("id", 146, 7, "the entry's own ID field (control [24:18]), compared when it goes to the mover")));

    @Override
    public String moduleName(Params p) {
        return "direkt_host_desc_" + p.side().tag() + "_e" + p.entries() + "_f" + p.fetchId();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int db = Layout.MOVER_DESC.bits();
        return new Io(new Regs(at.in("reg_we", 1, cd), at.in("reg_index", INDEX_BITS, cd), at.in("reg_wdata", 32, cd),
                at.out("reg_last_ptr", 8, cd), at.out("reg_table_size", p.idBits(), cd), at.out("reg_diag", 32, cd),
                at.out("reg_last_status", Layout.MOVER_STATUS.bits(), cd)),
                new Dts(at.in("dts_write", 1, cd), at.in("dts_address", DTS_ADDRESS_BITS, cd),
                        at.in("dts_burstcount", DTS_BURSTCOUNT_BITS, cd), at.in("dts_writedata", 256, cd)),
                at.source("fetch", AvalonSt.source(db), cd), at.in("fetch_done", 1, cd), at.in("fetch_failed", 1, cd),
                at.in("misrouted", 1, cd), at.source("entry", AvalonSt.source(db), cd),
                at.in("hs_valid", 1, cd), at.in("hs_data", Layout.MOVER_STATUS.bits(), cd), at.source("flag", AvalonSt.source(64), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Host descriptor controller, %s side: registers as the hard IP's (RC/EP base, LAST_PTR, TABLE_SIZE,
                CONTROL, INT_CONTROL) plus DIAG and LAST_HOST_STATUS; %d-entry table fetched with ID %d, entries to
                the mover in ID order, one completion flag per completed ID, in that order.""",
                p.side().tag(), p.entries(), p.fetchId()));
        ClockDomain cd = Domains.MAIN;
        int w = p.idBits();
        int e = p.entries();
        Regs r = io.regs();
        Expr wd = r.wdata();

        // ---- registers
        Reg rcLo = m.reg("rc_base_lo", 32, cd).init(0);
        Reg rcHi = m.reg("rc_base_hi", 32, cd).init(0);
        // of the EP base only what the fetch's destination takes: bits 31..13 and 4..0 of its low word
        // (the word within the DTS agent's span is the batch's own, as the agent expects it)
        Reg epLoHigh = m.reg("ep_base_lo_high", 32 - SPAN_BITS, cd).init(0);
        Reg epLoByte = m.reg("ep_base_lo_byte", 5, cd).init(0);
        Reg epHi = m.reg("ep_base_hi", 32, cd).init(0);
        Reg lastPtr = m.reg("last_ptr", 8, cd).init(0xFF);
        Reg tableSize = m.reg("table_size", w, cd).init(e - 1);
        Reg lastStatus = m.reg("last_host_status", Layout.MOVER_STATUS.bits(), cd).init(0);
        Expr[] write = new Expr[REGISTERS.size()];
        for (int i = 0; i < write.length; i++) {
            write[i] = r.we().and(r.index().eq(i));
        }
        m.when(write[0], () -> rcLo.set(wd));
        m.when(write[1], () -> rcHi.set(wd));
        m.when(write[2], () -> {
            epLoHigh.set(wd.bits(31, SPAN_BITS));
            epLoByte.set(wd.bits(4, 0));
        });
        m.when(write[3], () -> epHi.set(wd));
        Expr tableEnd = tableSize.zext(8);
        Signal ptrOk = m.wire("last_ptr_ok", 1);
        ptrOk.set(wd.bits(7, 0).le(tableEnd));
        m.when(write[4].and(ptrOk), () -> lastPtr.set(wd.bits(7, 0)));
        // A batch starts on a LAST_PTR write, as the hard IP's does, never on the values alone: after
        // a batch ending at TABLE_SIZE, prev is 0xFF and LAST_PTR still TABLE_SIZE, and the table
        // holds nothing new until the host writes LAST_PTR again.
        Reg requested = m.reg("requested", 1, cd).init(0);
        m.when(write[5], () -> tableSize.set(wd.bits(w - 1, 0)));
        // CONTROL and INT_CONTROL have no use here (MSI is not generated): the parent's copy holds them.
        Expr rcBase = Expr.cat(rcHi, rcLo);

        // ---- batches: the IDs after prev up to LAST_PTR, one batch at a time
        Reg prev = m.reg("prev_id", 8, cd).init(0xFF);
        Reg fetchIdx = m.reg("fetch_index", w, cd).init(0);
        Reg busy = m.reg("busy", 1, cd).init(0);
        Reg first = m.reg("first_id", w, cd).init(0);
        Reg count = m.reg("count", w + 1, cd).init(0);
        Reg base = m.reg("fetch_base", w, cd).init(0);
        Reg endsTable = m.reg("ends_table", 1, cd).init(0);
        Reg lastId = m.reg("last_id", w, cd).init(0);
        Reg arrived = m.reg("arrived", w + 1, cd).init(0);
        Reg issued = m.reg("issued", w + 1, cd).init(0);
        Reg reported = m.reg("fetch_reported", 1, cd).init(0);
        Reg failed = m.reg("fetch_failed_q", 1, cd).init(0);
        Reg fetchValid = m.reg("fetch_pending", 1, cd).init(0);

        // A LAST_PTR equal to prev, or beyond a TABLE_SIZE written smaller since, asks for nothing.
        // That, and the next batch's first and last ID, are registers taken from the values of the
        // cycle before: a batch starts only once prev, LAST_PTR and TABLE_SIZE held still for a
        // cycle (settled; nor fetch_index, which a write of EP base low sets back), so what it tests
        // and loads is the values it starts with, and its start is a gate of flip-flops ahead of its
        // wide fan-out.
        Reg settled = m.reg("settled", 1, cd).init(0);
        Reg differs = m.reg("ptr_differs", 1, cd).init(0);
        differs.set(lastPtr.ne(prev));
        Reg inTable = m.reg("ptr_in_table", 1, cd).init(0);
        inTable.set(lastPtr.le(tableEnd));
        Signal pending = m.wire("pending", 1);
        pending.set(requested.and(differs).and(inTable));
        Signal restart = m.wire("restart", 1);
        restart.set(prev.eq(0xFF).or(prev.ge(tableEnd)));
        Reg startId = m.reg("start_id", w, cd).init(0);
        startId.set(Expr.mux(restart, m.lit(0, w), prev.plus(1).bits(w - 1, 0)));
        Reg endId = m.reg("end_id", w, cd).init(0);
        endId.set(Expr.mux(restart.not().and(lastPtr.le(prev)), tableSize, lastPtr.bits(w - 1, 0)));
        Signal span = m.wire("span", w + 1);
        span.set(endId.zext(w + 1).minus(startId.zext(w + 1)));
        Signal size = m.wire("size", w + 1);
        size.set(span.plus(1));
        Signal start = m.wire("start", 1);
        start.set(busy.not().and(pending).and(settled));
        // The table fetch's addresses. The source, RC base + 0x200 + 32 x fetch_index (the entries
        // start 16 entries after the status words), and every flag's address, RC base + 4 x ID, lie
        // less than 0x2000 above the RC base: each is a sum of the base's bits below SPAN_BITS and
        // the base's bits above, or those plus 1 (rc_base_high_inc, a register a cycle behind the
        // base: host software writes the bases between batches) where that sum carries. The source's
        // low sum is taken at the start, and the fetch goes out the cycle after from registers alone.
        // The destination is the DTS agent's word fetch_index in the 8 KB span that holds the EP
        // base (host software writes the agent's own base there): no sum.
        int sb = SPAN_BITS;
        int hb = 64 - sb;
        Expr rcHigh = rcBase.bits(63, sb);
        Signal srcLow = m.wire("fetch_src_low", sb - 5 + 1);
        srcLow.set(rcBase.bits(sb - 1, 5).zext(sb - 4).plus(fetchIdx.zext(sb - 4).plus(m.lit(0x200 >> 5, sb - 4))));
        Reg srcLowQ = m.reg("fetch_src_low_q", sb - 4, cd).init(0);
        Reg finish = m.reg("fetch_finish", 1, cd).init(0);
        // One choice of the RC base's bits above SPAN_BITS serves the fetch and the flags: the
        // fetch's carry while a fetch waits for the mover, else the next flag's (set below); a flag
        // whose carry differs waits for the fetch to go.
        Signal high = m.wire("rc_high", hb);
        Expr fetchWord = HdlWords.pack(m, Layout.MOVER_DESC, Map.of(
                "src", Expr.cat(high, srcLowQ.bits(sb - 6, 0), rcBase.bits(4, 0)),
                "dst", Expr.cat(epHi, epLoHigh, base.zext(sb - 5), epLoByte),
                "dwords", count.zext(18).shl(3),
                "id", m.lit(p.fetchId(), 8)));

        // ---- the DTS agent: beat addresses from bursts; a beat counts only at the word expected next
        // Whether a beat is taken waits on flip-flops and, at a burst's first beat, one compare of its
        // address: whether a burst is under way (burst_idle), whether its next beat lands where the
        // batch expects the next entry (next_hit) and whether the batch still expects one (expecting,
        // busy with arrived != count) are kept in registers. (The store has room for every entry a
        // batch still expects. A burst begun before its batch started counts none of its beats: the
        // batch's own come only after its fetch went out.)
        Reg burstLeft = m.reg("burst_left", DTS_BURSTCOUNT_BITS, cd).init(0);
        Reg burstIdle = m.reg("burst_idle", 1, cd).init(1);
        Reg beatNext = m.reg("beat_next", DTS_ADDRESS_BITS, cd).init(0);
        Signal beat = m.wire("beat_address", DTS_ADDRESS_BITS);
        beat.set(Expr.mux(burstIdle, io.dts().address(), beatNext));
        Expr bc = io.dts().burstcount();
        m.when(io.dts().write(), () -> {
            burstLeft.set(Expr.mux(burstIdle, Expr.mux(bc.eq(0), bc, bc.minus(1)), burstLeft.minus(1)));
            burstIdle.set(Expr.mux(burstIdle, bc.le(m.lit(1, DTS_BURSTCOUNT_BITS)), burstLeft.eq(1)));
            beatNext.set(beat.plus(1));
        });
        // The DTS word the batch's next entry lands in, base + arrived, kept in a register; between
        // batches it follows fetch_index, so a batch starts with it in place.
        Reg expected = m.reg("expected", DTS_ADDRESS_BITS, cd).init(0);
        // expected - 1: where a beat lands when the beat after it is the one expected
        Reg expectedBefore = m.reg("expected_before", DTS_ADDRESS_BITS, cd).init(0xFF);
        Reg nextHit = m.reg("next_hit", 1, cd).init(0);
        Reg expecting = m.reg("expecting", 1, cd).init(0);
        // count - 1 beside count, so the beat that is the batch's last is a compare of registers (arrived
        // = count - 1), no sum
        Reg countLess1 = m.reg("count_less1", w + 1, cd).init(0);
        Signal take = m.wire("take", 1);
        take.set(io.dts().write().and(expecting).and(Expr.mux(burstIdle, io.dts().address().eq(expected), nextHit)));
        m.when(busy.not(), () -> {
            expected.set(fetchIdx.zext(DTS_ADDRESS_BITS));
            expectedBefore.set(fetchIdx.zext(DTS_ADDRESS_BITS).minus(1));
        });
        m.when(take, () -> expectedBefore.set(expected));
        nextHit.set(busy.and(take.or(Expr.mux(io.dts().write(), beat.eq(expectedBefore), nextHit))));
        Expr entry = io.dts().writedata();
        // ---- the batch's entries, by their place in it: entry k of the batch at word k. While the
        // batch expects one, the word at arrived is written every cycle with the beat's data; a
        // beat taken keeps it (arrived moves on), so the RAM's write port hangs on flip-flops and
        // the ports alone. No word read for use is being written: those are below arrived, and a
        // batch has at most a table's entries.
        Layout.Word ew = ENTRY;
        Memory store = m.memory("entries", ew.bits(), e, cd).noReadWriteCheck();
        store.write(arrived.trunc(w), HdlWords.pack(m, ew, Map.of("src", entry.bits(63, 0), "dst", entry.bits(127, 64),
                "dwords", entry.bits(145, 128), "id", entry.bits(152, 146))), expecting);
        m.when(take, () -> {
            arrived.set(arrived.plus(1));
            expected.set(expected.plus(1));
            expecting.set(arrived.ne(countLess1));
        });
        // control dword [24:18] is the entry's ID; [31:25] and dwords 5..7 are reserved
        Expr reservedSet = entry.bits(255, 153).orR();

        // ---- IDs handed to the mover, in order: issued (w), completed (c), flagged (f)
        int places = Math.min(e, HANDED_MAX);
        int ra = Check.log2(places);
        Memory ring = m.memory("handed_ids", w, places, cd);
        Reg wPtr = m.reg("handed_ptr", ra + 1, cd).init(0);
        Reg cPtr = m.reg("completed_ptr", ra + 1, cd).init(0);
        Reg fPtr = m.reg("flagged_ptr", ra + 1, cd).init(0);
        // Room in a register: fewer than places - 1 IDs handed over and not yet taken for their flag
        // (held, kept beside the pointers; room follows it with one compare to a constant, set
        // below, no subtraction of the pointers).
        Reg held = m.reg("handed_held", ra + 1, cd).init(0);
        Reg room = m.reg("ring_room", 1, cd).init(1);
        Stream out = io.entry();
        // Entries leave the RAM in order through two registers: the read port's own (read_valid:
        // the word at read_index - 1), then the head, which waits for the mover (a block RAM's
        // output register: the word leaving the RAM late in the cycle reaches nothing else). The
        // head takes the next word when it is empty, the read port when it is empty or the head
        // takes its word: so neither waits on the mover's ready, and an entry goes at most every
        // other cycle (a mover takes many cycles for each).
        Reg readIdx = m.reg("read_index", w + 1, cd).init(0);
        Reg readValid = m.reg("read_valid", 1, cd).init(0);
        // (the head's state as "empty", so that its word's load enable is a flip-flop as it is, which
        // a block RAM's output register can take as its clock enable)
        Reg headEmpty = m.reg("head_empty", 1, cd).init(1);
        Signal headValid = m.wire("head_valid", 1);
        headValid.set(headEmpty.not());
        Reg head = m.reg("head_word", ew.bits(), cd);
        Signal headFree = m.wire("head_free", 1);
        headFree.set(headEmpty);
        Signal readFree = m.wire("read_free", 1);
        readFree.set(readValid.not().or(headFree));
        Signal arrivedUnread = m.wire("arrived_unread", 1);
        arrivedUnread.set(readIdx.ne(arrived));
        Signal read = store.readSync("read_word", readIdx.trunc(w), readFree, cd);
        m.when(readFree, () -> readValid.set(arrivedUnread));
        m.when(readFree.and(arrivedUnread), () -> readIdx.set(readIdx.plus(1)));
        m.when(headFree, () -> {
            headEmpty.set(readValid.not());
            head.set(read);
        });
        Signal outId = m.wire("out_id", w);
        outId.set(first.plus(issued.bits(w - 1, 0)));
        out.valid().set(headValid.and(room));
        out.data().set(HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", HdlWords.get(head, ew, "src"),
                "dst", HdlWords.get(head, ew, "dst"), "dwords", HdlWords.get(head, ew, "dwords"), "id", outId.zext(8))));
        ring.write(wPtr.trunc(ra), outId, out.fire());
        m.when(out.fire(), () -> {
            headEmpty.set(1);
            wPtr.set(wPtr.plus(1));
            issued.set(issued.plus(1));
        });

        // ---- the fetch and its status
        io.fetch().valid().set(fetchValid);
        io.fetch().data().set(fetchWord);
        m.when(io.fetch().fire(), () -> fetchValid.set(0));
        Signal report = m.wire("fetch_report", 1);
        report.set(io.fetchDone().and(busy).and(finish.not()).and(fetchValid.not()).and(reported.not()));
        m.when(report, () -> {
            reported.set(1);
            failed.set(io.fetchFailed());
        });
        // Aborted: what arrived goes on; the rest of the batch is given up.
        // Whether every entry went to the mover (issued = count) or, for an aborted fetch, every entry
        // that arrived did (issued = arrived and no beat taken: then none is on its way to the head), in
        // registers a cycle behind: a batch ends a cycle after its last hand-over, and its end's wide
        // fan-out starts at flip-flops. (At a batch's start they still tell of the one before, but the
        // fetch has not reported then.)
        Reg allIssued = m.reg("all_issued", 1, cd).init(0);
        allIssued.set(issued.eq(count));
        Reg arrivedIssued = m.reg("arrived_issued", 1, cd).init(0);
        arrivedIssued.set(issued.eq(arrived).and(take.not()));
        Signal done = m.wire("batch_done", 1);
        done.set(busy.and(reported).and(allIssued.or(failed.and(arrivedIssued))));
        // (a batch that ends leaves busy set in its last cycle: what its end changes settles by then)
        settled.set(busy.or(write[2]).or(write[4].and(ptrOk)).or(write[5]).not());
        finish.set(start);
        m.when(finish, () -> fetchValid.set(1));
        m.when(start, () -> {
            busy.set(1);
            srcLowQ.set(srcLow);
            first.set(startId);
            count.set(size);
            base.set(fetchIdx);
            endsTable.set(endId.eq(tableSize));
            lastId.set(endId);
            arrived.set(0);
            readIdx.set(0);
            expecting.set(1);
            countLess1.set(span);
            issued.set(0);
            reported.set(0);
            failed.set(0);
        });
        // A batch ending at TABLE_SIZE before LAST_PTR (the IDs wrap) leaves the request for the rest.
        m.when(busy.not().and(settled), () -> requested.set(requested.and(pending)));
        m.when(start, () -> requested.set(endId.ne(lastPtr.bits(w - 1, 0))));
        m.when(write[4].and(ptrOk), () -> requested.set(1));
        Signal prevDone = m.wire("prev_done", 8);
        prevDone.set(Expr.mux(endsTable, m.lit(0xFF, 8), lastId.zext(8)));
        m.when(done, () -> {
            busy.set(0);
            expecting.set(0);
            prev.set(prevDone);
            fetchIdx.set(Expr.mux(endsTable, m.lit(0, w), base.plus(count.bits(w - 1, 0))));
        });
        // host software rewrites the EP base before a batch it places at the table's start
        m.when(write[2], () -> fetchIdx.set(0));

        // ---- completions and their flags
        Signal hsId = m.wire("hs_id", 8);
        hsId.set(HdlWords.get(io.hsData(), Layout.MOVER_STATUS, "id"));
        // The ID at completed_ptr waits in a register (the ring's read off the status's path): loaded
        // with the next one when a status completes, or with the ID handed over into an empty ring.
        Reg cHead = m.reg("completed_head", w, cd).init(0);
        Signal complete = m.wire("complete", 1);
        complete.set(io.hsValid().and(cPtr.ne(wPtr)).and(hsId.eq(cHead.zext(8))));
        // completed_ptr + 1 in a register (the ring's read address, off the carry chain)
        Reg cNext = m.reg("completed_next", ra + 1, cd).init(1);
        cNext.set(Expr.mux(complete, cPtr.plus(2), cPtr.plus(1)));
        m.when(complete, () -> {
            cPtr.set(cNext);
            cHead.set(Expr.mux(cNext.eq(wPtr), outId, ring.readAsync(cNext.trunc(ra))));
        }).elseWhen(cPtr.eq(wPtr), () -> cHead.set(outId));
        m.when(io.hsValid(), () -> lastStatus.set(io.hsData()));
        Expr hsAborted = HdlWords.get(io.hsData(), Layout.MOVER_STATUS, "aborted")
                .or(HdlWords.get(io.hsData(), Layout.MOVER_STATUS, "flushed"));
        // The next flag's address waits in registers (the ring's read and the sum off the flag host's
        // path): its bits below SPAN_BITS, RC base + 4 x ID, and their carry, which picks the RC
        // base's bits above or rc_base_high_inc (host software writes the base between batches, with
        // no flag due). flagged_ptr counts the IDs taken into them.
        Reg flagValid = m.reg("flag_q_valid", 1, cd).init(0);
        Reg flagLow = m.reg("flag_q_low", sb, cd).init(0);
        Reg flagCarry = m.reg("flag_q_carry", 1, cd).init(0);
        // Whether the flag is offered, in a register set from the next cycle's state: it is, unless the
        // fetch waits with the other carry.
        Reg flagShown = m.reg("flag_shown", 1, cd).init(0);
        Signal flagFire = m.wire("flag_fire", 1);
        flagFire.set(flagShown.and(io.flag().ready()));
        Signal flagLoad = m.wire("flag_load", 1);
        // A completed ID waits for its flag: from the pointers of the cycle before (a load sets
        // flag_q_valid for the cycle after, and completed_ptr only moves away from flagged_ptr).
        Reg owed = m.reg("flag_owed", 1, cd).init(0);
        owed.set(fPtr.ne(cPtr));
        flagLoad.set(owed.and(flagValid.not()));
        Signal flagSum = m.wire("flag_low_sum", sb + 1);
        flagSum.set(rcBase.bits(sb - 1, 0).zext(sb + 1).plus(ring.readAsync(fPtr.trunc(ra)).zext(sb + 1).shl(2)));
        m.when(flagLoad, () -> {
            flagLow.set(flagSum.bits(sb - 1, 0));
            flagCarry.set(flagSum.bit(sb));
            fPtr.set(fPtr.plus(1));
        });
        flagValid.set(flagLoad.or(flagValid.and(flagFire.not())));
        Expr handIn = out.fire().and(flagLoad.not());
        Expr handOut = flagLoad.and(out.fire().not());
        held.set(held.upDownSelected(out.fire(), flagLoad));
        room.set(Expr.mux(room, held.eq(places - 2).and(handIn).not(), handOut));
        // The carry into the RC base's high bits in a register of its own, set from what the fetch
        // and the flag registers take in the same cycle: the fetch's from fetch_finish (its low sum
        // was taken the cycle before) while it waits, else the flag's, so the adder starts at
        // flip-flops alone.
        Reg highCarry = m.reg("rc_high_carry", 1, cd).init(0);
        Signal fetchWaits = m.wire("fetch_waits", 1);
        fetchWaits.set(finish.or(fetchValid.and(io.fetch().fire().not())));
        highCarry.set(Expr.mux(fetchWaits, srcLowQ.bit(sb - 5), flagCarry));
        flagShown.set(flagValid.and(flagFire.not()).and(fetchWaits.not()));
        high.set(rcHigh.plus(highCarry.zext(hb)).bits(hb - 1, 0));
        io.flag().valid().set(flagShown);
        io.flag().data().set(Expr.cat(high, flagLow));

        // ---- DIAG: the events a cycle later, from registers of what raises them (a beat's checks
        // apart from whether it was taken); a write drops those of the cycle before it, as it clears
        // those that came earlier
        Reg diag = m.reg("diag", 8, cd).init(0);
        Reg seen = m.reg("diag_seen", 6, cd).init(0);
        seen.set(Expr.cat(io.hsValid().and(complete).and(hsAborted), io.fetchDone().and(report.not()).or(io.misrouted()),
                io.hsValid().and(complete.not()), report.and(io.fetchFailed()), io.dts().write(), write[4].and(ptrOk.not())));
        Reg beatTaken = m.reg("diag_beat_taken", 1, cd).init(0);
        beatTaken.set(take);
        Reg beatReserved = m.reg("diag_beat_reserved", 1, cd).init(0);
        beatReserved.set(reservedSet);
        // an entry's own ID field, kept beside it in the store, against the ID it goes to the mover with
        Reg idMismatch = m.reg("diag_entry_id", 1, cd).init(0);
        idMismatch.set(out.fire().and(HdlWords.get(head, ew, "id").ne(outId.zext(7))));
        Expr diagEvents = Expr.cat(seen.bits(5, 2), beatTaken.and(beatReserved), idMismatch,
                seen.bit(1).and(beatTaken.not()), seen.bit(0));
        diag.set(Expr.mux(write[8], m.lit(0, 8), diag.or(diagEvents)));
        Expr diagWord = HdlWords.pack(m, DIAG, Map.of("bad_last_ptr", diag.bit(0), "stray_dts", diag.bit(1), "entry_id", diag.bit(2),
                "entry_reserved", diag.bit(3), "fetch_failed", diag.bit(4), "stray_status", diag.bit(5),
                "stray_fetch_status", diag.bit(6), "host_aborted", diag.bit(7), "busy", busy));

        // ---- what only this side holds, for reading back
        r.lastPtr().set(lastPtr);
        r.tableSize().set(tableSize);
        r.diag().set(diagWord);
        r.lastStatus().set(lastStatus);
    }
}
