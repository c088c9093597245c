// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.direkt.contract.BridgeModes;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.overlay.Templates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * direkt_integrate.tcl, run under the recording stand-in against a small A10-reference-like system:
 * it puts the bridge between the descriptor controller and the hard IP using only interfaces the
 * hw.tcl declares, and refuses when no system is known.
 */
class IntegrateTclTest {
    private static final String HIP = "pcie";
    private static final String CTRL = "dma_ctrl";

    @TempDir
    Path dir;

    static Stream<QsysStub.Design> designs() {
        Map<String, Object> bsp = QsysStub.bsp("board.qsys", HIP, CTRL);
        return Stream.of(
                QsysStub.design("default", Map.of("preset", "default"), bsp),
                QsysStub.design("paper", Map.of("preset", "paper"), bsp),
                QsysStub.design("default, reset=active_high", Map.of("preset", "default", "reset", "active_high"), bsp));
    }

    /** The system before integration: hard IP and controller connected directly, as in the reference BSP. */
    private static String fixture(HwComponent hw, String hipName) {
        StringBuilder f = new StringBuilder();
        f.append("set instances(").append(hipName).append(") {coreclkout nreset_status refclk rxm_bar0 txs rd_ast_rx rd_ast_tx wr_ast_rx wr_ast_tx}\n");
        f.append("set instances(").append(CTRL).append(") {clock reset rd_ast_tx rd_ast_rx wr_ast_tx wr_ast_rx rd_dcm_master wr_dcm_master}\n");
        f.append("set instances(kernel_clk_gen) {clk_in kernel_clk kernel_clk2x}\n");
        f.append("set instances(kernel_interface) {clk kernel_reset kernel_cra}\n");
        f.append("set instances(pipe_stage_host_ctrl) {clk reset s0 m0}\n");
        f.append("set components(direkt_bridge) {").append(String.join(" ", hw.interfaces().keySet())).append("}\n");
        for (String d : List.of("rd", "wr")) {
            f.append("lappend connections ").append(CTRL).append('.').append(d).append("_ast_tx/").append(hipName).append('.').append(d).append("_ast_rx\n");
            f.append("lappend connections ").append(hipName).append('.').append(d).append("_ast_tx/").append(CTRL).append('.').append(d).append("_ast_rx\n");
        }
        f.append("lappend connections ").append(hipName).append(".coreclkout/").append(CTRL).append(".clock\n");
        f.append("lappend connections pipe_stage_host_ctrl.m0/kernel_interface.kernel_cra\n");
        f.append("lappend exports kernel_cra pcie_hip_serial\n");
        return f.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void insertsTheBridgeBetweenControllerAndHardIpUsingOnlyInterfacesTheHwTclDeclares(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, Files.createDirectories(dir.resolve("hw")));
        String script = Templates.render("direkt_integrate.tcl.vm", d.model());
        QsysStub.Run run = QsysStub.run(dir, "direkt_integrate.tcl", script, fixture(hw, HIP));
        assertEquals(0, run.exit(), () -> run.describe() + "\n--- script:\n" + script);

        List<String> order = run.calls().stream().map(QsysStub.Call::cmd)
                .filter(c -> !c.startsWith("get_") && !c.equals("send_message")).toList();
        assertEquals(List.of("package", "load_system", "add_instance"), order.subList(0, 3), "order: " + order);
        assertEquals(List.of("validate_system", "save_system"), order.subList(order.size() - 2, order.size()), "order: " + order);
        assertEquals(List.of("require", "-exact", "qsys", "18.0"), run.calls().get(0).args());
        assertEquals(List.of("board.qsys"), run.calls("load_system").get(0).args());
        assertEquals(List.of("board.qsys"), run.calls("save_system").get(0).args());
        assertEquals(List.of("direkt_bridge", "direkt_bridge"), run.calls("add_instance").get(0).args(),
                "instance " + d.params().instance() + " of component direkt_bridge");

        String b = d.params().instance() + ".";
        Map<String, Integer> used = new HashMap<>();
        List<String[]> added = new ArrayList<>();
        for (QsysStub.Call c : run.calls("add_connection")) {
            String from = c.arg(0);
            String to = c.arg(1);
            added.add(new String[] {from, to});
            if (from.startsWith(b)) {
                HwComponent.Iface i = hw.interfaces().get(from.substring(b.length()));
                assertNotNull(i, c + ": the bridge declares no interface " + from);
                assertEquals("start", i.direction(), c + ": a connection starts at a bridge source");
                used.merge(i.name(), 1, Integer::sum);
            }
            if (to.startsWith(b)) {
                HwComponent.Iface i = hw.interfaces().get(to.substring(b.length()));
                assertNotNull(i, c + ": the bridge declares no interface " + to);
                assertEquals("end", i.direction(), c + ": a connection ends at a bridge sink/agent/clock input");
                used.merge(i.name(), 1, Integer::sum);
            }
            assertTrue(from.startsWith(b) || to.startsWith(b), c + " does not touch the bridge");
        }
        for (QsysStub.Call c : run.calls("set_interface_property")) {
            assertEquals("EXPORT_OF", c.arg(1), c.toString());
            assertTrue(c.arg(2).startsWith(b), c.toString());
            HwComponent.Iface i = hw.interfaces().get(c.arg(2).substring(b.length()));
            assertNotNull(i, c + ": the bridge declares no interface " + c.arg(2));
            used.merge(i.name(), 1, Integer::sum);
        }
        for (String iface : hw.interfaces().keySet()) {
            assertEquals(1, used.getOrDefault(iface, 0), "bridge interface " + iface + " connected or exported exactly once");
        }

        // Clocks and resets from the guessed sources.
        assertConnected(added, "kernel_clk_gen.kernel_clk", b + "kernel_clk");
        assertConnected(added, "kernel_interface.kernel_reset", b + "kernel_reset");
        assertConnected(added, HIP + ".coreclkout", b + "dma_clk");
        assertConnected(added, HIP + ".nreset_status", b + "dma_reset");

        // The bridge between controller and movers; the direct connections are gone first.
        List<String> removed = run.calls("remove_connection").stream().map(c -> c.arg(0)).toList();
        Set<String> expectRemoved = new LinkedHashSet<>();
        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            String t = dir.tag();
            expectRemoved.add(CTRL + "." + t + "_ast_tx/" + HIP + "." + t + "_ast_rx");
            expectRemoved.add(HIP + "." + t + "_ast_tx/" + CTRL + "." + t + "_ast_rx");
            assertConnected(added, CTRL + "." + t + "_ast_tx", b + t + "_host_desc");
            assertConnected(added, b + t + "_dma_desc", HIP + "." + t + "_ast_rx");
            assertConnected(added, HIP + "." + t + "_ast_tx", b + t + "_dma_status");
            assertConnected(added, b + t + "_host_status", CTRL + "." + t + "_ast_rx");
        }
        assertEquals(expectRemoved, new LinkedHashSet<>(removed));
        assertEquals(4, removed.size());
        for (String r : removed) {
            String from = r.substring(0, r.indexOf('/'));
            String to = r.substring(r.indexOf('/') + 1);
            int removedAt = indexOf(run, "remove_connection", r);
            for (int i = 0; i < run.calls().size(); i++) {
                QsysStub.Call c = run.calls().get(i);
                if (c.cmd().equals("add_connection") && (c.arg(0).equals(from) || c.arg(1).equals(to))) {
                    assertTrue(removedAt < i, r + " is removed before " + c + " reuses its ends");
                }
            }
        }

        // The CSR on the host bridge, with an address.
        assertConnected(added, "pipe_stage_host_ctrl.m0", b + "csr");
        List<QsysStub.Call> base = run.calls("set_connection_parameter_value", "pipe_stage_host_ctrl.m0/" + b + "csr", "baseAddress");
        assertEquals(1, base.size(), "the CSR gets a base address");
        assertTrue(base.get(0).arg(2).matches("0x[0-9A-Fa-f]+"), base.get(0).toString());

        // The four channels exported under their board_spec port names, with the bridge's direction.
        for (ChannelPort.Channel c : d.params().channelList()) {
            String exported = d.params().boardPort(c);
            List<QsysStub.Call> add = run.calls("add_interface", exported);
            assertEquals(1, add.size(), "export of " + c.port() + " as " + exported);
            assertEquals(List.of(exported, "avalon_streaming", hw.interfaces().get(c.port()).direction()), add.get(0).args());
            assertEquals(1, run.calls("set_interface_property", exported, "EXPORT_OF", b + c.port()).size(), "EXPORT_OF " + c.port());
        }

        // Every change is announced.
        long infos = run.calls("send_message", "info").size();
        assertTrue(infos >= run.calls("add_connection").size() + removed.size() + 4 + 3,
                "each step is printed: " + infos + " info messages");
        assertTrue(run.stdout().contains("connect " + CTRL + ".rd_ast_tx -> " + b + "rd_host_desc"), run.stdout());

        // Afterwards no sink of the system is fed twice.
        List<String> finalConnections = new ArrayList<>();
        for (String line : fixture(hw, HIP).split("\n")) {
            if (line.startsWith("lappend connections ")) {
                finalConnections.add(line.substring("lappend connections ".length()));
            }
        }
        finalConnections.removeAll(removed);
        added.forEach(a -> finalConnections.add(a[0] + "/" + a[1]));
        Map<String, Integer> sinks = new HashMap<>();
        finalConnections.forEach(c -> sinks.merge(c.substring(c.indexOf('/') + 1), 1, Integer::sum));
        sinks.forEach((sink, n) -> assertEquals(1, n, "sink " + sink + " fed by " + n + " sources: " + finalConnections));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void withoutASystemItRefusesAndSaysTheIntegrationIsManual(QsysStub.Design d) throws Exception {
        Map<String, Object> bsp = QsysStub.bsp("", "", "");
        QsysStub.Design none = QsysStub.design(d.label(), d.values(), bsp);
        String script = Templates.render("direkt_integrate.tcl.vm", none.model());
        QsysStub.Run run = QsysStub.run(dir, "direkt_integrate.tcl", script, null);
        assertNotEquals(0, run.exit(), run.describe());
        String said = run.stderr() + run.stdout();
        assertTrue(said.contains("manual step"), said);
        assertTrue(said.contains("OVERLAY.md"), said);
        assertTrue(said.contains("no Platform Designer system"), said);
        assertEquals(List.of("package", "send_message"), run.calls().stream().map(QsysStub.Call::cmd).toList(),
                "nothing but the refusal: " + run.calls());
        assertEquals("error", run.calls("send_message").get(0).arg(0));
        assertTrue(script.contains("freeze_wrapper.v"), "the planner's manual steps are listed in the header");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void aWrongGuessStopsBeforeAnythingChangesAndNamesWhatToSet(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, Files.createDirectories(dir.resolve("hw")));
        String script = Templates.render("direkt_integrate.tcl.vm", d.model());
        // The hard IP is called differently in this system than the BSP scan thought.
        QsysStub.Run run = QsysStub.run(dir, "direkt_integrate.tcl", script, fixture(hw, "pcie_a10_hip_0"));
        assertNotEquals(0, run.exit(), run.describe());
        assertTrue(run.stderr().contains("no instance '" + HIP + "'"), run.stderr());
        assertTrue(run.stderr().contains("MANUAL CHECK"), run.stderr());
        assertTrue(run.stderr().contains("nothing was changed"), run.stderr());
        for (String change : List.of("add_instance", "add_connection", "remove_connection", "add_interface", "save_system")) {
            assertEquals(List.of(), run.calls(change), change + " after a failed check");
        }
    }

    @Test
    void everyGuessIsAVariableListedAsAManualCheck() {
        QsysStub.Design d = designs().findFirst().orElseThrow();
        String script = Templates.render("direkt_integrate.tcl.vm", d.model());
        String header = script.substring(0, script.indexOf("package require"));
        for (String var : List.of("direkt_dma", "direkt_desc", "direkt_source", "direkt_ctrl_desc_out", "direkt_ctrl_status_in",
                "direkt_hip_desc_in", "direkt_hip_status_out", "direkt_host_master", "direkt_csr_base", "direkt_export")) {
            assertTrue(header.contains(var), "the MANUAL CHECKS header lists " + var);
            assertTrue(script.contains("\nset " + var), "variable " + var + " is set at the top");
        }
        assertTrue(header.contains("MANUAL CHECKS"), header);
    }

    private static int indexOf(QsysStub.Run run, String cmd, String firstArg) {
        for (int i = 0; i < run.calls().size(); i++) {
            if (run.calls().get(i).is(cmd, firstArg)) {
                return i;
            }
        }
        return -1;
    }

    private static void assertConnected(List<String[]> added, String from, String to) {
        assertTrue(added.stream().anyMatch(a -> a[0].equals(from) && a[1].equals(to)),
                "connection " + from + " -> " + to + " missing; made: " + added.stream().map(a -> a[0] + "->" + a[1]).toList());
    }
}
