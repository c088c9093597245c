// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.direkt.overlay.system.Connection;
import org.direkt.overlay.system.DmaView;
import org.direkt.overlay.system.Export;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.Interface;
import org.direkt.overlay.system.Port;
import org.direkt.overlay.system.SystemCheck;
import org.direkt.overlay.system.SystemEdit;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.Where;

/**
 * Plans the descriptor controller's move out of a PCIe hard IP that runs its internal one (the
 * stock a10_ref-derived BSPs, FACTS section 9): the hard IP switched to its external controller, direkt's
 * controller (the host protocol with the bridge inside) added where the internal one was, each of its
 * interfaces connected in its own domain, the bridge's CSR put on the host's control BAR above
 * everything host software uses, the kernel channels exported; with an aperture (FACTS section 10),
 * also BAR2 on the hard IP's bursting RX master and the aperture between it and FPGA memory. The plan
 * is a list of {@link SystemEdit}s: the Platform Designer script is rendered from it and the same list
 * applied to the system model is checked ({@link SystemCheck}) before anything is written.
 */
public final class HardIpPlan {
    private HardIpPlan() {
    }

    /** The hard IPs whose external-controller interfaces FACTS section 9 describes. */
    static final java.util.regex.Pattern KNOWN_HIP = java.util.regex.Pattern.compile("altera_pcie_(a10|s10)_hip.*");

    /** The hard IP's parameter that selects the internal descriptor controller. */
    public static final String INTERNAL_CONTROLLER = "internal_controller_hwtcl";

    /** What the plan needs to know of the controller: its instance and component, and its interfaces by name. */
    public record Controller(String instance, String component, List<Interface> interfaces, List<Channel> channels,
            int descReadyLatency, BigInteger csrSpan) {
        Interface iface(String name) {
            return interfaces.stream().filter(i -> i.name().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the controller has no interface " + name));
        }
    }

    /** One kernel channel interface of the controller and the name board_spec.xml gives it (the export). */
    public record Channel(String iface, String export, boolean sink) {
    }

    /**
     * The planned integration: the edits in order, the system after them, the checks and their
     * results, where the CSR went (host master, base), the clocks the controller was given, and the
     * aperture when one was asked for.
     */
    public record Result(List<SystemEdit> edits, SystemModel after, List<SystemCheck.Result> checks, String csrHost,
            BigInteger csrBase, int csrBar, String dmaClock, String dmaReset, String kernelClock, String kernelReset,
            String hardIp, Map<String, BigInteger> dtsBases, Optional<AperturePlan> aperture) {
        public boolean ok() {
            return checks.stream().allMatch(SystemCheck.Result::ok);
        }
    }

    // ------------------------------------------------------------------ the aperture (FACTS section 10)

    /** The BAR the aperture takes: on Arria 10 only BAR2 bursts (with BAR3 as its upper half, being 64-bit). */
    public static final int APERTURE_BAR = 2;
    /** "Enable burst capability for RXM BAR2 port" (confirmed in the a10gx tree's board_pcie.ip). */
    public static final String RXM_BURST = "enable_rxm_burst_hwtcl";
    /** BAR2's type ("Type" in the parameter editor; confirmed in the a10gx tree's board_pcie.ip and Intel's BAR table). */
    public static final String BAR2_TYPE = "bar2_type_hwtcl";
    /**
     * BAR2's size as 2^n bytes ("Size" in the parameter editor; confirmed in the a10gx tree's board_pcie.ip
     * and in public scripts that set it). Intel's user guide for the Avalon-MM DMA variant says Platform
     * Designer sizes a BAR from the agents its RX master reaches; direkt sets it too, and the model check
     * checks both.
     */
    public static final String BAR2_SIZE = "bar2_address_width_hwtcl";
    /** BAR3's type: a 64-bit BAR2 takes BAR3 as its upper half, which must stay Disabled. */
    public static final String BAR3_TYPE = "bar3_type_hwtcl";
    /** The BAR type the aperture needs. */
    public static final String PREFETCHABLE_64 = "64-bit prefetchable memory";
    /**
     * The bursting RX master of BAR2 on an Arria 10 hard IP with {@link #RXM_BURST} = 1, as {@code
     * direkt inspect} names it (DmaView). No real tree with it enabled was at hand: the script checks
     * that the hard IP has it once the parameter is saved, before it connects anything to it.
     */
    public static final String BURSTING_RX_MASTER = "hprxm";
    /** The Arria 10 hard IP: the one whose bursting BAR2 the parameters above describe. */
    static final java.util.regex.Pattern A10_HIP = java.util.regex.Pattern.compile("altera_pcie_a10_hip.*");
    /** Intel's user guide: a burst of the bursting RX master carries at most 512 bytes. */
    static final int RXM_MAX_BURST_BYTES = 512;

    /**
     * Where the read mover reaches FPGA memory: {@code agent}, the interface {@code dma_rd_master}
     * connects to (at {@code agentBase}), behind which ({@code via} its bridges) sits {@code memory} at
     * {@code memoryBase} on the mover's map; {@code clock} and {@code reset} drive {@code agent}.
     */
    public record MemoryTarget(String agent, BigInteger agentBase, String memory, BigInteger memoryBase,
            Optional<BigInteger> memorySpan, List<String> via, String clock, String reset) {
        public MemoryTarget {
            via = List.copyOf(via);
        }

        /** The base that puts memory's byte 0 at the aperture host's address 0. */
        public BigInteger connectionBase() {
            return agentBase.subtract(memoryBase);
        }
    }

    /** Where an aperture goes on this hard IP: the bursting RX master's data width and longest burst, and FPGA memory. */
    public record ApertureSite(int dataBits, int maxBurst, MemoryTarget target) {
    }

    /**
     * The aperture to add: its instance and component with its interfaces (as the system sees them),
     * the BAR's size and the FPGA memory address it starts at, and where it reaches memory.
     */
    public record ApertureSpec(String instance, String component, List<Interface> interfaces, BigInteger barBytes,
            BigInteger fpgaBase, ApertureSite site, BigInteger memoryBytes, String memorySource) {
        public ApertureSpec {
            interfaces = List.copyOf(interfaces);
        }
    }

    /** The planned aperture: its instance, BAR and RX master, where its host connects, the clocks it was given. */
    public record AperturePlan(String instance, int bar, String rxMaster, MemoryTarget target, BigInteger barBytes,
            BigInteger fpgaBase, String pcieClock, String pcieReset) {
    }

    /**
     * Where an aperture can go on {@code hip}: an Arria 10 hard IP whose BAR2 and BAR3 are free, whose
     * read mover reaches FPGA memory through an agent with a known clock and reset. Refused (exit code 2,
     * as a bad option is) naming what stands in the way.
     */
    public static ApertureSite apertureSite(SystemModel sys, Instance hip) throws OverlayException {
        String h = hip.name();
        if (!A10_HIP.matcher(hip.kind()).matches()) {
            throw input(hip.where(), "--aperture: hard IP '" + h + "' is " + hip.kind() + "; direkt knows the bursting BAR2 of the"
                    + " Arria 10 hard IP (altera_pcie_a10_hip) only");
        }
        for (String param : List.of(BAR2_TYPE, BAR3_TYPE)) {
            Optional<String> type = hip.parameter(param);
            Where at = Optional.ofNullable(hip.parameterWhere().get(param)).orElse(hip.where());
            if (type.isEmpty()) {
                throw input(hip.where(), "--aperture: hard IP '" + h + "' states no " + param + ", so direkt cannot tell whether BAR"
                        + param.charAt(3) + " is free");
            }
            if (!type.get().strip().equalsIgnoreCase("Disabled")) {
                throw input(at, "--aperture: BAR" + param.charAt(3) + " of hard IP '" + h + "' is in use (" + param + " = "
                        + type.get().strip() + "); the aperture needs BAR2 and BAR3 free (a 64-bit BAR2 takes BAR3 as its upper half)");
            }
        }
        for (String rxm : List.of("rxm_bar2", "rxm_bar3", BURSTING_RX_MASTER)) {
            if (!sys.connectionsOf(h + "." + rxm).isEmpty()) {
                Connection c = sys.connectionsOf(h + "." + rxm).getFirst();
                throw input(c.where(), "--aperture: " + h + "." + rxm + " is connected (" + c.start() + " -> " + c.end()
                        + "); the aperture needs BAR2 and BAR3 free");
            }
        }
        Interface rdMaster = need(sys, hip, "dma_rd_master");
        int dataBits = rdMaster.ports().stream().filter(p -> p.role().equals("writedata")).mapToInt(Port::width).findFirst().orElse(256);
        if (Integer.bitCount(dataBits) != 1 || dataBits < 64 || dataBits > 512) {
            throw input(rdMaster.where(), "--aperture: " + h + ".dma_rd_master's data is " + dataBits + " bits wide; direkt knows the"
                    + " Arria 10 hard IP's 128- and 256-bit interfaces");
        }
        int maxBurst = RXM_MAX_BURST_BYTES / (dataBits / 8);
        return new ApertureSite(dataBits, maxBurst, memoryTarget(sys, hip));
    }

    /**
     * FPGA memory as {@code hip}'s read mover reaches it: of everything on its map and behind the
     * transparent bridges there (the hard IP's own agents aside), the agent that is no bridge with the
     * largest span; and the interface the mover connects to on the way, with its clock and reset.
     */
    static MemoryTarget memoryTarget(SystemModel sys, Instance hip) throws OverlayException {
        String h = hip.name();
        String mover = h + ".dma_rd_master";
        List<DmaView.Reach> reach = DmaView.of(sys).stream().flatMap(v -> v.dmaMasters().stream())
                .filter(m -> m.master().equals(mover)).flatMap(m -> m.reaches().stream())
                .filter(r -> !r.agent().startsWith(h + ".")).toList();
        Optional<DmaView.Reach> memory = reach.stream().filter(r -> !r.kind().toLowerCase(Locale.ROOT).contains("bridge"))
                .max(java.util.Comparator.comparing((DmaView.Reach r) -> r.span().orElse(BigInteger.ZERO)).thenComparing(r -> -r.via().size()));
        if (memory.isEmpty()) {
            memory = reach.stream().max(java.util.Comparator.comparing((DmaView.Reach r) -> r.span().orElse(BigInteger.ZERO)));
        }
        if (memory.isEmpty()) {
            throw input(hip.where(), "--aperture: " + mover + " reaches nothing but the hard IP itself, so direkt cannot tell where"
                    + " FPGA memory is");
        }
        DmaView.Reach mem = memory.get();
        DmaView.Reach first = mem.via().isEmpty() ? mem : reach.stream()
                .filter(r -> r.via().isEmpty() && r.agent().startsWith(mem.via().getFirst() + ".")).findFirst().orElse(mem);
        if (mem.base().compareTo(first.base()) > 0) {
            throw input(first.where(), "--aperture: FPGA memory (" + mem.agent() + ") sits at " + SystemCheckHex.hex(mem.base())
                    + " on " + mover + ", above the base of " + first.agent() + " (" + SystemCheckHex.hex(first.base())
                    + "), so no base puts its byte 0 at the aperture's address 0");
        }
        String inst = first.agent().substring(0, first.agent().indexOf('.'));
        Interface agent = sys.iface(first.agent()).orElseThrow(() -> input(first.where(), "--aperture: " + first.agent()
                + " is connected but the system declares no such interface"));
        String clockIfc = agent.associatedClock().orElseThrow(() -> input(agent.where(), "--aperture: " + first.agent()
                + " states no associated clock, so direkt cannot tell which clock the aperture's memory side runs on"));
        String resetIfc = agent.associatedReset().orElseThrow(() -> input(agent.where(), "--aperture: " + first.agent()
                + " states no associated reset"));
        String clock = driver(sys, "clock", inst + "." + clockIfc, first.where());
        String reset = driver(sys, "reset", inst + "." + resetIfc, first.where());
        return new MemoryTarget(first.agent(), first.base(), mem.agent(), mem.base(), mem.span(), mem.via(), clock, reset);
    }

    /** The output that drives clock or reset input {@code input}. */
    private static String driver(SystemModel sys, String kind, String input, Where where) throws OverlayException {
        return sys.connections().stream().filter(c -> c.kind().equals(kind) && c.end().equals(input)).map(Connection::start).findFirst()
                .orElseThrow(() -> input(where, "--aperture: nothing drives " + input + " (" + kind + "), so the aperture's memory side"
                        + " has no " + kind + " to share"));
    }

    /** The bursting RX master of BAR2 the hard IP gains with {@link #RXM_BURST} = 1 (Intel's user guide: byte addresses, 512-byte bursts). */
    static Interface burstingRxMaster(String clock, String reset, int dataBits, int maxBurst, Where where) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("associatedClock", clock);
        p.put("associatedReset", reset);
        p.put("addressUnits", "SYMBOLS");
        p.put("burstcountUnits", "WORDS");
        String m = BURSTING_RX_MASTER;
        int burstBits = Integer.numberOfTrailingZeros(maxBurst) + 1;
        return new Interface(m, "avalon", true, List.of(
                new Port(m + "_address_o", "address", "output", 64), new Port(m + "_read_o", "read", "output", 1),
                new Port(m + "_write_o", "write", "output", 1), new Port(m + "_burstcount_o", "burstcount", "output", burstBits),
                new Port(m + "_writedata_o", "writedata", "output", dataBits),
                new Port(m + "_byteenable_o", "byteenable", "output", dataBits / 8),
                new Port(m + "_readdata_i", "readdata", "input", dataBits), new Port(m + "_readdatavalid_i", "readdatavalid", "input", 1),
                new Port(m + "_waitrequest_i", "waitrequest", "input", 1)), p, Optional.empty(), where);
    }

    /** The internal controller's interfaces that the external one replaces, and the ones the hard IP gains. */
    static final List<String> INTERNAL_ONLY = List.of("rd_dts_slave", "wr_dts_slave", "rd_dcm_master", "wr_dcm_master");

    /**
     * Plans the integration into {@code sys}, whose hard IP {@code hip} runs the internal controller.
     * {@code kernelClockExport}/{@code kernelResetExport}: the system exports board_spec.xml names as
     * the kernel clock and reset.
     */
    public static Result plan(SystemModel sys, Instance hip, Controller ctrl, String kernelClockExport, String kernelResetExport,
            Path script) throws OverlayException {
        return plan(sys, hip, ctrl, kernelClockExport, kernelResetExport, script, Optional.empty());
    }

    /**
     * The same, and with {@code aperture} its BAR: BAR2 switched on as a 64-bit prefetchable BAR of the
     * aperture's size on the bursting RX master, the aperture added with its agent alone on that master,
     * its host where the read mover reaches FPGA memory, each side in the clock of what it faces.
     */
    public static Result plan(SystemModel sys, Instance hip, Controller ctrl, String kernelClockExport, String kernelResetExport,
            Path script, Optional<ApertureSpec> aperture) throws OverlayException {
        String h = hip.name();
        Interface rdMaster = need(sys, hip, "dma_rd_master");
        need(sys, hip, "txs");
        // A Standard system does not state an interface's clock (its component's _hw.tcl does): the Arria 10
        // and Stratix 10 hard IPs run their DMA interfaces on their application clock and reset.
        boolean documented = rdMaster.associatedClock().isEmpty() && KNOWN_HIP.matcher(hip.kind()).matches();
        String dmaClockIfc = rdMaster.associatedClock().or(() -> documented ? Optional.of("coreclkout_hip") : Optional.empty())
                .orElseThrow(() -> bsp(rdMaster.where(), h + ".dma_rd_master states no associated clock, and " + hip.kind()
                        + " is not a hard IP whose clocks direkt knows"));
        String dmaResetIfc = rdMaster.associatedReset().or(() -> documented ? Optional.of("app_nreset_status") : Optional.empty())
                .orElseThrow(() -> bsp(rdMaster.where(), h + ".dma_rd_master states no associated reset"));
        String dmaClock = h + "." + dmaClockIfc;
        String dmaReset = h + "." + dmaResetIfc;

        // where host software writes the descriptor tables: the DTS agents' bases on dma_rd_master
        Map<String, BigInteger> dts = new LinkedHashMap<>();
        for (String side : List.of("rd", "wr")) {
            String slave = h + "." + side + "_dts_slave";
            Connection c = sys.connections().stream().filter(x -> x.end().equals(slave) && x.start().equals(h + ".dma_rd_master"))
                    .findFirst().orElseThrow(() -> bsp(hip.where(), "hard IP '" + h + "' runs its internal descriptor controller, but " + slave
                            + " is not on " + h + ".dma_rd_master: the controller's descriptor table agents are not where a stock"
                            + " a10_ref-derived BSP has them, so direkt cannot tell where host software writes its tables"));
            dts.put(side, c.baseAddress().orElseThrow(() -> bsp(c.where(), c.start() + " -> " + c.end() + " states no base address")));
        }
        String kernelClock = exportedInternal(sys, kernelClockExport, "kernel clock");
        String kernelReset = exportedInternal(sys, kernelResetExport, "kernel reset");

        // the host's control BAR: the enabled BAR other than 0 whose RX master host software reaches the board's registers through
        Optional<String> ctrlBar = List.of(4, 2, 1, 3, 5).stream().map(n -> h + ".rxm_bar" + n)
                .filter(m -> !sys.connectionsOf(m).isEmpty()).findFirst();
        if (ctrlBar.isEmpty()) {
            throw bsp(hip.where(), h + " has no RX master on BAR1..5 connected to anything: there is no control BAR for the bridge's CSR");
        }
        int bar = Integer.parseInt(ctrlBar.get().substring(ctrlBar.get().length() - 1));
        // behind a lone pipeline bridge (a10_ref's pipe_stage_host_ctrl), the CSR goes on that bridge's host side
        String csrHost = ctrlBar.get();
        BigInteger csrOffsetInBar = BigInteger.ZERO;
        List<SystemModel.Mapped> onBar = sys.addressMaps().getOrDefault(ctrlBar.get(), List.of());
        if (onBar.size() == 1) {
            String agent = onBar.getFirst().agent();
            Instance stage = sys.instance(agent.substring(0, agent.indexOf('.'))).orElseThrow();
            Optional<Interface> m0 = stage.interfaces().stream().filter(f -> f.type().equals("avalon") && f.start()).findFirst();
            if (stage.kind().toLowerCase(Locale.ROOT).contains("bridge") && m0.isPresent()) {
                csrHost = stage.name() + "." + m0.get().name();
                csrOffsetInBar = onBar.getFirst().base();
            }
        }
        BigInteger csrBase = freeAbove(sys.addressMaps().getOrDefault(csrHost, List.of()), ctrl.csrSpan());
        Optional<BigInteger> hostSpan = sys.addressMaps().getOrDefault(ctrlBar.get(), List.of()).stream()
                .filter(x -> !x.agent().equals(ctrlBar.get())).findFirst().flatMap(SystemModel.Mapped::span);
        if (hostSpan.isPresent() && !csrHost.equals(ctrlBar.get()) && csrBase.add(ctrl.csrSpan()).compareTo(hostSpan.get()) > 0) {
            throw bsp(hip.where(), "no room for the bridge's CSR (" + SystemCheckHex.hex(ctrl.csrSpan()) + " bytes) on " + csrHost
                    + " above what host software uses: its window on BAR" + bar + " is " + SystemCheckHex.hex(hostSpan.get()) + " bytes");
        }

        String c = ctrl.instance();
        List<SystemEdit> edits = new ArrayList<>();
        for (String side : List.of("rd", "wr")) {
            edits.add(new SystemEdit.RemoveConnection(h + ".dma_rd_master", h + "." + side + "_dts_slave"));
            edits.add(new SystemEdit.RemoveConnection(h + "." + side + "_dcm_master", h + ".txs"));
        }
        edits.add(new SystemEdit.SetParameter(h, INTERNAL_CONTROLLER, "0", INTERNAL_ONLY,
                externalInterfaces(dmaClockIfc, dmaResetIfc, ctrl.descReadyLatency(), hip.where())));
        edits.add(new SystemEdit.AddInstance(c, ctrl.component(), "1.0", ctrl.interfaces()));
        edits.add(new SystemEdit.AddConnection("clock", dmaClock, c + ".dma_clk", Map.of()));
        edits.add(new SystemEdit.AddConnection("reset", dmaReset, c + ".dma_reset", Map.of()));
        edits.add(new SystemEdit.AddConnection("clock", kernelClock, c + ".kernel_clk", Map.of()));
        edits.add(new SystemEdit.AddConnection("reset", kernelReset, c + ".kernel_reset", Map.of()));
        edits.add(new SystemEdit.AddConnection("avalon", h + ".rxm_bar0", c + ".regs", base(BigInteger.ZERO)));
        for (String side : List.of("rd", "wr")) {
            edits.add(new SystemEdit.AddConnection("avalon", h + ".dma_rd_master", c + "." + side + "_dts", base(dts.get(side))));
        }
        edits.add(new SystemEdit.AddConnection("avalon", c + ".dcm", h + ".txs", base(BigInteger.ZERO)));
        for (String side : List.of("rd", "wr")) {
            edits.add(new SystemEdit.AddConnection("avalon_streaming", c + "." + side + "_dma_desc", h + "." + side + "_ast_rx", Map.of()));
            edits.add(new SystemEdit.AddConnection("avalon_streaming", h + "." + side + "_ast_tx", c + "." + side + "_dma_status", Map.of()));
        }
        edits.add(new SystemEdit.AddConnection("avalon", csrHost, c + ".csr", base(csrBase)));
        for (Channel ch : ctrl.channels()) {
            edits.add(new SystemEdit.AddExport(ch.export(), c + "." + ch.iface(), "avalon_streaming", ch.sink() ? "end" : "start"));
        }
        Optional<AperturePlan> ap = aperture.map(a -> apertureEdits(edits, h, hip.where(), a, dmaClockIfc, dmaResetIfc, dmaClock, dmaReset));
        SystemModel after = SystemEdit.applyAll(sys, edits, script);

        Set<String> touched = new LinkedHashSet<>(List.of(h, c));
        ap.ifPresent(a -> touched.add(a.instance()));
        List<String> hosts = new ArrayList<>();
        for (int n = 0; n <= 5; n++) {
            if (!sys.connectionsOf(h + ".rxm_bar" + n).isEmpty()) {
                hosts.add(h + ".rxm_bar" + n);
            }
        }
        if (!csrHost.equals(ctrlBar.get())) {
            hosts.add(csrHost);
        }
        hosts.add(h + ".dma_rd_master");
        List<SystemCheck.Placement> placements = new ArrayList<>();
        placements.add(new SystemCheck.Placement(h + ".rxm_bar0", c + ".regs", BigInteger.ZERO, BigInteger.valueOf(0x200),
                "the descriptor controller's registers: read side 0x000, write side 0x100"));
        for (String side : List.of("rd", "wr")) {
            placements.add(new SystemCheck.Placement(h + ".dma_rd_master", c + "." + side + "_dts", dts.get(side), BigInteger.valueOf(0x1200),
                    "the EP FIFO base host software writes for the " + (side.equals("rd") ? "read" : "write") + " side's table"));
        }
        placements.add(new SystemCheck.Placement(c + ".dcm", h + ".txs", BigInteger.ZERO, BigInteger.ONE,
                "completion flags written to host memory through the TX agent"));
        // interfaces of the hard IP that were open before stay allowed open; the controller's all must be served
        List<SystemCheck.Result> checks = new ArrayList<>(SystemCheck.run(sys, after, touched, hosts, placements, Set.of()));
        checks.add(parameterCheck(after, h));
        checks.add(readyLatencyCheck(after, h, c));
        if (ap.isPresent()) {
            AperturePlan a = ap.get();
            ApertureSpec spec = aperture.orElseThrow();
            checks.addAll(SystemCheck.aperture(sys, after, new SystemCheck.ApertureWindow(h, a.bar(), a.rxMaster(), RXM_BURST,
                    a.instance(), a.barBytes(), a.fpgaBase(), h + ".dma_rd_master", a.target().memory(), spec.memoryBytes(),
                    spec.memorySource())));
        }
        return new Result(edits, after, checks, csrHost, csrBase.add(csrOffsetInBar), bar, dmaClock, dmaReset, kernelClock,
                kernelReset, h, dts, ap);
    }

    /** Appends the aperture's edits: BAR2's parameters, the instance, its clocks, resets and its two Avalon connections. */
    private static AperturePlan apertureEdits(List<SystemEdit> edits, String h, Where hipWhere, ApertureSpec a, String dmaClockIfc,
            String dmaResetIfc, String dmaClock, String dmaReset) {
        String ap = a.instance();
        String rxm = h + "." + BURSTING_RX_MASTER;
        MemoryTarget t = a.site().target();
        int bits = a.barBytes().getLowestSetBit();
        edits.add(new SystemEdit.SetParameter(h, BAR2_TYPE, PREFETCHABLE_64, List.of(), List.of()));
        edits.add(new SystemEdit.SetParameter(h, BAR2_SIZE, Integer.toString(bits), List.of(), List.of()));
        edits.add(new SystemEdit.SetParameter(h, RXM_BURST, "1", List.of(),
                List.of(burstingRxMaster(dmaClockIfc, dmaResetIfc, a.site().dataBits(), a.site().maxBurst(), hipWhere))));
        edits.add(new SystemEdit.AddInstance(ap, a.component(), "1.0", a.interfaces()));
        edits.add(new SystemEdit.AddConnection("clock", dmaClock, ap + ".pcie_clk", Map.of()));
        edits.add(new SystemEdit.AddConnection("reset", dmaReset, ap + ".pcie_rst", Map.of()));
        edits.add(new SystemEdit.AddConnection("clock", t.clock(), ap + ".mem_clk", Map.of()));
        edits.add(new SystemEdit.AddConnection("reset", t.reset(), ap + ".mem_rst", Map.of()));
        edits.add(new SystemEdit.AddConnection("avalon", rxm, ap + ".s", base(BigInteger.ZERO)));
        edits.add(new SystemEdit.AddConnection("avalon", ap + ".m", t.agent(), base(t.connectionBase())));
        return new AperturePlan(ap, APERTURE_BAR, rxm, t, a.barBytes(), a.fpgaBase(), dmaClock, dmaReset);
    }

    private static SystemCheck.Result parameterCheck(SystemModel after, String h) {
        String v = after.instance(h).flatMap(i -> i.parameter(INTERNAL_CONTROLLER)).orElse("");
        return new SystemCheck.Result(h + " runs the external descriptor controller (" + INTERNAL_CONTROLLER + " = 0)",
                v.equals("0"), v.equals("0") ? "" : "it is " + v);
    }

    private static SystemCheck.Result readyLatencyCheck(SystemModel after, String h, String c) {
        List<String> bad = new ArrayList<>();
        for (String side : List.of("rd", "wr")) {
            String sink = after.iface(h + "." + side + "_ast_rx").map(f -> f.properties().getOrDefault("readyLatency", "")).orElse("");
            String src = after.iface(c + "." + side + "_dma_desc").map(f -> f.properties().getOrDefault("readyLatency", "")).orElse("");
            if (!sink.equals(src)) {
                bad.add(side + "_ast_rx declares ready latency " + sink + ", the controller's " + side + "_dma_desc " + src);
            }
        }
        String latency = after.iface(h + ".rd_ast_rx").map(f -> f.properties().getOrDefault("readyLatency", "?")).orElse("?");
        return new SystemCheck.Result("descriptor streams keep the ready latency of the hard IP's descriptor sinks (" + latency
                + "; with the internal controller the system does not declare them: the user guide's value)", bad.isEmpty(),
                String.join("; ", bad));
    }

    /** The interfaces an Arria 10 / Stratix 10 Avalon-MM DMA hard IP gains with its external controller (FACTS section 9). */
    static List<Interface> externalInterfaces(String clock, String reset, int readyLatency, Where where) {
        Map<String, String> assoc = Map.of("associatedClock", clock, "associatedReset", reset);
        List<Interface> l = new ArrayList<>();
        Map<String, String> bar0 = new LinkedHashMap<>(assoc);
        bar0.put("addressUnits", "SYMBOLS");
        l.add(new Interface("rxm_bar0", "avalon", true, List.of(
                new Port("rxm_bar0_address_o", "address", "output", 32), new Port("rxm_bar0_read_o", "read", "output", 1),
                new Port("rxm_bar0_write_o", "write", "output", 1), new Port("rxm_bar0_writedata_o", "writedata", "output", 32),
                new Port("rxm_bar0_byteenable_o", "byteenable", "output", 4), new Port("rxm_bar0_readdata_i", "readdata", "input", 32),
                new Port("rxm_bar0_readdatavalid_i", "readdatavalid", "input", 1),
                new Port("rxm_bar0_waitrequest_i", "waitrequest", "input", 1)), bar0, Optional.empty(), where));
        for (String side : List.of("rd", "wr")) {
            Map<String, String> rx = new LinkedHashMap<>(assoc);
            rx.put("readyLatency", Integer.toString(readyLatency));
            rx.put("dataBitsPerSymbol", "160");
            l.add(new Interface(side + "_ast_rx", "avalon_streaming", false, List.of(
                    new Port(side + "_ast_rx_data_i", "data", "input", 160), new Port(side + "_ast_rx_valid_i", "valid", "input", 1),
                    new Port(side + "_ast_rx_ready_o", "ready", "output", 1)), rx, Optional.empty(), where));
            Map<String, String> tx = new LinkedHashMap<>(assoc);
            tx.put("dataBitsPerSymbol", "32");
            l.add(new Interface(side + "_ast_tx", "avalon_streaming", true, List.of(
                    new Port(side + "_ast_tx_data_o", "data", "output", 32), new Port(side + "_ast_tx_valid_o", "valid", "output", 1)),
                    tx, Optional.empty(), where));
        }
        return l;
    }

    /** The lowest address above every agent on {@code map}, aligned to {@code span} (a power of two). */
    static BigInteger freeAbove(List<SystemModel.Mapped> map, BigInteger span) {
        BigInteger top = BigInteger.ZERO;
        for (SystemModel.Mapped m : map) {
            BigInteger end = m.end().orElse(m.base().add(BigInteger.ONE));
            top = top.max(end);
        }
        BigInteger mask = span.subtract(BigInteger.ONE);
        return top.add(mask).andNot(mask);
    }

    private static Map<String, String> base(BigInteger b) {
        return Map.of("baseAddress", String.format("0x%016x", b));
    }

    private static Interface need(SystemModel sys, Instance hip, String ifc) throws OverlayException {
        return hip.iface(ifc).orElseThrow(() -> bsp(hip.where(), "hard IP '" + hip.name() + "' (" + hip.kind() + ") runs its internal"
                + " descriptor controller, but the system shows no interface " + ifc + " of it (connected or declared), so direkt cannot"
                + " tell how to put its own controller in that one's place"));
    }

    private static String exportedInternal(SystemModel sys, String export, String what) throws OverlayException {
        Export e = sys.exports().stream().filter(x -> x.name().equals(export)).findFirst()
                .orElseThrow(() -> bsp(new Where(sys.file(), 0), "the system exports no interface '" + export + "' (board_spec.xml's "
                        + what + ")"));
        if (e.internal().startsWith(".") || !e.internal().contains(".")) {
            throw bsp(e.where(), "export '" + export + "' (the " + what + ") names no instance interface ('" + e.internal() + "')");
        }
        return e.internal();
    }

    private static OverlayException bsp(Where where, String msg) {
        return new OverlayException(OverlayException.Kind.BSP, where + ": " + msg);
    }

    private static OverlayException input(Where where, String msg) {
        return new OverlayException(OverlayException.Kind.INPUT, where + ": " + msg);
    }

    /** Hex for messages. */
    static final class SystemCheckHex {
        static String hex(BigInteger v) {
            return "0x" + v.toString(16).toUpperCase(Locale.ROOT);
        }
    }
}
