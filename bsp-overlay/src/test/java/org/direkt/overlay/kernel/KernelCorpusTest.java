// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.overlay.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernels in the styles real io-channel projects use (network offload with packet structs in
 * headers, CNN pipelines with -D widths, memory benchmarks on the Altera builtins, macro-declared
 * ports, SDK- and board-dependent branches, extern channels, token-pasted ports, macro chains, an
 * emulator branch), each with the board_spec.xml it is written for, in
 * {@code src/test/resources/.../kernel/corpus/<case>/} ({@code args}: the -D/-I it is built with).
 *
 * <p>Each lints clean against its board. Against the same board with every channel's direction
 * swapped, exactly the calls marked {@code /*!}{@code *}{@code /} in the sources are reported, at the
 * marked line:col; against the board with every width 32 bits wider, exactly the declarations marked
 * {@code /*=}{@code *}{@code /} ({@code /*=2*}{@code /}: two declarations a macro writes there). The
 * markers are comments, so the positions are found from the text alone, not from the lint.
 */
class KernelCorpusTest {

    private static final Pattern MARKER = Pattern.compile("/\\*([!=])(\\d*)\\*/");
    private static final Pattern MESSAGE = Pattern.compile("^(.*):(\\d+):(\\d+): (error|warning|note): (.*)$");

    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {
    }

    static Stream<Path> cases() throws IOException, URISyntaxException {
        Path corpus = Path.of(Objects.requireNonNull(KernelCorpusTest.class.getResource("corpus")).toURI());
        try (Stream<Path> dirs = Files.list(corpus)) {
            return dirs.filter(Files::isDirectory).sorted().toList().stream();
        }
    }

    @Test
    void theCorpusHasAtLeastTenKernels() throws IOException, URISyntaxException {
        assertTrue(cases().count() >= 10, "the corpus has " + cases().count() + " kernels");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void lintsCleanAgainstItsBoard(Path dir) throws IOException {
        Run r = lint(dir, dir.resolve("board_spec.xml"));
        assertEquals(0, r.code(), r.out() + r.err());
        assertEquals("", r.err(), "no warnings either");
        int declared = marked(dir, '=').size();
        assertTrue(r.out().contains(": " + declared + " io channels"), r.out());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyCallIsReportedAtItsPlaceAgainstASwappedBoard(Path dir) throws IOException {
        String spec = Files.readString(dir.resolve("board_spec.xml"));
        Path swapped = Files.writeString(tmp.resolve("swapped.xml"),
                spec.replace("streamsource", "@").replace("streamsink", "streamsource").replace("@", "streamsink"));
        Run r = lint(dir, swapped);
        assertEquals(1, r.code(), r.out() + r.err());
        assertEquals(marked(dir, '!'), positions(r.err(), "is a stream"), r.err());
        assertEquals(r.err().lines().count(), positions(r.err(), "is a stream").size(), "nothing but direction errors: " + r.err());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyIoChannelIsReportedAtItsDeclarationAgainstAWiderBoard(Path dir) throws IOException {
        String spec = Files.readString(dir.resolve("board_spec.xml"));
        int channels = spec.indexOf("<channels>");
        Matcher m = Pattern.compile("width=\"(\\d+)\"").matcher(spec.substring(channels));
        StringBuilder wider = new StringBuilder(spec.substring(0, channels));
        while (m.find()) {
            m.appendReplacement(wider, "width=\"" + (Integer.parseInt(m.group(1)) + 32) + "\"");
        }
        m.appendTail(wider);
        Run r = lint(dir, Files.writeString(tmp.resolve("wider.xml"), wider));
        assertEquals(1, r.code(), r.out() + r.err());
        List<String> carries = positions(r.err(), " bits wide");
        assertEquals(marked(dir, '='), carries, r.err());
        assertEquals(r.err().lines().count(), carries.size(), "nothing but width errors: " + r.err());
    }

    private Run lint(Path dir, Path board) throws IOException {
        List<String> args = new ArrayList<>(List.of("lint-kernel", dir.resolve("kernel.cl").toString(), "--board", board.toString()));
        for (String a : Files.readString(dir.resolve("args")).strip().split("\\s+")) {
            if (!a.isEmpty()) {
                args.add(a.replace("{dir}", dir.toString()));
            }
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    /** file:line:col just after each marker of {@code kind} in the case's sources, sorted; a count repeats it. */
    private static List<String> marked(Path dir, char kind) throws IOException {
        List<String> out = new ArrayList<>();
        List<Path> sources;
        try (Stream<Path> files = Files.walk(dir)) {
            sources = files.filter(p -> p.toString().endsWith(".cl") || p.toString().endsWith(".h")).toList();
        }
        for (Path p : sources) {
            String text = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
            Matcher m = MARKER.matcher(text);
            while (m.find()) {
                if (m.group(1).charAt(0) != kind) {
                    continue;
                }
                int line = 1 + (int) text.substring(0, m.end()).chars().filter(c -> c == '\n').count();
                int col = m.end() - text.lastIndexOf('\n', m.end() - 1);
                int n = m.group(2).isEmpty() ? 1 : Integer.parseInt(m.group(2));
                for (int i = 0; i < n; i++) {
                    out.add(p + ":" + line + ":" + col);
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** file:line:col of each error whose message contains {@code containing}, sorted. */
    private static List<String> positions(String err, String containing) {
        List<String> out = new ArrayList<>();
        for (String line : err.lines().toList()) {
            Matcher m = MESSAGE.matcher(line);
            if (m.matches() && m.group(4).equals("error") && m.group(5).contains(containing)) {
                out.add(m.group(1) + ":" + m.group(2) + ":" + m.group(3));
            }
        }
        out.sort(null);
        return out;
    }
}
