// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.direkt.contract.OverlayManifest;
import org.direkt.overlay.cli.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code direkt-run}'s usage and its answers to bad input (nothing here reaches a back end). */
class DirektRunTest {

    @TempDir
    Path tmp;

    record Run(DirektRun.ExitCode code, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        DirektRun.ExitCode code = DirektRun.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    static void assertBad(String expected, String... args) {
        Run r = run(args);
        assertEquals(DirektRun.ExitCode.USAGE, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: ") && r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
    }

    @Test
    void helpListsBothCommandsTheirOptionsTheInjectionsAndTheExitCodes() {
        Run r = run("--help");
        assertEquals(DirektRun.ExitCode.OK, r.code());
        assertTrue(r.out().contains("direkt-run demo [--overlay DIR] [--bytes N] [--gpu auto|simulated|none] [--importer simulated|none|refusing|system]"),
                r.out());
        assertTrue(r.out().contains("direkt-run bringup [--overlay DIR] [--inject SETTING]..."), r.out());
        assertTrue(r.out().contains("direkt-run bringup --board --fpga D:B:D.F --binary FILE [--platform NAME] [--device PATH]"
                + " [--overlay DIR]"), r.out());
        assertTrue(r.out().contains("word_order: ") && r.out().contains("status_mode: "), r.out());
        for (DirektRun.ExitCode c : DirektRun.ExitCode.values()) {
            assertTrue(r.out().contains("  " + c.code + "  " + c.meaning), r.out());
        }
        assertEquals(DirektRun.ExitCode.USAGE, run().code());
    }

    @Test
    void badInputIsNamed() {
        assertBad("unknown command 'bring-up' (demo, bringup or importer; see --help)", "bring-up");
        assertBad("bringup: unknown argument '--sim'", "bringup", "--sim", "icarus");
        assertBad("--overlay needs a value", "bringup", "--overlay");
        assertBad("--inject needs a value", "bringup", "--inject", "--overlay", "x");
        assertBad("--inject word-order: unknown setting (one of word_order, status_mode)", "bringup", "--inject", "word-order");
        assertBad("--inject status_mode is given twice", "bringup", "--inject", "status_mode", "--inject", "status_mode");
        assertBad(tmp + ": no direkt-overlay.json (run `direkt overlay` first)", "bringup", "--overlay", tmp.toString());
        assertBad("--bytes 6: must be a positive multiple of 4", "demo", "--bytes", "6");
        assertBad("--bytes six: not a number", "demo", "--bytes", "six");
        assertBad("--gpu cpu: one of auto, simulated, none", "demo", "--gpu", "cpu");
        assertBad("--importer needs a value", "demo", "--importer", "--gpu", "none");
        assertBad("--importer p2p: one of simulated, none, refusing, system", "demo", "--importer", "p2p");
        assertBad("importer: give exactly one of --gpu BYTES and --fd N", "importer", "--length", "65536");
        assertBad("importer: give exactly one of --gpu BYTES and --fd N", "importer", "--gpu", "65536", "--fd", "3");
        assertBad("importer: --fd needs --length BYTES", "importer", "--fd", "3");
        assertBad("importer: --fd 'three' is not a number", "importer", "--fd", "three", "--length", "65536");
        assertBad("importer: --length '64X' is not a number", "importer", "--fd", "3", "--length", "64X");
        assertEquals(64L << 20, ImporterCommand.number("--gpu", "64M"));
        assertEquals(0x10000, ImporterCommand.number("--gpu", "0x10000"));
        assertEquals(1L << 30, ImporterCommand.number("--gpu", "1g"));
        assertBad("importer: --length needs a value", "importer", "--fd", "3", "--length");
        assertBad("the FPGA's address (--fpga or DIREKT_FPGA): '3b:00' is not a PCI address", "importer", "--fd", "3", "--length", "65536", "--fpga", "3b:00");
    }

    /** Where the importer module is not loaded, the command says so and what to do (exit 1). */
    @Test
    void theImporterCommandNamesAMissingModule() {
        Path node = tmp.resolve("direkt_importer");
        Run r = run("importer", "--fd", "3", "--length", "65536", "--fpga", "0000:3b:00.0", "--device", node.toString());
        assertEquals(DirektRun.ExitCode.FAILED, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: importer: no " + node + ": the importer kernel module is not loaded"), r.err());
    }

    /** The demo's round trip: one GPU -> FPGA copy, then one FPGA -> GPU copy of what the simulated FPGA's memory holds. */
    @Test
    @Tag("sim")
    void theDemoMakesItsRoundTripOnOneSimulatedFpga() {
        Path overlay = overlay("default");
        for (String importer : new String[] {"simulated", "none"}) {
            Run r = run("demo", "--overlay", overlay.toString(), "--gpu", "simulated", "--importer", importer, "--bytes", "65540");
            assertEquals(DirektRun.ExitCode.OK, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("round trip GPU -> FPGA -> GPU on one simulated FPGA: 65540 bytes byte-exact, "
                    + (importer.equals("none") ? "bounce" : "direct") + " path"), r.out());
            assertTrue(r.out().contains("simulated FPGA (verilator): started in") || r.out().contains("simulated FPGA (icarus)"),
                    r.out());
        }
    }

    private Path overlay(String preset) {
        Path overlay = tmp.resolve(preset);
        StringWriter err = new StringWriter();
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.isDirectory(repo.resolve("examples/bsp/direkt_ref"))) {
            repo = repo.getParent();
        }
        assertTrue(repo != null, "the repository is not above " + Path.of("").toAbsolutePath());
        int rc = Main.run(new String[] {"overlay", "--bsp", repo.resolve("examples/bsp/direkt_ref").toString(), "--preset", preset,
                "--out", overlay.toString()},
                new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        return overlay;
    }

    /**
     * {@code bringup --board}: what it needs, named before anything opens; then, on a machine
     * without the board, what is missing: the manifest's {@code board.csr} (bad input), the
     * importer module (the back end). BringupBoardTest runs it on the board device with stand-ins.
     */
    @Test
    void bringupOnABoardNamesWhatItNeedsAndWhatIsMissing() throws Exception {
        assertBad("bringup --board: --inject makes a setting wrong in the simulation", "bringup", "--board", "--inject", "word_order");
        assertBad("bringup --board needs --fpga D:B:D.F (the FPGA's PCI address, lspci -D -d 1172:) and --binary FILE",
                "bringup", "--board", "--binary", "k.aocx");
        assertBad("bringup: --fpga, --binary, --platform and --device name a board's parts: they go with --board",
                "bringup", "--platform", "Intel(R) FPGA");
        assertBad("bringup --board: --fpga: '3b:00' is not a PCI address", "bringup", "--board", "--fpga", "3b:00", "--binary", "k");
        Path missing = tmp.resolve("missing.aocx");
        assertBad("bringup --board: --binary " + missing + ": no such file", "bringup", "--board", "--fpga", "0000:3b:00.0",
                "--binary", missing.toString());

        Path overlay = overlay("default");
        Path node = tmp.resolve("direkt_importer");
        String[] board = {"bringup", "--board", "--overlay", overlay.toString(), "--fpga", "0000:3b:00.0", "--binary",
            Files.writeString(tmp.resolve("direkt_bringup.aocx"), "a binary").toString(), "--device", node.toString()};
        assertBad(overlay.resolve(OverlayManifest.FILE) + " has no board.csr section", board);
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = (ObjectNode) json.readTree(overlay.resolve(OverlayManifest.FILE).toFile());
        m.putObject("board").putObject("csr").put("bar", 4).put("offset", "0x20000").put("bytes", 512).put("host", "board");
        json.writeValue(overlay.resolve(OverlayManifest.FILE).toFile(), m);
        Run r = run(board);
        assertEquals(DirektRun.ExitCode.BACK_END, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("direkt-run: bringup --board: no " + node + ": the importer kernel module is not loaded")
                && r.err().lines().count() == 1, r.err());
    }

    @Test
    void anOverlayWithoutBringupRegistersIsRefusedWithTheFix() {
        Path overlay = overlay("paper");
        assertBad("the bridge has no bring-up registers (bringup=false): regenerate the overlay with bringup=true",
                "bringup", "--overlay", overlay.toString());
    }
}
