// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes.Direction;
import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.generators.stream.ReadyLatencyAdapter;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Sync;
import org.direkt.hdl.Unit;

/**
 * One direction of the bridge:
 *
 * <pre>
 * kernel_clk                          |  dma_clk
 * desc channel -> unpack -> async FIFO -> checks (CheckPipeline) -> admission (BridgeIssue) -> arbiter -> RL 0->1 -> mover
 *                                     |                                                          ^ host desc (RL 1->0)
 * status channel <-------- async FIFO <- status (StatusBuilder) <- mover status -> host status (IDs 0..127)
 * </pre>
 *
 * <p>A kernel reset alone (the dma domain running on) is a handshake across the two crossings, whose
 * FIFOs tolerate either side's reset ({@link AsyncFifo.Params#withSideReset}). The kernel side's
 * {@code k_reset_req} is set by the kernel reset; while it or the answer {@code k_reset_ack} (as
 * the kernel side sees it) is high the kernel side holds: it takes no descriptor and drops every
 * status it reads. The dma side absorbs while it sees the request or holds its answer: it admits
 * nothing and discards every checked descriptor (the old kernel's), while what it admitted before
 * runs its course and pushes its status (for the kernel side to drop), returning its credit and
 * ID. It answers once nothing is outstanding and the status FIFO is empty as its write side sees
 * it; the kernel side drops its request once it sees the answer and the descriptor FIFO empty as
 * its write side sees it (every old descriptor gone); the dma side drops the answer once it sees
 * the request gone and the checks empty, and the kernel side opens when it sees that.
 */
public final class BridgePath extends Unit<BridgePath.Params, BridgePath.Io> {

    public record Params(Bridge.Params bridge, Direction direction) {
    }

    /**
     * The channels and the mover/controller streams of one direction, the CSR's window view (raw
     * addressing) or the table ports of its region walker (regions addressing; else null), and the
     * events the CSR counts.
     */
    public record Io(List<Stream> desc, List<Stream> status, Stream hostDesc, Stream dmaDesc, Signal dmaStatusValid,
            Signal dmaStatusData, Signal hostStatusValid, Signal hostStatusData, Signal now, Signal winBase,
            Signal winMask, Signal winAllow, Map<String, Signal> events, Signal evError, Signal outstanding,
            Signal hostBuffered, Signal lastDesc, Signal lastMoverStatus, Tables tables) {
    }

    /** The region walker's table ports, as the CSR drives and reads them. */
    public record Tables(Signal ptWe, Signal ptAddr, Signal ptData, Signal ptConflict, Signal ptVeto, Signal rgWe, Signal rgIdx, Signal rgData,
            Signal rgOpen, Signal rgReadIdx, Signal rgReadData, Signal rgReadBusy) {
    }

    /**
     * The descriptor FIFO's word: the crossing word ({@link DescChecks#crossWord}) and, with the
     * bring-up registers, above it every cldesc field the crossing word does not carry as
     * {@code raw_<field>}, so that the dma side can put the channel word back together.
     */
    static Layout.Word fifoWord(Layout.Word cross, Bridge.Params b) {
        if (!b.bringup()) {
            return cross;
        }
        List<Layout.Field> f = new ArrayList<>(cross.fields());
        int next = cross.bits();
        for (Layout.Field c : Layout.resolve(Layout.CLDESC).fields()) {
            if (carrier(cross, c.name()) == null) {
                f.add(new Layout.Field("raw_" + c.name(), next, c.width(), c.doc()));
                next += c.width();
            }
        }
        return new Layout.Word("desc_fifo", next, f);
    }

    /**
     * The crossing word's field that carries cldesc field {@code name}: the field of that name, or
     * for {@code <x>_lo} / {@code <x>_hi} the field {@code <x>} they were joined into; null if none.
     */
    private static String carrier(Layout.Word cross, String name) {
        for (String candidate : List.of(name, name.replaceFirst("_(lo|hi)$", ""))) {
            if (cross.fields().stream().anyMatch(x -> x.name().equals(candidate))) {
                return candidate;
            }
        }
        return null;
    }

    /** Where bit {@code lsb} of a cldesc sits on the channel in word order {@code order}. */
    private static int channelBit(int lsb, BridgeModes.WordOrder order) {
        int wb = Layout.CLDESC_WORD_BITS;
        return order == BridgeModes.WordOrder.X0_LOW ? lsb : (Layout.CLDESC_WORDS - 1 - lsb / wb) * wb + lsb % wb;
    }

    /** The channel word for a cldesc and back (the word order is its own inverse). */
    private static Expr channelOrder(Expr w, BridgeModes.WordOrder order) {
        if (order == BridgeModes.WordOrder.X0_LOW) {
            return w;
        }
        List<Expr> words = new ArrayList<>();
        int wb = Layout.CLDESC_WORD_BITS;
        for (int i = 0; i < Layout.CLDESC_WORDS; i++) {
            words.add(w.bits(wb * i + wb - 1, wb * i));
        }
        return Expr.cat(words.toArray(Expr[]::new));
    }

    /**
     * The direction, then a hash ({@link org.direkt.generators.Names#hashed}) of every bridge
     * parameter but the instance (which names nothing inside) and the other direction's channel ids.
     * The table-fetch IDs count where there are any: then the host input has ready latency 0
     * ({@link Bridge.Params#hostReadyLatency}) and no buffer.
     */
    @Override
    public String moduleName(Params p) {
        String t = p.direction().tag();
        return org.direkt.generators.Names.hashed("direkt_bridge_" + t, "direction=" + t + " " + BridgeParam.canonical(p.bridge(),
                d -> !d.name().equals("instance") && (!d.component().equals("channels") || d.name().startsWith(t + "_"))
                        && (p.bridge().ports() > 1 || !d.name().startsWith("port"))
                        && (p.bridge().tableFetchIds() > 0 || !d.component().equals("tableFetchIds"))));
    }

    @Override
    protected Io ports(Ports at, Params p) {
        Bridge.Params b = p.bridge();
        String t = p.direction().tag();
        ClockDomain kernel = at.domain(ChannelPort.KERNEL);
        ClockDomain dma = at.domain(b.dmaDomain());
        int descBits = Layout.MOVER_DESC.bits();
        int statusBits = Layout.MOVER_STATUS.bits();
        int e = b.windowEntries();
        List<Stream> desc = new ArrayList<>();
        List<Stream> status = new ArrayList<>();
        for (int k = 0; k < b.ports(); k++) {
            String pre = Bridge.Params.portPrefix(p.direction(), k);
            desc.add(at.sink(pre + "_desc", AvalonSt.source(Layout.CLDESC.bits()), kernel));
            status.add(at.source(pre + "_status", AvalonSt.source(64), kernel));
        }
        Stream hostDesc = at.sink(t + "_host_desc", AvalonSt.source(descBits, b.hostReadyLatency()), dma);
        Stream dmaDesc = at.source(t + "_dma_desc", AvalonSt.source(descBits, 1), dma);
        Signal msValid = at.in(t + "_dma_status_valid", 1, dma);
        Signal msData = at.in(t + "_dma_status_data", statusBits, dma);
        Signal hsValid = at.out(t + "_host_status_valid", 1, dma);
        Signal hsData = at.out(t + "_host_status_data", statusBits, dma);
        boolean raw = !b.regionsAddressing();
        Signal now = at.in("now", 32, dma);
        Signal winBase = raw ? at.in("win_base", WindowCheck.BITS * e, dma) : null;
        Signal winMask = raw ? at.in("win_mask", WindowCheck.MASK_BITS * e, dma) : null;
        Signal winAllow = raw ? at.in("win_allow", e, dma) : null;
        Tables tables = null;
        if (!raw) {
            RegionWalker.Params w = b.walker(p.direction());
            tables = new Tables(at.in("pt_we", 1, dma), at.in("pt_addr", w.entryBits(), dma),
                    at.in("pt_data", Layout.PAGE_ENTRY.bits(), dma), at.out("pt_conflict", 1, dma), at.in("pt_veto", 1, dma),
                    at.in("rg_we", 1, dma),
                    at.in("rg_idx", w.regionBits(), dma), at.in("rg_data", Layout.REGION_ENTRY.bits(), dma), at.in("rg_open", 1, dma),
                    at.in("rg_read_idx", w.regionBits(), dma),
                    // the region read-back from one copy (rd's): both hold the same entries
                    p.direction() == Direction.RD ? at.out("rg_read_data", Layout.REGION_ENTRY.bits(), dma) : null,
                    at.out("rg_read_busy", 1, dma));
        }
        Map<String, Signal> events = new LinkedHashMap<>();
        for (String ev : BridgeCsr.events(b)) {
            events.put(ev, at.out("ev_" + ev, 1, dma));
        }
        return new Io(desc, status, hostDesc, dmaDesc, msValid, msData, hsValid, hsData, now, winBase, winMask, winAllow,
                events, at.out("ev_error", 4, dma),
                at.out("outstanding", BridgeCsr.outstandingBits(b), dma),
                at.out("host_buffered", 3, dma),
                b.bringup() ? at.out("last_desc", Layout.CLDESC.bits(), dma) : null,
                b.bringup() ? at.out("last_mover_status", statusBits, dma) : null, tables);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        Bridge.Params b = p.bridge();
        Direction dir = p.direction();
        m.doc("Kernel-issued descriptors for " + dir.describe() + ", channels " + b.descChannel(dir) + " / "
                + b.statusChannel(dir) + ", beside the host's descriptors.");
        ClockDomain dma = b.dmaDomain();
        BridgeIssue.Params ip = b.issue(dir);
        DescChecks.Params cp = ip.checks();
        Layout.Word cross = DescChecks.crossWord(cp);

        // ---- kernel side: the channels exactly as the kernel system names them, per port
        Cores cores = kernelSide(m, b, dir, io);
        Stream core = cores.desc();
        Stream statusCore = cores.status();
        if (b.regionsAddressing()) {
            buildRegions(m, p, io, core, statusCore);
            return;
        }

        Layout.Word fifoWord = fifoWord(cross, b);
        Map<String, Expr> fields = crossingFields(m, b, cp, fifoWord, core);
        Crossing x = crossing(m, b, fifoWord.bits(), () -> HdlWords.pack(m, fifoWord, fields), core);
        AsyncFifo.Io descFifo = x.descFifo();
        Reg kReq = x.kReq();
        Reg ack = x.ack();
        Signal ackSeen = x.ackSeen();
        Signal reqSeen = x.reqSeen();
        Reg hold = x.hold();

        // ---- dma side: checks, admission, statuses
        CheckPipeline.Io checks = m.sub("u_checks", new CheckPipeline(), new CheckPipeline.Params(ip.window())).clock(dma).io();
        // The checks take the crossing word: the FIFO word's low part (fifoWord keeps its fields' places).
        Stream fifoOut = descFifo.m();
        checks.k().valid().set(fifoOut.valid());
        fifoOut.ready().set(checks.k().ready());
        checks.k().data().set(fifoOut.data().bits(cross.bits() - 1, 0));
        checks.winBase().set(io.winBase());
        checks.winMask().set(io.winMask());
        checks.winAllow().set(io.winAllow());
        BridgeIssue.Io issue = m.sub("u_issue", new BridgeIssue(), ip).clock(dma).io();
        m.connect(checks.q(), issue.q());
        issue.now().set(io.now());

        AsyncFifo.Io statusFifo = statusCrossing(m, b, hold);
        statusFifo.s().valid().set(issue.ksValid());
        statusFifo.s().data().set(issue.ksData());
        issue.ksWrPtr().set(statusFifo.wrPtr());
        issue.ksRdPtr().set(statusFifo.wrRdPtr());
        m.connect(statusFifo.m(), statusCore);
        // (also while the dma side is in reset, whose descriptor FIFO side drops words)
        hold.set(kReq.or(ackSeen).or(statusFifo.rdWrRst()));

        // ---- the kernel reset handshake, dma side
        // The kernel reset through the descriptor FIFO's own synchroniser too, a cycle sooner maybe.
        // The admission unit registers it (absorbing): starting a cycle late is safe (what is admitted
        // meanwhile runs its course and is waited for), and it ends a cycle after the answer falls,
        // long before the kernel side can see that and open.
        Signal absorb = m.wire("k_absorb", 1);
        absorb.set(reqSeen.or(ack).or(descFifo.rdWrRst()));
        // Drained, registered: sampled only once absorbing (no admission since), so the answer never
        // follows a state an admission had already changed.
        Reg drained = m.reg("k_drained", 1, dma).init(0);
        drained.set(issue.drained().and(issue.absorbing()));
        ack.set(Expr.mux(ack, reqSeen.or(checks.idle().not()), reqSeen.and(drained)));
        issue.absorb().set(absorb);

        Mover mv = toMover(m, b, io, issue.d());

        // Mover status: no ready. Host IDs go straight back to the descriptor controller.
        issue.msValid().set(io.dmaStatusValid());
        issue.msData().set(io.dmaStatusData());
        io.hostStatusValid().set(issue.hsValid());
        io.hostStatusData().set(issue.hsData());

        // ---- events for the CSR block
        Map<String, Expr> ev = events(m, b, issue, statusFifo, mv);
        io.events().forEach((name, pin) -> pin.set(ev.get(name)));
        io.evError().set(issue.evError());
        io.outstanding().set(issue.outstanding());
        io.hostBuffered().set(mv.hostBuffered());

        // ---- bring-up: the last channel word the checks took, put back together from the FIFO
        // word, and the last mover status, both raw. Not reset (a reset keeps what was seen);
        // zero from configuration.
        if (b.bringup()) {
            bringup(m, b, io, cross, fifoWord, fifoOut, checks);
        }
    }

    /** The kernel side's descriptor and status streams, after the port multiplexer with several ports. */
    private record Cores(Stream desc, Stream status) {
    }

    /** The channels exactly as the kernel system names them, per port; with several ports one request stream. */
    private static Cores kernelSide(ModuleBuilder m, Bridge.Params b, Direction dir, Io io) {
        ClockDomain kernel = ChannelPort.KERNEL;
        String t = dir.tag();
        List<Stream> descCores = new ArrayList<>();
        List<Stream> statusCores = new ArrayList<>();
        for (int k = 0; k < b.ports(); k++) {
            String pre = Bridge.Params.portPrefix(dir, k);
            ChannelPort.Io descPort = m.sub("u_" + pre + "_desc_chan", new ChannelPort(),
                    new ChannelPort.Params(b.channel(dir, true, k), ChannelPort.KERNEL, b.registeredChannels())).clock(kernel).io();
            ChannelPort.Io statusPort = m.sub("u_" + pre + "_status_chan", new ChannelPort(),
                    new ChannelPort.Params(b.channel(dir, false, k), ChannelPort.KERNEL, b.registeredChannels())).clock(kernel).io();
            m.connect(io.desc().get(k), descPort.kernel());
            m.connect(statusPort.kernel(), io.status().get(k));
            descCores.add(descPort.core());
            statusCores.add(statusPort.core());
        }
        Stream core = descCores.getFirst();
        Stream statusCore = statusCores.getFirst();
        if (b.ports() > 1) {
            // Several ports: one request stream, statuses routed back to their ports by token.
            Layout.Word w = b.regionsAddressing() ? Layout.CLDESC_REGION : Layout.CLDESC;
            int more = b.regionsAddressing() ? channelBit(w.field("more").lsb(), b.wordOrder()) : -1;
            int tagLsb = channelBit(w.field("tag").lsb(), b.wordOrder());
            PortMux.Io mux = m.sub("u_" + t + "_ports", new PortMux(), new PortMux.Params(b.ports(), b.portCredits(), b.portPolicy(),
                    b.portWeights(), Layout.CLDESC.bits(), tagLsb, more)).clock(kernel).io();
            for (int k = 0; k < b.ports(); k++) {
                m.connect(descCores.get(k), mux.desc().get(k));
                m.connect(mux.status().get(k), statusCores.get(k));
            }
            core = mux.out();
            statusCore = mux.in();
        }
        return new Cores(core, statusCore);
    }

    /** The crossing FIFO's fields from the channel word (word xi in the configured word order): the checked fields, stage A's sums, the raw bring-up fields. */
    private static Map<String, Expr> crossingFields(ModuleBuilder m, Bridge.Params b, DescChecks.Params cp, Layout.Word fifoWord, Stream core) {
        Layout.Word c = Layout.CLDESC;
        // Unpack the cldesc: word xi from the channel in the configured word order.
        Signal cldesc = m.wire("cldesc", Layout.CLDESC.bits());
        cldesc.set(channelOrder(core.data(), b.wordOrder()));
        Expr overflow = HdlWords.get(cldesc, c, "len_overflow").orR();
        Expr tooLong = b.idMode() == BridgeModes.IdMode.MANAGED ? overflow.or(HdlWords.get(cldesc, c, "id").orR()) : overflow;
        Expr reservedSet = HdlWords.get(cldesc, c, "flags").orR().or(HdlWords.get(cldesc, c, "reserved").orR());
        if (!cp.tagged()) {
            // Cycles status has no room for a tag: x5 must be 0, as the published kernel packs it.
            reservedSet = reservedSet.or(HdlWords.get(cldesc, c, "tag").orR());
        }
        Map<String, Expr> fields = new LinkedHashMap<>();
        fields.put("src", Expr.cat(HdlWords.get(cldesc, c, "src_hi"), HdlWords.get(cldesc, c, "src_lo")));
        fields.put("dst", Expr.cat(HdlWords.get(cldesc, c, "dst_hi"), HdlWords.get(cldesc, c, "dst_lo")));
        fields.put("dwords", HdlWords.get(cldesc, c, "dwords"));
        if (b.idMode() == BridgeModes.IdMode.PAPER) {
            fields.put("id", HdlWords.get(cldesc, c, "id"));
        }
        if (cp.tagged()) {
            fields.put("tag", HdlWords.get(cldesc, c, "tag"));
        }
        fields.put("too_long", tooLong);
        fields.put("reserved_set", reservedSet);
        fields.putAll(DescChecks.crossSums(cp, fields.get("src"), fields.get("dst"), fields.get("dwords")));
        for (Layout.Field f : fifoWord.fields()) {
            if (f.name().startsWith("raw_")) {
                fields.put(f.name(), HdlWords.get(cldesc, c, f.name().substring("raw_".length())));
            }
        }

        return fields;
    }

    /** The events the CSR block counts, by name. */
    private static Map<String, Expr> events(ModuleBuilder m, Bridge.Params b, BridgeIssue.Io issue, AsyncFifo.Io statusFifo, Mover mv) {
        Arbiter.Io arb = mv.arb();
        Stream toMover = mv.toMover();
        Map<String, Expr> ev = new LinkedHashMap<>();
        ev.put("rejected", issue.evRejected());
        ev.put("overflow", issue.ksValid().and(statusFifo.s().ready().not()));
        // The adapters' monitors: a host controller that ignores ready latency 1 loses a descriptor.
        ev.put("host_overflow", mv.hostOverflow());
        if (b.counters()) {
            Signal handOver = m.wire("hand_over", 1);
            handOver.set(arb.grantValid().and(toMover.ready()));
            ev.put("kernel_issued", handOver.and(arb.grantId()));
            ev.put("completed", issue.evCompleted());
            ev.put("aborted", issue.evAborted());
            ev.put("host_issued", handOver.and(arb.grantId().not()));
            ev.put("host_completed", issue.hsValid());
            ev.put("spurious", issue.evSpurious());
        }
        return ev;
    }

    /** Bring-up: the last channel word the checks took (put back together from the FIFO word) and the last mover status, both raw. */
    private static void bringup(ModuleBuilder m, Bridge.Params b, Io io, Layout.Word cross, Layout.Word fifoWord, Stream fifoOut, CheckPipeline.Io checks) {
        ClockDomain dma = b.dmaDomain();
        Layout.Word c = Layout.CLDESC;
        Map<String, Expr> back = new LinkedHashMap<>();
        for (Layout.Field f : Layout.resolve(c).fields()) {
            String from = carrier(cross, f.name());
            if (from == null) {
                back.put(f.name(), HdlWords.get(fifoOut.data(), fifoWord, "raw_" + f.name()));
            } else if (from.equals(f.name())) {
                back.put(f.name(), HdlWords.get(fifoOut.data(), fifoWord, from));
            } else {
                // <x>_lo / <x>_hi from <x> = {<x>_hi, <x>_lo}, sliced from the FIFO word itself
                int at = fifoWord.field(from).lsb() + (f.name().endsWith("_lo") ? 0 : Layout.resolve(c).field(from + "_lo").width());
                back.put(f.name(), fifoOut.data().bits(at + f.width() - 1, at));
            }
        }
        Reg lastDesc = m.reg("last_desc_q", Layout.CLDESC.bits(), dma).powerUp(0)
                .enableWhen(fifoOut.valid().and(checks.k().ready()));
        lastDesc.set(channelOrder(HdlWords.pack(m, c, back), b.wordOrder()));
        Reg lastStatus = m.reg("last_mover_status_q", Layout.MOVER_STATUS.bits(), dma).powerUp(0)
                .enableWhen(io.dmaStatusValid());
        lastStatus.set(io.dmaStatusData());
        io.lastDesc().set(lastDesc);
        io.lastMoverStatus().set(lastStatus);
    }

    /**
     * The dma side with regions addressing: the kernel's region requests cross into dma_clk and go
     * to a {@link RegionWalker}, whose pieces meet the host's descriptors in the arbiter and whose
     * statuses cross back to the kernel. The kernel reset handshake is the raw path's: while
     * absorbing, requests leaving the crossing are discarded, and the answer waits until the walker
     * owes no status and the status crossing is empty.
     */
    private void buildRegions(ModuleBuilder m, Params p, Io io, Stream core, Stream statusCore) {
        Bridge.Params b = p.bridge();
        Direction dir = p.direction();
        ClockDomain dma = b.dmaDomain();
        Layout.Word c = Layout.CLDESC_REGION;
        Layout.Word rq = Layout.REGION_REQ;

        // ---- kernel side: the region request from the channel word, its reserved bits folded into one
        Signal cldesc = m.wire("cldesc", c.bits());
        cldesc.set(channelOrder(core.data(), b.wordOrder()));
        Expr reservedSet = HdlWords.get(cldesc, c, "reserved_x4").orR().or(HdlWords.get(cldesc, c, "reserved_x6").orR())
                .or(HdlWords.get(cldesc, c, "reserved").orR());
        Map<String, Expr> fields = new LinkedHashMap<>();
        fields.put("fpga", Expr.cat(HdlWords.get(cldesc, c, "fpga_hi"), HdlWords.get(cldesc, c, "fpga_lo")));
        fields.put("offset", HdlWords.get(cldesc, c, "offset"));
        fields.put("bytes", HdlWords.get(cldesc, c, "bytes"));
        fields.put("region", HdlWords.get(cldesc, c, "region"));
        fields.put("kind", HdlWords.get(cldesc, c, "kind"));
        fields.put("reserved", reservedSet.zext(rq.field("reserved").width()));
        fields.put("tag", HdlWords.get(cldesc, c, "tag"));
        fields.put("more", HdlWords.get(cldesc, c, "more"));
        fields.put("check", HdlWords.get(cldesc, c, "check"));

        Crossing x = crossing(m, b, rq.bits(), () -> HdlWords.pack(m, rq, fields), core);
        AsyncFifo.Io descFifo = x.descFifo();
        Reg ack = x.ack();
        Signal reqSeen = x.reqSeen();
        Reg hold = x.hold();

        // ---- dma side: the walker
        RegionWalker.Io walker = m.sub("u_walker", new RegionWalker(), b.walker(dir)).clock(dma).io();
        Tables t = io.tables();
        walker.ptWe().set(t.ptWe());
        walker.ptAddr().set(t.ptAddr());
        walker.ptData().set(t.ptData());
        t.ptConflict().set(walker.ptConflict());
        walker.ptVeto().set(t.ptVeto());
        walker.rgWe().set(t.rgWe());
        walker.rgIdx().set(t.rgIdx());
        walker.rgData().set(t.rgData());
        walker.rgOpen().set(t.rgOpen());
        walker.rgReadIdx().set(t.rgReadIdx());
        if (t.rgReadData() != null) {
            t.rgReadData().set(walker.rgReadData());
        }
        t.rgReadBusy().set(walker.rgReadBusy());

        // While absorbing (registered, as the raw path's admission registers it), requests leaving
        // the crossing are discarded: they are the old kernel's.
        Signal absorb = m.wire("k_absorb", 1);
        absorb.set(reqSeen.or(ack).or(descFifo.rdWrRst()));
        Reg absorbing = m.reg("absorb_q", 1, dma).init(1);
        absorbing.set(absorb);
        Stream fifoOut = descFifo.m();
        walker.req().valid().set(fifoOut.valid().and(absorbing.not()));
        // (a request whose later entries the reset discarded ends, ABORTED)
        walker.abandon().set(absorbing);
        walker.req().data().set(fifoOut.data());
        fifoOut.ready().set(walker.req().ready().or(absorbing));

        AsyncFifo.Io statusFifo = statusCrossing(m, b, hold);
        m.connect(walker.st(), statusFifo.s());
        m.connect(statusFifo.m(), statusCore);
        hold.set(x.kReq().or(x.ackSeen()).or(statusFifo.rdWrRst()));
        Reg drained = m.reg("k_drained", 1, dma).init(0);
        drained.set(walker.idle().and(statusFifo.wrPtr().eq(statusFifo.wrRdPtr())).and(absorbing));
        ack.set(Expr.mux(ack, reqSeen.or(walker.idle().not()), reqSeen.and(drained)));

        // ---- host descriptors and the walker's pieces meet in the arbiter. The walker's pieces leave at
        // ready latency 1, as the host's arrive, and pass an adapter of their own: the arbiter's choice
        // reaches the walker a cycle late, through the adapter's registered room, never within a cycle.
        ReadyLatencyAdapter.Io walkerRl = m.sub("u_walker_rl", new ReadyLatencyAdapter(),
                new ReadyLatencyAdapter.Params(Layout.MOVER_DESC.bits(), ReadyLatencyAdapter.Direction.RL1_TO_RL0, false)).clock(dma).io();
        m.connect(walker.desc(), walkerRl.s());
        Mover mv = toMover(m, b, io, walkerRl.m());
        Arbiter.Io arb = mv.arb();
        Stream toMover = mv.toMover();

        // ---- mover statuses: kernel IDs (128..) to the walker, host IDs back to the controller, registered
        Expr kernelId = HdlWords.get(io.dmaStatusData(), Layout.MOVER_STATUS, "id").bit(Layout.DESC_ID.field("kernel").lsb());
        Layout.Word ms = Layout.MOVER_STATUS;
        walker.now().set(io.now());
        Expr walkerStatus = io.dmaStatusValid().and(kernelId);
        if (b.tableFetchIds() > 0) {
            // a table fetch's status is the descriptor controller's
            walkerStatus = walkerStatus.and(HdlWords.get(io.dmaStatusData(), ms, "id").lt(m.lit(b.tableFetchFirst(), 8)));
        }
        walker.msValid().set(walkerStatus);
        walker.msData().set(Expr.cat(HdlWords.get(io.dmaStatusData(), ms, "aborted").or(HdlWords.get(io.dmaStatusData(), ms, "flushed")),
                HdlWords.get(io.dmaStatusData(), ms, "id")));
        Reg hsValid = m.reg("host_status_valid_q", 1, dma).init(0);
        Reg hsData = m.reg("host_status_data_q", Layout.MOVER_STATUS.bits(), dma).init(0);
        hsValid.set(io.dmaStatusValid().and(kernelId.not()));
        hsData.set(io.dmaStatusData());
        io.hostStatusValid().set(hsValid);
        io.hostStatusData().set(hsData);

        // ---- events for the CSR block (a region status waits for room: no overflow can happen)
        Map<String, Expr> ev = new LinkedHashMap<>();
        ev.put("rejected", walker.evRejected());
        ev.put("overflow", m.lit(0, 1));
        ev.put("host_overflow", mv.hostOverflow());
        if (b.counters()) {
            Signal handOver = m.wire("hand_over", 1);
            handOver.set(arb.grantValid().and(toMover.ready()));
            ev.put("kernel_issued", handOver.and(arb.grantId()));
            ev.put("completed", walker.evCompleted());
            ev.put("aborted", walker.evAborted());
            ev.put("host_issued", handOver.and(arb.grantId().not()));
            ev.put("host_completed", hsValid);
            ev.put("spurious", walker.spurious());
        }
        io.events().forEach((name, pin) -> pin.set(ev.get(name)));
        io.evError().set(walker.evError());
        io.outstanding().set(walker.outstanding());
        io.hostBuffered().set(mv.hostBuffered());
    }

    /** The descriptor crossing and the kernel side of the kernel reset handshake. */
    private record Crossing(AsyncFifo.Io descFifo, Reg kReq, Reg ack, Signal ackSeen, Signal reqSeen, Reg hold) {
    }

    /**
     * The descriptor FIFO (kernel_clk -> dma_clk) of {@code bits}-bit words, fed from the channel's
     * {@code core} with {@code word}, and the kernel reset handshake's registers; the caller sets
     * {@code hold} and {@code ack}.
     */
    private static Crossing crossing(ModuleBuilder m, Bridge.Params b, int bits, java.util.function.Supplier<Expr> word, Stream core) {
        ClockDomain kernel = ChannelPort.KERNEL;
        ClockDomain dma = b.dmaDomain();
        AsyncFifo.Io descFifo = m.sub("u_desc_fifo", new AsyncFifo(),
                new AsyncFifo.Params(bits, b.descFifoDepth(), b.syncStages(), true, false, true).withSideReset().withWriteEmpty())
                .clock(org.direkt.generators.Domains.WRITE, kernel).clock(org.direkt.generators.Domains.READ, dma).io();
        // ---- the kernel reset handshake, kernel side (its dma side in the caller)
        Reg kReq = m.reg("k_reset_req", 1, kernel).init(1);
        Reg ack = m.reg("k_reset_ack", 1, dma).init(0);
        Signal ackSeen = Sync.bits(m, "u_ack_sync", ack, kernel, b.syncStages());
        Signal reqSeen = Sync.bits(m, "u_req_sync", kReq, dma, b.syncStages());
        kReq.set(kReq.and(ackSeen.and(descFifo.wrEmpty()).not()));
        // A register (set by the caller), so that the kernel side's channel handshakes and the status
        // FIFO's read pointer hang on a flip-flop: it rises a cycle after the request (the kernel is
        // in reset then) and falls a cycle after the answer is seen gone (later is safe).
        Reg hold = m.reg("k_hold", 1, kernel).init(1);

        descFifo.s().valid().set(core.valid().and(hold.not()));
        descFifo.s().data().set(word.get());
        core.ready().set(descFifo.s().ready().and(hold.not()));
        return new Crossing(descFifo, kReq, ack, ackSeen, reqSeen, hold);
    }

    /**
     * The status FIFO (dma_clk -> kernel_clk). Its output is not registered: its word reaches the
     * channel a kernel cycle sooner. Held, the kernel side drops every status: the read side's
     * reset is the hold (the kernel reset sets it), so the FIFO's own flush does it. Its read side
     * keeps the pointer one ahead (readAhead: the channel's ready reaches no increment), except in
     * the regions preset, whose kernel side has the margin and whose walker routes worse with it.
     */
    private static AsyncFifo.Io statusCrossing(ModuleBuilder m, Bridge.Params b, Reg hold) {
        AsyncFifo.Params fifo = new AsyncFifo.Params(64, b.statusFifoDepth(), b.syncStages(), false, true, true).withSideReset();
        return m.sub("u_status_fifo", new AsyncFifo(), b.regionsAddressing() ? fifo : fifo.withReadAhead())
                .clock(org.direkt.generators.Domains.WRITE, b.dmaDomain()).clock(org.direkt.generators.Domains.READ, ChannelPort.KERNEL)
                .reset(org.direkt.generators.Domains.READ, hold).io();
    }

    /** The mover side: the host buffer's monitors (constant 0 without one), the arbiter, the adapter to the mover. */
    private record Mover(Expr hostOverflow, Expr hostBuffered, Arbiter.Io arb, Stream toMover) {
    }

    /** Host descriptors and the kernel's ({@code kq}, ready latency 0) through the arbiter to the mover. */
    private static Mover toMover(ModuleBuilder m, Bridge.Params b, Io io, Stream kq) {
        ClockDomain dma = b.dmaDomain();
        int descBits = Layout.MOVER_DESC.bits();
        // Host descriptors arrive as they would at the mover (ready latency 1) into a buffer, or at
        // ready latency 0 from direkt's descriptor controller straight to the arbiter.
        Stream hostQ;
        Expr hostOverflow;
        Expr hostBuffered;
        if (b.hostReadyLatency() == 1) {
            ReadyLatencyAdapter.Io hostRl = m.sub("u_host_rl", new ReadyLatencyAdapter(),
                    new ReadyLatencyAdapter.Params(descBits, ReadyLatencyAdapter.Direction.RL1_TO_RL0)).clock(dma).io();
            m.connect(io.hostDesc(), hostRl.s());
            hostQ = hostRl.m();
            hostOverflow = hostRl.overflow();
            hostBuffered = hostRl.fill();
        } else {
            hostQ = io.hostDesc();
            hostOverflow = m.lit(0, 1);
            hostBuffered = m.lit(0, 3);
        }

        // Requester 0: the host; 1: the kernel. A descriptor is one word, so done is the hand-over.
        Arbiter.Io arb = m.sub("u_arb", new Arbiter(), new Arbiter.Params(2, b.policy(), b.weights()).withOffers()).clock(dma).io();
        arb.req().set(Expr.cat(kq.valid(), hostQ.valid()));

        ReadyLatencyAdapter.Io moverRl = m.sub("u_mover_rl", new ReadyLatencyAdapter(),
                new ReadyLatencyAdapter.Params(descBits, ReadyLatencyAdapter.Direction.RL0_TO_RL1)).clock(dma).io();
        Stream toMover = moverRl.s();
        toMover.valid().set(arb.grantValid());
        toMover.data().set(Expr.mux(arb.grantId(), kq.data(), hostQ.data()));
        // A descriptor is one word: a grant ends in any cycle the mover takes words (its ready is a
        // register of the adapter), so the arbiter's state does not wait on its own grant.
        arb.done().set(toMover.ready());
        // Ready from the arbiter's offer, not its grant: the same in any cycle with a word, and
        // without the requester's own valid on its path (the mover queue's valid loop stays short).
        hostQ.ready().set(arb.offer().bit(0).and(toMover.ready()));
        kq.ready().set(arb.offer().bit(1).and(toMover.ready()));
        m.connect(moverRl.m(), io.dmaDesc());
        return new Mover(hostOverflow, hostBuffered, arb, toMover);
    }
}
