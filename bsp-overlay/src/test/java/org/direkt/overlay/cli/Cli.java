// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.BoardSpecException;
import org.direkt.boardspec.Channel;

/** Shared helpers of the CLI end-to-end tests: running {@code direkt}, locating inputs, comparing trees. */
final class Cli {

    static final String A10 = "a10_ref_small.board_spec.xml";
    static final String D5005 = "ofs_d5005.board_spec.xml";
    static final String N6001 = "ofs_n6001_usm_iopipes.board_spec.xml";
    /** The project's SDK 14.x-style fixtures (board-spec's test resources): tabs, one unnamed {@code <global_mem>}, ... */
    static final String SDK14_SINGLE = "sdk14_single.board_spec.xml";
    /** ... and CRLF line ends, two I/O channels already declared, no newline after {@code </board>}. */
    static final String SDK14_CHANNELS = "sdk14_channels.board_spec.xml";
    private static final String SDK14_DIR = "board-spec/src/test/resources/org/direkt/boardspec/sdk14";

    /** direkt's channels with the default configuration: chan_id -> {type, width}. */
    static final Map<String, String[]> DIREKT_CHANNELS = Map.of(
            "direkt_rd_desc", new String[] {"streamsink", "256"},
            "direkt_rd_status", new String[] {"streamsource", "64"},
            "direkt_wr_desc", new String[] {"streamsink", "256"},
            "direkt_wr_status", new String[] {"streamsource", "64"});

    /** The top-level files every overlay holds. */
    static final List<String> OVERLAY_FILES = List.of("ip/direkt_bridge.v", "direkt_bridge_hw.tcl", "direkt_integrate.tcl",
            "include/direkt_dma.h", "direkt-overlay.json", "OVERLAY.md", "board_spec.xml");

    private Cli() {
    }

    /** The outcome of one {@code direkt} invocation. */
    record Run(String[] args, int exit, String out, String err) {
        /** For assertion messages. */
        String show() {
            return "direkt " + String.join(" ", args) + "\n-> exit " + exit + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
        }
    }

    static Run run(Object... args) {
        String[] a = new String[args.length];
        for (int i = 0; i < args.length; i++) {
            a[i] = String.valueOf(args[i]);
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.run(a, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(a, rc, out.toString(), err.toString());
    }

    /** Runs and asserts success. */
    static Run ok(Object... args) {
        Run r = run(args);
        assertEquals(0, r.exit(), () -> "expected success:\n" + r.show());
        return r;
    }

    // ------------------------------------------------------------------ inputs

    /** The BSP samples folder (never copied into the project); skips the test when it cannot be found. */
    static Path samplesDir() {
        List<Path> tried = new ArrayList<>();
        String property = System.getProperty("direkt.bspSamples");
        if (property != null && !property.isBlank()) {
            Path p = Path.of(property);
            tried.add(p);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("shared/data/bsp-samples");
            tried.add(p);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        Path fallback = Path.of("/work/shared/data/bsp-samples");
        tried.add(fallback);
        assumeTrue(Files.isDirectory(fallback), "BSP samples not found; looked in -Ddirekt.bspSamples and " + tried);
        return fallback;
    }

    /**
     * Copies sample {@code name} into {@code dir} as {@code dir/board_spec.xml}; returns {@code dir}. The
     * SDK 14.x fixtures are the project's own and always present; the real samples are looked up with
     * {@link #samplesDir()}.
     */
    static Path sampleBsp(String name, Path dir) throws IOException {
        Path src = name.startsWith("sdk14_") ? repoRoot().resolve(SDK14_DIR).resolve(name) : samplesDir().resolve(name);
        assumeTrue(Files.isRegularFile(src), "BSP sample " + src + " not found");
        Files.createDirectories(dir);
        Files.copy(src, dir.resolve("board_spec.xml"));
        return dir;
    }

    /** The repository root: the directory holding examples/bsp/direkt_ref, found walking up from the working directory. */
    static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("examples/bsp/direkt_ref"))) {
                return d;
            }
        }
        throw new AssertionError("no examples/bsp/direkt_ref above " + Path.of("").toAbsolutePath());
    }

    /** The test BSP trees in the shape of other BSP kinds (test resources under bsp-kinds/): {@code ofs_asp}, {@code ccip}. */
    static Path kindBsp(String kind, Path dir) throws IOException {
        java.net.URL url = Cli.class.getResource("bsp-kinds/" + kind);
        if (url == null) {
            throw new AssertionError("missing test resource bsp-kinds/" + kind);
        }
        try {
            copyTree(Path.of(url.toURI()), dir);
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
        return dir;
    }

    static Path exampleBsp() {
        return repoRoot().resolve("examples/bsp/direkt_ref");
    }

    /** A copy of the example BSP tree at {@code dir}; returns {@code dir}. */
    static Path exampleCopy(Path dir) throws IOException {
        copyTree(exampleBsp(), dir);
        return dir;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted().toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    /** A test resource of this package, as bytes. */
    static byte[] resource(String name) throws IOException {
        try (InputStream in = Cli.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new AssertionError("missing test resource " + name);
            }
            return in.readAllBytes();
        }
    }

    // ------------------------------------------------------------------ trees

    /**
     * Everything under {@code root} (relative path -> SHA-256 of a file, or "dir"); "(absent)" when root
     * does not exist. Equal snapshots mean byte-identical trees.
     */
    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        if (!Files.exists(root)) {
            m.put("", "(absent)");
            return m;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                String rel = root.relativize(p).toString().replace('\\', '/');
                m.put(rel, Files.isDirectory(p) ? "dir" : sha256(Files.readAllBytes(p)));
            }
        }
        return m;
    }

    /** Asserts the tree under root matches an earlier {@link #snapshot}, naming only the differing paths. */
    static void assertTree(Map<String, String> expected, Path root) throws IOException {
        assertTree(expected, root, () -> "");
    }

    static void assertTree(Map<String, String> expected, Path root, String message) throws IOException {
        assertTree(expected, root, () -> message);
    }

    static void assertTree(Map<String, String> expected, Path root, java.util.function.Supplier<String> message) throws IOException {
        Map<String, String> actual = snapshot(root);
        if (actual.equals(expected)) {
            return;
        }
        StringBuilder d = new StringBuilder();
        java.util.Set<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            String e = expected.get(k);
            String a = actual.get(k);
            if (e == null) {
                d.append("  created:  ").append(k).append('\n');
            } else if (a == null) {
                d.append("  removed:  ").append(k).append('\n');
            } else if (!e.equals(a)) {
                d.append("  changed:  ").append(k).append('\n');
            }
        }
        throw new AssertionError(message.get() + "\n" + root + " differs:\n" + d);
    }

    /** Regular files under root, relative path -> bytes. */
    static Map<String, byte[]> files(Path root) throws IOException {
        Map<String, byte[]> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                m.put(root.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
            }
        }
        return m;
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ board_spec checks

    static BoardSpec parse(Path file) throws IOException {
        try {
            return BoardSpec.parse(file);
        } catch (BoardSpecException e) {
            throw new AssertionError(file + " does not re-parse: " + e.getMessage(), e);
        }
    }

    /** Asserts the board carries direkt's four default channels exactly once each. */
    static void assertDirektChannels(BoardSpec b) {
        for (var e : DIREKT_CHANNELS.entrySet()) {
            List<Channel> cs = b.channelsWithId(e.getKey());
            assertEquals(1, cs.size(), () -> b.sourceName() + ": channel " + e.getKey() + " should appear once: " + cs);
            Channel c = cs.getFirst();
            assertEquals(e.getValue()[0], c.type(), () -> e.getKey() + " type");
            assertEquals(e.getValue()[1], c.width(), () -> e.getKey() + " width");
        }
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    /** The file's lines, each with its terminator. */
    static List<String> linesKeepingEnds(String s) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                out.add(s.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < s.length()) {
            out.add(s.substring(start));
        }
        return out;
    }

    static void assertContains(String haystack, String needle, Run r) {
        assertTrue(haystack.contains(needle), () -> "expected to find \"" + needle + "\" in:\n" + r.show());
    }
}
