// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples' command line: what it writes for a good request, and for a bad one the exit code
 * (2 for a malformed command line, 1 for parameters the generator refuses) and a message that says
 * what was wrong followed by the usage with every example.
 */
class EmitTest {

    /** Exit code, standard output and standard error of one run. */
    record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Emit.run(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    private static void usage(Run r, String problem) {
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals("emit: " + problem, lines.get(0));
        assertEquals("usage: Emit <example> [key=value ...] --out <dir>", lines.get(1));
        assertEquals(List.of(
                "  skid_buffer: width (default 8)",
                "  gray_crossing: width (default 4), sync_stages (default 2)",
                "  skid_chain: width (default 8), stages (default 3)",
                "  simple_ram: width (default 8), depth (default 16)"), lines.subList(2, lines.size()));
        assertEquals("", r.out());
    }

    @Test
    void writesTheExampleWithItsParametersAndNamesTheTop(@TempDir Path dir) throws IOException {
        Run r = run("gray_crossing", "width=6", "--out", dir.toString(), "sync_stages=3");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        assertEquals(List.of(dir.resolve("direkt_gray_crossing_w6_s3.v").toString(), dir.resolve("direkt_sync_w6_s3.v").toString(),
                "top direkt_gray_crossing_w6_s3"), r.out().lines().sorted().toList());
        assertTrue(Files.readString(dir.resolve("direkt_gray_crossing_w6_s3.v")).contains("module direkt_gray_crossing_w6_s3 ("));
    }

    @Test
    void defaultsApplyToParametersNotGiven(@TempDir Path dir) {
        Run r = run("simple_ram", "--out", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(dir.resolve("direkt_simple_ram_w8_d16.v").toString(), "top direkt_simple_ram_w8_d16"), r.out().lines().toList());
    }

    @Test
    void theExamplesAreListedInHelpOrder() {
        assertEquals(List.of("skid_buffer", "gray_crossing", "skid_chain", "simple_ram"), List.copyOf(Emit.examples()));
    }

    @Test
    void malformedCommandLinesPrintTheUsage(@TempDir Path dir) {
        usage(run("skid_buffer"), "give an example name and --out <dir>");
        usage(run("--out", dir.toString()), "give an example name and --out <dir>");
        usage(run("skid_buffer", "--out"), "--out needs a directory");
        usage(run("skid_buffer", "width=eight", "--out", dir.toString()), "parameter width: 'eight' is not an integer");
        usage(run("skid_buffer", "skid_chain", "--out", dir.toString()), "unexpected argument 'skid_chain'");
        usage(run("fifo", "--out", dir.toString()), "unknown example 'fifo'");
    }

    @Test
    void parametersTheGeneratorRefusesExitWithOne(@TempDir Path dir) throws IOException {
        Run r = run("gray_crossing", "sync_stages=1", "--out", dir.toString());
        assertEquals(1, r.code());
        assertEquals("emit gray_crossing: GrayCrossing syncStages 1: must be >= 2", r.err().strip());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing is written for a refused design");
        }
    }
}
