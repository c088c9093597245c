// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.overlay.Overlay;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.Interface;
import org.direkt.overlay.system.SystemEdit;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Pro integration script of the real a10gx board, run under tclsh against a stand-in loaded with
 * that board's system as direkt read it: it runs to its end, and the Platform Designer calls it makes
 * are exactly the edits the overlay applied to the system model and checked. On a system that is not
 * the one planned on it stops before changing anything.
 */
class IntegrateProTclTest {
    @TempDir
    Path tmp;

    private static Overlay.Plan plan(Path bsp) throws Exception {
        return Overlay.plan(new Overlay.Request(bsp, "a10gx", null, null));
    }

    /** The stand-in's fixture: the system as read (the open system), the hard IP after its parameter change, the controller. */
    private static String fixture(Overlay.Plan plan, SystemModel sys, boolean breakIt) {
        StringBuilder f = new StringBuilder("set loaded 1\n");
        for (Instance i : sys.instances()) {
            f.append("set instances(").append(i.name()).append(") {")
                    .append(String.join(" ", i.interfaces().stream().map(Interface::name).toList())).append("}\n");
        }
        for (var c : sys.connections()) {
            if (breakIt && c.end().endsWith(".rd_dts_slave")) {
                continue;
            }
            f.append("lappend connections ").append(c.start()).append('/').append(c.end()).append('\n');
        }
        for (var e : sys.exports()) {
            f.append("lappend exports ").append(e.name()).append('\n');
        }
        for (SystemEdit e : plan.systemEdits()) {
            if (e instanceof SystemEdit.SetParameter s) {
                List<String> after = new ArrayList<>();
                sys.instance(s.instance()).orElseThrow().interfaces().stream().map(Interface::name)
                        .filter(n -> !s.removesInterfaces().contains(n)).forEach(after::add);
                s.addsInterfaces().forEach(i -> after.add(i.name()));
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

    /** An edit as a line, the way both the plan and the replayed script can say it. */
    static String line(SystemEdit e) {
        return switch (e) {
            case SystemEdit.RemoveConnection r -> "remove " + r.start() + "/" + r.end();
            case SystemEdit.SetParameter s -> "parameter " + s.instance() + " " + s.name() + "=" + s.value();
            case SystemEdit.AddInstance a -> "instance " + a.name() + " " + a.kind();
            case SystemEdit.AddConnection c -> "connect " + c.start() + "/" + c.end() + " " + new TreeMap<>(c.parameters());
            case SystemEdit.AddExport x -> "export " + x.name() + "=" + x.internal() + " " + x.type() + " " + x.dir();
        };
    }

    /** The Platform Designer calls of a run, as edit lines. */
    static List<String> replay(QsysStub.Run run) {
        List<String> out = new ArrayList<>();
        String component = null;
        Map<String, Map<String, String>> connParams = new LinkedHashMap<>();
        List<String> order = new ArrayList<>();
        Map<String, String> exportType = new LinkedHashMap<>();
        for (QsysStub.Call c : run.calls()) {
            switch (c.cmd()) {
                case "remove_connection" -> order.add("remove " + c.arg(0));
                case "load_component" -> component = c.arg(0);
                case "set_component_parameter_value" -> order.add("parameter " + component + " " + c.arg(0) + "=" + c.arg(1));
                case "add_instance" -> order.add("instance " + c.arg(0) + " " + c.arg(1));
                case "add_connection" -> {
                    String key = c.arg(0) + "/" + c.arg(1);
                    connParams.put(key, new TreeMap<>());
                    order.add("connect " + key);
                }
                case "set_connection_parameter_value" -> connParams.get(c.arg(0)).put(c.arg(1), c.arg(2));
                case "add_interface" -> exportType.put(c.arg(0), c.arg(1) + " " + c.arg(2));
                case "set_interface_property" -> {
                    if (c.arg(1).equals("EXPORT_OF")) {
                        order.add("export " + c.arg(0) + "=" + c.arg(2) + " " + exportType.get(c.arg(0)));
                    }
                }
                default -> {
                }
            }
        }
        for (String o : order) {
            out.add(o.startsWith("connect ") ? o + " " + connParams.get(o.substring("connect ".length())) : o);
        }
        return out;
    }

    @Test
    void theScriptMakesExactlyTheCheckedEdits() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Overlay.Plan plan = plan(bsp);
        SystemModel sys = plan.bsp().model().orElseThrow();
        String script = new String(plan.files().get(Overlay.INTEGRATE_TCL), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(java.nio.file.Files.createDirectories(tmp.resolve("run")), "direkt_integrate.tcl", script, fixture(plan, sys, false));
        assertEquals(0, run.exit(), run::describe);
        assertEquals(plan.systemEdits().stream().map(IntegrateProTclTest::line).toList(), replay(run), run::describe);
        assertEquals(1, run.calls("save_system").size(), run::describe);
        assertTrue(run.calls("package").getFirst().args().contains("16.1"), "asks for the system's own release");
    }

    @Test
    void onAnotherSystemItChangesNothing() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Overlay.Plan plan = plan(bsp);
        SystemModel sys = plan.bsp().model().orElseThrow();
        String script = new String(plan.files().get(Overlay.INTEGRATE_TCL), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(java.nio.file.Files.createDirectories(tmp.resolve("run")), "direkt_integrate.tcl", script, fixture(plan, sys, true));
        assertTrue(run.exit() != 0, run::describe);
        assertTrue(run.stderr().contains("no connection pcie.dma_rd_master/pcie.rd_dts_slave"), run::describe);
        for (String changing : List.of("add_instance", "add_connection", "remove_connection", "load_component", "save_system")) {
            assertEquals(List.of(), run.calls(changing), () -> changing + " called\n" + run.describe());
        }
    }

    @Test
    void theControllersComponentDeclaresEachVerilogPortOnceWithPropertiesPlatformDesignerKnows() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Overlay.Plan plan = plan(bsp);
        String hw = new String(plan.files().get("direkt_bridge_ctrl_hw.tcl"), StandardCharsets.UTF_8);
        String verilog = new String(plan.files().get("ip/direkt_bridge_ctrl.v"), StandardCharsets.UTF_8);
        QsysStub.Run run = QsysStub.run(java.nio.file.Files.createDirectories(tmp.resolve("hw")), "direkt_bridge_ctrl_hw.tcl", hw, null);
        assertEquals(0, run.exit(), run::describe);
        Map<String, Integer> covered = new TreeMap<>();
        for (QsysStub.Call c : run.calls("add_interface_port")) {
            QsysStub.VerilogPort v = QsysStub.verilogPorts(verilog).get(c.arg(1));
            assertTrue(v != null, () -> "the component names port " + c.arg(1) + ", which the Verilog top lacks");
            assertEquals(v.direction().equals("output") ? "Output" : "Input", c.arg(3), c.arg(1));
            assertEquals(Integer.toString(v.width()), c.arg(4), c.arg(1));
            covered.merge(c.arg(1), 1, Integer::sum);
        }
        for (String port : QsysStub.verilogPorts(verilog).keySet()) {
            assertEquals(1, covered.getOrDefault(port, 0), "Verilog port " + port + " must belong to exactly one interface");
        }
    }
}
