// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.generators.Names;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;
import org.direkt.hdl.WhenChain;

/**
 * The bridge's Avalon-MM agent (32-bit data, word addresses, read latency 2, no wait states): the
 * address-window table, the event counters (a {@link CounterBank}, when generated), the last error
 * and the configuration, at the offsets of {@link Layout#csrMap}. Every window is closed after
 * reset. A window's SIZE write also loads its compare mask (address bits from SIZE up), decoded
 * once from the written value for all windows, so the checks read a ready mask.
 */
public final class BridgeCsr extends Unit<BridgeCsr.Params, BridgeCsr.Io> {

    public record Params(Bridge.Params bridge) {
    }

    /**
     * What one direction reports: its events (all, or only "rejected" without counters), last error
     * code, levels, and with the bring-up registers its last channel word and mover status (else null).
     */
    public record Direction(Map<String, Signal> events, Signal error, Signal outstanding, Signal hostBuffered,
            Signal lastDesc, Signal lastMoverStatus) {
    }

    /**
     * With regions addressing, the tables' write ports (both directions' walkers take the same
     * writes), the region read-back, and what the walkers tell: that the page write offered in the
     * cycle before lands in a walk's range ({@code ptConflict}, from their registers: neither writes
     * it), the selected region busy.
     */
    public record Regions(Signal ptWe, Signal ptAddr, Signal ptData, Signal ptConflict, Signal rgWe, Signal rgIdx, Signal rgData,
            Signal rgOpen, Signal rgReadIdx, Signal rgReadData, Signal rgReadBusy) {
    }

    /** The window signals are null with regions addressing, {@code regions} null without. */
    public record Io(Signal address, Signal read, Signal write, Signal writedata, Signal readdata, Signal readdatavalid,
            Signal winBase, Signal winMask, Signal winAllowRd, Signal winAllowWr, List<Direction> directions, Regions regions) {
    }

    /** Address bits: enough for the last window register. */
    public static int addressWidth(int windowEntries) {
        return Check.indexWidth(Layout.CSR_WINDOW_OFFSET + Layout.CSR_WINDOW_STRIDE * windowEntries);
    }

    /** Address bits of bridge {@code b}'s CSR: enough for the last window register, or the last region register. */
    public static int addressWidth(Bridge.Params b) {
        return b.regionsAddressing() ? Check.indexWidth(Layout.CSR_REGION_OFFSET + Layout.CSR_REGION_REGS.size())
                : addressWidth(b.windowEntries());
    }

    /** The register map of bridge {@code b}. */
    public static List<Layout.CsrReg> map(Bridge.Params b) {
        return Layout.csrMap(b.windowEntries(), b.counters(), b.bringup(), b.regionsAddressing());
    }

    /**
     * The events a direction reports to the CSR: all of them with counters; without, the rejections
     * (for LAST_ERROR) and the two that must never happen (for ALARMS).
     */
    static List<String> events(Bridge.Params b) {
        List<String> alarms = List.of("overflow", "host_overflow");
        if (!b.counters()) {
            return java.util.stream.Stream.concat(java.util.stream.Stream.of("rejected"), alarms.stream()).toList();
        }
        return java.util.stream.Stream.concat(Layout.CSR_EVENTS.stream(), alarms.stream()).toList();
    }

    /**
     * The bridge parameters the CSR's contents depend on: the window table, the counters, the
     * OUTSTANDING width, and what the CONFIG and FPGA_MEM registers report.
     */
    static final List<String> SETTINGS = List.of("windows", "inflight", "counters", "id_mode", "status_mode", "sync_stages",
            "fpga_mem", "word_order", "bringup", "addressing", "region_pages", "regions");

    /** What the CONFIG register reports, field by field ({@link Layout#CSR_CONFIG}). */
    public static Map<String, Long> configFields(Bridge.Params b) {
        Map<String, Long> f = new LinkedHashMap<>();
        f.put("window_entries", b.regionsAddressing() ? 0L : (long) b.windowEntries());
        f.put("inflight", (long) b.inflight());
        f.put("paper_ids", b.idMode() == BridgeModes.IdMode.PAPER ? 1L : 0L);
        f.put("cycles_status", b.statusMode() == BridgeModes.StatusMode.CYCLES ? 1L : 0L);
        f.put("x0_high", b.wordOrder() == BridgeModes.WordOrder.X0_HIGH ? 1L : 0L);
        f.put("sync_stages", (long) b.syncStages());
        f.put("counters", b.counters() ? 1L : 0L);
        f.put("bringup", b.bringup() ? 1L : 0L);
        f.put("regions", b.regionsAddressing() ? 1L : 0L);
        return f;
    }

    /**
     * What register {@code r} reads right after reset: the constants (MAGIC, VERSION, CONFIG,
     * FPGA_MEM_*), 1 MB in every window's SIZE, and 0 everywhere else (windows closed, counters,
     * levels, errors, alarms). A write-only register reads 0. Null for the bring-up registers
     * (LAST_DESC_*, LAST_MOVER_STATUS): a reset keeps what they hold, so that what led to it can be
     * read after it; they read 0 from power-up until the first descriptor or status.
     */
    public static Long resetValue(Layout.CsrReg r, Bridge.Params b) {
        if (keptThroughReset(r)) {
            return null;
        }
        if (r.name().matches("WIN\\d+_SIZE")) {
            return Layout.resolve(Layout.CSR_WINDOW_SIZE).pack(Map.of("log2", Layout.WINDOW_MIN_LOG2)).longValueExact();
        }
        return switch (r.name()) {
            case "MAGIC" -> Layout.CSR_MAGIC;
            case "VERSION" -> (long) Layout.VERSION;
            case "CONFIG" -> Layout.resolve(Layout.CSR_CONFIG).pack(configFields(b)).longValueExact();
            case "FPGA_MEM_LO" -> b.fpgaMemBytes() & 0xFFFF_FFFFL;
            case "FPGA_MEM_HI" -> b.fpgaMemBytes() >>> 32;
            default -> 0L;
        };
    }

    /** The bring-up registers: a reset leaves them as they are. */
    public static boolean keptThroughReset(Layout.CsrReg r) {
        return r.name().matches("(RD|WR)_LAST_(DESC_\\d+|MOVER_STATUS)");
    }

    /** The windows, the descriptors in flight and the counters, then a hash ({@link Names#hashed}) of {@link #SETTINGS}. */
    @Override
    public String moduleName(Params p) {
        Bridge.Params b = p.bridge();
        String tables = b.regionsAddressing() ? "r" + b.regions() + "_p" + b.regionPages() : "e" + b.windowEntries();
        return Names.hashed("direkt_bridge_csr_" + tables + "_n" + b.inflight() + (b.counters() ? "" : "_nc"),
                BridgeParam.canonical(b, d -> SETTINGS.contains(d.name())));
    }

    @Override
    protected Io ports(Ports at, Params p) {
        Bridge.Params b = p.bridge();
        ClockDomain cd = at.domain(Domains.MAIN);
        int e = b.windowEntries();
        Signal address = at.in("csr_address", addressWidth(b), cd);
        Signal read = at.in("csr_read", 1, cd);
        Signal write = at.in("csr_write", 1, cd);
        Signal writedata = at.in("csr_writedata", 32, cd);
        Signal readdata = at.out("csr_readdata", 32, cd);
        Signal readdatavalid = at.out("csr_readdatavalid", 1, cd);
        boolean raw = !b.regionsAddressing();
        Signal base = raw ? at.out("win_base", WindowCheck.BITS * e, cd) : null;
        Signal mask = raw ? at.out("win_mask", WindowCheck.MASK_BITS * e, cd) : null;
        Signal allowRd = raw ? at.out("win_allow_rd", e, cd) : null;
        Signal allowWr = raw ? at.out("win_allow_wr", e, cd) : null;
        Regions regions = null;
        if (!raw) {
            RegionWalker.Params w = b.walker(BridgeModes.Direction.RD);
            regions = new Regions(at.out("pt_we", 1, cd), at.out("pt_addr", w.entryBits(), cd),
                    at.out("pt_data", Layout.PAGE_ENTRY.bits(), cd), at.in("pt_conflict", 1, cd), at.out("rg_we", 1, cd),
                    at.out("rg_idx", w.regionBits(), cd), at.out("rg_data", Layout.REGION_ENTRY.bits(), cd), at.out("rg_open", 1, cd),
                    at.out("rg_read_idx", w.regionBits(), cd), at.in("rg_read_data", Layout.REGION_ENTRY.bits(), cd),
                    at.in("rg_read_busy", 1, cd));
        }
        int ow = outstandingBits(b);
        List<Direction> dirs = new ArrayList<>();
        for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
            String t = d.tag();
            Map<String, Signal> ev = new LinkedHashMap<>();
            for (String name : events(b)) {
                ev.put(name, at.in(t + "_ev_" + name, 1, cd));
            }
            dirs.add(new Direction(ev, at.in(t + "_ev_error", 4, cd), at.in(t + "_outstanding", ow, cd),
                    at.in(t + "_host_buffered", 3, cd),
                    b.bringup() ? at.in(t + "_last_desc", Layout.CLDESC.bits(), cd) : null,
                    b.bringup() ? at.in(t + "_last_mover_status", Layout.MOVER_STATUS.bits(), cd) : null));
        }
        return new Io(address, read, write, writedata, readdata, readdatavalid, base, mask, allowRd, allowWr, dirs, regions);
    }

    /** Bits of a direction's OUTSTANDING count: the credit counter's, or the region walker's statuses owed. */
    static int outstandingBits(Bridge.Params b) {
        return b.regionsAddressing() ? Check.indexWidth(b.walker(BridgeModes.Direction.RD).statusDepth() + 1)
                : new Credits.Params(b.inflight(), b.statusFifoDepth()).countBits();
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        Bridge.Params b = p.bridge();
        int e = b.windowEntries();
        m.doc("Bridge CSR: " + e + " address windows (closed after reset), " + (b.counters() ? "event counters, " : "")
                + "last error. Avalon-MM agent, 32-bit, word addresses, read latency 2.");
        ClockDomain cd = Domains.MAIN;
        Signal address = io.address();
        Signal write = io.write();
        Signal writedata = io.writedata();
        Map<Integer, Expr> readable = new TreeMap<>();
        // registers read in the read port's second cycle (a region entry, stored the cycle after its write)
        Map<Integer, Expr> late = new TreeMap<>();

        if (b.regionsAddressing()) {
            regionRegisters(m, b, io, readable, late);
        } else {
            windows(m, b, io, readable);
        }

        // ---- per direction: levels, last error, counters
        Reg lastError = m.reg("last_error", 32, cd).init(0);
        Layout.Word le = Layout.CSR_LAST_ERROR;
        List<Direction> dirs = io.directions();
        for (int d = 0; d < dirs.size(); d++) {
            int block = Layout.csrBlock(d);
            int cw = Layout.resolve(Layout.CSR_LEVEL).field("count").width();
            readable.put(block + Layout.CSR_OUTSTANDING_INDEX,
                    HdlWords.pack(m, Layout.CSR_LEVEL, Map.of("count", dirs.get(d).outstanding().zext(cw))));
            readable.put(block + Layout.CSR_HOST_BUFFERED_INDEX,
                    HdlWords.pack(m, Layout.CSR_LEVEL, Map.of("count", dirs.get(d).hostBuffered().zext(cw))));
        }
        // The bring-up registers: both directions' last channel words (a block, one mux on the
        // address's low bits) and last mover statuses, beside the register chain, registered on
        // their own and picked in the second cycle.
        Bringup bringup = b.bringup() ? bringupRead(m, dirs, address) : null;
        Signal bringupWord = bringup == null ? null : bringup.word();
        Expr inBringup = bringup == null ? null : bringup.selected();
        m.when(write.and(address.eq(Layout.CSR_LAST_ERROR_OFFSET)), () -> lastError.set(0))
                .elseWhen(dirs.get(1).events().get("rejected"), () -> lastError.set(HdlWords.pack(m, le,
                        Map.of("code", dirs.get(1).error(), "wr", m.lit(1, 1), "valid", m.lit(1, 1)))))
                .elseWhen(dirs.get(0).events().get("rejected"), () -> lastError.set(HdlWords.pack(m, le,
                        Map.of("code", dirs.get(0).error(), "wr", m.lit(0, 1), "valid", m.lit(1, 1)))));

        Reg alarms = m.reg("alarms", 32, cd).init(0);
        Layout.Word al = Layout.CSR_ALARMS;
        Map<String, Expr> raised = new LinkedHashMap<>();
        for (int d = 0; d < dirs.size(); d++) {
            String t = BridgeModes.Direction.values()[d].tag();
            raised.put(t + "_overflow", dirs.get(d).events().get("overflow"));
            raised.put(t + "_host_overflow", dirs.get(d).events().get("host_overflow"));
        }
        Expr alarmNow = HdlWords.pack(m, al, raised);
        m.when(write.and(address.eq(Layout.CSR_ALARMS_OFFSET)), () -> alarms.set(0))
                .otherwise(() -> alarms.set(alarms.or(alarmNow)));
        readable.put(Layout.CSR_ALARMS_OFFSET, alarms);

        Counters bank = b.counters() ? counters(m, dirs, address, write, writedata) : null;
        Expr counterRead = bank == null ? null : bank.selected();
        Signal counterValue = bank == null ? null : bank.value();

        // ---- constants
        Layout.Word cfg = Layout.CSR_CONFIG;
        Map<String, Expr> cfgFields = new LinkedHashMap<>();
        configFields(b).forEach((f, v) -> cfgFields.put(f, m.lit(v, Layout.resolve(cfg).field(f).width())));
        readable.put(Layout.CSR_MAGIC_OFFSET, m.lit(Layout.CSR_MAGIC, 32));
        readable.put(Layout.CSR_VERSION_OFFSET, m.lit(Layout.VERSION, 32));
        readable.put(Layout.CSR_CONFIG_OFFSET, HdlWords.pack(m, cfg, cfgFields));
        readable.put(Layout.CSR_FPGA_MEM_LO_OFFSET, m.lit(b.fpgaMemBytes() & 0xFFFF_FFFFL, 32));
        readable.put(Layout.CSR_FPGA_MEM_HI_OFFSET, m.lit(b.fpgaMemBytes() >>> 32, 32));
        readable.put(Layout.CSR_LAST_ERROR_OFFSET, lastError);

        // ---- read port, Layout.CSR_READ_LATENCY = 2: the first cycle selects a register (a counter's
        // two parts are registered in the bank), the second adds a counter's parts and drives the data.
        Reg rdata1 = m.reg("readdata1_q", 32, cd).init(0);
        Reg rvalid1 = m.reg("readdatavalid1_q", 1, cd).init(0);
        Reg fromBank = counterRead == null ? null : m.reg("read_counter_q", 1, cd).init(0);
        Reg fromBringup = bringupWord == null ? null : m.reg("read_bringup_q", 1, cd).init(0);
        Reg bringupData = bringupWord == null ? null : m.reg("bringup_data_q", 32, cd).powerUp(0).enableWhen(io.read());
        Reg rdata = m.reg("readdata_q", 32, cd).init(0);
        Reg rvalid = m.reg("readdatavalid_q", 1, cd).init(0);
        rvalid1.set(io.read());
        rvalid.set(rvalid1);
        Expr inCounters = counterRead;
        Reg fromLate = late.isEmpty() ? null : m.reg("read_late_q", 1, cd).init(0);
        Reg lateIndex = late.size() < 2 ? null : m.reg("read_late_index_q", Check.indexWidth(late.size()), cd).init(0);
        List<Integer> lateAt = new ArrayList<>(late.keySet());
        m.when(io.read(), () -> {
            if (fromLate != null) {
                Expr hit = m.lit(0, 1);
                Expr index = lateIndex == null ? null : m.lit(0, lateIndex.width());
                for (int i = 0; i < lateAt.size(); i++) {
                    hit = hit.or(address.eq(lateAt.get(i)));
                    if (index != null) {
                        index = Expr.mux(address.eq(lateAt.get(i)), m.lit(i, lateIndex.width()), index);
                    }
                }
                fromLate.set(hit);
                if (lateIndex != null) {
                    lateIndex.set(index);
                }
            }
            WhenChain chain = null;
            for (Map.Entry<Integer, Expr> r : readable.entrySet()) {
                Runnable body = () -> rdata1.set(r.getValue());
                chain = chain == null ? m.when(address.eq(r.getKey()), body) : chain.elseWhen(address.eq(r.getKey()), body);
            }
            chain.otherwise(() -> rdata1.set(0));
            if (fromBank != null) {
                fromBank.set(inCounters);
            }
        });
        Signal counters = counterValue;
        Expr chosen = counters == null ? rdata1 : Expr.mux(fromBank, counters, rdata1);
        if (fromBringup != null) {
            Expr in = inBringup;
            m.when(io.read(), () -> fromBringup.set(in));
            bringupData.set(bringupWord);
            chosen = Expr.mux(fromBringup, bringupData, chosen);
        }
        if (fromLate != null) {
            List<Expr> lateValues = new ArrayList<>(late.values());
            chosen = Expr.mux(fromLate, lateIndex == null ? lateValues.getFirst() : org.direkt.generators.Bits.select(lateValues, lateIndex), chosen);
        }
        rdata.set(chosen);
        io.readdata().set(rdata);
        io.readdatavalid().set(rvalid);
    }

    /** The bring-up registers' read word ({@code bringup_word}) and whether the address selects one. */
    private record Bringup(Signal word, Expr selected) {
    }

    /**
     * The bring-up registers: both directions' last channel words (a block, one mux on the address's low
     * bits) and last mover statuses, beside the register chain.
     */
    private static Bringup bringupRead(ModuleBuilder m, List<Direction> dirs, Signal address) {
        List<Expr> words = new ArrayList<>();
        int wb = Layout.CLDESC_WORD_BITS;
        for (Direction dir : dirs) {
            for (int i = 0; i < Layout.CSR_LAST_DESC_REGS; i++) {
                words.add(dir.lastDesc().bits(wb * i + wb - 1, wb * i));
            }
        }
        int ib = Check.indexWidth(words.size());
        int blockAt = Layout.CSR_LAST_DESC_OFFSET;
        if (blockAt % words.size() != 0) {
            throw new IllegalStateException("the bring-up block at " + blockAt + " is not aligned to its " + words.size() + " registers");
        }
        Expr inDescBlock = address.bits(address.width() - 1, ib).eq(blockAt >> ib);
        int[] statusAt = new int[dirs.size()];
        for (int d = 0; d < dirs.size(); d++) {
            statusAt[d] = Layout.csrBlock(d) + Layout.CSR_LAST_MOVER_STATUS_INDEX;
        }
        // Two status registers: one address bit where their offsets differ tells them apart.
        int differ = Integer.numberOfTrailingZeros(statusAt[0] ^ statusAt[1]);
        Expr wrStatus = ((statusAt[1] >> differ) & 1) == 1 ? address.bit(differ) : address.bit(differ).not();
        Expr status = Expr.mux(wrStatus, dirs.get(1).lastMoverStatus(), dirs.get(0).lastMoverStatus());
        Signal bringupWord = m.wire("bringup_word", 32);
        bringupWord.set(Expr.mux(inDescBlock, org.direkt.generators.Bits.select(words, address.bits(ib - 1, 0)), status));
        return new Bringup(bringupWord, inDescBlock.or(address.eq(statusAt[0])).or(address.eq(statusAt[1])));
    }

    /** The counter bank's read: whether the address is a counter's, and its value (read latency 2). */
    private record Counters(Expr selected, Signal value) {
    }

    /** The event counters: both directions' events, counted a cycle late, cleared through CONTROL. */
    private static Counters counters(ModuleBuilder m, List<Direction> dirs, Signal address, Signal write, Signal writedata) {
        ClockDomain cd = Domains.MAIN;
        int per = Layout.CSR_EVENTS.size();
        CounterBank.Params cp = new CounterBank.Params(dirs.size(), per);
        CounterBank.Io bank = m.sub("u_counters", new CounterBank(), cp).clock(cd).io();
        List<Expr> events = new ArrayList<>();
        for (int d = dirs.size() - 1; d >= 0; d--) {
            for (int i = per - 1; i >= 0; i--) {
                events.add(dirs.get(d).events().get(Layout.CSR_EVENTS.get(i)));
            }
        }
        // Counted a cycle late, from flip-flops: the events' logic all over the bridge ends here, not at
        // the pre-counters' adders. A read or a clear acts as if it came a cycle earlier.
        Reg countedEvents = m.reg("counted_events", cp.counters(), cd).init(0);
        countedEvents.set(cat(events));
        bank.events().set(countedEvents);
        bank.clear().set(write.and(address.eq(Layout.CSR_CONTROL_OFFSET)).and(HdlWords.get(writedata, Layout.CSR_CONTROL, "clear_counters")));
        // Direction d's block is 0x10 * (d + 1): the group is the block number less one, the index the low nibble.
        int ib = Check.indexWidth(per);
        Expr group = address.bits(address.width() - 1, 4).minus(1).trunc(cp.groupBits());
        bank.readAddr().set(Expr.cat(group, address.bits(ib - 1, 0)));
        Expr inBlock = m.lit(0, 1);
        for (int d = 0; d < dirs.size(); d++) {
            int block = Layout.csrBlock(d);
            inBlock = inBlock.or(address.ge(block).and(address.lt(m.lit(block + per, address.width()))));
        }
        return new Counters(inBlock, bank.readValue());
    }

    /**
     * The region registers: a page is staged in PAGE_LO / PAGE_HI and stored by the PAGE_HI write
     * at PAGE_INDEX in both walkers' tables, unless a walker is still to read that entry or it lies
     * beyond the table (then REGION_STATUS.refused is set, PAGE_INDEX stays, and later PAGE_HI writes
     * store nothing until REGION_STATUS is written); a region entry is
     * staged in REGION_SELECT / REGION_BYTES and stored by the REGION_CTRL write.
     */
    private static void regionRegisters(ModuleBuilder m, Bridge.Params b, Io io, Map<Integer, Expr> readable, Map<Integer, Expr> late) {
        ClockDomain cd = Domains.MAIN;
        Signal address = io.address();
        Signal write = io.write();
        Signal writedata = io.writedata();
        Regions rg = io.regions();
        RegionWalker.Params w = b.walker(BridgeModes.Direction.RD);
        List<String> regs = Layout.CSR_REGION_REGS;
        int at = Layout.CSR_REGION_OFFSET;
        int idxAt = at + regs.indexOf("PAGE_INDEX");
        int loAt = at + regs.indexOf("PAGE_LO");
        int hiAt = at + regs.indexOf("PAGE_HI");
        int selAt = at + regs.indexOf("REGION_SELECT");
        int bytesAt = at + regs.indexOf("REGION_BYTES");
        int ctrlAt = at + regs.indexOf("REGION_CTRL");
        int lenAt = at + regs.indexOf("REGION_LENGTH");
        int statusAt = at + regs.indexOf("REGION_STATUS");
        Layout.Word lo = Layout.CSR_PAGE_LO;
        Layout.Word ctrl = Layout.CSR_REGION_CTRL;
        Layout.Word st = Layout.CSR_REGION_STATUS;
        Layout.Word re = Layout.REGION_ENTRY;
        int loBits = Layout.resolve(lo).field("addr").width();

        Reg index = m.reg("page_index", 16, cd).init(0);
        Reg pageLo = m.reg("page_lo", loBits, cd).init(0);
        Reg select = m.reg("region_select", w.regionBits(), cd).init(0);
        Reg bytes = m.reg("region_bytes", 32, cd).init(0);
        Reg refused = m.reg("page_refused", 1, cd).init(0);
        Expr store = write.and(address.eq(hiAt));
        Expr pastTable = w.entryBits() >= 16 ? m.lit(0, 1) : index.bits(15, w.entryBits()).orR();
        // A stored page is offered to the walkers, which hold it for a cycle and write it unless it
        // lands in a walk's range (they tell so from a register: page_refuse, in the cycle after the
        // store); PAGE_INDEX steps on in that cycle when the page lands. A PAGE_HI write in that cycle
        // (two in a row, with no PAGE_LO between) is refused. From a refusal until REGION_STATUS is
        // written, PAGE_HI writes store nothing, so PAGE_INDEX names the first page that did not land
        // and no later page lands in its place.
        Reg held = m.reg("page_held", 1, cd).init(0);
        Signal refuse = m.wire("page_refuse", 1);
        refuse.set(held.and(rg.ptConflict()));
        Signal offer = m.wire("page_offer", 1);
        offer.set(store.and(pastTable.or(refused).or(held).not()));
        held.set(offer);
        m.when(write.and(address.eq(idxAt)), () -> index.set(writedata.bits(15, 0)))
                .elseWhen(held.and(refuse.not()), () -> index.set(index.plus(1)));
        m.when(write.and(address.eq(loAt)), () -> pageLo.set(HdlWords.get(writedata, lo, "addr")));
        m.when(write.and(address.eq(selAt)), () -> select.set(writedata.bits(w.regionBits() - 1, 0)));
        m.when(write.and(address.eq(bytesAt)), () -> bytes.set(writedata));
        m.when(write.and(address.eq(statusAt)), () -> refused.set(0)).elseWhen(refuse.or(store.and(offer.not())), () -> refused.set(1));
        rg.ptWe().set(offer);
        rg.ptAddr().set(index.trunc(w.entryBits()));
        rg.ptData().set(Expr.cat(writedata, pageLo));
        // The region write leaves registered (it reaches both walkers from flip-flops) with its
        // entry's "open" mark: a length, and the pages first .. first + ceil(bytes / 64 KB) - 1 inside
        // the table (ceil(bytes / 64 KB) is worked out as REGION_BYTES is written).
        int fw = Layout.resolve(re).field("first").width();
        Reg pages = m.reg("region_pages", fw + 1, cd).init(0);
        m.when(write.and(address.eq(bytesAt)), () -> pages.set(writedata.bits(31, Layout.PAGE_BITS).zext(fw + 1)
                .plus(writedata.bits(Layout.PAGE_BITS - 1, 0).orR().zext(fw + 1))));
        Reg rgWe = m.reg("region_we", 1, cd).init(0);
        Reg rgIdx = m.reg("region_we_index", w.regionBits(), cd).init(0);
        Reg rgData = m.reg("region_we_entry", re.bits(), cd).init(0);
        Reg rgOpen = m.reg("region_we_open", 1, cd).init(0);
        Expr ctrlWrite = write.and(address.eq(ctrlAt));
        Expr first = HdlWords.get(writedata, ctrl, "first");
        rgWe.set(ctrlWrite);
        m.when(ctrlWrite, () -> {
            rgIdx.set(select);
            rgData.set(HdlWords.pack(m, re, Map.of("bytes", bytes, "first", first,
                    "allow_rd", HdlWords.get(writedata, ctrl, "allow_rd"), "allow_wr", HdlWords.get(writedata, ctrl, "allow_wr"))));
            rgOpen.set(bytes.ne(0).and(first.zext(fw + 1).plus(pages).le(m.lit(w.entries(), fw + 1))));
        });
        rg.rgWe().set(rgWe);
        rg.rgIdx().set(rgIdx);
        rg.rgData().set(rgData);
        rg.rgOpen().set(rgOpen);
        rg.rgReadIdx().set(select);
        Expr entry = rg.rgReadData();
        // (a page write's outcome shows from the second cycle after it: PAGE_INDEX steps on, or
        // REGION_STATUS.refused is set, in the cycle after the write)
        readable.put(idxAt, index.zext(32));
        // (PAGE_LO, PAGE_HI and REGION_BYTES are write-only: they read 0)
        readable.put(selAt, select.zext(32));
        // (the entry's reserved bits, 0 as the CSR writes them, read back in CTRL's reserved field)
        late.put(ctrlAt, HdlWords.pack(m, ctrl, Map.of("first", HdlWords.get(entry, re, "first"),
                "allow_rd", HdlWords.get(entry, re, "allow_rd"), "allow_wr", HdlWords.get(entry, re, "allow_wr"),
                "reserved", HdlWords.get(entry, re, "reserved"))));
        late.put(lenAt, HdlWords.get(entry, re, "bytes"));
        readable.put(statusAt, HdlWords.pack(m, st, Map.of("refused", refused, "busy", rg.rgReadBusy())));
    }

    /** The window table: BASE, SIZE (with its decoded mask) and CTRL registers per window. */
    private static void windows(ModuleBuilder m, Bridge.Params b, Io io, Map<Integer, Expr> readable) {
        ClockDomain cd = Domains.MAIN;
        Signal address = io.address();
        Signal write = io.write();
        Signal writedata = io.writedata();
        int e = b.windowEntries();
        int lo = Layout.WINDOW_MIN_LOG2;
        int bits = WindowCheck.BITS;
        // A SIZE write loads the mask decoded here, once for all windows. No clamp is
        // needed: below 20 the mask keeps every bit from 20 (as 20 does), above 48 none below 48.
        int hi = Layout.WINDOW_MAX_LOG2;
        Signal sizeIn = m.wire("size_written", 6);
        sizeIn.set(HdlWords.get(writedata, Layout.CSR_WINDOW_SIZE, "log2"));
        List<Expr> maskBits = new ArrayList<>();
        for (int j = hi - 1; j >= lo; j--) {
            maskBits.add(sizeIn.le(m.lit(j, 6)));
        }
        int maskBitsWidth = WindowCheck.MASK_BITS;
        Signal maskIn = m.wire("mask_written", maskBitsWidth);
        maskIn.set(Expr.cat(maskBits.toArray(Expr[]::new)));
        List<Expr> bases = new ArrayList<>(), masks = new ArrayList<>(), allowRd = new ArrayList<>(), allowWr = new ArrayList<>();
        Layout.Word wc = Layout.CSR_WINDOW_CTRL;
        List<String> regs = Layout.CSR_WINDOW_REGS;
        for (int w = e - 1; w >= 0; w--) {
            Reg base = m.reg("win" + w + "_base", bits, cd).init(0);
            Reg size = m.reg("win" + w + "_size", 6, cd).init(lo);
            Reg mask = m.reg("win" + w + "_mask", maskBitsWidth, cd).init((1L << maskBitsWidth) - 1);
            // One register per CTRL field, written from and read back at the field's place.
            Map<String, Reg> ctrl = new LinkedHashMap<>();
            for (String f : List.of("enable", "allow_rd", "allow_wr")) {
                ctrl.put(f, m.reg("win" + w + "_" + f, Layout.resolve(wc).field(f).width(), cd).init(0));
            }
            int at = Layout.CSR_WINDOW_OFFSET + Layout.CSR_WINDOW_STRIDE * w;
            int baseLo = at + regs.indexOf("BASE_LO");
            int baseHi = at + regs.indexOf("BASE_HI");
            int sizeAt = at + regs.indexOf("SIZE");
            int ctrlAt = at + regs.indexOf("CTRL");
            // The base register holds address bits [63:lo]: BASE_LO's field is its low part, BASE_HI's the rest.
            Layout.Word bl = Layout.CSR_WINDOW_BASE_LO;
            Layout.Word bh = Layout.CSR_WINDOW_BASE_HI;
            int lowPart = Layout.resolve(bl).field("base").width();
            m.when(write.and(address.eq(baseLo)), () -> base.set(Expr.cat(base.bits(bits - 1, lowPart), HdlWords.get(writedata, bl, "base"))))
                    .elseWhen(write.and(address.eq(baseHi)), () -> base.set(Expr.cat(HdlWords.get(writedata, bh, "base"),
                            base.bits(lowPart - 1, 0))));
            m.when(write.and(address.eq(sizeAt)), () -> {
                size.set(sizeIn);
                mask.set(maskIn);
            });
            m.when(write.and(address.eq(ctrlAt)), () -> ctrl.forEach((f, r) -> r.set(HdlWords.get(writedata, wc, f))));
            readable.put(baseLo, HdlWords.pack(m, bl, Map.of("base", base.bits(lowPart - 1, 0))));
            readable.put(baseHi, HdlWords.pack(m, bh, Map.of("base", base.bits(bits - 1, lowPart))));
            readable.put(sizeAt, HdlWords.pack(m, Layout.CSR_WINDOW_SIZE, Map.of("log2", size)));
            readable.put(ctrlAt, HdlWords.pack(m, wc, ctrl));
            bases.add(base);
            masks.add(mask);
            Expr en = ctrl.get("enable");
            allowRd.add(en.and(ctrl.get("allow_rd")));
            allowWr.add(en.and(ctrl.get("allow_wr")));
        }
        io.winBase().set(cat(bases));
        io.winMask().set(cat(masks));
        io.winAllowRd().set(cat(allowRd));
        io.winAllowWr().set(cat(allowWr));
    }

    private static Expr cat(List<Expr> parts) {
        return parts.size() == 1 ? parts.getFirst() : Expr.cat(parts.toArray(Expr[]::new));
    }
}
