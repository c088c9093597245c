// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.OverlayManifest;
import org.direkt.generators.bridge.Bridge;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.Session;
import org.direkt.runtime.board.BoardDevice;
import org.direkt.runtime.board.BridgeStandIn;
import org.direkt.runtime.board.IssuingBinary;
import org.direkt.runtime.bringup.BoardTarget;
import org.direkt.runtime.bringup.BridgeConfig;
import org.direkt.runtime.bringup.BringupPlan;
import org.direkt.runtime.bringup.BringupTarget;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code direkt-run bringup --board} on the board device with stand-ins for what only a board has:
 * the bring-up kernel ({@code examples/kernels/direkt_bringup.cl}) built for PoCL against the
 * overlay's header and loaded from its binary file, as an {@code .aocx} is; the bridge's registers,
 * channels and movers a {@link BridgeStandIn}; GPU memory a simulated GPU's, mapped through a
 * simulated importer. The command's options are parsed as a user gives them; only the opening of
 * the board's parts is the test's. Each check is reported; a stand-in playing a board that differs
 * from the overlay gets the simulated target's verdicts and advice; the report names its stand-ins,
 * prints no latency figure and lists what only a board can settle. Skipped without PoCL.
 */
class BringupBoardTest {
    static final long APERTURE = 0x38_0000_0000L;

    @TempDir
    static Path tmp;

    static Path overlay;
    static Path binary;
    static Path issuing;

    @BeforeAll
    static void anOverlayAndItsBringupKernelAsABinaryFile() throws Exception {
        assumeTrue(IssuingBinary.poclPresent(), "no OpenCL loader or no PoCL platform");
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.isRegularFile(repo.resolve("examples/kernels/direkt_bringup.cl"))) {
            repo = repo.getParent();
        }
        assertTrue(repo != null, "repository not found above " + Path.of("").toAbsolutePath());
        overlay = tmp.resolve("overlay");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", repo.resolve("examples/bsp/direkt_ref").toString(), "--out",
            overlay.toString()}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        binary = IssuingBinary.build(overlay, Files.readString(repo.resolve("examples/kernels/direkt_bringup.cl")),
                tmp.resolve("direkt_bringup.pocl"));
        issuing = IssuingBinary.build(overlay, tmp.resolve("direkt_issue.pocl"));
    }

    record Run(DirektRun.ExitCode code, String out, String err, BridgeStandIn bridge) {
        /** The line of check {@code name}, which must say {@code verdict}. */
        String line(String name, String verdict) {
            String head = String.format(Locale.ROOT, "%-15s%-13s", name, verdict);
            return out.lines().filter(l -> l.startsWith(head)).findFirst()
                    .orElseThrow(() -> new AssertionError("no line '" + head + "' in:\n" + out + err));
        }
    }

    /** {@code direkt-run bringup --board ...} with {@code extra} options, its board's parts stand-ins as {@code play} makes them. */
    static Run bringup(BiFunction<BridgeStandIn, OverlayManifest, BridgeStandIn> play, Path kernels, String... extra) {
        List<BridgeStandIn> made = new ArrayList<>();
        BringupCommand.Boards standIns = (dir, c) -> BoardTarget.open(dir, new SimulatedImporter(APERTURE, 1L << 30, 0.5, 41),
                Session.Gpu.SIMULATED, m -> {
                    BridgeStandIn b = play.apply(new BridgeStandIn(m), m);
                    made.add(b);
                    return BoardDevice.open(m, b, c.platform(), c.binary(), c.fpgaMemoryBytes(), b);
                });
        List<String> args = new ArrayList<>(List.of("bringup", "--board", "--overlay", overlay.toString(), "--fpga", "0000:3b:00.0",
                "--binary", kernels.toString(), "--platform", IssuingBinary.POCL));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        DirektRun.ExitCode code = DirektRun.run(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err), standIns);
        System.out.print(out);
        return new Run(code, out.toString(), err.toString(), made.isEmpty() ? null : made.getFirst());
    }

    @Test
    void asConfiguredEveryCheckIsOkAndTheReportSaysWhatOnlyABoardCanSettle() throws Exception {
        Run r = bringup((b, m) -> b, binary);
        String text = r.out();
        assertEquals(DirektRun.ExitCode.OK, r.code(), text + r.err());
        r.line("bitstream", "OK");
        assertTrue(r.line("word order", "OK").contains("as word_order=x0_low says"), text);
        assertTrue(r.line("kernel status", "OK").endsWith("6 completed, 2 RESERVED"), "the reversed descriptors are rejected:\n"
                + text);
        r.line("mover status", "OK");
        assertTrue(text.contains("  stand-ins, not a board: the bridge's registers, channels, checks and data movers (BridgeStandIn"),
                text);
        for (String d : List.of("rd", "wr")) {
            assertTrue(r.line("latency " + d, "NOT MEASURED").endsWith("the stand-in's elapsed counts are not timings"), text);
        }
        assertFalse(text.contains("dma_clk cycles from") || text.contains(" ns "), "no figure a stand-in made up:\n" + text);
        int result = text.indexOf("result: every check OK\nonly a board can settle (this run had stand-ins for it):\n");
        assertTrue(result > 0, text);
        for (String item : List.of("bitstream: ", "word order: where the board's kernel compiler (aoc) puts cldesc word x0",
                "kernel status: ", "mover status: the hard IP's own status word", "latency and bus addresses: ")) {
            assertTrue(text.indexOf("\n  - " + item, result) > 0, item + ":\n" + text);
        }

        long[] first = r.bridge().descriptors().getFirst();
        long gpuBus = first[1] << 32 | first[0];
        BringupPlan plan = BringupPlan.of(BridgeConfig.read(overlay), new BringupTarget.Buffers(gpuBus, 1 << 16,
                BoardTarget.FPGA_ADDRESS, BoardTarget.FPGA_MEMORY - BoardTarget.FPGA_ADDRESS));
        assertEquals(plan.probes().size(), r.bridge().descriptors().size(), "one launch issued the plan's descriptors");
        for (BringupPlan.Probe p : plan.probes()) {
            assertArrayEquals(p.words(), r.bridge().descriptors().get(p.index()), p.describe());
        }
        OverlayManifest m = OverlayManifest.read(overlay);
        assertEquals(0, r.bridge().read32(m.byteOffset("WIN0_CTRL")), "the window is closed again");
        assertTrue(r.bridge().closed(), "the board device is closed");
    }

    /** As {@code --inject word_order} on the simulated target: only the word order is wrong, and the fix is the overlay's. */
    @Test
    void aKernelCompilerPuttingX0AtTheOtherEndIsTheWordOrdersMismatch() {
        Run r = bringup((b, m) -> b.channel(BridgeModes.WordOrder.X0_HIGH), binary);
        assertEquals(DirektRun.ExitCode.FAILED, r.code(), r.out() + r.err());
        r.line("bitstream", "OK");
        String line = r.line("word order", "MISMATCH");
        assertTrue(line.contains("x0 at channel bits [255:224] (LAST_DESC_7)") && line.contains("the overlay says x0_low"), line);
        assertTrue(line.contains(". Change: word_order=x0_high: regenerate the overlay"), line);
        assertTrue(r.line("kernel status", "OK").endsWith("2 completed, 6 RESERVED"), "the bridge completes only the reversed ones:\n"
                + r.out());
        r.line("mover status", "OK");
        assertTrue(r.out().contains("result: word order MISMATCH\nonly a board can settle"), r.out());
    }

    /** A bitstream built from an overlay of the other status mode: CONFIG and the statuses both say which, as in the simulation. */
    @Test
    void aBitstreamOfTheOtherStatusModeIsTheBitstreamsAndTheStatusesMismatch() {
        Run r = bringup((b, m) -> b.built(m.bridge().withStatusMode(BridgeModes.StatusMode.CYCLES)), binary);
        assertEquals(DirektRun.ExitCode.FAILED, r.code(), r.out() + r.err());
        assertTrue(r.line("bitstream", "MISMATCH").contains("status_mode: bitstream cycles, overlay tagged"), r.out());
        r.line("word order", "OK");
        String line = r.line("kernel status", "MISMATCH");
        assertTrue(line.contains("do not decode as status_mode=tagged says"), line);
        assertTrue(line.contains(". Change: status_mode=cycles: the bitstream's bridge returns cycles statuses"), line);
        r.line("mover status", "OK");
    }

    @Test
    void aBitstreamWithoutDirektsBridgeOrABinaryWithoutTheKernelIsOneLine() {
        Run r = bringup((b, m) -> b.with("MAGIC", 0x1234_5678L), binary);
        assertEquals(DirektRun.ExitCode.FAILED, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: bringup --board: bitstream MISMATCH: a bitstream without direkt's bridge")
                && r.err().contains("reads 0x12345678") && r.err().lines().count() == 1, r.err());
        assertTrue(r.bridge().closed(), "what opened is closed again");

        r = bringup((b, m) -> b, issuing);
        assertEquals(DirektRun.ExitCode.USAGE, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: bringup --board: the kernel binary " + issuing + " has no kernel direkt_bringup")
                && r.err().lines().count() == 1, r.err());

        r = bringup((b, m) -> b, binary, "--inject", "word_order");
        assertEquals(DirektRun.ExitCode.USAGE, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: bringup --board: --inject makes a setting wrong in the simulation"), r.err());
        assertEquals(null, r.bridge(), "nothing is opened on bad usage");
    }
}
