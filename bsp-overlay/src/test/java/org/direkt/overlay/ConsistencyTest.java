// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Manifest;
import org.direkt.hdl.Module;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cross-check that runs before anything is written: the overlay of the example board passes,
 * and each way one generated file can disagree with the others (a port of the component, a
 * channel of the edited board_spec.xml or of the manifest, a channel of the header, a file that is
 * missing or does not read back) is named in the refusal.
 */
class ConsistencyTest {
    private static Overlay.Plan plan;
    private static Module top;

    @BeforeAll
    static void planTheExampleBoard() throws OverlayException {
        Path d = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(d.resolve("examples/bsp/direkt_ref"))) {
            d = d.getParent();
        }
        plan = Overlay.plan(new Overlay.Request(d.resolve("examples/bsp/direkt_ref"), null, null, null));
        top = new Bridge().elaborate(plan.params());
    }

    private static String verilogFile() {
        return Overlay.IP_DIR + "/" + top.name() + ".v";
    }

    /** The refusal after {@code edit} changed file {@code name} (null removes it). */
    private static String refusal(String name, UnaryOperator<String> edit) {
        Map<String, byte[]> files = new LinkedHashMap<>(plan.files());
        String after = edit.apply(new String(files.get(name), StandardCharsets.UTF_8));
        if (after == null) {
            files.remove(name);
        } else {
            files.put(name, after.getBytes(StandardCharsets.UTF_8));
        }
        OverlayException e = assertThrows(OverlayException.class, () -> Consistency.check(plan.params(), top, files));
        assertEquals(OverlayException.Kind.CONSISTENCY, e.kind());
        return e.getMessage();
    }

    private static void refusedWith(String message, String... fragments) {
        for (String f : fragments) {
            assertTrue(message.contains(f), () -> "'" + f + "' not in:\n" + message);
        }
    }

    @Test
    void theExampleOverlayAgreesWithItself() {
        assertDoesNotThrow(() -> Consistency.check(plan.params(), top, plan.files()));
    }

    @Test
    void theComponentsPortsMustBeTheVerilogs() {
        String hw = Overlay.hwTcl(top.name());
        Matcher first = Pattern.compile("add_interface_port\\s+\\S+\\s+(\\S+)\\s+\\S+\\s+(Input|Output)\\s+(\\d+)")
                .matcher(new String(plan.files().get(hw), StandardCharsets.UTF_8));
        assertTrue(first.find());
        String line = first.group();
        String port = first.group(1);
        String kind = first.group(2) + " " + first.group(3);
        refusedWith(refusal(hw, t -> t.replace(line, line + "\n" + line)),
                "generated files disagree (nothing was written):", hw + " declares port " + port + " twice");
        String renamed = line.substring(0, first.end(1) - first.start()) + "_renamed" + line.substring(first.end(1) - first.start());
        refusedWith(refusal(hw, t -> t.replace(line, renamed)),
                "Verilog " + verilogFile() + " has port " + port + " (" + kind + "), " + hw + " does not",
                hw + " has port " + port + "_renamed (" + kind + "), Verilog " + verilogFile() + " does not");
        String wider = first.group(2) + " " + (Integer.parseInt(first.group(3)) + 1);
        String widened = line.substring(0, first.start(3) - first.start()) + (Integer.parseInt(first.group(3)) + 1);
        refusedWith(refusal(hw, t -> t.replace(line, widened)),
                "port " + port + ": Verilog " + verilogFile() + " says " + kind + ", " + hw + " says " + wider);
    }

    @Test
    void theChannelsMustAgreeEverywhere() {
        String firstId = plan.params().channelList().getFirst().chanId();
        refusedWith(refusal(Overlay.BOARD_SPEC, t -> t.replace("chan_id=\"" + firstId + "\"", "chan_id=\"elsewhere\"")),
                "board_spec.xml channels [", "differ from the manifest's [");
        refusedWith(refusal(Manifest.FILE_NAME, t -> t.replace("\"" + firstId + "\"", "\"elsewhere\"")),
                "differ from the manifest's [");
        refusedWith(refusal(Overlay.HEADER, t -> t.replace("io(\"" + firstId + "\")", "io(\"elsewhere\")")),
                Overlay.HEADER + " declares io channels {", "(chan_id=bits), the bridge has {");
        String port = plan.params().channelList().getFirst().port();
        refusedWith(refusal(verilogFile(), t -> t.replace(port + "_valid", port + "_vld")),
                "channel " + firstId + " needs Verilog port " + port + "_valid Input 1, the Verilog has no such port");
    }

    @Test
    void filesThatDoNotReadBackAreNamed() {
        refusedWith(refusal(Overlay.BOARD_SPEC, t -> "<board"), "the edited board_spec.xml does not parse: ");
        refusedWith(refusal(Manifest.FILE_NAME, t -> "{"), "the manifest does not parse: ");
        refusedWith(refusal(Overlay.HEADER, t -> t + "\nchannel ulong broken __attribute__((io(\"x\"))\n"), "the generated header does not parse: ");
        assertEquals("no " + Overlay.HEADER + " was generated", refusal(Overlay.HEADER, t -> null));
        assertEquals(verilogFile() + " does not define module " + top.name(), refusal(verilogFile(), t -> "module other(input a);\nendmodule\n"));
        refusedWith(refusal(verilogFile(), t -> "module " + top.name() + "(input a"), "the generated Verilog does not read back: ");
    }
}
