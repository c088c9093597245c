// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad inputs: each run fails with the documented exit code, says on stderr what is wrong and where,
 * and writes nothing (the whole temporary workspace, BSP and any earlier overlay included, is
 * byte-identical afterwards).
 */
class OverlayBadInputTest {

    @TempDir
    Path tmp;

    /** The fixture board_spec.xml's text (two foreign channels, eth_out at line 13 and eth_in at line 14). */
    String fixture;
    Path out;

    @BeforeEach
    void setUp() throws IOException {
        fixture = new String(Cli.resource("channels.board_spec.xml"), StandardCharsets.UTF_8);
        out = tmp.resolve("work/out");
        Files.createDirectories(out.getParent());
    }

    /** A board_spec-only BSP holding {@code text}; returns its directory. */
    private Path board(String name, String text) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("board_spec.xml"), text, StandardCharsets.UTF_8);
        return dir;
    }

    /** 1-based line and column of the first occurrence of {@code needle} in the fixture-derived text. */
    private static String lineCol(String text, String needle) {
        int at = text.indexOf(needle);
        assertTrue(at >= 0, needle);
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < at; i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return line + ":" + (at - lineStart + 1);
    }

    private static int lineOf(String text, String needle) {
        return Integer.parseInt(lineCol(text, needle).split(":")[0]);
    }

    /** Runs, expecting {@code exit}, every needle on stderr, nothing on stdout, and no change anywhere under tmp. */
    private Cli.Run fails(int exit, List<String> needles, Object... args) throws IOException {
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run r = Cli.run(args);
        assertEquals(exit, r.exit(), () -> "exit code\n" + r.show());
        assertTrue(r.err().startsWith("direkt"), () -> "stderr starts with the program name\n" + r.show());
        for (String n : needles) {
            assertTrue(r.err().contains(n), () -> "stderr should mention \"" + n + "\"\n" + r.show());
        }
        assertEquals("", r.out(), () -> "nothing on stdout\n" + r.show());
        Cli.assertTree(before, tmp, () -> "nothing may be written\n" + r.show());
        return r;
    }

    /** An earlier, valid overlay at {@link #out}, so the failures below must also leave it alone. */
    private Path withEarlierOverlay() throws IOException {
        Path ok = board("ok", fixture);
        Cli.ok("overlay", "--bsp", ok, "--out", out);
        return ok;
    }

    // ------------------------------------------------------------------ bad board_spec.xml

    @Test
    void brokenXml() throws IOException {
        String text = fixture.replace("  </interfaces>\n", "");
        Path bsp = board("broken", text);
        String where = bsp.resolve("board_spec.xml") + ":" + lineOf(text, "</board>") + ":";
        fails(2, List.of(where, "</board>"), "overlay", "--bsp", bsp, "--out", out);
        assertFalse(Files.exists(out));
    }

    @Test
    void wrongRootElement() throws IOException {
        String text = fixture.replace("<board ", "<boards ").replace("</board>", "</boards>");
        Path bsp = board("root", text);
        fails(2, List.of(bsp.resolve("board_spec.xml") + ":" + lineOf(text, "<boards") + ":", "<boards>", "<board>"),
                "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void duplicateChanIdInTheBoard() throws IOException {
        String text = fixture.replace("chan_id=\"eth_in\"", "chan_id=\"eth_out\"");
        Path bsp = board("dup", text);
        int second = lineOf(text, "port=\"eth_in\"");
        fails(2, List.of(bsp.resolve("board_spec.xml") + ":" + second + ":", "duplicate chan_id", "eth_out"),
                "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void widthZero() throws IOException {
        String text = fixture.replace("type=\"streamsource\" width=\"64\"", "type=\"streamsource\" width=\"0\"");
        Path bsp = board("w0", text);
        fails(2, List.of(bsp.resolve("board_spec.xml") + ":" + lineOf(text, "port=\"eth_in\"") + ":", "width=\"0\"", "eth_in"),
                "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void widthNotAMultipleOf8() throws IOException {
        String text = fixture.replace("type=\"streamsource\" width=\"64\"", "type=\"streamsource\" width=\"63\"");
        Path bsp = board("w63", text);
        fails(2, List.of(bsp.resolve("board_spec.xml") + ":" + lineOf(text, "port=\"eth_in\"") + ":", "width=\"63\"",
                "multiple of 8"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void foreignChannelAlreadyUsesDirektsChanId() throws IOException {
        String text = fixture.replace("chan_id=\"eth_in\"", "chan_id=\"direkt_rd_desc\"");
        Path bsp = board("taken", text);
        String where = bsp.resolve("board_spec.xml") + ":" + lineCol(text, "<interface name=\"board\" port=\"eth_in\"");
        fails(3, List.of(where, "direkt_rd_desc", "board.eth_in"), "overlay", "--bsp", bsp, "--out", out);
        // the same with --in-place: no direkt/, no backup, board_spec.xml untouched
        fails(3, List.of(where), "overlay", "--bsp", bsp, "--in-place");
    }

    // ------------------------------------------------------------------ bad BSP trees

    @Test
    void missingBspDirectory() throws IOException {
        Path bsp = tmp.resolve("no-such-bsp");
        fails(2, List.of(bsp.toString(), "no such"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void bspIsAFile() throws IOException {
        Path bsp = board("file", fixture).resolve("board_spec.xml");
        fails(2, List.of(bsp.toString(), "not a directory"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void bspWithoutBoardSpec() throws IOException {
        Path bsp = Files.createDirectories(tmp.resolve("empty"));
        fails(2, List.of(bsp.toString(), "no board_spec.xml"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void hardIpWithoutDescriptorInterface() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Files.write(bsp.resolve("hardware/direkt_ref/board.qsys"), Cli.resource("no_desc_if.qsys"));
        // its internal descriptor controller, but not wired as a stock BSP wires it: direkt cannot replace it
        fails(3, List.of("board.qsys", "'pcie'", "internal descriptor controller", "no interface"), "overlay", "--bsp", bsp, "--out", out);
        fails(3, List.of("board.qsys", "'pcie'"), "overlay", "--bsp", bsp, "--in-place");
    }

    @Test
    void unreadablePlatformDesignerSystem() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path qsys = bsp.resolve("hardware/direkt_ref/board.qsys");
        Files.writeString(qsys, "<?xml version=\"1.0\"?>\n<system name=\"board\">\n <module name=\"pcie\" kind=\"altera_pcie_a10_hip\">\n</system>\n");
        fails(3, List.of(qsys + ":4:"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void twoBoardsWithoutBoardOption() throws IOException {
        Path bsp = tmp.resolve("two");
        for (String b : List.of("alpha", "beta")) {
            Path d = Files.createDirectories(bsp.resolve("hardware").resolve(b));
            Files.writeString(d.resolve("board_spec.xml"), fixture.replace("name=\"fixture\"", "name=\"" + b + "\""));
        }
        fails(2, List.of(bsp.toString(), "alpha", "beta", "--board"), "overlay", "--bsp", bsp, "--out", out);
        // and naming one works
        Cli.ok("overlay", "--bsp", bsp, "--board", "beta", "--out", out);
    }

    @Test
    void boardThatDoesNotExist() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        fails(2, List.of(bsp.toString(), "'nosuchboard'"), "overlay", "--bsp", bsp, "--board", "nosuchboard", "--out", out);
    }

    // ------------------------------------------------------------------ bad configuration

    @Test
    void unknownPreset() throws IOException {
        Path bsp = withEarlierOverlay();
        fails(2, List.of("preset", "fancy", "default", "paper"), "overlay", "--bsp", bsp, "--out", out, "--preset", "fancy");
    }

    @Test
    void configAndPresetTogether() throws IOException {
        Path bsp = withEarlierOverlay();
        Path cfg = tmp.resolve("cfg.json");
        Files.writeString(cfg, "{}");
        fails(2, List.of("--config", "--preset"), "overlay", "--bsp", bsp, "--out", out, "--config", cfg, "--preset", "paper");
    }

    @Test
    void malformedConfigJson() throws IOException {
        Path bsp = withEarlierOverlay();
        Path cfg = tmp.resolve("bad.json");
        Files.writeString(cfg, "{\n  \"inflight\": 4,\n  \"policy\" \"weighted\"\n}\n");
        fails(2, List.of(cfg + ":3:", "malformed JSON"), "overlay", "--bsp", bsp, "--out", out, "--config", cfg);
    }

    @Test
    void missingConfigFile() throws IOException {
        Path bsp = withEarlierOverlay();
        Path cfg = tmp.resolve("absent.json");
        fails(2, List.of(cfg.toString()), "overlay", "--bsp", bsp, "--out", out, "--config", cfg);
    }

    @Test
    void unknownConfigKey() throws IOException {
        Path bsp = withEarlierOverlay();
        Path cfg = tmp.resolve("key.json");
        Files.writeString(cfg, "{\"inflght\": 4}\n");
        fails(2, List.of(cfg.toString(), "inflght"), "overlay", "--bsp", bsp, "--out", out, "--config", cfg);
    }

    @Test
    void impossibleParameter() throws IOException {
        Path bsp = withEarlierOverlay();
        Path cfg = tmp.resolve("inflight.json");
        Files.writeString(cfg, "{\"inflight\": 500}\n");
        fails(2, List.of(cfg.toString(), "inflight", "500"), "overlay", "--bsp", bsp, "--out", out, "--config", cfg);
    }

    // ------------------------------------------------------------------ bad output

    @Test
    void neitherOutNorInPlace() throws IOException {
        Path bsp = board("ok", fixture);
        fails(2, List.of("--out", "--in-place"), "overlay", "--bsp", bsp);
    }

    @Test
    void bothOutAndInPlace() throws IOException {
        Path bsp = board("ok", fixture);
        fails(2, List.of("--out", "--in-place"), "overlay", "--bsp", bsp, "--out", out, "--in-place");
    }

    @Test
    void outIsANonEmptyForeignDirectory() throws IOException {
        Path bsp = board("ok", fixture);
        Files.createDirectories(out);
        Files.writeString(out.resolve("notes.txt"), "mine\n");
        fails(5, List.of(out.toString(), "not a direkt overlay"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void outIsAFile() throws IOException {
        Path bsp = board("ok", fixture);
        Files.writeString(out, "a file\n");
        fails(5, List.of(out.toString(), "not a directory"), "overlay", "--bsp", bsp, "--out", out);
    }

    @Test
    void outUnderAFile() throws IOException {
        Path bsp = board("ok", fixture);
        Path file = tmp.resolve("work/plain");
        Files.writeString(file, "a file\n");
        Path under = file.resolve("out");
        fails(5, List.of(under.toString(), "nothing was changed"), "overlay", "--bsp", bsp, "--out", under);
    }

    @Test
    void outUnderAReadOnlyDirectory() throws IOException {
        Path bsp = board("ok", fixture);
        Path ro = Files.createDirectories(tmp.resolve("work/ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            Path probe = ro.resolve("probe");
            boolean writable;
            try {
                Files.createDirectory(probe);
                Files.delete(probe);
                writable = true;
            } catch (IOException e) {
                writable = false;
            }
            assumeFalse(writable, "a read-only directory is still writable here (running as root?): cannot test an unwritable --out");
            Path target = ro.resolve("out");
            fails(5, List.of(target.toString(), "permission denied"), "overlay", "--bsp", bsp, "--out", target);
        } finally {
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    // ------------------------------------------------------------------ bad usage

    @Test
    void missingBspOption() throws IOException {
        fails(2, List.of("--bsp"), "overlay", "--out", out);
    }

    @Test
    void unknownOption() throws IOException {
        Path bsp = board("ok", fixture);
        fails(2, List.of("--frobnicate"), "overlay", "--bsp", bsp, "--out", out, "--frobnicate");
    }

    @Test
    void unknownSubcommand() throws IOException {
        fails(2, List.of("frobnicate"), "frobnicate");
    }

    @Test
    void revertWithoutBackup() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        fails(2, List.of("hardware/direkt_ref", "nothing to revert"), "revert", "--bsp", bsp);
    }

    @Test
    void inspectBrokenFile() throws IOException {
        String text = fixture.replace("  </interfaces>\n", "");
        Path f = board("broken", text).resolve("board_spec.xml");
        fails(2, List.of(f + ":" + lineOf(text, "</board>") + ":"), "inspect", f);
        fails(2, List.of(tmp.resolve("nope.xml").toString(), "no such file"), "inspect", tmp.resolve("nope.xml"));
    }
}
