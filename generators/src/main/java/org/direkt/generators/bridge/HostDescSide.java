// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.List;
import java.util.Map;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.generators.fifo.SyncFifo;
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
 *     (RC base + 0x200 + 32 (base + k)) into the DTS agent's word {@code base + k} (EP base +
 *     32 (base + k)). {@code base} starts at 0, is set back to 0 by a write of EP FIFO base (low)
 *     and after a batch ending at TABLE_SIZE, and otherwise moves on by each batch's size: so host
 *     software that rewrites the EP base before each LAST_PTR (the a10_ref drivers do) has its
 *     batch's entries at the table's start, whatever their IDs, as Intel's controller reads them.</li>
 * <li>The DTS agent takes every beat (no waitrequest; bursts by burstcount); a beat counts only at
 *     the word the batch expects next, so an entry goes to the mover only after its own beat
 *     arrived, and a beat of nothing expected is dropped (DIAG.stray_dts).</li>
 * <li>Entries go to the mover in ID order, each once, with the controller's ID for it (the entry's
 *     own ID field is compared, DIAG.entry_id; its reserved bits must be 0, DIAG.entry_reserved).</li>
 * <li>Completion: a host status counts only when it names the oldest ID handed to the mover and not
 *     yet completed (the movers complete in order); then that ID's flag is written once, in the
 *     order the IDs were handed over. Any other status writes nothing (DIAG.stray_status).</li>
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
    public record Params(Bridge.Direction side, int entries, int fetchId) {
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

    /** Register access: a write strobe and read data by index (the parent registers the read). */
    public record Regs(Signal we, Signal index, Signal wdata, Signal rdata) {
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

    /** The DTS agent's address bits: 0x2000 bytes of 256-bit words. */
    public static final int DTS_ADDRESS_BITS = 8;
    /** Beats a DTS burst may have at most (burstcount 1..16). */
    public static final int DTS_BURSTCOUNT_BITS = 5;

    /**
     * An entry as it waits for the mover: the mover descriptor's addresses and length. Its ID is the
     * batch's first plus the entries handed over before it (the store holds one batch at a time).
     */
    static final Layout.Word ENTRY = new Layout.Word("host_entry", 146, List.of(
            new Layout.Field("src", 0, 64, "source address"),
            new Layout.Field("dst", 64, 64, "destination address"),
            new Layout.Field("dwords", 128, 18, "length in dwords")));

    @Override
    public String moduleName(Params p) {
        return "direkt_host_desc_" + p.side().tag() + "_e" + p.entries() + "_f" + p.fetchId();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int db = Layout.MOVER_DESC.bits();
        return new Io(new Regs(at.in("reg_we", 1, cd), at.in("reg_index", INDEX_BITS, cd), at.in("reg_wdata", 32, cd),
                at.out("reg_rdata", 32, cd)),
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
        Reg epLo = m.reg("ep_base_lo", 32, cd).init(0);
        Reg epHi = m.reg("ep_base_hi", 32, cd).init(0);
        Reg lastPtr = m.reg("last_ptr", 8, cd).init(0xFF);
        Reg tableSize = m.reg("table_size", w, cd).init(e - 1);
        Reg control = m.reg("control", 32, cd).init(0);
        Reg intControl = m.reg("int_control", 32, cd).init(0);
        Reg lastStatus = m.reg("last_host_status", Layout.MOVER_STATUS.bits(), cd).init(0);
        Expr[] write = new Expr[REGISTERS.size()];
        for (int i = 0; i < write.length; i++) {
            write[i] = r.we().and(r.index().eq(i));
        }
        m.when(write[0], () -> rcLo.set(wd));
        m.when(write[1], () -> rcHi.set(wd));
        m.when(write[2], () -> epLo.set(wd));
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
        m.when(write[6], () -> control.set(wd));
        m.when(write[7], () -> intControl.set(wd));
        Expr rcBase = Expr.cat(rcHi, rcLo);
        Expr epBase = Expr.cat(epHi, epLo);

        // ---- batches: the IDs after prev up to LAST_PTR, one batch at a time
        Reg prev = m.reg("prev_id", 8, cd).init(0xFF);
        Reg fetchIdx = m.reg("fetch_index", w, cd).init(0);
        Reg busy = m.reg("busy", 1, cd).init(0);
        Reg first = m.reg("first_id", w, cd).init(0);
        Reg count = m.reg("count", w + 1, cd).init(0);
        Reg base = m.reg("fetch_base", w, cd).init(0);
        Reg endsTable = m.reg("ends_table", 1, cd).init(0);
        Reg arrived = m.reg("arrived", w + 1, cd).init(0);
        Reg issued = m.reg("issued", w + 1, cd).init(0);
        Reg reported = m.reg("fetch_reported", 1, cd).init(0);
        Reg failed = m.reg("fetch_failed_q", 1, cd).init(0);
        Reg fetchValid = m.reg("fetch_pending", 1, cd).init(0);
        Reg fetchDesc = m.reg("fetch_desc", Layout.MOVER_DESC.bits(), cd);

        // A LAST_PTR equal to prev, or beyond a TABLE_SIZE written smaller since, asks for nothing.
        // LAST_PTR != prev and LAST_PTR <= TABLE_SIZE as registers, from the values those take next
        // (set below), so that a batch's start is a gate of flip-flops ahead of its wide fan-out.
        Reg differs = m.reg("ptr_differs", 1, cd).init(0);
        Reg inTable = m.reg("ptr_in_table", 1, cd).init(0);
        Signal pending = m.wire("pending", 1);
        pending.set(requested.and(differs).and(inTable));
        Signal restart = m.wire("restart", 1);
        restart.set(prev.eq(0xFF).or(prev.ge(tableEnd)));
        Signal startId = m.wire("start_id", w);
        startId.set(Expr.mux(restart, m.lit(0, w), prev.plus(1).bits(w - 1, 0)));
        Signal endId = m.wire("end_id", w);
        endId.set(Expr.mux(restart.not().and(lastPtr.le(prev)), tableSize, lastPtr.bits(w - 1, 0)));
        Signal size = m.wire("size", w + 1);
        size.set(endId.zext(w + 1).minus(startId.zext(w + 1)).plus(1));
        Signal start = m.wire("start", 1);
        start.set(busy.not().and(pending));
        // One 64-bit sum each: the table's entries start 0x200 after its status words.
        int ob = Math.max(w + 5, 9) + 1;
        Expr offset = fetchIdx.zext(ob).shl(5);
        Expr fetchWord = HdlWords.pack(m, Layout.MOVER_DESC, Map.of(
                "src", rcBase.plus(offset.plus(m.lit(0x200, ob)).zext(64)),
                "dst", epBase.plus(offset.zext(64)),
                "dwords", size.zext(18).shl(3),
                "id", m.lit(p.fetchId(), 8)));

        // ---- the DTS agent: beat addresses from bursts; a beat counts only at the word expected next
        Reg burstLeft = m.reg("burst_left", DTS_BURSTCOUNT_BITS, cd).init(0);
        Reg beatNext = m.reg("beat_next", DTS_ADDRESS_BITS, cd).init(0);
        Signal beat = m.wire("beat_address", DTS_ADDRESS_BITS);
        beat.set(Expr.mux(burstLeft.eq(0), io.dts().address(), beatNext));
        Expr bc = io.dts().burstcount();
        m.when(io.dts().write(), () -> {
            burstLeft.set(Expr.mux(burstLeft.eq(0), Expr.mux(bc.eq(0), bc, bc.minus(1)), burstLeft.minus(1)));
            beatNext.set(beat.plus(1));
        });
        Layout.Word ew = ENTRY;
        SyncFifo.Io store = m.sub("u_entries", new SyncFifo(),
                SyncFifo.Params.of(ew.bits(), e).withRegisteredOutput(true).withRegisteredFlags(true).withoutFill())
                .clock(cd).io();
        // the DTS word the batch's next entry lands in: base + arrived, kept in a register
        Reg expected = m.reg("expected", DTS_ADDRESS_BITS, cd).init(0);
        Signal take = m.wire("take", 1);
        take.set(io.dts().write().and(busy).and(arrived.ne(count)).and(beat.eq(expected)).and(store.s().ready()));
        Expr entry = io.dts().writedata();
        Signal entryId = m.wire("entry_id", w);
        entryId.set(first.plus(arrived.bits(w - 1, 0)));
        store.s().valid().set(take);
        store.s().data().set(HdlWords.pack(m, ew, Map.of("src", entry.bits(63, 0), "dst", entry.bits(127, 64),
                "dwords", entry.bits(145, 128))));
        m.when(take, () -> {
            arrived.set(arrived.plus(1));
            expected.set(expected.plus(1));
        });
        // control dword [24:18] is the entry's ID; [31:25] and dwords 5..7 are reserved
        Expr idMismatch = entry.bits(152, 146).ne(entryId.zext(7));
        Expr reservedSet = entry.bits(255, 153).orR();

        // ---- IDs handed to the mover, in order: issued (w), completed (c), flagged (f)
        Memory ring = m.memory("handed_ids", w, e, cd);
        Reg wPtr = m.reg("handed_ptr", w + 1, cd).init(0);
        Reg cPtr = m.reg("completed_ptr", w + 1, cd).init(0);
        Reg fPtr = m.reg("flagged_ptr", w + 1, cd).init(0);
        // Room in a register: fewer than entries - 1 IDs handed over and not yet taken for their flag
        // a cycle before (one hand-over a cycle at most, so never more than the ring holds); the last
        // place waits for a flag, a cycle of stall only when a whole table is in flight.
        Reg room = m.reg("ring_room", 1, cd).init(1);
        room.set(wPtr.minus(fPtr).lt(m.lit(e - 1, w + 1)));
        Stream out = io.entry();
        Expr head = store.m().data();
        Signal outId = m.wire("out_id", w);
        outId.set(first.plus(issued.bits(w - 1, 0)));
        out.valid().set(store.m().valid().and(room));
        out.data().set(HdlWords.pack(m, Layout.MOVER_DESC, Map.of("src", HdlWords.get(head, ew, "src"),
                "dst", HdlWords.get(head, ew, "dst"), "dwords", HdlWords.get(head, ew, "dwords"), "id", outId.zext(8))));
        store.m().ready().set(out.ready().and(room));
        ring.write(wPtr.trunc(w), outId, out.fire());
        m.when(out.fire(), () -> {
            wPtr.set(wPtr.plus(1));
            issued.set(issued.plus(1));
        });

        // ---- the fetch and its status
        io.fetch().valid().set(fetchValid);
        io.fetch().data().set(fetchDesc);
        m.when(io.fetch().fire(), () -> fetchValid.set(0));
        Signal report = m.wire("fetch_report", 1);
        report.set(io.fetchDone().and(busy).and(fetchValid.not()).and(reported.not()));
        m.when(report, () -> {
            reported.set(1);
            failed.set(io.fetchFailed());
        });
        // Aborted: what arrived goes on; the rest of the batch is given up.
        Signal done = m.wire("batch_done", 1);
        done.set(busy.and(reported).and(issued.eq(count).or(failed.and(issued.eq(arrived)))));
        m.when(start, () -> {
            busy.set(1);
            fetchValid.set(1);
            fetchDesc.set(fetchWord);
            first.set(startId);
            count.set(size);
            base.set(fetchIdx);
            expected.set(fetchIdx.zext(DTS_ADDRESS_BITS));
            endsTable.set(endId.eq(tableSize));
            arrived.set(0);
            issued.set(0);
            reported.set(0);
            failed.set(0);
        });
        // A batch ending at TABLE_SIZE before LAST_PTR (the IDs wrap) leaves the request for the rest.
        m.when(busy.not(), () -> requested.set(requested.and(pending)));
        m.when(start, () -> requested.set(endId.ne(lastPtr.bits(w - 1, 0))));
        m.when(write[4].and(ptrOk), () -> requested.set(1));
        Signal prevDone = m.wire("prev_done", 8);
        prevDone.set(Expr.mux(endsTable, m.lit(0xFF, 8), first.plus(count.bits(w - 1, 0)).minus(1).zext(8)));
        Expr prevNext = Expr.mux(done, prevDone, prev);
        Expr lastNext = Expr.mux(write[4].and(ptrOk), wd.bits(7, 0), lastPtr);
        Expr tableNext = Expr.mux(write[5], wd.bits(w - 1, 0), tableSize);
        differs.set(lastNext.ne(prevNext));
        inTable.set(lastNext.le(tableNext.zext(8)));
        m.when(done, () -> {
            busy.set(0);
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
        Expr cNext = cPtr.plus(1);
        m.when(complete, () -> {
            cPtr.set(cNext);
            cHead.set(Expr.mux(cNext.eq(wPtr), outId, ring.readAsync(cNext.trunc(w))));
        }).elseWhen(cPtr.eq(wPtr), () -> cHead.set(outId));
        m.when(io.hsValid(), () -> lastStatus.set(io.hsData()));
        Expr hsAborted = HdlWords.get(io.hsData(), Layout.MOVER_STATUS, "aborted")
                .or(HdlWords.get(io.hsData(), Layout.MOVER_STATUS, "flushed"));
        // The next flag's ID waits in a register (the ring's read off the flag host's path):
        // flagged_ptr counts the IDs taken into it.
        Reg flagValid = m.reg("flag_q_valid", 1, cd).init(0);
        Reg flagId = m.reg("flag_q_id", w, cd).init(0);
        Signal flagLoad = m.wire("flag_load", 1);
        flagLoad.set(fPtr.ne(cPtr).and(flagValid.not().or(io.flag().ready())));
        m.when(flagLoad, () -> {
            flagId.set(ring.readAsync(fPtr.trunc(w)));
            fPtr.set(fPtr.plus(1));
        });
        flagValid.set(flagLoad.or(flagValid.and(io.flag().ready().not())));
        io.flag().valid().set(flagValid);
        io.flag().data().set(rcBase.plus(flagId.zext(64).shl(2)));

        // ---- DIAG
        Reg diag = m.reg("diag", 8, cd).init(0);
        Expr events = Expr.cat(io.hsValid().and(complete).and(hsAborted),
                io.fetchDone().and(report.not()).or(io.misrouted()),
                io.hsValid().and(complete.not()),
                report.and(io.fetchFailed()),
                take.and(reservedSet),
                take.and(idMismatch),
                io.dts().write().and(take.not()),
                write[4].and(ptrOk.not()));
        diag.set(Expr.mux(write[8], m.lit(0, 8), diag).or(events));
        Expr diagWord = HdlWords.pack(m, DIAG, Map.of("bad_last_ptr", diag.bit(0), "stray_dts", diag.bit(1), "entry_id", diag.bit(2),
                "entry_reserved", diag.bit(3), "fetch_failed", diag.bit(4), "stray_status", diag.bit(5),
                "stray_fetch_status", diag.bit(6), "host_aborted", diag.bit(7), "busy", busy));

        // ---- read data by index
        List<Expr> values = List.of(rcLo, rcHi, epLo, epHi, lastPtr.zext(32), tableSize.zext(32), control, intControl, diagWord,
                lastStatus);
        Expr rd = m.lit(0, 32);
        for (int i = values.size() - 1; i >= 0; i--) {
            rd = Expr.mux(r.index().eq(i), values.get(i), rd);
        }
        r.rdata().set(rd);
    }
}
