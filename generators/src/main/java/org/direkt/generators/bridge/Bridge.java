package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.List;

import org.direkt.generators.Check;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;

/**
 * The descriptor-controller extension: it sits between the BSP's descriptor controller and the
 * PCIe hard IP's Read and Write Data Movers and lets OpenCL kernels issue DMA descriptors through
 * I/O channels, beside the host's own. One {@link BridgePath} per direction (rd: GPU->FPGA through
 * the Read Data Mover; wr: FPGA->GPU through the Write Data Mover) and one {@link BridgeCsr}
 * holding the window table and counters.
 */
public final class Bridge extends Generator<Bridge.Params> {

    public enum Direction {
        RD("rd", "GPU->FPGA (Read Data Mover)"), WR("wr", "FPGA->GPU (Write Data Mover)");

        private final String tag;
        private final String describe;

        Direction(String tag, String describe) {
            this.tag = tag;
            this.describe = describe;
        }

        public String tag() {
            return tag;
        }

        public String describe() {
            return describe;
        }
    }

    /** Managed: the bridge hands out IDs 128.. itself. Paper: the kernel's ID from x4 goes through. */
    public enum IdMode { MANAGED, PAPER }

    /** Tagged: tag, error code, elapsed cycles. Cycles: the elapsed cycles alone (all ones on error). */
    public enum StatusMode { TAGGED, CYCLES }

    /** Where cldesc word x0 sits on the 256-bit channel: bits [31:0] (default) or [255:224]. */
    public enum WordOrder { X0_LOW, X0_HIGH }

    /** The four channel ids (what kernels name in {@code io("...")}). */
    public record ChannelIds(String rdDesc, String rdStatus, String wrDesc, String wrStatus) {
        public static final ChannelIds DEFAULT = new ChannelIds("direkt_rd_desc", "direkt_rd_status", "direkt_wr_desc", "direkt_wr_status");
        public static final ChannelIds PAPER = new ChannelIds("rdcldesc", "rdclmstatus", "wrcldesc", "wrclmstatus");

        public List<String> all() {
            return List.of(rdDesc, rdStatus, wrDesc, wrStatus);
        }
    }

    public record Params(String instance, ChannelIds channels, int descFifoDepth, int statusFifoDepth, int inflight,
            Arbiter.Policy policy, List<Integer> weights, IdMode idMode, StatusMode statusMode, int windowEntries,
            ClockDomain.ResetPolarity dmaResetPolarity, int syncStages, long fpgaMemBytes, WordOrder wordOrder,
            boolean registeredChannels) {
        public Params {
            require(instance != null && instance.matches("[A-Za-z_][A-Za-z0-9_]*"), "Bridge", "instance", instance,
                    "must be a Platform Designer instance name (letters, digits, '_')");
            require(channels != null, "Bridge", "channels", channels, "must name four channel ids");
            require(channels.all().stream().distinct().count() == 4, "Bridge", "channels", channels.all(),
                    "the four channel ids must differ");
            for (String id : channels.all()) {
                require(id != null && id.matches("[A-Za-z_][A-Za-z0-9_]*"), "Bridge", "channels", id,
                        "a channel id must be an identifier");
            }
            require(Check.isPowerOfTwo(descFifoDepth) && descFifoDepth >= 4 && descFifoDepth <= 1024, "Bridge",
                    "descFifoDepth", descFifoDepth, "must be a power of two in 4..1024");
            require(inflight >= 1 && inflight <= 128, "Bridge", "inflight", inflight,
                    "must be in 1..128 (kernel IDs are 128..255)");
            require(Check.isPowerOfTwo(statusFifoDepth) && statusFifoDepth >= Math.max(4, inflight) && statusFifoDepth <= 1024,
                    "Bridge", "statusFifoDepth", statusFifoDepth,
                    "must be a power of two >= max(4, inflight = " + inflight + ") and <= 1024 (every descriptor in flight owns a status slot)");
            require(policy != null, "Bridge", "policy", policy, "must be FIXED_PRIORITY, ROUND_ROBIN or WEIGHTED");
            weights = weights == null ? List.of() : List.copyOf(weights);
            new Arbiter.Params(2, policy, weights);
            require(idMode != null, "Bridge", "idMode", idMode, "must be MANAGED or PAPER");
            require(statusMode != null, "Bridge", "statusMode", statusMode, "must be TAGGED or CYCLES");
            require(windowEntries >= 1 && windowEntries <= 32, "Bridge", "windowEntries", windowEntries, "must be in 1..32");
            require(dmaResetPolarity != null, "Bridge", "dmaResetPolarity", dmaResetPolarity, "must be ACTIVE_HIGH or ACTIVE_LOW");
            require(syncStages >= 2 && syncStages <= 8, "Bridge", "syncStages", syncStages, "must be in 2..8");
            require(fpgaMemBytes >= 4 && fpgaMemBytes % 4 == 0, "Bridge", "fpgaMemBytes", fpgaMemBytes,
                    "must be a positive multiple of 4");
            require(wordOrder != null, "Bridge", "wordOrder", wordOrder, "must be X0_LOW or X0_HIGH");
        }

        /** direkt's default: managed IDs, tagged status, 16 in flight, round-robin, 8 windows, 8 GiB of FPGA memory. */
        public static Params defaults() {
            return new Params("direkt_bridge", ChannelIds.DEFAULT, 16, 16, 16, Arbiter.Policy.ROUND_ROBIN, List.of(),
                    IdMode.MANAGED, StatusMode.TAGGED, 8, ClockDomain.ResetPolarity.ACTIVE_LOW, 2, 8L << 30,
                    WordOrder.X0_LOW, false);
        }

        /** As the published design: its channel names, the kernel's IDs, cycle-count status, fixed priority to the host. */
        public static Params paper() {
            return new Params("direkt_bridge", ChannelIds.PAPER, 16, 16, 16, Arbiter.Policy.FIXED_PRIORITY, List.of(),
                    IdMode.PAPER, StatusMode.CYCLES, 8, ClockDomain.ResetPolarity.ACTIVE_LOW, 2, 8L << 30,
                    WordOrder.X0_LOW, false);
        }

        public String descChannel(Direction d) {
            return d == Direction.RD ? channels.rdDesc() : channels.wrDesc();
        }

        public String statusChannel(Direction d) {
            return d == Direction.RD ? channels.rdStatus() : channels.wrStatus();
        }

        /** The dma_clk domain: the PCIe application clock with the configured reset polarity. */
        public ClockDomain dmaDomain() {
            boolean low = dmaResetPolarity == ClockDomain.ResetPolarity.ACTIVE_LOW;
            return new ClockDomain("dma", "dma_clk", low ? "dma_resetn" : "dma_rst", dmaResetPolarity, ClockDomain.ResetKind.SYNC);
        }

        public BridgeIssue.Params issue(Direction d) {
            return new BridgeIssue.Params(d, inflight, statusFifoDepth, idMode, statusMode, windowEntries, fpgaMemBytes);
        }

        /** The four channels as board_spec.xml declares them (kernel-side port names = direction + role). */
        public List<ChannelPort.Channel> channelList() {
            return List.of(channel(Direction.RD, true), channel(Direction.RD, false),
                    channel(Direction.WR, true), channel(Direction.WR, false));
        }

        /**
         * The name a channel is exported under from the board's Platform Designer system, which is
         * its {@code port} in board_spec.xml: the bridge instance and the channel's own port.
         */
        public String boardPort(ChannelPort.Channel c) {
            return instance + "_" + c.port();
        }

        public ChannelPort.Channel channel(Direction d, boolean desc) {
            return new ChannelPort.Channel(instance, d.tag() + (desc ? "_desc" : "_status"),
                    desc ? ChannelPort.Type.STREAMSINK : ChannelPort.Type.STREAMSOURCE,
                    desc ? Layout.CLDESC.bits() : 64, desc ? descChannel(d) : statusChannel(d));
        }
    }

    /** Events each direction reports to the CSR block, in the order the CSR counts them. */
    static final List<String> EVENTS = Layout.CSR_EVENTS;

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge";
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        m.doc(String.format("""
                direkt bridge: OpenCL kernels issue PCIe DMA descriptors through I/O channels %s, beside
                the host's descriptor controller. Sits between the BSP's descriptor controller (rd/wr_host_*)
                and the hard IP's data movers (rd/wr_dma_*). IDs %s; status %s; up to %d kernel descriptors
                in flight per direction; %s arbitration; %d address windows, all closed after reset.
                Reset: assert kernel_resetn and %s together for at least %d cycles of the slower clock.""",
                p.channels().all(), p.idMode() == IdMode.MANAGED ? "managed by the bridge (128..255)" : "from the kernel (paper)",
                p.statusMode() == StatusMode.TAGGED ? "tagged (tag, error, elapsed)" : "elapsed cycles (paper)",
                p.inflight(), p.policy().name().toLowerCase(java.util.Locale.ROOT), p.windowEntries(),
                p.dmaDomain().reset(), p.syncStages() + 2));
        ClockDomain kernel = m.domain(ChannelPort.KERNEL);
        ClockDomain dma = m.domain(p.dmaDomain());

        Instance csr = m.instance("u_csr", new BridgeCsr(), new BridgeCsr.Params(p)).clock(dma);
        for (String port : List.of("csr_address", "csr_read", "csr_write", "csr_writedata")) {
            csr.pin(port).set(m.input(port, csr.pin(port).width(), dma));
        }
        for (String port : List.of("csr_readdata", "csr_readdatavalid")) {
            m.output(port, csr.pin(port).width(), dma).set(csr.pin(port));
        }

        for (Direction d : Direction.values()) {
            String t = d.tag();
            Instance path = m.instance("u_" + t, new BridgePath(), new BridgePath.Params(p, d))
                    .clock("kernel", kernel).clock("dma", dma);
            m.connect(m.stream(t + "_desc", path.child().streams().get(t + "_desc"), kernel), path.stream(t + "_desc"));
            m.connect(path.stream(t + "_status"), m.stream(t + "_status", path.child().streams().get(t + "_status"), kernel));
            m.connect(m.stream(t + "_host_desc", path.child().streams().get(t + "_host_desc"), dma), path.stream(t + "_host_desc"));
            m.connect(path.stream(t + "_dma_desc"), m.stream(t + "_dma_desc", path.child().streams().get(t + "_dma_desc"), dma));
            for (String port : List.of("_dma_status_valid", "_dma_status_data")) {
                path.pin(t + port).set(m.input(t + port, path.pin(t + port).width(), dma));
            }
            for (String port : List.of("_host_status_valid", "_host_status_data")) {
                m.output(t + port, path.pin(t + port).width(), dma).set(path.pin(t + port));
            }
            path.pin("win_base").set(csr.pin("win_base"));
            path.pin("win_last").set(csr.pin("win_last"));
            path.pin("win_allow").set(csr.pin("win_allow_" + t));
            for (String ev : EVENTS) {
                csr.pin(t + "_ev_" + ev).set(path.pin("ev_" + ev));
            }
            csr.pin(t + "_ev_error").set(path.pin("ev_error"));
            csr.pin(t + "_outstanding").set(path.pin("outstanding"));
            csr.pin(t + "_host_buffered").set(path.pin("host_buffered"));
        }
    }
}
