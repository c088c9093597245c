// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Manifest;
import org.direkt.hdl.Module;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generators' command line: one configuration with its files and top module, the lists the
 * benches read, the reference IP kept in step with a directory, and for each kind of bad request
 * its exit code and a message naming the parameter, the value and what it must be.
 */
class EmitTest {

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

    @Test
    void oneConfigurationPrintsItsFilesThenItsTop(@TempDir Path dir) throws IOException {
        Run r = run("skid_buffer", "width=4", "--out", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(dir.resolve("direkt_skid_buffer_w4.v").toString(), "top direkt_skid_buffer_w4"), r.out().lines().toList());
        assertTrue(Files.readString(dir.resolve("direkt_skid_buffer_w4.v")).contains("module direkt_skid_buffer_w4 ("));
    }

    @Test
    void theBridgeWritesItsManifestBesideTheVerilog(@TempDir Path dir) throws IOException {
        Run r = run("bridge", "--out", dir.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        String top = new org.direkt.generators.bridge.Bridge().moduleName(Bridge.Params.defaults());
        assertEquals("top " + top, lines.getLast());
        assertEquals(dir.resolve(Manifest.FILE_NAME).toString(), lines.get(lines.size() - 2));
        assertEquals(Manifest.json(Bridge.Params.defaults()), Files.readString(dir.resolve(Manifest.FILE_NAME)));
        assertTrue(Files.exists(dir.resolve(top + ".v")));
    }

    @Test
    void theListsAreOneNamePerLine() {
        Run presets = run("--list-presets");
        assertEquals(0, presets.code());
        assertEquals(List.copyOf(Bridge.Params.PRESETS.keySet()), presets.out().lines().toList());
        Run ip = run("--list-ip");
        assertEquals(0, ip.code());
        assertEquals(Catalog.referenceIp().stream().map(Module::name).toList(), ip.out().lines().toList());
    }

    @Test
    void theReferenceIpDirectoryIsKeptInStep(@TempDir Path dir) throws IOException {
        Path ip = dir.resolve("ip");
        Run first = run("--ip", ip.toString());
        assertEquals(0, first.code(), first.err());
        List<String> lines = first.out().lines().toList();
        long modules;
        long cores;
        try (var files = Files.list(ip)) {
            modules = files.filter(f -> f.toString().endsWith(".v")).count();
        }
        try (var files = Files.list(ip)) {
            cores = files.filter(f -> f.toString().endsWith(".core")).count();
        }
        assertEquals(Catalog.referenceIp().size(), cores, "one FuseSoC core per reference top");
        String summary = "ip: " + modules + " modules and " + cores + " FuseSoC cores in " + ip;
        assertEquals(summary, lines.getLast());
        assertEquals(modules + cores, lines.stream().filter(l -> l.startsWith("wrote " + ip)).count());

        Path stale = Files.writeString(ip.resolve("direkt_gone.v"), "module direkt_gone; endmodule\n");
        Path notes = Files.writeString(ip.resolve("README.txt"), "kept\n");
        Path changed = ip.resolve("direkt_skid_buffer_w160.v");
        String original = Files.readString(changed);
        Files.writeString(changed, "edited by hand\n");
        Run second = run("--ip", ip.toString());
        assertEquals(0, second.code(), second.err());
        assertEquals(List.of("wrote " + changed, "removed " + stale, summary), second.out().lines().toList());
        assertEquals(original, Files.readString(changed));
        assertTrue(Files.exists(notes), "files other than Verilog are left alone");
    }

    private static void usage(Run r, String problem) {
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals("emit: " + problem, lines.get(0));
        assertEquals("usage: Emit <generator> [key=value ...] --out <dir> | Emit --ip <dir>", lines.get(1));
        for (String name : Catalog.entries().keySet()) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("  " + name + ": ")), name + " is listed");
        }
    }

    @Test
    void malformedCommandLinesPrintTheUsage(@TempDir Path dir) {
        usage(run(), "give a generator and --out <dir>");
        usage(run("skid_buffer"), "give a generator and --out <dir>");
        usage(run("skid_buffer", "--out"), "unexpected argument '--out'");
        usage(run("--bogus", "--out", dir.toString()), "unexpected argument '--bogus'");
        usage(run("skid_buffer", "arbiter", "--out", dir.toString()), "unexpected argument 'arbiter'");
        usage(run("--ip"), "unexpected argument '--ip'");
    }

    private static void refused(String expected, String... args) {
        Run r = run(args);
        assertEquals(1, r.code(), r.err());
        assertEquals("emit: " + expected, r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void badParametersNameTheParameterAndTheRule(@TempDir Path dir) {
        String out = dir.toString();
        refused("unknown generator 'fifo' (known: " + Catalog.entries().keySet() + ")", "fifo", "--out", out);
        refused("sync_fifo width = x: must be an integer", "sync_fifo", "width=x", "--out", out);
        refused("sync_fifo show_ahead = maybe: must be true or false", "sync_fifo", "show_ahead=maybe", "--out", out);
        refused("rl_adapter direction = up: must be one of [rl0_to_rl1, rl1_to_rl0]", "rl_adapter", "direction=up", "--out", out);
        refused("arbiter weights = 1,x: must be integers separated by commas", "arbiter", "policy=weighted", "weights=1,x", "--out", out);
        refused("sync_fifo: unknown parameter 'wdith' (known: [depth, show_ahead, width, registered, almost_full])",
                "sync_fifo", "wdith=8", "--out", out);
    }

    @Test
    void flagsAndListsAcceptTheirSpellings(@TempDir Path dir) {
        for (String yes : List.of("1", "true", " YES ")) {
            Catalog.Args a = new Catalog.Args("g", Map.of("f", yes));
            assertEquals(true, a.flag("f", false), yes);
        }
        for (String no : List.of("0", "False", "no")) {
            Catalog.Args a = new Catalog.Args("g", Map.of("f", no));
            assertEquals(false, a.flag("f", true), no);
        }
        Catalog.Args a = new Catalog.Args("g", Map.of("w", " 3, 1 ", "e", "", "n", " 12 ", "t", "x"));
        assertEquals(List.of(3, 1), a.integers("w"));
        assertEquals(List.of(), a.integers("e"));
        assertEquals(List.of(), a.integers("missing"));
        assertEquals(12, a.integer("n", 0));
        assertEquals(7, a.integer("absent", 7));
        assertEquals("x", a.text("t", "d"));
        assertEquals("d", a.text("u", "d"));
        assertEquals(true, a.flag("absent_flag", true));
        a.requireAllUsed();
        Run r = run("arbiter", "policy=weighted", "weights=3,1", "--out", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("top direkt_arbiter_wrr_n2_3_1", r.out().lines().toList().getLast());
    }
}
