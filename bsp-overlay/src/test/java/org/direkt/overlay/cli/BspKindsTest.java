// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * BSPs whose host DMA the bridge cannot sit in front of, as test trees in their shape (bsp-kinds/): an
 * OFS oneAPI ASP and a CCI-P based BSP are refused with exit code 3 naming what was found and what is
 * missing, and nothing is written; {@code --portable-only} still writes the parts they can use.
 */
class BspKindsTest {

    @TempDir
    Path tmp;

    /** The portable parts: everything but the Platform Designer component and the integration script. */
    private static final List<String> PORTABLE = List.of("ip/direkt_bridge.v", "include/direkt_dma.h", "direkt-overlay.json",
            "board_spec.xml", "OVERLAY.md");
    private static final List<String> PLATFORM_DESIGNER = List.of("direkt_bridge_hw.tcl", "direkt_integrate.tcl");

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "ofs_asp, an OFS oneAPI ASP, hardware/ofs_fixture/build/rtl/ofs_plat_afu.sv declares module ofs_plat_afu, FIM's PCIe subsystem",
            "ccip, a CCI-P based BSP, hardware/pac_fixture/build/ccip_std_afu.sv declares module ccip_std_afu, through CCI-P",
            "ofs_asp_fresh, an OFS oneAPI ASP, hardware/ofs_fresh/build/oneapi_afu.json is an OFS oneAPI ASP board file, FIM's PCIe subsystem",
    })
    void isRefusedWithExit3NamingItsKindAndWhatIsMissing(String kind, String described, String found, String dma) throws IOException {
        Path bsp = Cli.kindBsp(kind, tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Map<String, String> before = Cli.snapshot(tmp);
        for (Object[] args : List.of(new Object[] {"overlay", "--bsp", bsp, "--out", out},
                new Object[] {"overlay", "--bsp", bsp, "--in-place"},
                new Object[] {"overlay", "--bsp", bsp, "--out", out, "--dry-run"})) {
            Cli.Run r = Cli.run(args);
            assertEquals(3, r.exit(), r::show);
            assertTrue(r.err().startsWith("direkt: " + bsp + ": " + described + ": " + found), r::show);
            for (String missing : List.of(dma, "not the PCIe hard IP with Avalon-MM DMA",
                    "no Platform Designer system next to hardware/", "holds that hard IP", "--portable-only")) {
                assertContains(r.err(), missing, r);
            }
            assertEquals("", r.out(), r::show);
            Cli.assertTree(before, tmp, () -> "a refused overlay writes nothing\n" + r.show());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "ofs_asp, ofs_fixture, an OFS oneAPI ASP, hardware/ofs_fixture/build/rtl/kernel_wrapper.v",
            "ccip, pac_fixture, a CCI-P based BSP, hardware/pac_fixture/build/freeze_wrapper.v",
    })
    void portableOnlyStillWritesThePortableParts(String kind, String board, String described, String wrapper) throws IOException {
        Path bsp = Cli.kindBsp(kind, tmp.resolve("bsp"));
        Map<String, String> pristine = Cli.snapshot(bsp);
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--portable-only", "--json");
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(kind, j.path("bsp_kind").asText(), r.show());
        assertTrue(j.path("portable_only").asBoolean(), r.show());
        assertFalse(j.has("qsys_version"), "no Tcl file, no Platform Designer release");
        for (String f : PORTABLE) {
            assertTrue(Files.isRegularFile(out.resolve(f)), () -> f + " written\n" + r.show());
        }
        for (String f : PLATFORM_DESIGNER) {
            assertFalse(Files.exists(out.resolve(f)), () -> f + " is not portable\n" + r.show());
        }
        List<String> written = new ArrayList<>();
        j.path("written").forEach(n -> written.add(n.asText()));
        assertEquals(Cli.files(out).keySet().stream().sorted().toList(), written.stream().sorted().toList());
        Cli.assertDirektChannels(Cli.parse(out.resolve("board_spec.xml")));
        Cli.assertTree(pristine, bsp, "--out leaves the BSP alone");

        Markdown md = Markdown.parse(Cli.read(out.resolve("OVERLAY.md")));
        assertEquals(OverlayDocumentsTest.outline(board), md.headings());
        String changed = String.join(" ", md.section("What changed").stream().map(Markdown::text).toList());
        assertContains(changed, "Portable parts only", r);
        assertContains(changed, described, r);
        assertFalse(changed.contains("_hw.tcl") || changed.contains("direkt_integrate.tcl"), changed);
        List<String> steps = md.steps("What to do by hand");
        assertTrue(steps.getFirst().startsWith("Connect the bridge to your data movers"), steps::toString);
        assertTrue(steps.stream().anyMatch(s -> s.startsWith("Export the four channel interfaces")), steps::toString);
        assertTrue(steps.stream().anyMatch(s -> s.startsWith("Wire the channels in the kernel wrapper " + wrapper)), steps::toString);
        assertTrue(steps.getLast().startsWith("Open a window before kernels run"), steps::toString);

        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--portable-only");
        assertContains(again.out(), "0 files written", again);
        assertContains(again.out(), "portable parts only: " + described, again);
    }

    @Test
    void portableOnlyInPlaceRevertsByteForByte() throws IOException {
        Path bsp = Cli.kindBsp("ofs_asp", tmp.resolve("bsp"));
        Map<String, String> pristine = Cli.snapshot(bsp);
        Path board = bsp.resolve("hardware/ofs_fixture");
        Cli.ok("overlay", "--bsp", bsp, "--in-place", "--portable-only");
        Cli.assertDirektChannels(Cli.parse(board.resolve("board_spec.xml")));
        assertTrue(Files.isRegularFile(board.resolve("direkt/include/direkt_dma.h")));
        assertFalse(Files.exists(board.resolve("direkt/direkt_integrate.tcl")));
        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--in-place", "--portable-only");
        assertContains(again.out(), "0 files written", again);
        Cli.ok("revert", "--bsp", bsp);
        Cli.assertTree(pristine, bsp, "revert restores the ASP byte for byte");
    }

    /** Without the kind's module declaration the same tree is an ordinary board_spec.xml-only BSP again. */
    @Test
    void theKindIsToldByTheModuleDeclarationNotTheLayoutAlone() throws IOException {
        Path bsp = Cli.kindBsp("ccip", tmp.resolve("bsp"));
        Path afu = bsp.resolve("hardware/pac_fixture/build/ccip_std_afu.sv");
        Files.move(afu, afu.resolveSibling("renamed_top.sv"));
        assertEquals(3, Cli.run("overlay", "--bsp", bsp, "--out", tmp.resolve("out1")).exit(),
                "a renamed file still declares module ccip_std_afu");
        Files.writeString(afu.resolveSibling("renamed_top.sv"), "// module ccip_std_afu is not declared here\nmodule other_top;\nendmodule\n");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", tmp.resolve("out2"), "--json");
        assertEquals("board_spec_only", new ObjectMapper().readTree(r.out()).path("bsp_kind").asText(), r.show());
    }

    /** Platform Designer systems without the hard IP are refused, naming each system looked at. */
    @Test
    void systemsWithoutTheHardIpAreRefusedNamingThem() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path qsys = bsp.resolve("hardware/direkt_ref/board.qsys");
        Files.writeString(qsys, Cli.read(qsys).replace("kind=\"altera_pcie_a10_hip\"", "kind=\"altera_avalon_onchip_memory2\""));
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run r = Cli.run("overlay", "--bsp", bsp, "--out", tmp.resolve("out"));
        assertEquals(3, r.exit(), r::show);
        assertContains(r.err(), "direkt: " + bsp + ": Platform Designer systems hardware/direkt_ref/board.qsys (no PCIe hard IP instance);"
                + " no Platform Designer system next to hardware/direkt_ref/board_spec.xml holds a PCIe DMA hard IP", r);
        assertContains(r.err(), "--portable-only", r);
        Cli.assertTree(before, tmp, "nothing written");
    }

    /** --portable-only on a board that could take the whole overlay: the same portable parts, and OVERLAY.md says why. */
    @Test
    void portableOnlyOnABoardWithTheHardIpLeavesOutThePlatformDesignerFilesOnly() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Cli.ok("overlay", "--bsp", bsp, "--out", tmp.resolve("full"));
        Cli.ok("overlay", "--bsp", bsp, "--out", tmp.resolve("portable"), "--portable-only");
        Map<String, byte[]> full = Cli.files(tmp.resolve("full"));
        Map<String, byte[]> portable = Cli.files(tmp.resolve("portable"));
        java.util.Set<String> expected = new java.util.TreeSet<>(full.keySet());
        expected.removeAll(PLATFORM_DESIGNER);
        assertEquals(expected, portable.keySet());
        for (String f : expected) {
            if (!f.equals("OVERLAY.md")) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(full.get(f), portable.get(f), f + " is the same in both");
            }
        }
        Markdown md = Markdown.parse(Cli.utf8(portable.get("OVERLAY.md")));
        assertEquals(OverlayDocumentsTest.outline("direkt_ref"), md.headings());
        String changed = String.join(" ", md.section("What changed").stream().map(Markdown::text).toList());
        assertTrue(changed.startsWith("Portable parts only (direkt overlay --portable-only): this overlay holds no Platform Designer"),
                changed);
    }

    /** A Stratix V BSP whose host DMA is the soft acl_dma is refused naming the kind and the instance, and nothing is written. */
    @Test
    void aSoftAclDmaBspIsRefusedNamingItsKind() throws IOException {
        Path bsp = Cli.kindBsp("soft_dma", tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Map<String, String> before = Cli.snapshot(tmp);
        for (Object[] args : List.of(new Object[] {"overlay", "--bsp", bsp, "--out", out},
                new Object[] {"overlay", "--bsp", bsp, "--in-place"},
                new Object[] {"overlay", "--bsp", bsp, "--out", out, "--dry-run"})) {
            Cli.Run r = Cli.run(args);
            assertEquals(3, r.exit(), r::show);
            assertTrue(r.err().startsWith("direkt: " + bsp + ": an Intel FPGA SDK for OpenCL BSP whose host DMA is the soft acl_dma: "
                    + bsp.resolve("hardware/sv_fixture/board.qsys") + ":6: instance 'dma' (acl_dma)"), r::show);
            assertContains(r.err(), "no descriptor stream for the bridge to join", r);
            assertContains(r.err(), "--portable-only", r);
            assertEquals("", r.out(), r::show);
            Cli.assertTree(before, tmp, () -> "a refused overlay writes nothing\n" + r.show());
        }
    }

    /** The hard IP with its internal descriptor controller is refused as before, and --portable-only takes it too. */
    @Test
    void portableOnlyAlsoTakesAHardIpWithItsInternalDescriptorController() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Files.write(bsp.resolve("hardware/direkt_ref/board.qsys"), Cli.resource("no_desc_if.qsys"));
        Cli.Run refused = Cli.run("overlay", "--bsp", bsp, "--out", tmp.resolve("out"));
        assertEquals(3, refused.exit(), refused::show);
        assertContains(refused.err(), "internal descriptor controller", refused);
        assertContains(refused.err(), "--portable-only", refused);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", tmp.resolve("out"), "--portable-only", "--json");
        assertEquals("platform_designer", new ObjectMapper().readTree(r.out()).path("bsp_kind").asText(), r.show());
        assertFalse(Files.exists(tmp.resolve("out/direkt_integrate.tcl")));
    }
}
