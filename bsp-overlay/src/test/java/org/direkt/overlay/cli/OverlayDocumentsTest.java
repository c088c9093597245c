// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overlay's OVERLAY.md read the way a Markdown renderer reads it (CommonMark): its title and four
 * section headings, the numbered steps, the compile command as a code block. The header and the Tcl
 * scripts are checked by building and running them (header and tcl packages).
 */
class OverlayDocumentsTest {

    @TempDir
    Path tmp;

    static List<Markdown.Title> outline(String board) {
        return List.of(new Markdown.Title(1, "direkt overlay for board " + board),
                new Markdown.Title(2, "What changed"),
                new Markdown.Title(2, "What to do by hand"),
                new Markdown.Title(2, "Compiling a kernel"),
                new Markdown.Title(2, "Status error codes"));
    }

    private Markdown overlayMd(Path bsp) throws IOException {
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", bsp, "--out", out);
        return Markdown.parse(Cli.read(out.resolve("OVERLAY.md")));
    }

    @Test
    void exampleBoardOverlayHasItsFourSectionHeadings() throws IOException {
        Markdown md = overlayMd(Cli.exampleCopy(tmp.resolve("bsp")));
        assertEquals(outline("direkt_ref"), md.headings());

        List<String> steps = md.steps("What to do by hand");
        assertTrue(steps.getFirst().startsWith("Run the integration script"), steps::toString);
        assertTrue(steps.getLast().startsWith("Open a window before kernels run"), steps::toString);

        List<Node> compile = md.section("Compiling a kernel");
        FencedCodeBlock code = compile.stream().filter(FencedCodeBlock.class::isInstance).map(FencedCodeBlock.class::cast)
                .findFirst().orElseThrow(() -> new AssertionError("a code block in 'Compiling a kernel'"));
        assertEquals("sh", code.getInfo());
        assertEquals("aoc -board=direkt_ref -I include my_kernel.cl\n", code.getLiteral());

        String codes = String.join("\n", md.section("Status error codes").stream().map(Markdown::text).toList());
        for (String name : List.of("OK", "RESERVED", "TOO_LONG", "ZERO_LENGTH", "BAD_ID", "UNALIGNED", "WINDOW", "FPGA_RANGE", "ABORTED")) {
            assertTrue(codes.contains(name), () -> "error " + name + " in the table:\n" + codes);
        }
    }

    @Test
    void aBoardSpecOnlyOverlayHasTheSameOutline() throws IOException {
        Markdown md = overlayMd(Cli.sampleBsp(Cli.SDK14_SINGLE, tmp.resolve("bsp")));
        assertEquals(outline("sdk14_single"), md.headings());
        List<String> steps = md.steps("What to do by hand");
        assertTrue(steps.getFirst().startsWith("Add the bridge to the board's Platform Designer system"), steps::toString);
        assertTrue(steps.getLast().startsWith("Open a window before kernels run"), steps::toString);
    }
}
