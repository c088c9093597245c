// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.Signal;
import org.direkt.overlay.Templates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** direkt_bridge_hw.tcl, run under the recording stand-in, declares exactly the Verilog top's ports. */
class BridgeHwTclTest {

    @TempDir
    Path dir;

    static Stream<QsysStub.Design> designs() {
        Map<String, Object> bsp = QsysStub.bsp("board.qsys", "pcie", "dma_ctrl");
        return Stream.of(
                QsysStub.design("default", Map.of("preset", "default"), bsp),
                QsysStub.design("paper", Map.of("preset", "paper"), bsp),
                QsysStub.design("default, reset=active_high", Map.of("preset", "default", "reset", "active_high"), bsp));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void everyInterfacePortIsAVerilogPortOfTheSameDirectionAndWidthAndEveryVerilogPortIsCoveredOnce(QsysStub.Design d)
            throws Exception {
        HwComponent hw = HwComponent.of(d, dir);
        Map<String, QsysStub.VerilogPort> verilog = QsysStub.verilogPorts(d.topVerilog());
        assertEquals(d.top().ports().size(), verilog.size(), "the emitted top declares every port of the elaborated module");
        for (Signal s : d.top().ports()) {
            QsysStub.VerilogPort v = verilog.get(s.name());
            assertNotNull(v, "emitted Verilog lacks port " + s.name());
            assertEquals(s.width(), v.width(), s.name());
            assertEquals(s.kind() == Signal.Kind.OUTPUT ? "output" : "input", v.direction(), s.name());
        }

        Map<String, Integer> covered = new HashMap<>();
        for (HwComponent.Iface i : hw.interfaces().values()) {
            assertFalse(i.ports().isEmpty(), "interface " + i.name() + " has no ports");
            for (HwComponent.Port p : i.ports()) {
                QsysStub.VerilogPort v = verilog.get(p.name());
                assertNotNull(v, "interface " + i.name() + " names port " + p.name() + ", which the Verilog top does not declare");
                assertEquals(v.direction().equals("output") ? "Output" : "Input", p.direction(), "direction of " + p.name());
                assertEquals(v.width(), p.width(), "width of " + p.name());
                covered.merge(p.name(), 1, Integer::sum);
            }
        }
        for (String port : verilog.keySet()) {
            assertEquals(1, covered.getOrDefault(port, 0), "Verilog port " + port + " must belong to exactly one interface");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void rolesSuitTheInterfaceTypes(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, dir);
        Map<String, Set<String>> roles = Map.of(
                "clock", Set.of("clk"),
                "reset", Set.of("reset", "reset_n"),
                "avalon", Set.of("address", "read", "write", "writedata", "readdata", "readdatavalid", "waitrequest", "byteenable"),
                "avalon_streaming", Set.of("data", "valid", "ready"));
        for (HwComponent.Iface i : hw.interfaces().values()) {
            assertTrue(roles.containsKey(i.type()), i.name() + ": type " + i.type());
            Set<String> seen = new LinkedHashSet<>();
            for (HwComponent.Port p : i.ports()) {
                assertTrue(roles.get(i.type()).contains(p.role()), i.name() + "." + p.name() + ": role " + p.role());
                assertTrue(seen.add(p.role()), i.name() + ": role " + p.role() + " twice");
            }
            if (i.type().equals("avalon_streaming")) {
                assertTrue(seen.containsAll(List.of("data", "valid")), i.name() + " needs data and valid");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void clocksResetsCsrAndStreamsCarryThePropertiesTheBridgeNeeds(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, dir);
        Map<String, HwComponent.Iface> ifs = hw.interfaces();

        HwComponent.Iface kclk = ifs.get("kernel_clk");
        assertNotNull(kclk, "kernel_clk interface");
        assertEquals(List.of(new HwComponent.Port("kernel_clk", ChannelPort.KERNEL.clock(), "clk", "Input", 1)), kclk.ports());
        assertEquals("clock", kclk.type());
        assertEquals("end", kclk.direction());
        HwComponent.Iface dclk = ifs.get("dma_clk");
        assertEquals(List.of(new HwComponent.Port("dma_clk", d.params().dmaDomain().clock(), "clk", "Input", 1)), dclk.ports());

        HwComponent.Iface krst = ifs.get("kernel_reset");
        assertEquals("reset", krst.type());
        assertEquals("kernel_clk", krst.properties().get("associatedClock"));
        assertEquals("DEASSERT", krst.properties().get("synchronousEdges"));
        assertEquals(List.of(new HwComponent.Port("kernel_reset", "kernel_resetn", "reset_n", "Input", 1)), krst.ports());

        HwComponent.Iface drst = ifs.get("dma_reset");
        assertEquals("dma_clk", drst.properties().get("associatedClock"));
        assertEquals("DEASSERT", drst.properties().get("synchronousEdges"));
        boolean activeHigh = d.params().dmaResetPolarity() == org.direkt.hdl.ClockDomain.ResetPolarity.ACTIVE_HIGH;
        assertEquals(List.of(new HwComponent.Port("dma_reset", activeHigh ? "dma_rst" : "dma_resetn", activeHigh ? "reset" : "reset_n",
                "Input", 1)), drst.ports());

        HwComponent.Iface csr = ifs.get("csr");
        assertEquals("avalon", csr.type());
        assertEquals("end", csr.direction());
        assertEquals("dma_clk", csr.properties().get("associatedClock"));
        assertEquals("dma_reset", csr.properties().get("associatedReset"));
        assertEquals("WORDS", csr.properties().get("addressUnits"));
        assertEquals(Integer.toString(Layout.CSR_READ_LATENCY), csr.properties().get("readLatency"));

        int channels = 0;
        for (ChannelPort.Channel c : d.params().channelList()) {
            HwComponent.Iface i = ifs.get(c.port());
            assertNotNull(i, "channel interface " + c.port() + " (" + c.chanId() + ")");
            channels++;
            assertEquals("avalon_streaming", i.type());
            assertEquals(c.type() == ChannelPort.Type.STREAMSINK ? "end" : "start", i.direction(),
                    c.port() + ": a streamsink of the kernel is written by the kernel, so the bridge is its sink");
            assertEquals("kernel_clk", i.properties().get("associatedClock"), c.port());
            assertEquals("kernel_reset", i.properties().get("associatedReset"), c.port());
            assertEquals("8", i.properties().get("dataBitsPerSymbol"), c.port());
            assertEquals("0", i.properties().get("readyLatency"), c.port());
            assertEquals(c.width(), port(i, "data").width(), c.port() + " data width = channel width");
            assertNotNull(port(i, "ready"), c.port() + " has ready");
            assertTrue(i.ports().stream().map(HwComponent.Port::role).toList().containsAll(List.of("data", "valid", "ready")));
            assertTrue(hw.text().contains(c.chanId()), "the comment of " + c.port() + " names channel " + c.chanId());
        }
        assertEquals(4, channels);

        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            String t = dir.tag();
            for (String desc : List.of(t + "_host_desc", t + "_dma_desc")) {
                HwComponent.Iface i = ifs.get(desc);
                assertNotNull(i, desc);
                assertEquals("1", i.properties().get("readyLatency"), desc + ": the movers' descriptor sinks have ready latency 1");
                assertEquals(Integer.toString(Layout.MOVER_DESC.bits()), i.properties().get("dataBitsPerSymbol"), desc);
                assertEquals(Layout.MOVER_DESC.bits(), port(i, "data").width(), desc);
                assertNotNull(port(i, "ready"), desc);
            }
            assertEquals("end", ifs.get(t + "_host_desc").direction());
            assertEquals("start", ifs.get(t + "_dma_desc").direction());
            for (String status : List.of(t + "_dma_status", t + "_host_status")) {
                HwComponent.Iface i = ifs.get(status);
                assertNotNull(i, status);
                assertEquals("0", i.properties().get("readyLatency"), status);
                assertEquals(Layout.MOVER_STATUS.bits(), port(i, "data").width(), status);
                assertEquals(null, port(i, "ready"), status + ": the movers' status cannot be back-pressured");
            }
            assertEquals("end", ifs.get(t + "_dma_status").direction());
            assertEquals("start", ifs.get(t + "_host_status").direction());
            for (String n : List.of(t + "_host_desc", t + "_dma_desc", t + "_dma_status", t + "_host_status")) {
                assertEquals("dma_clk", ifs.get(n).properties().get("associatedClock"), n);
                assertEquals("dma_reset", ifs.get(n).properties().get("associatedReset"), n);
            }
        }
        assertEquals(4 + 1 + 4 + 8, ifs.size(), "clocks and resets, csr, channels, mover streams: " + ifs.keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void bothFilesetsListEveryVerilogFileWithTheTopMarked(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, dir);
        assertEquals(List.of("QUARTUS_SYNTH", "SIM_VERILOG"), List.copyOf(hw.filesets().keySet()));
        for (Map.Entry<String, List<HwComponent.FileEntry>> fs : hw.filesets().entrySet()) {
            assertEquals("direkt_bridge", hw.filesetProperties().get(fs.getKey()).get("TOP_LEVEL"), fs.getKey());
            List<String> names = new ArrayList<>();
            for (HwComponent.FileEntry f : fs.getValue()) {
                names.add(f.name());
                assertEquals("VERILOG", f.kind(), f.name());
                assertEquals("PATH", f.source(), f.name());
                assertEquals("ip/" + f.name(), f.path(), f.name());
                assertEquals(f.name().equals("direkt_bridge.v") ? List.of("TOP_LEVEL_FILE") : List.of(), f.attributes(), f.name());
            }
            assertEquals(d.files(), names, fs.getKey() + " lists every Verilog file once");
        }
        assertTrue(d.files().contains("direkt_bridge.v"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void moduleIsTheBridgeAndEachInterfaceIsDocumented(QsysStub.Design d) throws Exception {
        HwComponent hw = HwComponent.of(d, dir);
        QsysStub.Call first = hw.run().calls().get(0);
        assertEquals(List.of("require", "-exact", "qsys", "18.0"), first.args(), "first call: " + first);
        assertEquals("direkt_bridge", hw.moduleProperties().get("NAME"));
        assertEquals("true", hw.moduleProperties().get("INSTANTIATE_IN_SYSTEM_MODULE"));
        assertEquals("false", hw.moduleProperties().get("EDITABLE"));
        for (String p : List.of("VERSION", "DISPLAY_NAME", "DESCRIPTION", "GROUP", "AUTHOR")) {
            assertFalse(hw.moduleProperties().getOrDefault(p, "").isBlank(), p);
        }
        for (String c : d.params().channels().all()) {
            assertTrue(hw.moduleProperties().get("DESCRIPTION").contains(c), "DESCRIPTION names channel " + c);
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> model = (List<Map<String, Object>>) d.model().get("interfaces");
        for (Map<String, Object> i : model) {
            String decl = "# " + i.get("name") + ": " + i.get("doc") + "\nadd_interface " + i.get("name") + " ";
            assertTrue(hw.text().contains(decl), "interface " + i.get("name") + " is preceded by its doc comment");
        }
    }

    @Test
    void theTemplateNamesNoPortByHand() throws IOException {
        String template;
        try (InputStream in = getClass().getResourceAsStream("/org/direkt/overlay/templates/direkt_bridge_hw.tcl.vm")) {
            assertNotNull(in, "direkt_bridge_hw.tcl.vm on the classpath");
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (QsysStub.Design d : designs().toList()) {
            for (Signal s : d.top().ports()) {
                assertFalse(Pattern.compile("\\b" + Pattern.quote(s.name()) + "\\b").matcher(template).find(),
                        "the template writes port " + s.name() + " by hand; it must come from the model");
            }
        }
    }

    @Test
    void theStandInRejectsMisspelledCommandsPropertiesAndUndeclaredInterfaces() throws Exception {
        QsysStub.Design d = designs().findFirst().orElseThrow();
        String good = Templates.render("direkt_bridge_hw.tcl.vm", d.model());
        Map<String, String> typos = Map.of(
                "set_interface_property csr readLatency", "set_interface_propery csr readLatency",
                "set_interface_property csr addressUnits", "set_interface_property csr adressUnits",
                "add_interface_port csr csr_read ", "add_interface_port csx csr_read ",
                "set_module_property EDITABLE", "set_module_property EDITABEL");
        int n = 0;
        for (Map.Entry<String, String> t : typos.entrySet()) {
            assertTrue(good.contains(t.getKey()), t.getKey());
            Path sub = java.nio.file.Files.createDirectories(dir.resolve("typo" + n++));
            QsysStub.Run run = QsysStub.run(sub, "typo_hw.tcl", good.replace(t.getKey(), t.getValue()), null);
            assertEquals(2, run.exit(), t.getValue() + " must stop the stand-in\n" + run.describe());
            assertTrue(run.stderr().startsWith("qsys-stub: "), run.stderr());
        }
    }

    private static HwComponent.Port port(HwComponent.Iface i, String role) {
        return i.ports().stream().filter(p -> p.role().equals(role)).findFirst().orElse(null);
    }
}
