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
 * everything host software uses, the kernel channels exported. The plan is a list of
 * {@link SystemEdit}s: the Platform Designer script is rendered from it and the same list applied to
 * the system model is checked ({@link SystemCheck}) before anything is written.
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
     * results, where the CSR went (host master, base), and the clocks the controller was given.
     */
    public record Result(List<SystemEdit> edits, SystemModel after, List<SystemCheck.Result> checks, String csrHost,
            BigInteger csrBase, int csrBar, String dmaClock, String dmaReset, String kernelClock, String kernelReset,
            String hardIp, Map<String, BigInteger> dtsBases) {
        public boolean ok() {
            return checks.stream().allMatch(SystemCheck.Result::ok);
        }
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
        SystemModel after = SystemEdit.applyAll(sys, edits, script);

        Set<String> touched = new LinkedHashSet<>(List.of(h, c));
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
        return new Result(edits, after, checks, csrHost, csrBase.add(csrOffsetInBar), bar, dmaClock, dmaReset, kernelClock,
                kernelReset, h, dts);
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

    /** Hex for messages. */
    static final class SystemCheckHex {
        static String hex(BigInteger v) {
            return "0x" + v.toString(16).toUpperCase(Locale.ROOT);
        }
    }
}
