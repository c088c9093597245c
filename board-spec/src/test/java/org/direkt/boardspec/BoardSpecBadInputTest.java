// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Inputs that must be refused, each with its exact message and position. */
class BoardSpecBadInputTest {

    /** A board whose {@code <channels>} holds {@code channelLines}; the first channel line is line 7. */
    private static String boardWithChannels(String... channelLines) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<board version=\"2024.0\" name=\"t\">\n  <interfaces>\n"
                + "    <interface name=\"board\" port=\"kernel_cra\" type=\"host\" width=\"64\"/>\n  </interfaces>\n  <channels>\n");
        for (String line : channelLines) {
            b.append("    ").append(line).append('\n');
        }
        return b.append("  </channels>\n</board>\n").toString();
    }

    private static String parseError(String text) {
        return assertThrows(BoardSpecException.class, () -> BoardSpec.parse(text, "t.xml")).getMessage();
    }

    private static List<String> diagnostics(String text) throws BoardSpecException {
        return BoardSpec.parse(text, "t.xml").validate(Optional.empty()).stream().map(Diagnostic::toString).toList();
    }

    @Test
    void anUnclosedStartTagIsRefusedWhereTheNextTagBegins() {
        String text = "<board version=\"21.1\" name=\"b\">\n  <interfaces>\n"
                + "    <interface name=\"board\" port=\"kernel_cra\" type=\"host\" width=\"64\"\n  </interfaces>\n</board>\n";
        assertEquals("t.xml:4:3: start tag <interface> opened at 3:5 is not closed with '>' or '/>'", parseError(text));
    }

    @Test
    void anUnclosedElementIsRefusedAtEndOfFile() {
        assertEquals("t.xml:3:1: unexpected end of file: <interfaces> opened at 2:3 is not closed",
                parseError("<board version=\"21.1\" name=\"b\">\n  <interfaces>\n"));
    }

    @Test
    void aMismatchedEndTagIsRefused() {
        BoardSpecException e = assertThrows(BoardSpecException.class,
                () -> BoardSpec.parse("<board name=\"b\">\n  <interfaces>\n</board>\n", "t.xml"));
        assertEquals("t.xml:3:1: end tag </board> does not match <interfaces> opened at 2:3", e.getMessage());
        assertEquals(e.getMessage(), e.toString());
        assertEquals("t.xml", e.file());
        assertEquals(3, e.line());
        assertEquals(1, e.column());
        assertEquals("end tag </board> does not match <interfaces> opened at 2:3", e.detail());
    }

    @Test
    void aWrongRootElementIsRefused() {
        assertEquals("t.xml:2:1: root element is <boards>; a board_spec.xml has the root element <board>",
                parseError("<?xml version=\"1.0\"?>\n<boards version=\"21.1\" name=\"b\"/>\n"));
    }

    @Test
    void aBoardWithoutNameIsRefused() {
        assertEquals("t.xml:1:1: <board> has no name attribute", parseError("<board version=\"21.1\">\n</board>\n"));
        assertEquals("t.xml:1:23: <board> has an empty name attribute", parseError("<board version=\"21.1\" name=\"\"/>"));
    }

    @Test
    void anEmptyFileIsRefused(@TempDir Path dir) throws Exception {
        assertEquals("t.xml:1:1: file is empty", parseError(""));
        assertEquals("t.xml:3:1: no root element", parseError("<?xml version=\"1.0\"?>\n<!-- nothing -->\n"));
        Path empty = Files.createFile(dir.resolve("board_spec.xml"));
        assertEquals(empty + ":1:1: file is empty",
                assertThrows(BoardSpecException.class, () -> BoardSpec.parse(empty)).getMessage());
    }

    @Test
    void binaryGarbageIsRefused(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("board_spec.xml");
        Files.write(png, new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 0x0D, 'I', 'H', 'D', 'R'});
        assertEquals(png + ":1:1: not UTF-8 text: byte 0x89 at byte offset 0 cannot be decoded (is this a binary file?)",
                assertThrows(BoardSpecException.class, () -> BoardSpec.parse(png)).getMessage());
        Path late = dir.resolve("late.xml");
        Files.write(late, new byte[] {'<', 'b', '>', '\n', ' ', ' ', (byte) 0xC3, '(', '<', '/', 'b', '>'});
        assertEquals(late + ":2:3: not UTF-8 text: byte 0xC3 at byte offset 6 cannot be decoded (is this a binary file?)",
                assertThrows(BoardSpecException.class, () -> BoardSpec.parse(late)).getMessage());
        assertEquals("t.xml:1:1: character U+0000 is not allowed in an XML document", parseError("\u0000\u0001\u0002garbage"));
        assertEquals("t.xml:2:9: character U+0007 is not allowed in an XML document",
                parseError("<board name=\"b\">\n  <x a=\"\u0007\"/>\n</board>"));
    }

    @Test
    void otherMalformedXmlIsRefusedWithItsPosition() {
        assertEquals("t.xml:1:1: text is not allowed before the root element", parseError("hello <board name=\"b\"/>"));
        assertEquals("t.xml:2:1: only one root element is allowed; <board> ended at 1:18", parseError("<board name=\"b\"/>\n<board name=\"c\"/>"));
        assertEquals("t.xml:1:29: attribute name appears twice in <board>", parseError("<board name=\"b\" version=\"1\" name=\"c\"/>"));
        assertEquals("t.xml:1:20: undefined entity &nbsp;", parseError("<board name=\"b&amp;&nbsp;\"/>"));
        assertEquals("t.xml:1:13: the value of attribute name of <board> must be quoted", parseError("<board name=b/>"));
        assertEquals("t.xml:2:3: comment is not closed with '-->'", parseError("<board name=\"b\">\n  <!-- never closed\n</board>"));
        assertEquals("t.xml:2:1: the XML declaration is only allowed at the very start of the file",
                parseError("\n<?xml version=\"1.0\"?><board name=\"b\"/>"));
    }

    @Test
    void aDuplicateChanIdIsReportedAtTheSecondUse() throws Exception {
        assertEquals(List.of("t.xml:8:70: error: duplicate chan_id=\"c0\" (first used at 7:70)"), diagnostics(boardWithChannels(
                "<interface name=\"board\" port=\"p0\" type=\"streamsource\" width=\"64\" chan_id=\"c0\"/>",
                "<interface name=\"board\" port=\"p1\" type=\"streamsink\"   width=\"64\" chan_id=\"c0\"/>")));
    }

    @ParameterizedTest(name = "width=\"{0}\"")
    @CsvSource({"0", "12", "abc", "-8", "' 64'", "0x40"})
    void aWidthThatIsNotAPositiveMultipleOf8IsReported(String width) throws Exception {
        assertEquals(List.of("t.xml:7:59: error: channel chan_id=\"c0\": width=\"" + width + "\" is not a positive multiple of 8"),
                diagnostics(boardWithChannels(
                        "<interface name=\"board\" port=\"p0\" type=\"streamsource\" width=\"" + width + "\" chan_id=\"c0\"/>")));
    }

    @Test
    void aTypeOtherThanStreamsourceOrStreamsinkIsReported() throws Exception {
        assertEquals(List.of("t.xml:7:39: error: channel chan_id=\"c0\": type=\"bidir\" is neither streamsource nor streamsink"),
                diagnostics(boardWithChannels("<interface name=\"board\" port=\"p0\" type=\"bidir\" width=\"64\" chan_id=\"c0\"/>")));
    }

    @Test
    void aMissingOrEmptyRequiredAttributeIsReported() throws Exception {
        assertEquals(List.of(
                        "t.xml:7:5: error: channel port=\"p0\": required attribute chan_id is missing",
                        "t.xml:8:5: error: channel chan_id=\"c1\": required attribute width is missing",
                        "t.xml:8:16: error: channel chan_id=\"c1\": attribute name is empty"),
                diagnostics(boardWithChannels(
                        "<interface name=\"board\" port=\"p0\" type=\"streamsource\" width=\"64\"/>",
                        "<interface name=\"\" port=\"p1\" type=\"streamsink\" chan_id=\"c1\"/>")));
    }

    @Test
    void severalMemoriesMustEachHaveAUniqueNameAndOneDefaultAtMost() throws Exception {
        String text = "<board version=\"14.1\" name=\"t\">\n"
                + "\t<global_mem max_bandwidth=\"12800\">\n\t\t<interface name=\"board\" port=\"m0\" type=\"slave\" width=\"256\"/>\n\t</global_mem>\n"
                + "\t<global_mem name=\"QDR\" max_bandwidth=\"800\" default=\"1\">\n\t\t<interface name=\"board\" port=\"m1\" type=\"slave\" width=\"64\"/>\n\t</global_mem>\n"
                + "\t<global_mem name=\"QDR\" max_bandwidth=\"800\" default=\"1\">\n\t\t<interface name=\"board\" port=\"m2\" type=\"slave\" width=\"64\"/>\n\t</global_mem>\n"
                + "\t<global_mem name=\" \" max_bandwidth=\"800\">\n\t\t<interface name=\"board\" port=\"m3\" type=\"slave\" width=\"64\"/>\n\t</global_mem>\n"
                + "</board>\n";
        assertEquals(List.of(
                        "t.xml:2:2: error: <global_mem> has no name attribute; a board with 4 <global_mem> elements must name each"
                                + " (kernels choose one by name with buffer_location)",
                        "t.xml:8:14: error: duplicate <global_mem name=\"QDR\"> (first at 5:14)",
                        "t.xml:8:45: error: <global_mem name=\"QDR\"> is marked default=\"1\" as well (the first default memory is at 5:45)",
                        "t.xml:11:14: error: <global_mem> has an empty name attribute"),
                diagnostics(text));
        assertEquals(List.of(), diagnostics(text.substring(0, text.indexOf("\t<global_mem name")) + "</board>\n"),
                "the same unnamed memory alone is a board's default memory, as SDK 14.x files have it");
    }

    @Test
    void aBoardNameThatDiffersFromItsDirectoryIsReported() throws Exception {
        Path file = BspSamples.file(BspSamples.A10);
        BoardSpec spec = BoardSpec.parse(file);
        assertEquals(List.of(new Diagnostic(Diagnostic.Severity.ERROR, file.toString(), 7, 23,
                        "board name=\"a10_ref_small\" does not match its directory name \"a10_ref\"")),
                spec.validate(Optional.of("a10_ref")));
        assertEquals(file + ":7:23: error: board name=\"a10_ref_small\" does not match its directory name \"a10_ref\"",
                spec.validate(Optional.of("a10_ref")).getFirst().toString());
        assertEquals(List.of(), spec.validate(Optional.empty()));
    }
}
