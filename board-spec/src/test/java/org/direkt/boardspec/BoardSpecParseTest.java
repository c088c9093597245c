// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BoardSpecParseTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            BspSamples.A10 + ", 21.1, 1, 3",
            BspSamples.D5005 + ", 23.4, 1, 2",
            BspSamples.N6001 + ", 24.1, 2, 2",
    })
    void eachSampleParsesAndValidatesAgainstItsDirectoryName(String file, String version, int memories, int interfaces) throws Exception {
        Path path = BspSamples.file(file);
        BoardSpec spec = BoardSpec.parse(path);
        assertEquals(BspSamples.boardName(file), spec.name());
        assertEquals(Optional.of(version), spec.version());
        assertEquals(memories, spec.globalMemories().size());
        assertEquals(interfaces, spec.interfaces().size());
        assertArrayEquals(Files.readAllBytes(path), spec.bytes());
        assertEquals(List.of(), spec.validate(Optional.of(BspSamples.boardName(file))));
        assertEquals("\n", spec.lineEnding());
        assertEquals("  ", spec.indentUnit());
    }

    /** SDK 14.x files: the single unnamed {@code <global_mem>} is the default memory, and nothing is reported. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
            Sdk14Boards.SINGLE + ", 14.0, 2, LF, 0",
            Sdk14Boards.CHANNELS + ", 14.1, 1, CRLF, 2",
    })
    void sdk14FilesParseValidateAndKeepTheirBytes(String file, String version, int memInterfaces, String eol, int channels) throws Exception {
        Path path = Sdk14Boards.file(file);
        BoardSpec spec = BoardSpec.parse(path);
        assertArrayEquals(Files.readAllBytes(path), spec.bytes());
        assertEquals(Sdk14Boards.boardName(file), spec.name());
        assertEquals(Optional.of(version), spec.version());
        assertEquals(List.of(), spec.validate(Optional.of(Sdk14Boards.boardName(file))));
        assertEquals(eol.equals("CRLF") ? "\r\n" : "\n", spec.lineEnding());
        assertEquals("\t", spec.indentUnit());
        GlobalMemory mem = spec.globalMemories().getFirst();
        assertEquals(1, spec.globalMemories().size());
        assertNull(mem.name(), "no name attribute");
        assertNull(mem.attributes().get("config_addr"), "no config_addr attribute");
        assertTrue(mem.isDefault(), "a board's only memory is its default memory");
        assertEquals(Optional.of(mem), spec.defaultMemory());
        assertEquals(memInterfaces, mem.interfaces().size());
        assertEquals("agent", mem.interfaces().getFirst().canonicalType());
        assertEquals("host", spec.interfaces().getFirst().canonicalType());
        assertEquals(channels, spec.channels().size());
    }

    @Test
    void theDefaultMemoryIsTheOneMarkedDefaultElseTheFirst() throws Exception {
        String two = "<board version=\"20.1\" name=\"h\">\n"
                + "  <global_mem name=\"DDR\" max_bandwidth=\"1\"><interface name=\"board\" port=\"a\" type=\"agent\" width=\"512\"/></global_mem>\n"
                + "  <global_mem name=\"QDR\" max_bandwidth=\"1\"%s><interface name=\"board\" port=\"b\" type=\"agent\" width=\"64\"/></global_mem>\n"
                + "</board>\n";
        BoardSpec first = BoardSpec.parse(two.formatted(""), "h.xml");
        assertEquals("DDR", first.defaultMemory().orElseThrow().name());
        assertEquals(List.of(true, false), first.globalMemories().stream().map(GlobalMemory::isDefault).toList());
        BoardSpec marked = BoardSpec.parse(two.formatted(" default=\"1\""), "h.xml");
        assertEquals("QDR", marked.defaultMemory().orElseThrow().name());
        assertEquals(List.of(false, true), marked.globalMemories().stream().map(GlobalMemory::isDefault).toList());
        assertEquals(List.of(), marked.validate(Optional.empty()));
        assertTrue(BoardSpec.parse("<board version=\"14.0\" name=\"n\"/>", "n.xml").defaultMemory().isEmpty());
    }

    @Test
    void olderMasterSlaveAndNewerHostAgentVocabulariesAreBothRead() throws Exception {
        BoardSpec a10 = BoardSpec.parse(BspSamples.file(BspSamples.A10));
        InterfaceEntry cra = a10.interfaces().getFirst();
        assertEquals("master", cra.type());
        assertEquals("host", cra.canonicalType());
        assertEquals("slave", a10.globalMemories().getFirst().interfaces().getFirst().type());
        assertEquals("agent", a10.globalMemories().getFirst().interfaces().getFirst().canonicalType());
        InterfaceEntry snoop = a10.interfaces().get(2);
        assertEquals("streamsource", snoop.type());
        assertEquals("board.kernel_clk", snoop.attributes().get("clock"));
        assertEquals("SNOOPENABLE", snoop.attributes().get("enable"));
        assertTrue(a10.channels().isEmpty(), "a snoop stream under <interfaces> is not a channel");
        assertTrue(a10.channelsRegion().isEmpty());

        BoardSpec d5005 = BoardSpec.parse(BspSamples.file(BspSamples.D5005));
        assertEquals("host", d5005.interfaces().getFirst().type());
        GlobalMemory ddr = d5005.globalMemories().getFirst();
        assertEquals("device0", ddr.name());
        assertEquals("76800", ddr.maxBandwidth());
        assertEquals(4, ddr.interfaces().size());
        assertEquals("agent", ddr.interfaces().get(3).type());
        assertEquals("kernel_device0_3", ddr.interfaces().get(3).port());
        assertEquals("0x600000000", ddr.interfaces().get(3).attributes().get("address"));
    }

    @Test
    void n6001ChannelsAreReadWithPositionsAndSpans() throws Exception {
        BoardSpec spec = BoardSpec.parse(BspSamples.file(BspSamples.N6001));
        assertEquals(16, spec.channels().size(), "the commented-out channels 8..15 are not channels");
        Channel first = spec.channels().getFirst();
        assertEquals("board", first.name());
        assertEquals("udp_out_0", first.port());
        assertEquals("streamsink", first.type());
        assertEquals("64", first.width());
        assertEquals(OptionalInt.of(64), first.widthBits());
        assertEquals("udp_out_0", first.chanId());
        assertEquals(List.of("name", "port", "type", "width", "chan_id"), List.copyOf(first.attributes().keySet()));
        assertEquals(55, first.line());
        assertEquals(5, first.column());
        String element = "<interface name=\"board\" port=\"udp_out_0\" type=\"streamsink\"   width=\"64\" chan_id=\"udp_out_0\"/>";
        assertEquals(element, spec.text().substring(first.span().start(), first.span().end()));
        assertEquals(first.span(), first.byteSpan(), "the file is ASCII");

        Channel last = spec.channels().getLast();
        assertEquals("udp_in_7", last.chanId());
        assertEquals("streamsource", last.type());
        assertEquals(70, last.line());

        Region channels = spec.channelsRegion().orElseThrow();
        assertEquals("54:3", channels.position());
        assertTrue(spec.text().substring(channels.chars().start(), channels.chars().end()).startsWith("<channels>"));
        assertTrue(spec.text().substring(channels.chars().start(), channels.chars().end()).endsWith("</channels>"));
        assertEquals("48:3", spec.interfacesRegion().orElseThrow().position());
        assertEquals(16, spec.channelsOfInstance("board").size());
        assertEquals(1, spec.channelsWithId("udp_in_3").size());
    }

    @Test
    void crlfTabsCommentsCdataAndNoDeclarationAreRead() throws Exception {
        String text = "<!-- generated -->\r\n<board version=\"14.1\" name=\"old\">\r\n"
                + "\t<global_mem name=\"DDR\" max_bandwidth=\"12800\"><!-- c --><![CDATA[ <not> & markup ]]>\r\n"
                + "\t\t<interface name=\"board\" port=\"kernel_mem0\" type=\"slave\" width=\"256\"/>\r\n"
                + "\t</global_mem>\r\n"
                + "\t<channels>\r\n\t\t<!-- first -->\r\n"
                + "\t\t<interface name='io' port='in0' type='streamsource' width='32' chan_id='a&amp;b'/><!-- same line -->\r\n"
                + "\t\t<interface\r\n\t\t\tname=\"io\" port=\"out0\" type=\"streamsink\" width=\"32\" chan_id=\"&#x63;\"></interface>\r\n"
                + "\t</channels>\r\n</board>";
        BoardSpec spec = BoardSpec.parse(text, "crlf.xml");
        assertEquals("old", spec.name());
        assertEquals(Optional.of("14.1"), spec.version());
        assertEquals("\r\n", spec.lineEnding());
        assertEquals("\t", spec.indentUnit());
        assertEquals("256", spec.globalMemories().getFirst().interfaces().getFirst().width());
        assertEquals(2, spec.channels().size());
        assertEquals("a&b", spec.channels().get(0).chanId());
        assertEquals("8:3", spec.channels().get(0).region().position());
        assertEquals("c", spec.channels().get(1).chanId());
        assertEquals("9:3", spec.channels().get(1).region().position());
        assertTrue(spec.text().substring(spec.channels().get(1).span().start(), spec.channels().get(1).span().end()).endsWith("</interface>"));
        assertEquals(List.of(), spec.validate(Optional.of("old")));
    }

    @Test
    void byteSpansCountEncodedBytesAndABomIsKept(@TempDir Path dir) throws Exception {
        String text = "\uFEFF<?xml version='1.0' encoding='UTF-8'?>\n<board version=\"2024.0\" name=\"b\">\n"
                + "  <!-- Überblick: café -->\n  <channels>\n"
                + "    <interface name=\"io\" port=\"p\" type=\"streamsink\" width=\"8\" chan_id=\"x\"/>\n  </channels>\n</board>";
        Path file = dir.resolve("board_spec.xml");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        BoardSpec spec = BoardSpec.parse(file);
        Channel c = spec.channels().getFirst();
        assertEquals(5, c.line());
        assertEquals(c.span().length(), c.byteSpan().length());
        assertEquals(c.span().start() + 2 + 1 + 1, c.byteSpan().start(), "the BOM, Ü and é take 2, 1 and 1 bytes more than characters");
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(spec.text().substring(c.span().start(), c.span().end()),
                new String(bytes, c.byteSpan().start(), c.byteSpan().length(), StandardCharsets.UTF_8));
        assertArrayEquals(bytes, spec.bytes());
    }

    @Test
    void anEncodingNamedInTheDeclarationIsUsedAndRoundTrips(@TempDir Path dir) throws Exception {
        String text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!-- d\u00e9j\u00e0 -->\n<board version=\"22.4\" name=\"latin\"/>\n";
        Path file = dir.resolve("board_spec.xml");
        Files.write(file, text.getBytes(StandardCharsets.ISO_8859_1));
        BoardSpec spec = BoardSpec.parse(file);
        assertEquals(StandardCharsets.ISO_8859_1, spec.charset());
        assertEquals("latin", spec.name());
        assertArrayEquals(Files.readAllBytes(file), spec.bytes());
    }

    @Test
    void aMissingVersionAndMissingInterfaceAttributesAreReported() throws Exception {
        String text = "<board name=\"b\">\n  <global_mem name=\"DDR\">\n    <interface name=\"board\" port=\"m\" type=\"agent\"/>\n"
                + "  </global_mem>\n  <interfaces>\n    <interface port=\"kernel_cra\" type=\"host\" width=\"64\"/>\n  </interfaces>\n"
                + "  <channels>\n    <pipe/>\n  </channels>\n  <channels/>\n</board>\n";
        BoardSpec spec = BoardSpec.parse(text, "m.xml");
        assertEquals(List.of(
                "m.xml:1:1: error: <board> has no version attribute",
                "m.xml:2:3: warning: <global_mem name=\"DDR\"> has no max_bandwidth attribute",
                "m.xml:3:5: error: <interface> in <global_mem name=\"DDR\"> has no width attribute",
                "m.xml:6:5: error: <interface> in <interfaces> has no name attribute",
                "m.xml:9:5: warning: unexpected element <pipe> inside <channels>",
                "m.xml:11:3: warning: second <channels> element (the first is at 8:3)"),
                spec.validate(Optional.empty()).stream().map(Diagnostic::toString).toList());
        assertNull(spec.interfaces().getFirst().name());
        assertFalse(spec.validate(Optional.empty()).isEmpty());
    }
}
