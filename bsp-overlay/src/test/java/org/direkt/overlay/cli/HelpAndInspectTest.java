// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** --help of every command, the bare command, and {@code direkt inspect}. */
class HelpAndInspectTest {

    @TempDir
    Path tmp;

    @Test
    void topLevelHelpListsCommandsAndExitCodes() {
        Cli.Run r = Cli.ok("--help");
        assertContains(r.out(), "Usage: direkt", r);
        for (String c : List.of("overlay", "revert", "lint-kernel", "inspect")) {
            assertContains(r.out(), c, r);
        }
        assertContains(r.out(), "Exit codes", r);
        for (String code : List.of("0", "1", "2", "3", "4", "5")) {
            assertTrue(r.out().lines().anyMatch(l -> l.strip().startsWith(code + " ")), () -> "exit code " + code + " listed\n" + r.show());
        }
    }

    /** One version, the root pom's: printed by --version and recorded in the manifest an overlay writes. */
    @Test
    void versionIsTheRootPomsAndTheManifestRecordsIt() throws IOException {
        String pom = java.nio.file.Files.readString(Cli.repoRoot().resolve("pom.xml"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<artifactId>direkt</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(m.find(), "the root pom names its version");
        Cli.Run r = Cli.ok("--version");
        assertEquals("direkt " + m.group(1), r.out().strip(), r.show());
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", Cli.exampleCopy(tmp.resolve("bsp")), "--out", out);
        JsonNode manifest = new ObjectMapper().readTree(out.resolve("direkt-overlay.json").toFile());
        assertEquals(m.group(1), manifest.get("direkt_version").asText());
    }

    @Test
    void bareCommandPrintsUsageAndExits2() {
        Cli.Run r = Cli.run();
        assertEquals(2, r.exit(), r.show());
        assertContains(r.out() + r.err(), "Usage: direkt", r);
        assertContains(r.out() + r.err(), "overlay", r);
    }

    @Test
    void overlayHelp() {
        Cli.Run r = Cli.ok("overlay", "--help");
        assertContains(r.out(), "Usage: direkt overlay", r);
        for (String o : List.of("--bsp", "--board", "--config", "--preset", "--out", "--in-place", "--dry-run", "--json",
                "--portable-only", "--aperture", "--aperture-base")) {
            assertContains(r.out(), o, r);
        }
        String text = r.out().replaceAll("\\s+", " ");
        for (String said : List.of("refused with exit code 3", "OFS oneAPI ASP", "CCI-P", "own data movers")) {
            assertContains(text, said, r);
        }
    }

    /** The --preset description promises its default; it must name it, not print "null". */
    @Test
    void overlayHelpNamesThePresetDefault() {
        Cli.Run r = Cli.ok("overlay", "--help");
        assertFalse(r.out().contains("default: null"), () -> "--preset's default is shown as null\n" + r.show());
        assertContains(r.out().replaceAll("\\s+", " "), "default: default", r);
    }

    /** The presets and every --config key, with its meaning, come from the bridge's one description of them. */
    @Test
    void overlayHelpListsThePresetsAndEveryConfigKey() {
        Cli.Run r = Cli.ok("overlay", "--help");
        String flat = r.out().replaceAll("\\s+", " ");
        assertContains(flat, "--preset=NAME the bridge's starting point: " + String.join(", ", Bridge.Params.PRESETS.keySet()), r);
        for (Bridge.Preset p : Bridge.Params.PRESETS.values()) {
            assertContains(flat, " " + p.name() + " " + p.doc(), r);
        }
        assertContains(r.out(), "Bridge parameters (--config keys", r);
        for (BridgeParam<?> d : BridgeParam.ALL) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  " + d.name() + " ")), () -> d.name() + " listed\n" + r.show());
            assertContains(flat, d.name() + " " + d.doc() + " " + d.range() + "; default " + d.defaults() + " e.g. " + d.exampleJson(), r);
        }
    }

    @Test
    void revertHelp() {
        Cli.Run r = Cli.ok("revert", "--help");
        assertContains(r.out(), "Usage: direkt revert", r);
        assertContains(r.out(), "--bsp", r);
        assertContains(r.out(), "--board", r);
    }

    @Test
    void lintKernelHelp() {
        Cli.Run r = Cli.ok("lint-kernel", "--help");
        assertContains(r.out(), "Usage: direkt lint-kernel", r);
        assertContains(r.out(), "--board", r);
        assertContains(r.out(), "KERNEL.cl", r);
    }

    @Test
    void inspectHelp() {
        Cli.Run r = Cli.ok("inspect", "--help");
        assertContains(r.out(), "Usage: direkt inspect", r);
        assertContains(r.out(), "--json", r);
        assertContains(r.out(), "BOARD_SPEC.xml", r);
    }

    @Test
    void inspectPrintsTables() throws IOException {
        Path f = Cli.sampleBsp(Cli.N6001, tmp.resolve("n6001")).resolve("board_spec.xml");
        Cli.Run r = Cli.ok("inspect", f);
        assertContains(r.out(), "ofs_n6001_usm_iopipes", r);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("memories (5)")), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("interfaces (2)")), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("channels (16)")), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("udp_in_7") && l.contains("board.udp_in_7") && l.contains("streamsource")),
                r.show());
        assertContains(r.out(), "board.kernel_device0_3", r);
    }

    @Test
    void inspectJson() throws IOException {
        Path f = Cli.sampleBsp(Cli.N6001, tmp.resolve("n6001")).resolve("board_spec.xml");
        Cli.Run r = Cli.ok("inspect", "--json", f);
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("ofs_n6001_usm_iopipes", j.path("board").asText());
        assertEquals(16, j.path("channels").size());
        assertEquals(5, j.path("memories").size());
        assertEquals(2, j.path("interfaces").size());
        List<String> ids = new ArrayList<>();
        j.path("channels").forEach(c -> ids.add(c.path("chan_id").asText()));
        assertEquals("udp_out_0", ids.getFirst());
        assertEquals(55, j.path("channels").get(0).path("line").asInt());
    }

    /** An SDK 14.x file's unnamed memory is shown as the board's default memory, not refused. */
    @Test
    void inspectShowsAnUnnamedMemoryAsTheDefault() throws IOException {
        Path f = Cli.sampleBsp(Cli.SDK14_SINGLE, tmp.resolve("sdk14")).resolve("board_spec.xml");
        Cli.Run r = Cli.ok("inspect", f);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("memories (2)")), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.strip().matches("-\\s+true\\s+21328\\s+board\\.kernel_mem0\\s+agent\\s.*")), r.show());
        assertFalse(r.out().contains("error:"), r.show());
        JsonNode j = new ObjectMapper().readTree(Cli.ok("inspect", "--json", f).out());
        assertTrue(j.path("memories").get(0).path("memory").isNull(), j.toString());
        assertTrue(j.path("memories").get(0).path("default").asBoolean(), j.toString());
        assertEquals(0, j.path("diagnostics").size(), j.toString());
    }

    /** inspect on an overlay's board_spec.xml shows direkt's channels beside the board's own. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Cli.A10, Cli.D5005, Cli.N6001, Cli.SDK14_CHANNELS})
    void inspectShowsDirektChannelsAfterOverlay(String sample) throws IOException {
        Path bsp = Cli.sampleBsp(sample, tmp.resolve("bsp"));
        Cli.Run before = Cli.ok("inspect", "--json", bsp.resolve("board_spec.xml"));
        int n = new ObjectMapper().readTree(before.out()).path("channels").size();
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", bsp, "--out", out);
        Cli.Run r = Cli.ok("inspect", out.resolve("board_spec.xml"));
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("channels (" + (n + 4) + ")")), r.show());
        for (String id : Cli.DIREKT_CHANNELS.keySet()) {
            assertContains(r.out(), id, r);
        }
    }

    @Test
    void lintKernelAgainstTheOverlaidBoard() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", bsp, "--out", out);
        Path k = tmp.resolve("k.cl");
        java.nio.file.Files.writeString(k, """
                #pragma OPENCL EXTENSION cl_intel_channels : enable
                channel ulong4 desc __attribute__((depth(0))) __attribute__((io("direkt_rd_desc")));
                channel ulong st __attribute__((depth(0))) __attribute__((io("direkt_rd_status")));
                kernel void go(void) {
                    ulong4 d = (ulong4)(0, 0, 0, 0);
                    write_channel_intel(desc, d);
                    ulong s = read_channel_intel(st);
                }
                """);
        Cli.Run r = Cli.run("lint-kernel", k, "--board", out.resolve("board_spec.xml"));
        assertEquals(0, r.exit(), r.show());
        Path bad = tmp.resolve("bad.cl");
        java.nio.file.Files.writeString(bad, """
                channel ulong4 desc __attribute__((depth(0))) __attribute__((io("direkt_rd_desk")));
                kernel void go(void) {
                    write_channel_intel(desc, (ulong4)(0, 0, 0, 0));
                }
                """);
        Cli.Run rb = Cli.run("lint-kernel", bad, "--board", out.resolve("board_spec.xml"));
        assertEquals(1, rb.exit(), rb.show());
        assertContains(rb.err(), bad + ":1:", rb);
        assertContains(rb.err(), "direkt_rd_desk", rb);
    }
}
