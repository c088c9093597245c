// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.overlay.ApertureOption;
import org.direkt.overlay.Overlay;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.Interface;
import org.direkt.overlay.system.SystemEdit;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real a10gx board's integration script with a 1 GB aperture, run under tclsh against the
 * stand-in loaded with that board's system: its Platform Designer calls are exactly the checked edits,
 * BAR2's parameters included; where the hard IP does not gain the bursting RX master it stops before
 * the aperture is added or connected. The aperture's _hw.tcl runs cleanly and declares what the RX
 * master and Platform Designer need of its burst agent.
 */
class ApertureProTclTest {
    @TempDir
    Path tmp;

    private Overlay.Plan plan() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        return Overlay.plan(new Overlay.Request(bsp, "a10gx", null, null, false, null, ApertureOption.parse("1G", null)));
    }

    /**
     * The stand-in's fixture: the system as read, each Pro parameter change reshaping its instance as
     * the plan says (one change after the other), the components the script adds; {@code withoutBurstingMaster}:
     * the hard IP does not gain hprxm.
     */
    private static String fixture(Overlay.Plan plan, SystemModel sys, boolean withoutBurstingMaster) {
        StringBuilder f = new StringBuilder("set loaded 1\n");
        Map<String, List<String>> shape = new LinkedHashMap<>();
        for (Instance i : sys.instances()) {
            shape.put(i.name(), new ArrayList<>(i.interfaces().stream().map(Interface::name).toList()));
            f.append("set instances(").append(i.name()).append(") {").append(String.join(" ", shape.get(i.name()))).append("}\n");
        }
        sys.connections().forEach(c -> f.append("lappend connections ").append(c.start()).append('/').append(c.end()).append('\n'));
        sys.exports().forEach(e -> f.append("lappend exports ").append(e.name()).append('\n'));
        for (SystemEdit e : plan.systemEdits()) {
            if (e instanceof SystemEdit.SetParameter s && !s.addsInterfaces().isEmpty()) {
                List<String> after = shape.get(s.instance());
                after.removeAll(s.removesInterfaces());
                s.addsInterfaces().stream().map(Interface::name).filter(n -> !(withoutBurstingMaster && n.equals("hprxm"))).forEach(after::add);
                f.append("set reshape(").append(s.instance()).append('/').append(s.name()).append('=').append(s.value()).append(") {")
                        .append(String.join(" ", after)).append("}\n");
            }
            if (e instanceof SystemEdit.AddInstance a) {
                f.append("set components(").append(a.kind()).append(") {")
                        .append(String.join(" ", a.interfaces().stream().map(Interface::name).toList())).append("}\n");
            }
        }
        return f.toString();
    }

    @Test
    void theScriptMakesExactlyTheCheckedEditsBar2Included() throws Exception {
        Overlay.Plan plan = plan();
        SystemModel sys = plan.bsp().model().orElseThrow();
        String script = new String(plan.files().get(Overlay.INTEGRATE_TCL), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(Files.createDirectories(tmp.resolve("run")), "direkt_integrate.tcl", script, fixture(plan, sys, false));
        assertEquals(0, run.exit(), run::describe);
        List<String> edits = plan.systemEdits().stream().map(IntegrateProTclTest::line).toList();
        assertEquals(edits, IntegrateProTclTest.replay(run), run::describe);
        for (String wanted : List.of("parameter pcie bar2_type_hwtcl=64-bit prefetchable memory", "parameter pcie bar2_address_width_hwtcl=30",
                "parameter pcie enable_rxm_burst_hwtcl=1", "instance direkt_aperture direkt_aperture",
                "connect pcie.hprxm/direkt_aperture.s {baseAddress=0x0000000000000000}",
                "connect direkt_aperture.m/pipe_stage_dma_rd_master.s0 {baseAddress=0x0000000000000000}",
                "connect pcie.coreclkout_hip/direkt_aperture.pcie_clk {}", "connect pcie.app_nreset_status/direkt_aperture.pcie_rst {}",
                "connect pcie.coreclkout_hip/direkt_aperture.mem_clk {}", "connect reset_controller_pcie.reset_out/direkt_aperture.mem_rst {}")) {
            assertTrue(edits.contains(wanted), () -> wanted + " among the edits:\n" + String.join("\n", edits));
        }
        assertEquals(1, run.calls("save_system").size(), run::describe);
        assertTrue(run.calls("set_interface_property").stream().noneMatch(c -> c.arg(1).equals("EXPORT_OF")
                && c.arg(2).startsWith("direkt_aperture.")), () -> "the aperture exports nothing\n" + run.describe());
    }

    @Test
    void withoutTheBurstingMasterItStopsBeforeTheApertureIsAdded() throws Exception {
        Overlay.Plan plan = plan();
        SystemModel sys = plan.bsp().model().orElseThrow();
        String script = new String(plan.files().get(Overlay.INTEGRATE_TCL), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(Files.createDirectories(tmp.resolve("run")), "direkt_integrate.tcl", script, fixture(plan, sys, true));
        assertTrue(run.exit() != 0, run::describe);
        assertTrue(run.stderr().contains("after enable_rxm_burst_hwtcl = 1, instance 'pcie' has no hprxm"), run::describe);
        assertEquals(List.of(), run.calls("add_instance", "direkt_aperture"), run::describe);
        assertEquals(List.of(), run.calls("save_system"), run::describe);
    }

    @Test
    void theAperturesComponentDeclaresItsBurstAgentClocksAndEveryPortOnce() throws Exception {
        Overlay.Plan plan = plan();
        String hw = new String(plan.files().get("direkt_aperture_hw.tcl"), StandardCharsets.UTF_8);
        String verilog = new String(plan.files().get("ip/direkt_aperture.v"), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(Files.createDirectories(tmp.resolve("hw")), "direkt_aperture_hw.tcl", hw, null);
        assertEquals(0, run.exit(), run::describe);
        Map<String, Integer> covered = new TreeMap<>();
        Map<String, String> portOf = new TreeMap<>();
        for (QsysStub.Call c : run.calls("add_interface_port")) {
            QsysStub.VerilogPort v = QsysStub.verilogPorts(verilog).get(c.arg(1));
            assertTrue(v != null, () -> "the component names port " + c.arg(1) + ", which the Verilog top lacks");
            assertEquals(v.direction().equals("output") ? "Output" : "Input", c.arg(3), c.arg(1));
            assertEquals(Integer.toString(v.width()), c.arg(4), c.arg(1));
            covered.merge(c.arg(1), 1, Integer::sum);
            portOf.put(c.arg(1), c.arg(0));
        }
        for (String port : QsysStub.verilogPorts(verilog).keySet()) {
            assertEquals(1, covered.getOrDefault(port, 0), "Verilog port " + port + " must belong to exactly one interface");
        }
        Map<String, String> s = properties(run, "s");
        assertEquals("15", s.get("maximumPendingReadTransactions"), "15 read bursts of 16 beats pending (the manifest's outstanding_reads)");
        assertEquals("WORDS", s.get("burstcountUnits"));
        assertEquals("SYMBOLS", s.get("addressUnits"), "byte addresses across the BAR");
        assertEquals("pcie_clk", s.get("associatedClock"));
        assertEquals("mem_clk", properties(run, "m").get("associatedClock"));
        assertTrue(run.calls("add_interface_port", "s", "s_burstcount", "burstcount", "Input", "5").size() == 1,
                () -> "bursts of up to 16 words: a 5-bit burstcount\n" + run.describe());
        for (String clock : List.of("pcie_clk", "mem_clk")) {
            assertEquals(1, run.calls("add_interface", clock, "clock", "end").size(), clock + "\n" + run.describe());
        }
        for (String port : List.of("reserved_beats", "overrun")) {
            assertEquals(1, run.calls("set_port_property", port, "TERMINATION", "true").size(), port + " is terminated\n" + run.describe());
            assertEquals(1, run.calls("set_interface_property", portOf.get(port), "ENABLED", "false").size(), run::describe);
        }
    }

    private static Map<String, String> properties(QsysStub.Run run, String iface) {
        Map<String, String> m = new TreeMap<>();
        run.calls("set_interface_property", iface).forEach(c -> m.put(c.arg(1), c.arg(2)));
        return m;
    }
}
