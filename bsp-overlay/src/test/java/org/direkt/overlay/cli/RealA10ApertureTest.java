// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.direkt.contract.OverlayManifest;
import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code direkt overlay --aperture} on the real Arria 10 board as it ships (a10gx, Quartus Pro 16.1,
 * hard IP on its internal descriptor controller): BAR2 becomes a bursting 64-bit prefetchable BAR of
 * the size asked, the model check says what it checked of it, the manifest's aperture section reads
 * back through the runtime's reader, a second run changes nothing, and an in-place overlay reverts byte
 * for byte. Sizes that are no BAR size, windows past FPGA memory and other kinds of board are refused
 * with exit code 2, and nothing is written.
 */
class RealA10ApertureTest {
    @TempDir
    Path tmp;

    /** The model check's lines for a 1 GB aperture at FPGA address 0 on a10gx. */
    static final List<String> APERTURE_CHECKS = List.of(
            "BAR2 of pcie is 64-bit prefetchable, 1 GB, on the bursting RX master pcie.hprxm (enable_rxm_burst_hwtcl = 1)",
            "direkt_aperture.s is the only agent on pcie.hprxm, at 0x0 across all of BAR2 (1 GB: Platform Designer sizes the BAR from it)",
            "direkt_aperture.m reaches FPGA memory as pcie.dma_rd_master does: memory_bank_divider_ddr4a.s at 0x0 through"
                    + " pipe_stage_dma_rd_master > pipe_stage_dma_rdwr_master > pipe_stage_dma_rdwr_master_512",
            "the window [0x0, 0x40000000) lies inside the board's FPGA memory (2 GB: board_spec.xml's global memory DDR)",
            "direkt_aperture adds no export to the system (its bring-up outputs are terminated)",
            "every interface of direkt_aperture that must be served is connected or exported (6 interfaces)");

    @Test
    void opensA1GbApertureChecksItAndTheManifestReadsBack() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> bspBefore = Cli.snapshot(bsp);
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", out, "--aperture", "1G", "--no-peakrdl");
        assertFalse(r.out().contains("FAIL"), r::show);
        for (String check : APERTURE_CHECKS) {
            assertContains(r.out(), "    ok    " + check + "\n", r);
        }
        // everything host software used stays where it was
        for (String check : List.of("no address host software uses on pcie.rxm_bar4 moved", "direkt_bridge_ctrl.regs at pcie.rxm_bar0 0x0",
                "no address host software uses on pipe_stage_host_ctrl.m0 moved", "each new Avalon connection joins two interfaces of one clock domain",
                "each reset input of the new and changed instances is driven by a reset of its own clock")) {
            assertContains(r.out(), "ok    " + check, r);
        }
        assertContains(r.out(), "aperture: BAR2, 1 GB of FPGA memory from 0x0", r);
        Cli.assertTree(bspBefore, bsp, () -> "--out leaves the BSP as it was\n" + r.show());

        OverlayManifest m = OverlayManifest.read(out);
        OverlayManifest.Aperture a = m.aperture().orElseThrow(() -> new AssertionError("no aperture section\n" + r.show()));
        assertEquals(2, a.bar());
        assertEquals(1L << 30, a.barBytes());
        assertEquals(0, a.fpgaBase());
        assertEquals(15, a.outstandingReads(), "a 256-beat response buffer: (256 - 16) / 16 bursts");
        assertEquals(512, a.maxReadBytes(), "16 beats of 256 bits");
        assertEquals(4, m.boardCsr().orElseThrow().bar(), "the bridge's CSR stays on BAR4");

        String script = Files.readString(out.resolve("direkt_integrate.tcl"));
        assertContains(script, "load_component pcie\nset_component_parameter_value bar2_type_hwtcl {64-bit prefetchable memory}\nsave_component", r);
        assertContains(script, "set_component_parameter_value bar2_address_width_hwtcl 30\n", r);
        assertContains(script, "set_component_parameter_value enable_rxm_burst_hwtcl 1\nsave_component\n"
                + "direkt_expect_interfaces pcie {hprxm}", r);
        assertTrue(Files.isRegularFile(out.resolve("direkt_aperture_hw.tcl")), r::show);
        assertTrue(Files.readString(out.resolve("ip/direkt_aperture.v")).contains("module direkt_aperture ("), r::show);
        assertContains(Files.readString(out.resolve("OVERLAY.md")), "`direkt_aperture_hw.tcl`", r);

        // the kernel wrapper chain is edited exactly as without the aperture (which exports nothing)
        Path plain = tmp.resolve("plain");
        Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", plain, "--no-peakrdl");
        for (String f : List.of("board/ip/freeze_wrapper.v", "board/top.v", "board_spec.xml")) {
            assertArrayEquals(Files.readAllBytes(plain.resolve(f)), Files.readAllBytes(out.resolve(f)), f);
        }

        Map<String, String> first = Cli.snapshot(out);
        Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", out, "--aperture", "1G", "--no-peakrdl");
        Cli.assertTree(first, out, "a second run is byte-identical");
    }

    @Test
    void aWindowHigherInMemoryIsPlacedWhereAsked() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", out, "--aperture", "256M", "--aperture-base", "0x70000000",
                "--no-peakrdl");
        assertContains(r.out(), "ok    BAR2 of pcie is 64-bit prefetchable, 256 MB, on the bursting RX master pcie.hprxm", r);
        assertContains(r.out(), "ok    the window [0x70000000, 0x80000000) lies inside the board's FPGA memory", r);
        OverlayManifest.Aperture a = OverlayManifest.read(out).aperture().orElseThrow();
        assertEquals(256L << 20, a.barBytes());
        assertEquals(0x70000000L, a.fpgaBase());
        assertContains(Files.readString(out.resolve("direkt_integrate.tcl")), "set_component_parameter_value bar2_address_width_hwtcl 28\n", r);
    }

    @Test
    void inPlaceThenRevertRestoresEveryByteEvenAfterTheScriptRan() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/a10gx");
        Map<String, String> before = Cli.snapshot(bsp);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--in-place", "--aperture", "1G", "--no-peakrdl");
        for (String f : List.of("ip/direkt/direkt_aperture_hw.tcl", "ip/direkt/ip/direkt_aperture.v", "ip/direkt/direkt_bridge_ctrl_hw.tcl")) {
            assertTrue(Files.isRegularFile(board.resolve(f)), () -> f + " under ip/, where Pro finds components\n" + r.show());
        }
        assertEquals(2, OverlayManifest.read(board.resolve("ip/direkt")).aperture().orElseThrow().bar());
        // what running the script does to the Pro system: board.qsys and the hard IP's .ip change, the new instances' .ip files appear
        Files.writeString(board.resolve("board.qsys"), "changed by qsys-script\n");
        Files.writeString(board.resolve("ip/board/board_pcie.ip"), "changed by save_component\n");
        Files.writeString(board.resolve("ip/board/board_direkt_bridge_ctrl.ip"), "made by save_system\n");
        Files.writeString(board.resolve("ip/board/board_direkt_aperture.ip"), "made by save_system\n");
        Cli.ok("revert", "--bsp", board);
        Cli.assertTree(before, bsp, "revert restores the BSP byte for byte");
    }

    @Test
    void dryRunShowsTheApertureAndItsChecksAndWritesNothing() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--in-place", "--dry-run", "--aperture", "1G", "--no-peakrdl");
        for (String s : new String[] {"+++ b/hardware/a10gx/ip/direkt/direkt_aperture_hw.tcl", "+++ b/hardware/a10gx/ip/direkt/ip/direkt_aperture.v",
                "+set_component_parameter_value enable_rxm_burst_hwtcl 1", "+direkt_connect pcie.hprxm direkt_aperture.s",
                "+    \"bar\": 2,", "ok    " + APERTURE_CHECKS.getFirst()}) {
            assertContains(r.out(), s, r);
        }
        Cli.assertTree(before, tmp, "a dry run writes nothing");
    }

    @ParameterizedTest(name = "--aperture {0} --aperture-base {1}")
    @CsvSource(nullValues = "-", value = {
        "3G, -, 3 GB (0xC0000000 bytes) is no PCIe BAR size",
        "2K, -, 2 KB (0x800 bytes) is no PCIe BAR size",
        "0, -, is no PCIe BAR size",
        "lots, -, not a byte count",
        "4G, -, ends at 0x100000000, past the board's FPGA memory: board_spec.xml's global memory DDR holds 2 GB (0x80000000 bytes)",
        "1G, 2G, ends at 0xC0000000, past the board's FPGA memory: board_spec.xml's global memory DDR holds 2 GB (0x80000000 bytes)",
        "1G, 0x20000000, FPGA memory address 0x20000000 is not a multiple of the aperture's size"})
    void aWindowThatIsNoBarOrLiesPastMemoryIsRefusedAndNothingIsWritten(String size, String base, String said) throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run r = base == null
                ? Cli.run("overlay", "--bsp", bsp, "--board", "a10gx", "--out", tmp.resolve("out"), "--aperture", size, "--no-peakrdl")
                : Cli.run("overlay", "--bsp", bsp, "--board", "a10gx", "--out", tmp.resolve("out"), "--aperture", size, "--aperture-base", base,
                        "--no-peakrdl");
        assertEquals(2, r.exit(), r::show);
        assertContains(r.err(), said, r);
        assertFalse(r.err().contains("Exception"), r::show);
        Cli.assertTree(before, tmp, () -> "a refused run writes nothing\n" + r.show());
    }

    @Test
    void theExampleBoardWhoseHardIpHasAnExternalControllerIsRefused() throws Exception {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(tmp);
        for (String mode : List.of("--out", "--in-place")) {
            Cli.Run r = mode.equals("--out") ? Cli.run("overlay", "--bsp", bsp, "--out", tmp.resolve("out"), "--aperture", "1G", "--no-peakrdl")
                    : Cli.run("overlay", "--bsp", bsp, "--in-place", "--aperture", "1G", "--no-peakrdl");
            assertEquals(2, r.exit(), r::show);
            assertContains(r.err(), "--aperture needs a board whose PCIe hard IP runs its internal descriptor controller", r);
            assertContains(r.err(), "descriptor controller 'dma_desc'", r);
            Cli.assertTree(before, tmp, () -> "a refused run writes nothing\n" + r.show());
        }
    }

    @Test
    void withPortableOnlyOrWithoutTheSizeTheOptionIsRefused() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run portable = Cli.run("overlay", "--bsp", bsp, "--board", "a10gx", "--out", tmp.resolve("out"), "--portable-only",
                "--aperture", "1G", "--no-peakrdl");
        assertEquals(2, portable.exit(), portable::show);
        assertContains(portable.err(), "--portable-only writes nothing for that system", portable);
        Cli.Run baseOnly = Cli.run("overlay", "--bsp", bsp, "--board", "a10gx", "--out", tmp.resolve("out"), "--aperture-base", "0",
                "--no-peakrdl");
        assertEquals(2, baseOnly.exit(), baseOnly::show);
        assertContains(baseOnly.err(), "give --aperture SIZE too", baseOnly);
        Cli.assertTree(before, tmp, "a refused run writes nothing");
    }
}
