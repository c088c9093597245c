// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.function.Supplier;

import org.direkt.contract.BridgeModes.Addressing;
import org.direkt.contract.BridgeModes.Direction;
import org.direkt.contract.BridgeModes.IdMode;
import org.direkt.contract.BridgeModes.StatusMode;
import org.direkt.contract.BridgeModes.WordOrder;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.generators.Check;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;

/**
 * The descriptor-controller extension: it sits between the BSP's descriptor controller and the
 * PCIe hard IP's Read and Write Data Movers and lets OpenCL kernels issue DMA descriptors through
 * I/O channels, beside the host's own. One {@link BridgePath} per direction (rd: GPU->FPGA through
 * the Read Data Mover; wr: FPGA->GPU through the Write Data Mover) and one {@link BridgeCsr}
 * holding the window table and counters.
 */
public final class Bridge extends Generator<Bridge.Params> {

    /** The four channel ids (what kernels name in {@code io("...")}). */
    public record ChannelIds(String rdDesc, String rdStatus, String wrDesc, String wrStatus) {
        public static final ChannelIds DEFAULT = new ChannelIds("direkt_rd_desc", "direkt_rd_status", "direkt_wr_desc", "direkt_wr_status");
        public static final ChannelIds PAPER = new ChannelIds("rdcldesc", "rdclmstatus", "wrcldesc", "wrclmstatus");

        public List<String> all() {
            return List.of(rdDesc, rdStatus, wrDesc, wrStatus);
        }

        /** The id of direction {@code d}'s descriptor ({@code desc}) or status channel. */
        public String get(Direction d, boolean desc) {
            return d == Direction.RD ? (desc ? rdDesc : rdStatus) : (desc ? wrDesc : wrStatus);
        }

        /** These ids with direction {@code d}'s descriptor ({@code desc}) or status channel renamed to {@code id}. */
        public ChannelIds with(Direction d, boolean desc, String id) {
            return new ChannelIds(d == Direction.RD && desc ? id : rdDesc, d == Direction.RD && !desc ? id : rdStatus,
                    d == Direction.WR && desc ? id : wrDesc, d == Direction.WR && !desc ? id : wrStatus);
        }
    }

    /** A named starting point for the parameters, as tools list it; {@link #get} makes its parameters. */
    public record Preset(String name, String doc, Supplier<Params> params) implements Supplier<Params> {
        @Override
        public Params get() {
            return params.get();
        }
    }

    public record Params(String instance, ChannelIds channels, int descFifoDepth, int statusFifoDepth, int inflight,
            Arbiter.Policy policy, List<Integer> weights, IdMode idMode, StatusMode statusMode, int windowEntries,
            ClockDomain.ResetPolarity dmaResetPolarity, int syncStages, long fpgaMemBytes, WordOrder wordOrder,
            boolean registeredChannels, boolean counters, boolean bringup, Addressing addressing, int regionPages, int regions,
            int ports, int portCredits, Arbiter.Policy portPolicy, List<Integer> portWeights, int tableFetchIds) {
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
            require(tableFetchIds >= 0 && tableFetchIds <= MAX_TABLE_FETCH_IDS, "Bridge", "tableFetchIds", tableFetchIds,
                    "must be in 0.." + MAX_TABLE_FETCH_IDS + " (kernel IDs kept for a descriptor controller's table fetches)");
            require(tableFetchIds == 0 || inflight <= 128 - tableFetchIds, "Bridge", "inflight", inflight,
                    "must be at most " + (128 - tableFetchIds) + " with tableFetchIds = " + tableFetchIds + " (managed IDs 128..127+inflight"
                            + " must stay below the table-fetch IDs " + (256 - tableFetchIds) + "..255)");
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
            require(fpgaMemBytes >= 4096 && fpgaMemBytes % 4 == 0, "Bridge", "fpgaMemBytes", fpgaMemBytes,
                    "must be a multiple of 4, at least 4096");
            require(wordOrder != null, "Bridge", "wordOrder", wordOrder, "must be X0_LOW or X0_HIGH");
            require(addressing != null, "Bridge", "addressing", addressing, "must be RAW or REGIONS");
            require(Check.isPowerOfTwo(regionPages) && regionPages >= 16 && regionPages <= 65536, "Bridge", "regionPages",
                    regionPages, "must be a power of two in 16..65536 (64 KB pages: 1 MB .. 4 GB mapped at once)");
            require(regions >= 1 && regions <= 64, "Bridge", "regions", regions, "must be in 1..64");
            if (addressing == Addressing.REGIONS) {
                require(idMode == IdMode.MANAGED, "Bridge", "idMode", idMode, "must be MANAGED with addressing=regions (the bridge splits requests into descriptors of its own)");
                require(statusMode == StatusMode.TAGGED, "Bridge", "statusMode", statusMode, "must be TAGGED with addressing=regions (a status names its request by tag)");
                require(inflight <= 16, "Bridge", "inflight", inflight, "must be in 1..16 with addressing=regions (region requests in flight per direction)");
                require(!bringup, "Bridge", "bringup", bringup, "is not available with addressing=regions yet: set bringup=false");
            }
            require(ports >= 1 && ports <= MAX_PORTS, "Bridge", "ports", ports, "must be in 1.." + MAX_PORTS + " (kernel ports per direction)");
            require(Check.isPowerOfTwo(portCredits) && portCredits >= 2 && portCredits <= 16, "Bridge", "portCredits", portCredits,
                    "must be a power of two in 2..16 (requests a port may have unanswered)");
            require(portPolicy != null, "Bridge", "portPolicy", portPolicy, "must be FIXED_PRIORITY, ROUND_ROBIN or WEIGHTED");
            portWeights = portWeights == null ? List.of() : List.copyOf(portWeights);
            if (ports > 1) {
                new Arbiter.Params(ports, portPolicy, portWeights);
                require(statusMode == StatusMode.TAGGED && idMode == IdMode.MANAGED, "Bridge", "ports", ports,
                        "needs status_mode=tagged and id_mode=managed (a status finds its port by the tag the bridge puts in the request)");
                List<String> ids = new java.util.ArrayList<>();
                for (int k = 0; k < ports; k++) {
                    for (String id : channels.all()) {
                        ids.add(portChannelId(id, k));
                    }
                }
                require(ids.stream().distinct().count() == ids.size(), "Bridge", "channels", ids,
                        "the channel ids of every port must differ (port k adds _p<k> to each id)");
            } else {
                require(portWeights.isEmpty() || portWeights.size() == 1, "Bridge", "portWeights", portWeights,
                        "one weight per port (ports = 1)");
            }
        }

        /** What host software sees of this bridge: the {@link BridgeSpec} its CSR map, header and runtime follow from. */
        public BridgeSpec spec() {
            return new BridgeSpec(idMode, statusMode, wordOrder, addressing, windowEntries, inflight, syncStages, fpgaMemBytes,
                    counters, bringup, regions, regionPages, ports);
        }

        /** Whether kernels write region requests ({@link Addressing#REGIONS}) rather than raw descriptors. */
        public boolean regionsAddressing() {
            return addressing == Addressing.REGIONS;
        }

        /** Direction d's region walker (addressing=regions): IDs from 128, {@link #REGION_PIECES} pieces in flight. */
        public RegionWalker.Params walker(Direction d) {
            int depth = Integer.highestOneBit(Math.max(2, inflight) * 2 - 1);
            return new RegionWalker.Params(d, regionPages, regions, REGION_PIECES, inflight, depth, Layout.KERNEL_ID_FIRST, fpgaMemBytes,
                    false, counters);
        }

        /** The most kernel ports per direction. */
        public static final int MAX_PORTS = 8;

        /** The most kernel IDs a bridge keeps for a descriptor controller's table fetches. */
        public static final int MAX_TABLE_FETCH_IDS = 16;

        /**
         * The kernel IDs kept for a descriptor controller's table fetches, {@code [first, 255]}
         * ({@code 256 - tableFetchIds .. 255}); empty ({@code first = 256}) with none. The managed ID
         * pool never reaches them (inflight is bounded); a paper-mode kernel descriptor naming one is
         * refused ({@link Layout.Error#BAD_ID}), so a mover status carrying one is the controller's.
         */
        public int tableFetchFirst() {
            return Layout.KERNEL_ID_LAST + 1 - tableFetchIds;
        }

        /**
         * The ready latency of the host descriptor inputs: 1, as a BSP's descriptor controller sends to
         * the mover (the bridge buffers what arrives after it drops ready), or 0 in a bridge that keeps
         * table-fetch IDs, which sits inside direkt's descriptor controller: its front offers each
         * descriptor from a register until it is taken, so the bridge has no host buffer (HOST_BUFFERED
         * reads 0 and host_overflow never counts).
         */
        public int hostReadyLatency() {
            return tableFetchIds > 0 ? 0 : 1;
        }

        /** The channel id of port {@code k} of channel {@code id}: port 0 keeps the id, port k > 0 adds {@code _p<k>}. */
        public static String portChannelId(String id, int k) {
            return k == 0 ? id : id + "_p" + k;
        }

        /** The kernel-side stream of port {@code k} of direction d ({@code rd}, {@code rd_p1}, ...): its pins are {@code <prefix>_desc_*}, {@code <prefix>_status_*}. */
        public static String portPrefix(Direction d, int k) {
            return k == 0 ? d.tag() : d.tag() + "_p" + k;
        }

        /**
         * Mover descriptors in flight per direction with addressing=regions (their IDs are 128..131):
         * enough to keep the mover busy while the first one's status is on its way. At the mover model's
         * 32 B per cycle and 250 cycles of status latency, a 64 KB piece takes 2,048 cycles and a 4 KB
         * row 128, so two 64 KB pieces, or three 4 KB rows, cover the latency.
         */
        public static final int REGION_PIECES = 4;

        /** direkt's default: managed IDs, tagged status, 16 in flight, round-robin, 4 windows, counters, 8 GiB of FPGA memory. */
        public static Params defaults() {
            return builder().instance("direkt_bridge").channels(ChannelIds.DEFAULT).descFifoDepth(16).statusFifoDepth(16)
                    .inflight(16).policy(Arbiter.Policy.ROUND_ROBIN).weights(List.of()).idMode(IdMode.MANAGED)
                    .statusMode(StatusMode.TAGGED).windowEntries(4).dmaResetPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW)
                    .syncStages(2).fpgaMemBytes(8L << 30).wordOrder(WordOrder.X0_LOW).registeredChannels(false)
                    .counters(true).bringup(true).addressing(Addressing.RAW).regionPages(1024).regions(16)
                    .ports(1).portCredits(4).portPolicy(Arbiter.Policy.ROUND_ROBIN).portWeights(List.of()).tableFetchIds(0).build();
        }

        /**
         * As the published design: its channel names, the kernel's IDs, cycle-count status, fixed
         * priority to the host; with one address window and the counters, without the bring-up registers.
         */
        public static Params paper() {
            return defaults().toBuilder().channels(ChannelIds.PAPER).policy(Arbiter.Policy.FIXED_PRIORITY)
                    .idMode(IdMode.PAPER).statusMode(StatusMode.CYCLES).windowEntries(1).bringup(false).build();
        }

        /**
         * The smallest useful bridge: the paper preset without counters, and an 8-deep descriptor
         * FIFO (still one descriptor per dma_clk cycle across the crossing at 1:1 clocks, as
         * bench/bridge.py's issue test measures it; 16 only adds room for bursts).
         */
        public static Params lean() {
            return paper().toBuilder().counters(false).descFifoDepth(8).build();
        }

        /**
         * Kernels name GPU memory by region: a 1024-page table (64 MB of GPU memory mapped at once)
         * and 16 regions, 4 requests in flight per direction; no windows (a kernel never names a bus
         * address), no counters, no bring-up registers. The crossings are as deep as a region request's
         * traffic needs: 8 requests (one a cycle across the crossing, as the lean preset's 8
         * descriptors), 4 statuses (one per request in flight).
         */
        public static Params regionsPreset() {
            return defaults().toBuilder().addressing(Addressing.REGIONS).inflight(4).descFifoDepth(8).statusFifoDepth(4)
                    .counters(false).bringup(false).build();
        }

        /** The preset tools start from when none is named. */
        public static final String DEFAULT_PRESET = "default";

        /** The named starting points, in the order tools list them. */
        public static final SequencedMap<String, Preset> PRESETS = presets(
                new Preset(DEFAULT_PRESET, "direkt's own: managed IDs, tagged status, round-robin arbitration, bring-up registers", Params::defaults),
                new Preset("paper", "the published design: its channel names, the kernel's IDs, cycle-count status, fixed priority; "
                        + "one window, counters", Params::paper),
                new Preset("lean", "the paper preset without counters, an 8-deep descriptor FIFO: one window, the kernel's IDs", Params::lean),
                new Preset("regions", "GPU regions translated on the FPGA: kernels name (region, offset, length, FPGA address); "
                        + "a 1024-page table, 16 regions, 4 requests in flight, 8-deep request and 4-deep status crossings; no counters",
                        Params::regionsPreset));

        private static SequencedMap<String, Preset> presets(Preset... presets) {
            LinkedHashMap<String, Preset> m = new LinkedHashMap<>();
            for (Preset p : presets) {
                m.put(p.name(), p);
            }
            return Collections.unmodifiableSequencedMap(m);
        }

        /** An empty builder; every component must be set before {@link Builder#build}. */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding these parameters, to change some of them by name. */
        public Builder toBuilder() {
            return new Builder(this);
        }

        /**
         * Parameters by component name, so that no caller lists sixteen values by position (two ints
         * swapped would still compile). {@link #build} runs the record's checks.
         */
        public static final class Builder {
            private String instance;
            private ChannelIds channels;
            private int descFifoDepth;
            private int statusFifoDepth;
            private int inflight;
            private Arbiter.Policy policy;
            private List<Integer> weights = List.of();
            private IdMode idMode;
            private StatusMode statusMode;
            private int windowEntries;
            private ClockDomain.ResetPolarity dmaResetPolarity;
            private int syncStages;
            private long fpgaMemBytes;
            private WordOrder wordOrder;
            private boolean registeredChannels;
            private boolean counters;
            private boolean bringup;
            private Addressing addressing;
            private int regionPages;
            private int regions;
            private int ports;
            private int portCredits;
            private Arbiter.Policy portPolicy;
            private List<Integer> portWeights = List.of();
            private int tableFetchIds;

            private Builder() {
            }

            private Builder(Params p) {
                instance = p.instance;
                channels = p.channels;
                descFifoDepth = p.descFifoDepth;
                statusFifoDepth = p.statusFifoDepth;
                inflight = p.inflight;
                policy = p.policy;
                weights = p.weights;
                idMode = p.idMode;
                statusMode = p.statusMode;
                windowEntries = p.windowEntries;
                dmaResetPolarity = p.dmaResetPolarity;
                syncStages = p.syncStages;
                fpgaMemBytes = p.fpgaMemBytes;
                wordOrder = p.wordOrder;
                registeredChannels = p.registeredChannels;
                counters = p.counters;
                bringup = p.bringup;
                addressing = p.addressing;
                regionPages = p.regionPages;
                regions = p.regions;
                ports = p.ports;
                portCredits = p.portCredits;
                portPolicy = p.portPolicy;
                portWeights = p.portWeights;
                tableFetchIds = p.tableFetchIds;
            }

            public Builder tableFetchIds(int v) {
                tableFetchIds = v;
                return this;
            }

            public Builder ports(int v) {
                ports = v;
                return this;
            }

            public Builder portCredits(int v) {
                portCredits = v;
                return this;
            }

            public Builder portPolicy(Arbiter.Policy v) {
                portPolicy = v;
                return this;
            }

            public Builder portWeights(List<Integer> v) {
                portWeights = v;
                return this;
            }

            public Builder addressing(Addressing v) {
                addressing = v;
                return this;
            }

            public Builder regionPages(int v) {
                regionPages = v;
                return this;
            }

            public Builder regions(int v) {
                regions = v;
                return this;
            }

            public Builder instance(String v) {
                instance = v;
                return this;
            }

            public Builder channels(ChannelIds v) {
                channels = v;
                return this;
            }

            /** Renames one of the channels set before: direction {@code d}'s descriptor ({@code desc}) or status channel. */
            public Builder channel(Direction d, boolean desc, String id) {
                channels = channels.with(d, desc, id);
                return this;
            }

            public Builder descFifoDepth(int v) {
                descFifoDepth = v;
                return this;
            }

            public Builder statusFifoDepth(int v) {
                statusFifoDepth = v;
                return this;
            }

            public Builder inflight(int v) {
                inflight = v;
                return this;
            }

            public Builder policy(Arbiter.Policy v) {
                policy = v;
                return this;
            }

            public Builder weights(List<Integer> v) {
                weights = v;
                return this;
            }

            public Builder idMode(IdMode v) {
                idMode = v;
                return this;
            }

            public Builder statusMode(StatusMode v) {
                statusMode = v;
                return this;
            }

            public Builder windowEntries(int v) {
                windowEntries = v;
                return this;
            }

            public Builder dmaResetPolarity(ClockDomain.ResetPolarity v) {
                dmaResetPolarity = v;
                return this;
            }

            public Builder syncStages(int v) {
                syncStages = v;
                return this;
            }

            public Builder fpgaMemBytes(long v) {
                fpgaMemBytes = v;
                return this;
            }

            public Builder wordOrder(WordOrder v) {
                wordOrder = v;
                return this;
            }

            public Builder registeredChannels(boolean v) {
                registeredChannels = v;
                return this;
            }

            public Builder counters(boolean v) {
                counters = v;
                return this;
            }

            public Builder bringup(boolean v) {
                bringup = v;
                return this;
            }

            public Params build() {
                return new Params(instance, channels, descFifoDepth, statusFifoDepth, inflight, policy, weights, idMode,
                        statusMode, windowEntries, dmaResetPolarity, syncStages, fpgaMemBytes, wordOrder, registeredChannels,
                        counters, bringup, addressing, regionPages, regions, ports, portCredits, portPolicy, portWeights, tableFetchIds);
            }
        }

        public String descChannel(Direction d) {
            return channels.get(d, true);
        }

        public String statusChannel(Direction d) {
            return channels.get(d, false);
        }

        /** The dma_clk domain: the PCIe application clock with the configured reset polarity. */
        public ClockDomain dmaDomain() {
            boolean low = dmaResetPolarity == ClockDomain.ResetPolarity.ACTIVE_LOW;
            return new ClockDomain("dma", "dma_clk", low ? "dma_resetn" : "dma_rst", dmaResetPolarity, ClockDomain.ResetKind.SYNC);
        }

        /** Bits of a word of direction d's descriptor crossing FIFO (kernel_clk -> dma_clk). */
        public int descCrossingBits(Direction d) {
            return BridgePath.fifoWord(DescChecks.crossWord(issue(d).checks()), this).bits();
        }

        public BridgeIssue.Params issue(Direction d) {
            // Only a paper-mode check refuses the table-fetch IDs: managed IDs never reach them.
            DescChecks.Params checks = new DescChecks.Params(d, idMode, statusMode == StatusMode.TAGGED, fpgaMemBytes,
                    idMode == IdMode.PAPER ? tableFetchIds : 0);
            return new BridgeIssue.Params(new WindowCheck.Params(checks, windowEntries), inflight, statusFifoDepth, counters, tableFetchIds);
        }

        /**
         * Every channel as board_spec.xml declares it (kernel-side port names = direction, port, role):
         * per port (port 0's first) and direction, its descriptor and status channel.
         */
        public List<ChannelPort.Channel> channelList() {
            List<ChannelPort.Channel> r = new java.util.ArrayList<>();
            for (int k = 0; k < ports; k++) {
                for (Direction d : Direction.values()) {
                    r.add(channel(d, true, k));
                    r.add(channel(d, false, k));
                }
            }
            return List.copyOf(r);
        }

        /** Every channel id, as {@link #channelList} orders them. */
        public List<String> channelIds() {
            return channelList().stream().map(ChannelPort.Channel::chanId).toList();
        }

        /**
         * The name a channel is exported under from the board's Platform Designer system, which is
         * its {@code port} in board_spec.xml: the bridge instance and the channel's own port.
         */
        public String boardPort(ChannelPort.Channel c) {
            return instance + "_" + c.port();
        }

        public ChannelPort.Channel channel(Direction d, boolean desc) {
            return channel(d, desc, 0);
        }

        /** Port {@code k}'s descriptor ({@code desc}) or status channel of direction d. */
        public ChannelPort.Channel channel(Direction d, boolean desc, int k) {
            return new ChannelPort.Channel(instance, portPrefix(d, k) + (desc ? "_desc" : "_status"),
                    desc ? ChannelPort.Type.STREAMSINK : ChannelPort.Type.STREAMSOURCE,
                    desc ? Layout.CLDESC.bits() : 64, portChannelId(desc ? descChannel(d) : statusChannel(d), k));
        }
    }

    /**
     * The top is named after the Platform Designer instance ({@code direkt_bridge} by default), as
     * an IP generator names a variant's top after the user's variant name; its submodules carry a
     * hash of their parameters ({@link org.direkt.generators.Names}), so two bridges live in one project.
     * A bridge keeping table-fetch IDs (inside {@link HostDescController}, whose top takes the
     * instance's name) adds {@code _f<n>}.
     */
    @Override
    public String moduleName(Params p) {
        // Inside a descriptor controller (table-fetch IDs kept) it is a submodule of its own kind.
        return p.instance() + (p.tableFetchIds() == 0 ? "" : "_f" + p.tableFetchIds());
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        m.doc(String.format("""
                direkt bridge: OpenCL kernels issue PCIe DMA descriptors through I/O channels %s, beside
                the host's descriptor controller. Sits between the BSP's descriptor controller (rd/wr_host_*)
                and the hard IP's data movers (rd/wr_dma_*). IDs %s; status %s; up to %d kernel descriptors
                in flight per direction; %s arbitration; %d address windows, all closed after reset%s%s.
                Reset: assert kernel_resetn and %s together for at least %d cycles of the slower clock.""",
                p.channels().all(), p.idMode() == IdMode.MANAGED ? "managed by the bridge (128..255)" : "from the kernel (paper)",
                p.statusMode() == StatusMode.TAGGED ? "tagged (tag, error, elapsed)" : "elapsed cycles (paper)",
                p.inflight(), p.policy().name().toLowerCase(java.util.Locale.ROOT), p.windowEntries(),
                p.counters() ? "; event counters" : "",
                p.ports() > 1 ? String.format("; %d kernel ports per direction (%s, %d requests unanswered each)", p.ports(),
                        p.portPolicy().name().toLowerCase(java.util.Locale.ROOT), p.portCredits()) : "",
                p.dmaDomain().reset(), p.syncStages() + 2));
        ClockDomain kernel = m.domain(ChannelPort.KERNEL);
        ClockDomain dma = m.domain(p.dmaDomain());

        BridgeCsr.Io csr = m.sub("u_csr", new BridgeCsr(), new BridgeCsr.Params(p)).clock(dma).io();
        csr.address().set(m.input("csr_address", csr.address().width(), dma));
        csr.read().set(m.input("csr_read", 1, dma));
        csr.write().set(m.input("csr_write", 1, dma));
        csr.writedata().set(m.input("csr_writedata", 32, dma));
        m.output("csr_readdata", 32, dma).set(csr.readdata());
        m.output("csr_readdatavalid", 1, dma).set(csr.readdatavalid());

        // Issue stamps: one free-running dma_clk counter for both directions (and both region walkers).
        Reg now = m.reg("now", 32, dma).init(0);
        now.set(now.plus(1));

        List<BridgePath.Tables> tables = new java.util.ArrayList<>();
        for (Direction d : Direction.values()) {
            String t = d.tag();
            BridgePath.Params pp = new BridgePath.Params(p, d);
            BridgePath.Io path = m.sub("u_" + t, new BridgePath(), pp)
                    .clock(ChannelPort.KERNEL, kernel).clock(p.dmaDomain(), dma).io();
            for (int k = 0; k < p.ports(); k++) {
                String pre = Params.portPrefix(d, k);
                m.connect(m.stream(pre + "_desc", path.desc().get(k).type(), kernel), path.desc().get(k));
                m.connect(path.status().get(k), m.stream(pre + "_status", path.status().get(k).type(), kernel));
            }
            m.connect(m.stream(t + "_host_desc", path.hostDesc().type(), dma), path.hostDesc());
            m.connect(path.dmaDesc(), m.stream(t + "_dma_desc", path.dmaDesc().type(), dma));
            path.dmaStatusValid().set(m.input(t + "_dma_status_valid", 1, dma));
            path.dmaStatusData().set(m.input(t + "_dma_status_data", Layout.MOVER_STATUS.bits(), dma));
            m.output(t + "_host_status_valid", 1, dma).set(path.hostStatusValid());
            m.output(t + "_host_status_data", Layout.MOVER_STATUS.bits(), dma).set(path.hostStatusData());
            path.now().set(now);
            if (p.regionsAddressing()) {
                tables.add(path.tables());
            } else {
                path.winBase().set(csr.winBase());
                path.winMask().set(csr.winMask());
                path.winAllow().set(d == Direction.RD ? csr.winAllowRd() : csr.winAllowWr());
            }
            BridgeCsr.Direction report = csr.directions().get(d.ordinal());
            report.events().forEach((name, pin) -> pin.set(path.events().get(name)));
            report.error().set(path.evError());
            report.outstanding().set(path.outstanding());
            report.hostBuffered().set(path.hostBuffered());
            if (p.bringup()) {
                report.lastDesc().set(path.lastDesc());
                report.lastMoverStatus().set(path.lastMoverStatus());
            }
        }
        if (p.regionsAddressing()) {
            // Both walkers hold the same tables: every write goes to both, and a page write either
            // walker refuses (a cycle after it is offered, from its registers) goes to neither. The
            // region read-back comes from the rd copy.
            BridgeCsr.Regions r = csr.regions();
            for (BridgePath.Tables t : tables) {
                t.ptWe().set(r.ptWe());
                t.ptAddr().set(r.ptAddr());
                t.ptData().set(r.ptData());
                t.rgWe().set(r.rgWe());
                t.rgIdx().set(r.rgIdx());
                t.rgData().set(r.rgData());
                t.rgOpen().set(r.rgOpen());
                t.rgReadIdx().set(r.rgReadIdx());
            }
            Signal conflict = m.wire("pt_conflict", 1);
            conflict.set(tables.get(0).ptConflict().or(tables.get(1).ptConflict()));
            r.ptConflict().set(conflict);
            for (BridgePath.Tables t : tables) {
                t.ptVeto().set(conflict);
            }
            r.rgReadData().set(tables.get(0).rgReadData());
            r.rgReadBusy().set(tables.get(0).rgReadBusy().or(tables.get(1).rgReadBusy()));
        }
    }
}
