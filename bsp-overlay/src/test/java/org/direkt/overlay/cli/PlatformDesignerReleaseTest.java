// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The generated Tcl files ask for the Platform Designer release the BSP states (its system, else its
 * other .qsys/.ip files, else board_spec.xml's version), and OVERLAY.md's "What to do by hand" lists
 * the steps the scan leaves to the user.
 */
class PlatformDesignerReleaseTest {

    @TempDir
    Path tmp;

    private record Overlaid(JsonNode summary, String hwTcl, String integrateTcl, Markdown md) {
    }

    private Overlaid overlay(Path bsp) throws IOException {
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--json", "--no-peakrdl");
        return new Overlaid(new ObjectMapper().readTree(r.out()), Cli.read(out.resolve("direkt_bridge_hw.tcl")),
                Cli.read(out.resolve("direkt_integrate.tcl")), Markdown.parse(Cli.read(out.resolve("OVERLAY.md"))));
    }

    private static void assertRequires(String release, Overlaid o) {
        for (String tcl : List.of(o.hwTcl(), o.integrateTcl())) {
            List<String> lines = tcl.lines().filter(l -> l.startsWith("package require")).toList();
            assertEquals(List.of("package require -exact qsys " + release), lines);
        }
        assertEquals(release, o.summary().path("qsys_version").asText(), o.summary().toString());
    }

    private static String changed(Overlaid o) {
        return String.join(" ", o.md().section("What changed").stream().map(Markdown::text).toList());
    }

    @Test
    void theExampleBoardsSystemStatesItsRelease() throws IOException {
        Overlaid o = overlay(Cli.exampleCopy(tmp.resolve("bsp")));
        assertRequires("20.4", o);
        assertEquals("system_file", o.summary().path("qsys_version_from").asText());
        assertEquals("hardware/direkt_ref/board.qsys", o.summary().path("qsys_version_source").asText());
        assertTrue(changed(o).contains("Platform Designer release in the Tcl files: 20.4 (stated by hardware/direkt_ref/board.qsys)"),
                changed(o));
        List<String> steps = o.md().steps("What to do by hand");
        assertEquals(5, steps.size(), steps::toString);
        assertTrue(steps.get(0).startsWith("Run the integration script"), steps::toString);
        assertTrue(steps.get(1).startsWith("Wire the channels in the kernel wrapper if the BSP's kernel wrapper"), steps::toString);
        assertTrue(steps.get(2).startsWith("Give host software the CSR's address"), steps::toString);
        assertTrue(steps.get(2).contains("direkt_csr_base"), steps::toString);
        assertTrue(steps.get(3).startsWith("Render the register reference"), "no PeakRDL in this test: " + steps);
        assertTrue(steps.get(4).startsWith("Open a window before kernels run"), steps::toString);
        assertTrue(o.integrateTcl().contains("#   - Wire the channels in the kernel wrapper if"), "the script's header lists the steps too");
        JsonNode listed = o.summary().path("manual_steps");
        assertEquals(3, listed.size(), listed::toString);
        assertTrue(listed.get(0).asText().startsWith("**Wire the channels in the kernel wrapper**"), listed::toString);
    }

    @Test
    void theSystemsReleaseWinsOverBoardSpecsVersion() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path qsys = bsp.resolve("hardware/direkt_ref/board.qsys");
        Files.writeString(qsys, Cli.read(qsys).replace("version=\"20.4\"", "version=\"19.1\""));
        assertRequires("19.1", overlay(bsp));
    }

    @Test
    void anIpFileStatesItWhenTheSystemDoesNot() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/direkt_ref");
        Files.writeString(board.resolve("board.qsys"), Cli.read(board.resolve("board.qsys")).replace(" version=\"20.4\"", ""));
        Path ip = Files.createDirectories(board.resolve("ip/board")).resolve("board_pll.ip");
        Files.writeString(ip, """
                <?xml version="1.0" ?>
                <ipxact:component xmlns:ipxact="http://www.accellera.org/XMLSchema/IPXACT/1685-2014">
                  <ipxact:busInterfaces><ipxact:busInterface>
                    <ipxact:busType vendor="intel" library="intel" name="clock" version="21.3"></ipxact:busType>
                  </ipxact:busInterface></ipxact:busInterfaces>
                </ipxact:component>
                """);
        Overlaid o = overlay(bsp);
        assertRequires("21.3", o);
        assertEquals("hardware/direkt_ref/ip/board/board_pll.ip", o.summary().path("qsys_version_source").asText());
    }

    /** Looked at only when the system states no release; then it is named in a note and the search goes on. */
    @Test
    void anUnreadableIpFileIsSkippedWithANoteNamingIt() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/direkt_ref");
        Files.writeString(board.resolve("board.qsys"), Cli.read(board.resolve("board.qsys")).replace(" version=\"20.4\"", ""));
        Path ip = Files.createDirectories(board.resolve("ip")).resolve("broken.ip");
        Files.writeString(ip, "<?xml version=\"1.0\"?>\n<component>\n  <busInterfaces>\n");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", tmp.resolve("out"));
        assertTrue(r.out().lines().anyMatch(l -> l.matches("  note: hardware/direkt_ref/ip/broken\\.ip:\\d+:\\d+: not readable XML: .*")),
                r::show);
        assertContains(r.out(), "skipped when looking for the Platform Designer version", r);
        assertContains(r.out(), "Platform Designer 20.4:", r);
        assertContains(Cli.read(tmp.resolve("out/OVERLAY.md")), "20.4 (from board_spec.xml's version=\"20.4\"", r);
    }

    @Test
    void aBoardSpecOnlyBoardTakesBoardSpecsVersionAndSaysSo() throws IOException {
        Overlaid o = overlay(Cli.sampleBsp(Cli.SDK14_CHANNELS, tmp.resolve("bsp")));
        assertRequires("14.1", o);
        assertEquals("board_spec", o.summary().path("qsys_version_from").asText());
        List<String> steps = o.md().steps("What to do by hand");
        assertTrue(steps.get(0).startsWith("Add the bridge to the board's Platform Designer system"), steps::toString);
        assertTrue(steps.get(1).startsWith("Check the Platform Designer release: direkt_bridge_hw.tcl and direkt_integrate.tcl say"
                + " package require -exact qsys 14.1, taken from board_spec.xml's version=\"14.1\""), steps::toString);
        assertTrue(steps.get(3).startsWith("Give host software the CSR's address"), steps::toString);
        assertTrue(steps.get(3).contains("at the base address you give it on the host bridge"), steps::toString);
    }

    @Test
    void aVersionThatIsNoQuartusReleaseFallsBackToTheAssumedOneAndSaysSo() throws IOException {
        Path bsp = Cli.sampleBsp(Cli.SDK14_SINGLE, tmp.resolve("bsp"));
        Path spec = bsp.resolve("board_spec.xml");
        Files.writeString(spec, Cli.read(spec).replace("version=\"14.0\"", "version=\"2024.0\""));
        Overlaid o = overlay(bsp);
        assertRequires("18.0", o);
        assertEquals("assumed", o.summary().path("qsys_version_from").asText());
        List<String> steps = o.md().steps("What to do by hand");
        assertTrue(steps.get(1).contains("package require -exact qsys 18.0, assumed because board_spec.xml's version=\"2024.0\""
                + " is not a Quartus release"), steps::toString);
    }

    @Test
    void aKernelWrapperOfTheBoardIsNamedInItsStep() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Files.writeString(bsp.resolve("hardware/direkt_ref/freeze_wrapper.v"), "module freeze_wrapper;\nendmodule\n");
        List<String> steps = overlay(bsp).md().steps("What to do by hand");
        assertTrue(steps.get(1).startsWith("Wire the channels in the kernel wrapper hardware/direkt_ref/freeze_wrapper.v, which lists"
                + " the kernel system's ports by hand: add the four channels' <port>_data, _valid and _ready signals (direkt_bridge_rd_desc,"),
                steps::toString);
        assertFalse(steps.get(1).contains("e.g."), steps::toString);
    }
}
