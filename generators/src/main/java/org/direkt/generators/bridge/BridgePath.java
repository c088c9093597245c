package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.List;

import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.bridge.Bridge.Direction;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.generators.stream.ReadyLatencyAdapter;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;

/**
 * One direction of the bridge:
 *
 * <pre>
 * kernel_clk                          |  dma_clk
 * desc channel -> unpack -> async FIFO -> check/ID/credit (BridgeIssue) -> arbiter -> RL 0->1 -> mover
 *                                     |                                      ^ host desc (RL 1->0)
 * status channel <-------- async FIFO <- status build <- mover status -> host status (IDs 0..127)
 * </pre>
 */
public final class BridgePath extends Generator<BridgePath.Params> {

    public record Params(Bridge.Params bridge, Direction direction) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_" + p.direction().tag();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        Bridge.Params b = p.bridge();
        Direction dir = p.direction();
        String t = dir.tag();
        m.doc("Kernel-issued descriptors for " + dir.describe() + ", channels " + b.descChannel(dir) + " / "
                + b.statusChannel(dir) + ", beside the host's descriptors.");
        ClockDomain kernel = m.domain(ChannelPort.KERNEL);
        ClockDomain dma = m.domain(b.dmaDomain());
        BridgeIssue.Params ip = b.issue(dir);
        Layout.Word cross = BridgeIssue.crossWord(ip);
        int descBits = Layout.MOVER_DESC.bits();
        int statusBits = Layout.MOVER_STATUS.bits();

        // ---- kernel side: the two channels exactly as the kernel system names them
        Instance descPort = m.instance("u_" + t + "_desc_chan", new ChannelPort(),
                new ChannelPort.Params(b.channel(dir, true), ChannelPort.KERNEL, b.registeredChannels())).clock(kernel);
        Instance statusPort = m.instance("u_" + t + "_status_chan", new ChannelPort(),
                new ChannelPort.Params(b.channel(dir, false), ChannelPort.KERNEL, b.registeredChannels())).clock(kernel);
        m.connect(m.stream(t + "_desc", AvalonSt.source(Layout.CLDESC.bits()).flip(), kernel), descPort.stream(t + "_desc"));
        m.connect(statusPort.stream(t + "_status"), m.stream(t + "_status", AvalonSt.source(64), kernel));

        // Unpack the cldesc: word xi from the channel in the configured word order.
        Stream core = descPort.stream("core");
        Signal cldesc = m.wire("cldesc", Layout.CLDESC.bits());
        if (b.wordOrder() == Bridge.WordOrder.X0_LOW) {
            cldesc.set(core.data());
        } else {
            List<Expr> words = new ArrayList<>();
            for (int i = 0; i < Layout.CLDESC_WORDS; i++) {
                words.add(core.data().bits(32 * i + 31, 32 * i));
            }
            cldesc.set(Expr.cat(words.toArray(Expr[]::new)));
        }
        Layout.Word c = Layout.CLDESC;
        Expr src = Expr.cat(HdlWords.get(cldesc, c, "src_hi"), HdlWords.get(cldesc, c, "src_lo"));
        Expr dst = Expr.cat(HdlWords.get(cldesc, c, "dst_hi"), HdlWords.get(cldesc, c, "dst_lo"));
        Expr overflow = HdlWords.get(cldesc, c, "len_overflow").orR();
        Expr tooLong = b.idMode() == Bridge.IdMode.MANAGED ? overflow.or(HdlWords.get(cldesc, c, "id").orR()) : overflow;
        Expr reservedSet = HdlWords.get(cldesc, c, "flags").orR().or(HdlWords.get(cldesc, c, "reserved").orR());
        if (!ip.tagged()) {
            // Cycles status has no room for a tag: x5 must be 0, as the published kernel packs it.
            reservedSet = reservedSet.or(HdlWords.get(cldesc, c, "tag").orR());
        }
        java.util.Map<String, Expr> fields = new java.util.LinkedHashMap<>();
        fields.put("src", src);
        fields.put("dst", dst);
        fields.put("dwords", HdlWords.get(cldesc, c, "dwords"));
        if (b.idMode() == Bridge.IdMode.PAPER) {
            fields.put("id", HdlWords.get(cldesc, c, "id"));
        }
        fields.put("too_long", tooLong);
        fields.put("reserved_set", reservedSet);
        if (ip.tagged()) {
            fields.put("tag", HdlWords.get(cldesc, c, "tag"));
        }
        Signal crossData = m.wire("cross_data", cross.bits());
        crossData.set(HdlWords.pack(m, cross, fields));

        Instance descFifo = m.instance("u_desc_fifo", new AsyncFifo(),
                new AsyncFifo.Params(cross.bits(), b.descFifoDepth(), b.syncStages(), true))
                .clock("wr", kernel).clock("rd", dma);
        descFifo.pin("s_valid").set(core.valid());
        descFifo.pin("s_data").set(crossData);
        core.ready().set(descFifo.pin("s_ready"));

        // ---- dma side
        Instance issue = m.instance("u_issue", new BridgeIssue(), ip).clock(dma);
        m.connect(descFifo.stream("m"), issue.stream("k"));
        issue.pin("win_base").set(m.input("win_base", 64 * b.windowEntries(), dma));
        issue.pin("win_last").set(m.input("win_last", 64 * b.windowEntries(), dma));
        issue.pin("win_allow").set(m.input("win_allow", b.windowEntries(), dma));

        Instance statusFifo = m.instance("u_status_fifo", new AsyncFifo(),
                new AsyncFifo.Params(64, b.statusFifoDepth(), b.syncStages(), true, true))
                .clock("wr", dma).clock("rd", kernel);
        statusFifo.pin("s_valid").set(issue.pin("ks_valid"));
        statusFifo.pin("s_data").set(issue.pin("ks_data"));
        issue.pin("ks_fill").set(statusFifo.pin("wr_fill"));
        m.connect(statusFifo.stream("m"), statusPort.stream("core"));

        // Host descriptors arrive as they would at the mover (ready latency 1).
        Stream hostDesc = m.stream(t + "_host_desc", AvalonSt.source(descBits, 1).flip(), dma);
        Instance hostRl = m.instance("u_host_rl", new ReadyLatencyAdapter(),
                new ReadyLatencyAdapter.Params(descBits, ReadyLatencyAdapter.Direction.RL1_TO_RL0)).clock(dma);
        m.connect(hostDesc, hostRl.stream("s"));
        Stream hostQ = hostRl.stream("m");

        // Requester 0: the host; 1: the kernel. A descriptor is one word, so done is the hand-over.
        Instance arb = m.instance("u_arb", new Arbiter(), new Arbiter.Params(2, b.policy(), b.weights())).clock(dma);
        Stream kq = issue.stream("d");
        arb.pin("req").set(Expr.cat(kq.valid(), hostQ.valid()));
        Signal grantHost = m.wire("grant_host", 1);
        Signal grantKernel = m.wire("grant_kernel", 1);
        grantHost.set(arb.pin("grant").bit(0));
        grantKernel.set(arb.pin("grant").bit(1));

        Instance moverRl = m.instance("u_mover_rl", new ReadyLatencyAdapter(),
                new ReadyLatencyAdapter.Params(descBits, ReadyLatencyAdapter.Direction.RL0_TO_RL1)).clock(dma);
        Stream toMover = moverRl.stream("s");
        toMover.valid().set(arb.pin("grant_valid"));
        toMover.data().set(Expr.mux(arb.pin("grant_id"), kq.data(), hostQ.data()));
        Signal handOver = m.wire("hand_over", 1);
        handOver.set(arb.pin("grant_valid").and(toMover.ready()));
        arb.pin("done").set(handOver);
        hostQ.ready().set(grantHost.and(toMover.ready()));
        kq.ready().set(grantKernel.and(toMover.ready()));
        m.connect(moverRl.stream("m"), m.stream(t + "_dma_desc", AvalonSt.source(descBits, 1), dma));

        // Mover status: no ready. Host IDs go straight back to the descriptor controller.
        issue.pin("ms_valid").set(m.input(t + "_dma_status_valid", 1, dma));
        issue.pin("ms_data").set(m.input(t + "_dma_status_data", statusBits, dma));
        m.output(t + "_host_status_valid", 1, dma).set(issue.pin("hs_valid"));
        m.output(t + "_host_status_data", statusBits, dma).set(issue.pin("hs_data"));

        // ---- events for the CSR block
        m.output("ev_kernel_issued", 1, dma).set(handOver.and(grantKernel));
        m.output("ev_completed", 1, dma).set(issue.pin("ev_completed"));
        m.output("ev_rejected", 1, dma).set(issue.pin("ev_rejected"));
        m.output("ev_aborted", 1, dma).set(issue.pin("ev_aborted"));
        m.output("ev_host_issued", 1, dma).set(handOver.and(grantHost));
        m.output("ev_host_completed", 1, dma).set(issue.pin("hs_valid"));
        m.output("ev_spurious", 1, dma).set(issue.pin("ev_spurious"));
        m.output("ev_overflow", 1, dma).set(issue.pin("ks_valid").and(statusFifo.pin("s_ready").not()));
        m.output("ev_error", 4, dma).set(issue.pin("ev_error"));
        m.output("outstanding", issue.pin("outstanding").width(), dma).set(issue.pin("outstanding"));
        // The adapters' monitors: a host controller that ignores ready latency 1 loses a descriptor.
        m.output("ev_host_overflow", 1, dma).set(hostRl.pin("overflow"));
        m.output("host_buffered", hostRl.pin("fill").width(), dma).set(hostRl.pin("fill"));
    }
}
