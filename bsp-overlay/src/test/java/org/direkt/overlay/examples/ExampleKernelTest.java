// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.direkt.overlay.cli.Main;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example kernel against the example board, overlaid: clean as shipped, precise errors when broken. */
class ExampleKernelTest {

    @TempDir
    static Path tmp;

    static Path repo;
    static Path board;
    static Path regionsBoard;
    static Path portsBoard;
    static String kernel;

    record Run(int code, String out, String err) {
    }

    static Run direkt(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void overlayTheExampleBoard() throws IOException {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "the repository (with examples/bsp/direkt_ref) is above " + Path.of("").toAbsolutePath());
        repo = p;
        Run r = direkt("overlay", "--bsp", repo.resolve("examples/bsp/direkt_ref").toString(), "--out", tmp.resolve("overlay").toString());
        assertEquals(0, r.code(), r.err());
        board = tmp.resolve("overlay/board_spec.xml");
        Run rr = direkt("overlay", "--bsp", repo.resolve("examples/bsp/direkt_ref").toString(), "--preset", "regions",
                "--out", tmp.resolve("regions").toString());
        assertEquals(0, rr.code(), rr.err());
        regionsBoard = tmp.resolve("regions/board_spec.xml");
        Path ports = Files.writeString(tmp.resolve("ports.json"), "{\"preset\": \"regions\", \"ports\": 2}");
        Run rp = direkt("overlay", "--bsp", repo.resolve("examples/bsp/direkt_ref").toString(), "--config", ports.toString(),
                "--out", tmp.resolve("ports").toString());
        assertEquals(0, rp.code(), rp.err());
        portsBoard = tmp.resolve("ports/board_spec.xml");
        kernel = Files.readString(repo.resolve("examples/kernels/gpu_fpga_roundtrip.cl"));
    }

    private static Run lint(String source) throws IOException {
        Path k = Files.createTempFile(tmp, "kernel", ".cl");
        Files.writeString(k, source);
        return direkt("lint-kernel", k.toString(), "--board", board.toString());
    }

    /** 1-based line and column of the first occurrence of {@code needle} in the example kernel. */
    private static String at(String source, String needle) {
        int i = source.indexOf(needle);
        assertTrue(i >= 0, needle);
        int line = 1 + (int) source.substring(0, i).chars().filter(c -> c == '\n').count();
        int col = i - source.lastIndexOf('\n', i - 1);
        return line + ":" + col;
    }

    @Test
    void theExampleKernelLintsClean() throws IOException {
        Run r = direkt("lint-kernel", repo.resolve("examples/kernels/gpu_fpga_roundtrip.cl").toString(), "--board", board.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("4 io channels, all match"), r.out());
    }

    @Test
    void theBringupKernelLintsClean() {
        Run r = direkt("lint-kernel", repo.resolve("examples/kernels/direkt_bringup.cl").toString(), "--board", board.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("4 io channels, all match"), r.out());
        assertTrue(r.err().isBlank(), "no warnings: every channel is read or written: " + r.err());
    }

    @Test
    void aBrokenCopyGivesTheExpectedErrorsWithPositions() throws IOException {
        String broken = kernel
                .replace("io(\"direkt_wr_status\")", "io(\"direkt_wr_stat\")")
                .replace("channel ulong direkt_rd_status", "channel uint direkt_rd_status")
                .replace("write_channel_intel(direkt_wr_desc,", "read_channel_intel(direkt_wr_desc); write_channel_intel(direkt_rd_status,");
        Run r = lint(broken);
        assertEquals(1, r.code(), r.out() + r.err());
        List<String> lines = r.err().lines().filter(l -> l.contains(": error: ")).toList();
        assertEquals(4, lines.size(), r.err());
        String unknown = lines.stream().filter(l -> l.contains("direkt_wr_stat")).findFirst().orElseThrow();
        assertTrue(unknown.contains(":" + at(broken, "direkt_wr_status __attribute") + ": error: "), unknown);
        String width = lines.stream().filter(l -> l.contains("uint")).findFirst().orElseThrow();
        assertTrue(width.contains(":" + at(broken, "direkt_rd_status __attribute") + ": error: "), width);
        assertTrue(width.contains("64"), "names the board's width: " + width);
        String readSink = lines.stream().filter(l -> l.contains(":" + at(broken, "read_channel_intel(direkt_wr_desc)") + ":")).findFirst()
                .orElseThrow(() -> new AssertionError("no error at the read of the streamsink: " + r.err()));
        assertTrue(readSink.contains("streamsink"), readSink);
        String writeSource = lines.stream().filter(l -> l.contains(":" + at(broken, "write_channel_intel(direkt_rd_status") + ":")).findFirst()
                .orElseThrow(() -> new AssertionError("no error at the write to the streamsource: " + r.err()));
        assertTrue(writeSource.contains("streamsource"), writeSource);
    }

    /** The region example takes its channels from the overlay's header: lint reads them from there. */
    @Test
    void theRegionKernelLintsCleanWithTheHeadersChannels() {
        Run r = direkt("lint-kernel", repo.resolve("examples/kernels/gpu_region_copy.cl").toString(), "--board", regionsBoard.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("4 io channels (declared in " + tmp.resolve("regions/include/direkt_dma.h") + "), all match"), r.out());
        assertTrue(r.err().isBlank(), "no warnings: " + r.err());
    }

    /** Two kernel ports: the example's two kernels use one each, all eight channels from the header. */
    @Test
    void thePortsKernelLintsCleanAgainstABoardWithTwoPorts() throws IOException {
        Run r = direkt("lint-kernel", repo.resolve("examples/kernels/gpu_region_ports.cl").toString(), "--board", portsBoard.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("8 io channels (declared in " + tmp.resolve("ports/include/direkt_dma.h") + "), all match"), r.out());
        assertTrue(r.err().isBlank(), "no warnings: " + r.err());
        String spec = Files.readString(portsBoard);
        for (String id : List.of("direkt_rd_desc_p1", "direkt_rd_status_p1", "direkt_wr_desc_p1", "direkt_wr_status_p1")) {
            assertTrue(spec.contains("chan_id=\"" + id + "\""), "board_spec.xml declares " + id);
        }
        // the one-port overlay's header has no port 1 (the kernel would not compile against it)
        assertTrue(Files.readString(tmp.resolve("ports/include/direkt_dma.h")).contains("direkt_rd_p1_submit(cldesc_t d)"));
        assertFalse(Files.readString(tmp.resolve("regions/include/direkt_dma.h")).contains("direkt_rd_p1_submit"));
    }

    @Test
    void aKernelMisusingTheHeadersChannelsIsCaughtWhereItIs() throws IOException {
        String source = "#include \"direkt_dma.h\"\n__kernel void k(void)\n{\n    cldesc_t d = read_channel_intel(direkt_rd_desc);\n}\n";
        Path k = Files.createTempFile(tmp, "misuse", ".cl");
        Files.writeString(k, source);
        Run r = direkt("lint-kernel", k.toString(), "--board", regionsBoard.toString(), "--include", tmp.resolve("regions/include").toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().contains(k + ":4:18: error: read from channel 'direkt_rd_desc'"), r.err());
        assertTrue(r.err().contains("streamsink"), r.err());
    }

    @Test
    void aKernelOnTheHeadersChannelsWithoutTheHeaderIsRefused() throws IOException {
        Path dir = Files.createTempDirectory(tmp, "alone");
        Path k = dir.resolve("gpu_region_copy.cl");
        Files.copy(repo.resolve("examples/kernels/gpu_region_copy.cl"), k);
        Path lonelyBoard = dir.resolve("board_spec.xml");
        Files.copy(regionsBoard, lonelyBoard);
        Run r = direkt("lint-kernel", k.toString(), "--board", lonelyBoard.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("includes direkt_dma.h and uses its channels"), r.err());
        assertTrue(r.err().contains(dir.resolve("include/direkt_dma.h").toString()), "names where it looked: " + r.err());
        assertTrue(r.err().contains("--include"), r.err());
    }
}
