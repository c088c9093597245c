// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a system that kernel-issued DMA cares about: the PCIe hard IP, whether it has Avalon-MM
 * DMA and which descriptor controller drives its data movers, its BARs with what host software reaches
 * through each, its DMA masters with what they reach, the kernel clock and the hard IP's application
 * clock. Addresses are as the master sees them: an agent behind transparent bridges (pipe stages,
 * clock crossings) is listed at the bridge's base plus its own.
 *
 * @param hardIp          the PCIe hard IP instance
 * @param avalonMmDma     whether it has the Avalon-MM DMA data movers; {@code dmaEvidence} says why
 * @param controller      the descriptor controller that feeds the movers
 * @param bars            BAR0..BAR5 as its parameters state them (or as its RX masters imply)
 * @param dmaMasters      its Avalon-MM hosts other than the RX masters: the data movers and the
 *                        descriptor-completion masters
 * @param kernelClock     the source of the kernel clock, when the system exports or names one
 * @param applicationClock the clock the hard IP gives its application ({@code coreclkout_hip})
 */
public record DmaView(SystemModel system, Instance hardIp, boolean avalonMmDma, String dmaEvidence, Controller controller,
        List<Bar> bars, List<DmaMaster> dmaMasters, Optional<Clock> kernelClock, Optional<Clock> applicationClock) {

    public DmaView {
        bars = List.copyOf(bars);
        dmaMasters = List.copyOf(dmaMasters);
    }

    /**
     * PCIe hard IP kinds (Arria 10 {@code altera_pcie_a10_hip}, Stratix 10 {@code
     * altera_pcie_s10_hip_avmm_bridge}, {@code *_hip_avmm}, ...), but not the separate descriptor
     * controllers ({@code altera_pcie_dma_desc_controller}, {@code dma_control}, {@code
     * altera_pcie_s10_dma_controller}).
     */
    static final Pattern HARD_IP_KIND = Pattern.compile("(?i)(?!.*(desc|control)).*pcie.*(hip|avmm|bridge).*");
    /** The movers' descriptor sinks, as Platform Designer names them (Arria 10 / Stratix 10). */
    static final Pattern DESCRIPTOR_SINK = Pattern.compile("(?i)(rd|wr)_ast_rx|(rd|wr)dmarx|(rd|wr)_dma_rx");
    /** The RX master of a BAR: {@code rxm_bar<N>}; on Arria 10, BAR2 with bursts is {@code hprxm}. */
    private static final Pattern RX_MASTER = Pattern.compile("(?i)rxm_bar(\\d)|hprxm");
    /** Transparent Avalon-MM bridges: an agent behind one keeps its address offset by the bridge's base. */
    private static final Pattern TRANSPARENT_BRIDGE = Pattern.compile("(?i).*(mm_bridge|mm_clock_crossing_bridge|pipeline_bridge).*");
    /** Clock instances that pass their input through (a clock bridge, a clock source's clk_in -> clk). */
    private static final Pattern CLOCK_PASS = Pattern.compile("(?i).*clock_bridge.*|clock_source");
    private static final int MAX_BRIDGES = 8;
    private static final String INTERNAL_CONTROLLER = "internal_controller_hwtcl";

    /** Which descriptor controller feeds the data movers. */
    public enum Mode {
        /** The hard IP's own ({@code internal_controller_hwtcl} = 1): no controller instance, registers in BAR0. */
        INTERNAL,
        /** A controller instance outside the hard IP feeds its descriptor sinks. */
        EXTERNAL,
        /** Neither is stated nor seen (a hard IP without Avalon-MM DMA, or a system that does not say). */
        UNKNOWN
    }

    /**
     * @param instance the external controller's instance, when one feeds the sinks
     * @param feeds    each connection into a descriptor sink, as {@code source -> sink}
     * @param evidence what decided the mode, with where it stands
     */
    public record Controller(Mode mode, Optional<String> instance, List<String> feeds, String evidence, Optional<Where> where) {
        public Controller {
            feeds = List.copyOf(feeds);
        }
    }

    /**
     * One agent a host reaches.
     *
     * @param agent {@code instance.interface}
     * @param kind  the agent instance's IP type
     * @param base  its address as the host sees it
     * @param span  its span, when the files state it
     * @param via   the transparent bridges between the host and it (empty: directly on the host's map)
     * @param where the connection that puts it on the last map
     */
    public record Reach(String agent, String kind, BigInteger base, Optional<BigInteger> span, List<String> via, Where where) {
        public Reach {
            via = List.copyOf(via);
        }
    }

    /**
     * One BAR.
     *
     * @param type                 the BAR's type as the parameters state it ("64-bit prefetchable memory",
     *                             "Disabled"); empty when they do not
     * @param addressBits          the BAR's decode width: its size is 2^addressBits bytes
     * @param rxMaster             the RX master serving it, {@code instance.interface}
     * @param controllerRegisters  BAR0 decoded inside the hard IP for its internal descriptor controller
     * @param agents               what the RX master reaches
     */
    public record Bar(int index, String type, boolean enabled, int bits, boolean prefetchable, Optional<Integer> addressBits,
            Optional<String> rxMaster, boolean controllerRegisters, List<Reach> agents, Optional<Where> where) {
        public Bar {
            agents = List.copyOf(agents);
        }

        public Optional<BigInteger> size() {
            return addressBits.map(b -> BigInteger.ONE.shiftLeft(b));
        }
    }

    /**
     * One Avalon-MM host of the hard IP that is not an RX master, with what it reaches; {@code role}:
     * "read data mover" (writes what it reads from the host), "write data mover" (reads what it writes
     * to the host), "read/write descriptor completion" (status and MSI writes to the host), or
     * "Avalon-MM host".
     */
    public record DmaMaster(String master, String role, List<Reach> reaches) {
        public DmaMaster {
            reaches = List.copyOf(reaches);
        }
    }

    /**
     * A clock: {@code clock} is the {@code instance.interface} that drives it; {@code export} the
     * system's export that carries it; {@code through} the pass-through clock instances between.
     */
    public record Clock(String clock, Optional<String> export, List<String> through, Optional<Long> rateHz) {
        public Clock {
            through = List.copyOf(through);
        }
    }

    /** The DMA view of {@code system}: empty when no instance is a PCIe hard IP. The first hard IP in file order is used. */
    public static Optional<DmaView> of(SystemModel system) {
        Optional<Instance> hip = system.instances().stream().filter(i -> HARD_IP_KIND.matcher(i.kind()).matches()).findFirst();
        return hip.map(h -> build(system, h));
    }

    private static DmaView build(SystemModel s, Instance hip) {
        Set<String> ifs = interfaceNames(s, hip);
        String type = hip.parameter("interface_type_hwtcl").orElse("");
        boolean dma;
        String evidence;
        if (!type.isEmpty()) {
            dma = type.toLowerCase(Locale.ROOT).contains("dma");
            evidence = "interface_type_hwtcl = " + type;
        } else {
            Optional<String> mover = ifs.stream().filter(n -> n.matches("(?i)dma_(rd|wr)_master|(rd|wr)_dma_master|(rd|wr)_dts_slave")
                    || DESCRIPTOR_SINK.matcher(n).matches()).findFirst();
            dma = mover.isPresent();
            evidence = mover.map(n -> "has interface " + n).orElse("no data-mover interface (dma_rd_master, rd_ast_rx, ...)");
        }
        Controller controller = controller(s, hip, ifs);
        return new DmaView(s, hip, dma, evidence, controller, bars(s, hip, ifs, controller), masters(s, hip, ifs),
                kernelClock(s), applicationClock(s, hip));
    }

    /** The hard IP's interfaces: those its file lists and those its connections name. */
    private static Set<String> interfaceNames(SystemModel s, Instance hip) {
        Set<String> names = new LinkedHashSet<>();
        hip.interfaces().forEach(i -> names.add(i.name()));
        for (Connection c : s.connections()) {
            if (c.startInstance().equals(hip.name())) {
                names.add(c.startInterface());
            }
            if (c.endInstance().equals(hip.name())) {
                names.add(c.endInterface());
            }
        }
        return names;
    }

    private static Controller controller(SystemModel s, Instance hip, Set<String> ifs) {
        List<String> feeds = new ArrayList<>();
        Set<String> sources = new LinkedHashSet<>();
        for (Connection c : s.connections()) {
            if (c.endInstance().equals(hip.name()) && DESCRIPTOR_SINK.matcher(c.endInterface()).matches()) {
                feeds.add(c.start() + " -> " + c.end());
                sources.add(c.startInstance());
            }
        }
        Optional<String> instance = sources.stream().findFirst();
        Optional<String> internal = hip.parameter(INTERNAL_CONTROLLER);
        Optional<Where> where = Optional.ofNullable(hip.parameterWhere().get(INTERNAL_CONTROLLER));
        if (internal.isPresent()) {
            boolean on = internal.get().strip().equals("1") || internal.get().strip().equalsIgnoreCase("true");
            String ev = INTERNAL_CONTROLLER + " = " + internal.get().strip();
            if (on) {
                return new Controller(Mode.INTERNAL, Optional.empty(), feeds, ev, where);
            }
            return new Controller(Mode.EXTERNAL, instance, feeds,
                    ev + (feeds.isEmpty() ? "; nothing feeds the descriptor sinks (rd_ast_rx / wr_ast_rx)" : ""), where);
        }
        if (!feeds.isEmpty()) {
            return new Controller(Mode.EXTERNAL, instance, feeds, "its descriptor sinks are fed by " + String.join(", ", sources), Optional.empty());
        }
        Optional<String> dts = ifs.stream().filter(n -> n.matches("(?i)(rd|wr)_dts_slave")).findFirst();
        if (dts.isPresent()) {
            return new Controller(Mode.INTERNAL, Optional.empty(), feeds, "the hard IP has " + dts.get() + " (the internal controller's table memory)",
                    hip.iface(dts.get()).map(Interface::where));
        }
        return new Controller(Mode.UNKNOWN, Optional.empty(), feeds, "no " + INTERNAL_CONTROLLER + " and no descriptor sink connected", Optional.empty());
    }

    private static List<Bar> bars(SystemModel s, Instance hip, Set<String> ifs, Controller controller) {
        List<Bar> bars = new ArrayList<>();
        for (int n = 0; n <= 5; n++) {
            Optional<String> typeParam = barTypeParameter(hip, n);
            String type = typeParam.flatMap(hip::parameter).orElse("").strip();
            Optional<String> rxm = rxMaster(s, hip, ifs, n);
            String t = type.toLowerCase(Locale.ROOT);
            boolean stated = !type.isEmpty();
            boolean enabled = stated ? !t.contains("disable") : rxm.isPresent();
            if (!stated && rxm.isEmpty()) {
                continue;
            }
            int bits = !enabled ? 0 : t.contains("64") ? 64 : t.contains("32") ? 32 : 0;
            boolean prefetchable = enabled && t.contains("prefetch") && !t.contains("non");
            Optional<Integer> width = enabled ? addressBits(hip, n) : Optional.empty();
            boolean registers = n == 0 && enabled && rxm.isEmpty() && controller.mode() == Mode.INTERNAL;
            List<Reach> agents = rxm.map(m -> reach(s, m)).orElse(List.of());
            Optional<Where> where = typeParam.map(p -> hip.parameterWhere().get(p));
            bars.add(new Bar(n, type, enabled, bits, prefetchable, width, rxm, registers, agents, where));
        }
        return bars;
    }

    /**
     * {@code bar<N>_type_hwtcl} (Arria 10), {@code pf0_bar<N>_type_hwtcl} (Stratix 10), else another
     * {@code [pf0_]bar<N>_type*} parameter whose value is a type in words.
     */
    private static Optional<String> barTypeParameter(Instance hip, int n) {
        for (String exact : List.of("bar" + n + "_type_hwtcl", "pf0_bar" + n + "_type_hwtcl")) {
            if (hip.parameters().containsKey(exact)) {
                return Optional.of(exact);
            }
        }
        Pattern p = Pattern.compile("(?i)(pf0_)?bar" + n + "_type\\w*");
        return hip.parameters().entrySet().stream()
                .filter(e -> p.matcher(e.getKey()).matches() && e.getValue().toLowerCase(Locale.ROOT).matches(".*(bit|disable).*"))
                .map(Map.Entry::getKey).sorted().findFirst();
    }

    /**
     * The BAR's decode width. Arria 10's Avalon-MM hard IP states the width it uses in {@code
     * bar<N>_address_width_mux_hwtcl} (BAR0 of the internal controller: 9 bits); the other names are
     * what the user entered, or what Stratix 10 states ({@code pf0_bar<N>_address_width_hwtcl}).
     */
    private static Optional<Integer> addressBits(Instance hip, int n) {
        for (String f : List.of("bar%d_address_width_mux_hwtcl", "bar%d_address_width_avmm_hwtcl", "pf0_bar%d_address_width_hwtcl",
                "bar%d_size_mask_hwtcl", "bar%d_address_width_user_hwtcl", "bar%d_address_width_hwtcl", "bar%d_size_mask")) {
            Optional<Integer> v = hip.parameter(String.format(Locale.ROOT, f, n)).flatMap(DmaView::integer).filter(b -> b > 0 && b <= 64);
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> rxMaster(SystemModel s, Instance hip, Set<String> ifs, int n) {
        List<String> candidates = new ArrayList<>();
        for (String i : ifs) {
            Matcher m = RX_MASTER.matcher(i);
            if (m.matches() && (m.group(1) == null ? n == 2 : Integer.parseInt(m.group(1)) == n)) {
                candidates.add(hip.name() + "." + i);
            }
        }
        // Of two candidates (rxm_bar2 and hprxm), the one that is connected.
        return candidates.stream().filter(q -> !s.connectionsOf(q).isEmpty()).findFirst().or(() -> candidates.stream().findFirst());
    }

    private static List<DmaMaster> masters(SystemModel s, Instance hip, Set<String> ifs) {
        List<DmaMaster> out = new ArrayList<>();
        Map<String, List<SystemModel.Mapped>> maps = s.addressMaps();
        for (String i : ifs) {
            String q = hip.name() + "." + i;
            boolean host = hip.iface(i).map(f -> f.start() && f.type().equals("avalon")).orElse(maps.containsKey(q));
            if (!host || RX_MASTER.matcher(i).matches()) {
                continue;
            }
            out.add(new DmaMaster(q, role(i), reach(s, q)));
        }
        return out;
    }

    private static String role(String ifc) {
        String n = ifc.toLowerCase(Locale.ROOT);
        String side = n.contains("rd") ? "read" : n.contains("wr") ? "write" : "";
        if (n.contains("dcm")) {
            return (side + " descriptor completion").strip();
        }
        if (n.contains("dma")) {
            return (side + " data mover").strip();
        }
        return "Avalon-MM host";
    }

    /** Everything {@code host} reaches: its map, and behind each transparent bridge on it, that bridge's map. */
    static List<Reach> reach(SystemModel s, String host) {
        List<Reach> out = new ArrayList<>();
        walk(s, s.addressMaps(), host, BigInteger.ZERO, List.of(), new HashSet<>(), out);
        return out;
    }

    private static void walk(SystemModel s, Map<String, List<SystemModel.Mapped>> maps, String host, BigInteger offset, List<String> via,
            Set<String> visited, List<Reach> out) {
        for (SystemModel.Mapped m : maps.getOrDefault(host, List.of())) {
            String inst = m.agent().substring(0, Math.max(0, m.agent().indexOf('.')));
            Optional<Instance> agent = s.instance(inst);
            String kind = agent.map(Instance::kind).orElse("");
            BigInteger base = offset.add(m.base());
            out.add(new Reach(m.agent(), kind, base, m.span(), via, m.where()));
            if (TRANSPARENT_BRIDGE.matcher(kind).matches() && via.size() < MAX_BRIDGES && visited.add(inst)) {
                Optional<String> behind = bridgeHost(s, maps, agent.get());
                if (behind.isPresent()) {
                    List<String> next = new ArrayList<>(via);
                    next.add(inst);
                    walk(s, maps, behind.get(), base, next, visited, out);
                }
            }
        }
    }

    /** A bridge's host side: its one Avalon-MM host interface. */
    private static Optional<String> bridgeHost(SystemModel s, Map<String, List<SystemModel.Mapped>> maps, Instance bridge) {
        List<String> hosts = bridge.interfaces().stream().filter(i -> i.start() && i.type().equals("avalon"))
                .map(i -> bridge.name() + "." + i.name()).toList();
        if (hosts.isEmpty()) {
            hosts = maps.keySet().stream().filter(h -> h.startsWith(bridge.name() + ".")).toList();
        }
        return hosts.size() == 1 ? Optional.of(hosts.getFirst()) : Optional.empty();
    }

    /**
     * The kernel clock: the system's {@code kernel_clk} export (else a clock output called
     * {@code kernel_clk}), followed back through clock bridges and clock sources to what drives it.
     */
    private static Optional<Clock> kernelClock(SystemModel s) {
        Optional<Export> export = s.exports().stream().filter(e -> e.name().equals("kernel_clk") && !e.internal().startsWith(".")).findFirst();
        String clock;
        if (export.isPresent()) {
            clock = export.get().internal();
        } else {
            Optional<String> named = s.connections().stream().filter(c -> c.kind().equals("clock") && c.startInterface().equals("kernel_clk"))
                    .map(Connection::start).findFirst();
            if (named.isEmpty()) {
                return Optional.empty();
            }
            clock = named.get();
        }
        List<String> through = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        while (true) {
            String inst = clock.substring(0, Math.max(0, clock.indexOf('.')));
            Optional<Instance> i = s.instance(inst);
            if (i.isEmpty() || !CLOCK_PASS.matcher(i.get().kind()).matches() || !seen.add(inst)) {
                break;
            }
            Optional<String> driver = s.connections().stream().filter(c -> c.kind().equals("clock") && c.endInstance().equals(inst))
                    .map(Connection::start).findFirst();
            if (driver.isEmpty()) {
                break;
            }
            through.add(clock);
            clock = driver.get();
        }
        return Optional.of(new Clock(clock, export.map(Export::name), through, rate(s, clock)));
    }

    /** The hard IP's {@code coreclkout_hip}, else its one clock output. */
    private static Optional<Clock> applicationClock(SystemModel s, Instance hip) {
        Set<String> outs = new LinkedHashSet<>();
        hip.interfaces().stream().filter(i -> i.type().equals("clock") && i.start()).forEach(i -> outs.add(i.name()));
        s.connections().stream().filter(c -> c.kind().equals("clock") && c.startInstance().equals(hip.name()))
                .forEach(c -> outs.add(c.startInterface()));
        Optional<String> name = outs.contains("coreclkout_hip") ? Optional.of("coreclkout_hip")
                : outs.size() == 1 ? outs.stream().findFirst() : Optional.empty();
        return name.map(n -> new Clock(hip.name() + "." + n, Optional.empty(), List.of(), rate(s, hip.name() + "." + n)));
    }

    private static Optional<Long> rate(SystemModel s, String clock) {
        return s.iface(clock).map(i -> i.properties().get("clockRate")).flatMap(ComponentDefinition::number)
                .filter(r -> r.signum() > 0 && r.bitLength() < 63).map(BigInteger::longValue);
    }

    private static Optional<Integer> integer(String v) {
        try {
            return Optional.of(Integer.parseInt(v.strip()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
