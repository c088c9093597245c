// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import org.direkt.contract.BridgeModes;
import org.direkt.generators.aperture.Aperture;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.generators.bridge.Credits;
import org.direkt.generators.bridge.HostDescController;
import org.direkt.generators.bridge.IdPool;
import org.direkt.generators.bridge.Manifest;
import org.direkt.generators.bridge.RegionWalker;
import org.direkt.generators.bridge.StatusBuilder;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.generators.fifo.SyncFifo;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.generators.stream.ReadyLatencyAdapter;
import org.direkt.hdl.Module;
import org.direkt.hdl.lib.SkidBuffer;

/**
 * Every generator by its command-line name, with its parameters as {@code key=value} strings, and
 * the reference configurations checked in under {@code ip/}.
 */
public final class Catalog {
    private Catalog() {
    }

    /** A generator as the command line sees it. */
    public record Entry(String help, Function<Args, Module> build, Function<Args, Map<String, String>> extraFiles) {
        Entry(String help, Function<Args, Module> build) {
            this(help, build, a -> Map.of());
        }
    }

    /** {@code key=value} parameters; every key must be used, every value must parse. */
    public static final class Args {
        private final String generator;
        private final Map<String, String> values;
        private final List<String> used = new ArrayList<>();

        public Args(String generator, Map<String, String> values) {
            this.generator = generator;
            this.values = new LinkedHashMap<>(values);
        }

        public int integer(String key, int dflt) {
            used.add(key);
            String v = values.get(key);
            if (v == null) {
                return dflt;
            }
            try {
                return Integer.parseInt(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(generator + " " + key + " = " + v + ": must be an integer");
            }
        }

        public long longInteger(String key, long dflt) {
            used.add(key);
            String v = values.get(key);
            if (v == null) {
                return dflt;
            }
            try {
                return Long.decode(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(generator + " " + key + " = " + v + ": must be an integer (decimal or 0x hex)");
            }
        }

        public boolean flag(String key, boolean dflt) {
            used.add(key);
            String v = values.get(key);
            if (v == null) {
                return dflt;
            }
            return switch (v.trim().toLowerCase(Locale.ROOT)) {
                case "1", "true", "yes" -> true;
                case "0", "false", "no" -> false;
                default -> throw new IllegalArgumentException(generator + " " + key + " = " + v + ": must be true or false");
            };
        }

        public String text(String key, String dflt) {
            used.add(key);
            return values.getOrDefault(key, dflt);
        }

        public <E extends Enum<E>> E choice(String key, Class<E> type, E dflt) {
            used.add(key);
            String v = values.get(key);
            if (v == null) {
                return dflt;
            }
            try {
                return Enum.valueOf(type, v.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(generator + " " + key + " = " + v + ": must be one of "
                        + Arrays.stream(type.getEnumConstants()).map(c -> c.name().toLowerCase(Locale.ROOT)).toList());
            }
        }

        public List<Integer> integers(String key) {
            used.add(key);
            String v = values.get(key);
            if (v == null || v.isBlank()) {
                return List.of();
            }
            List<Integer> r = new ArrayList<>();
            for (String part : v.split(",")) {
                try {
                    r.add(Integer.parseInt(part.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(generator + " " + key + " = " + v + ": must be integers separated by commas");
                }
            }
            return r;
        }

        /** Fails on a parameter the generator does not know (a typo must not pass silently). */
        public void requireAllUsed() {
            for (String k : values.keySet()) {
                if (!used.contains(k)) {
                    throw new IllegalArgumentException(generator + ": unknown parameter '" + k + "' (known: " + used + ")");
                }
            }
        }
    }

    private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();

    static {
        ENTRIES.put("sync_fifo", new Entry("width=8 depth=16 show_ahead=true registered=<not show_ahead> almost_full=<depth>", a -> {
            int depth = a.integer("depth", 16);
            boolean showAhead = a.flag("show_ahead", true);
            return new SyncFifo().elaborate(new SyncFifo.Params(a.integer("width", 8), depth, showAhead,
                    a.flag("registered", !showAhead), a.integer("almost_full", depth)));
        }));
        ENTRIES.put("async_fifo", new Entry("width=8 depth=16 sync_stages=2 registered=true write_read_pointer=false lookahead=false side_reset=false", a ->
                new AsyncFifo().elaborate(new AsyncFifo.Params(a.integer("width", 8), a.integer("depth", 16),
                        a.integer("sync_stages", 2), a.flag("registered", true), a.flag("write_read_pointer", false),
                        a.flag("lookahead", false), a.flag("side_reset", false)))));
        ENTRIES.put("skid_buffer", new Entry("width=8", a ->
                new SkidBuffer().elaborate(new SkidBuffer.Params(a.integer("width", 8)))));
        ENTRIES.put("rl_adapter", new Entry("width=8 direction=rl0_to_rl1|rl1_to_rl0", a ->
                new ReadyLatencyAdapter().elaborate(new ReadyLatencyAdapter.Params(a.integer("width", 8),
                        a.choice("direction", ReadyLatencyAdapter.Direction.class, ReadyLatencyAdapter.Direction.RL0_TO_RL1)))));
        ENTRIES.put("arbiter", new Entry("requesters=2 policy=fixed_priority|round_robin|weighted weights=1,2,... offers=false", a ->
                new Arbiter().elaborate(new Arbiter.Params(a.integer("requesters", 2),
                        a.choice("policy", Arbiter.Policy.class, Arbiter.Policy.ROUND_ROBIN), a.integers("weights"),
                        a.flag("offers", false)))));
        ENTRIES.put("channel_port", new Entry("instance=direkt port=<port> type=streamsink|streamsource width=256 chan_id=<id> registered=true", a -> {
            String port = a.text("port", "direkt_rd_desc");
            ChannelPort.Channel c = new ChannelPort.Channel(a.text("instance", "direkt"), port,
                    a.choice("type", ChannelPort.Type.class, ChannelPort.Type.STREAMSINK), a.integer("width", 256),
                    a.text("chan_id", port));
            return new ChannelPort().elaborate(new ChannelPort.Params(c, ChannelPort.KERNEL, a.flag("registered", true)));
        }));
    }

    static {
        ENTRIES.put("bridge", new Entry(BridgeParam.PRESET + "=" + BridgeParam.presetRange() + " [key=value ...]\n"
                + String.join("\n", BridgeParam.helpLines(6, 100, false)),
                a -> new Bridge().elaborate(bridgeParams(a)),
                a -> Map.of(Manifest.FILE_NAME, Manifest.json(bridgeParams(a)))));
    }

    static {
        ENTRIES.put("host_desc_controller", new Entry("desc_ready_latency=1..3 (default 1), then the bridge's: "
                + BridgeParam.PRESET + "=" + BridgeParam.presetRange() + " [key=value ...] (table_fetch_ids is "
                + org.direkt.generators.bridge.HostDescFront.FETCH_IDS + ")",
                a -> new HostDescController().elaborate(controllerParams(a)),
                a -> Map.of(Manifest.FILE_NAME, HostDescController.manifestJson(controllerParams(a)))));
    }

    /** Controller parameters: its descriptor sinks' ready latency and the bridge's parameters ({@link #bridgeParams}). */
    public static HostDescController.Params controllerParams(Args a) {
        Bridge.Params b = bridgeParams(a);
        int n = a.integer("desc_ready_latency", HostDescController.MIN_READY_LATENCY);
        // table_fetch_ids given: it must be the controller's (the record says so); not given: set
        return a.text("table_fetch_ids", null) == null ? HostDescController.Params.of(b, n) : new HostDescController.Params(b, n);
    }

    static {
        ENTRIES.put("aperture", new Entry("bar_bytes=1073741824 fpga_base=0 mem_address_bits=33 data_bits=256 max_burst=16 "
                + "response_beats=256", a -> new Aperture().elaborate(apertureParams(a))));
    }

    /** Aperture parameters: {@link Aperture.Params#defaults}, any overridden by name. */
    public static Aperture.Params apertureParams(Args a) {
        Aperture.Params d = Aperture.Params.defaults();
        return new Aperture.Params(a.longInteger("bar_bytes", d.barBytes()), a.longInteger("fpga_base", d.fpgaBase()),
                a.integer("mem_address_bits", d.memAddressBits()), a.integer("data_bits", d.dataBits()),
                a.integer("max_burst", d.maxBurst()), a.integer("response_beats", d.responseBeats()));
    }

    static {
        ENTRIES.put("region_walker", new Entry("direction=rd|wr entries=1024 regions=16 pieces=16 requests=4 status_depth=8 "
                + "id_base=192 fpga_mem_bytes=8589934592", a -> new RegionWalker().elaborate(walkerParams(a)),
                a -> Map.of(RegionWalker.DESCRIPTION_FILE, RegionWalker.describe(walkerParams(a)))));
    }

    /** Region walker parameters: the defaults of {@link RegionWalker.Params#of}, any overridden by name. */
    public static RegionWalker.Params walkerParams(Args a) {
        BridgeModes.Direction d = a.choice("direction", BridgeModes.Direction.class, BridgeModes.Direction.RD);
        RegionWalker.Params x = RegionWalker.Params.of(d);
        String mem = a.text("fpga_mem_bytes", null);
        long memBytes;
        try {
            memBytes = mem == null ? x.fpgaMemBytes() : Long.parseLong(mem.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("region_walker fpga_mem_bytes = " + mem + ": must be an integer");
        }
        return new RegionWalker.Params(d, a.integer("entries", x.entries()), a.integer("regions", x.regions()),
                a.integer("pieces", x.pieces()), a.integer("requests", x.requests()), a.integer("status_depth", x.statusDepth()),
                a.integer("id_base", x.idBase()), memBytes);
    }

    /** Bridge parameters: a preset, then any parameter overridden by its name ({@link BridgeParam#ALL}). */
    public static Bridge.Params bridgeParams(Args a) {
        Bridge.Params.Builder b = BridgeParam.preset(a.text(BridgeParam.PRESET, Bridge.Params.DEFAULT_PRESET).trim());
        for (BridgeParam<?> d : BridgeParam.ALL) {
            String v = a.text(d.name(), null);
            if (v != null) {
                d.set(b, v);
            }
        }
        return b.build();
    }

    /** Files a generator writes beside its Verilog (the bridge's manifest). */
    public static Map<String, String> extraFiles(String name, Map<String, String> params) {
        Entry e = ENTRIES.get(name);
        return e == null ? Map.of() : e.extraFiles().apply(new Args(name, params));
    }

    public static Map<String, Entry> entries() {
        return java.util.Collections.unmodifiableMap(ENTRIES);
    }

    /** Elaborates generator {@code name} with {@code key=value} parameters. */
    public static Module build(String name, Map<String, String> params) {
        Entry e = ENTRIES.get(name);
        if (e == null) {
            throw new IllegalArgumentException("unknown generator '" + name + "' (known: " + ENTRIES.keySet() + ")");
        }
        Args args = new Args(name, params);
        Module m = e.build().apply(args);
        args.requireAllUsed();
        return m;
    }

    /** The reference IP: the default configurations, emitted into {@code ip/}. */
    public static List<Module> referenceIp() {
        List<Module> r = new ArrayList<>();
        for (int w : new int[] {160, 256, 64}) {
            r.add(new AsyncFifo().elaborate(AsyncFifo.Params.of(w, 16)));
        }
        // either side reset alone (proved in formal/): the plain one, and the default bridge's two
        // crossings (descriptors, as wide as its word: registered, lookahead, write-side empty flag; statuses: unregistered,
        // write-side pointers, lookahead)
        r.add(new AsyncFifo().elaborate(AsyncFifo.Params.of(160, 16).withSideReset()));
        int crossing = org.direkt.generators.bridge.Bridge.Params.defaults().descCrossingBits(
                org.direkt.contract.BridgeModes.Direction.RD);
        r.add(new AsyncFifo().elaborate(new AsyncFifo.Params(crossing, 16, 2, true, false, true, true, true)));
        r.add(new AsyncFifo().elaborate(new AsyncFifo.Params(32, 16, 2, true, false, true, true, true)));
        r.add(new AsyncFifo().elaborate(new AsyncFifo.Params(64, 16, 2, false, true, true, true)));
        r.add(new SyncFifo().elaborate(SyncFifo.Params.of(160, 16)));
        // the GPU-master aperture's PCIe side at the size formal/aperture.sv proves
        r.add(new org.direkt.generators.aperture.ApertureFront().elaborate(
                new org.direkt.generators.aperture.ApertureFront.Params(8, 32, 4, 32)));
        for (int n : new int[] {2, 3}) {
            r.add(new Arbiter().elaborate(Arbiter.Params.fixed(n)));
            r.add(new Arbiter().elaborate(Arbiter.Params.roundRobin(n)));
            r.add(new Arbiter().elaborate(n == 2 ? Arbiter.Params.weighted(3, 1) : Arbiter.Params.weighted(4, 2, 1)));
            if (n == 2) {
                // the bridge's variants (ready from the offer)
                r.add(new Arbiter().elaborate(Arbiter.Params.fixed(n).withOffers()));
                r.add(new Arbiter().elaborate(Arbiter.Params.roundRobin(n).withOffers()));
                r.add(new Arbiter().elaborate(Arbiter.Params.weighted(3, 1).withOffers()));
            }
        }
        for (ReadyLatencyAdapter.Direction d : ReadyLatencyAdapter.Direction.values()) {
            r.add(new ReadyLatencyAdapter().elaborate(new ReadyLatencyAdapter.Params(160, d)));
        }
        r.add(new SkidBuffer().elaborate(new SkidBuffer.Params(160)));
        // the bridge's status credits with fewer in flight than status places (proved in formal/)
        r.add(new Credits().elaborate(new Credits.Params(8, 16)));
        r.add(new Credits().elaborate(new Credits.Params(1, 16)));
        // the ID pool with 4 slots: small enough for `make formal` to prove every slot's life
        r.add(new IdPool().elaborate(new IdPool.Params(4)));
        // the paper preset's status builder (the kernel's IDs, cycle-count statuses), proved on its own
        r.add(new StatusBuilder().elaborate(new StatusBuilder.Params(BridgeModes.IdMode.PAPER, 16, false, true)));
        r.add(new Bridge().elaborate(Bridge.Params.defaults()));
        // three kernel ports onto one request stream, 2 credits each, a 40-bit word (tag [35:4], more
        // bit 39): small enough for make formal to prove per-port credits and status routing
        r.add(new org.direkt.generators.bridge.PortMux().elaborate(new org.direkt.generators.bridge.PortMux.Params(3, 2,
                Arbiter.Policy.ROUND_ROBIN, List.of(), 40, 4, 39)));
        // the GPU region walker in both directions, and its smallest build (proved in formal/)
        r.add(new RegionWalker().elaborate(RegionWalker.Params.of(BridgeModes.Direction.RD)));
        r.add(new RegionWalker().elaborate(RegionWalker.Params.of(BridgeModes.Direction.WR)));
        r.add(new RegionWalker().elaborate(new RegionWalker.Params(BridgeModes.Direction.RD, 16, 2, 2, 2, 2, 192, 8L << 30)));
        // the descriptor controller the BSP's host software drives, around the default bridge, and its
        // front with 4-entry tables (proved in formal/)
        r.add(new HostDescController().elaborate(HostDescController.Params.defaults()));
        r.add(new org.direkt.generators.bridge.HostDescFront().elaborate(new org.direkt.generators.bridge.HostDescFront.Params(4)));
        return r;
    }
}
