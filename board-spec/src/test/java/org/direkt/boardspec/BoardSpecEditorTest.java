// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class BoardSpecEditorTest {

    private static final ChannelDefinition RD_DESC =
            new ChannelDefinition("direkt_bridge", "rd_desc", ChannelDefinition.Type.STREAMSINK, 256, "direkt_rd_desc");
    private static final ChannelDefinition RD_STATUS =
            new ChannelDefinition("direkt_bridge", "rd_status", ChannelDefinition.Type.STREAMSOURCE, 64, "direkt_rd_status");
    private static final String RD_DESC_XML =
            "<interface name=\"direkt_bridge\" port=\"rd_desc\" type=\"streamsink\" width=\"256\" chan_id=\"direkt_rd_desc\"/>";
    private static final String RD_STATUS_XML =
            "<interface name=\"direkt_bridge\" port=\"rd_status\" type=\"streamsource\" width=\"64\" chan_id=\"direkt_rd_status\"/>";

    private static BoardSpec sample(String name) throws Exception {
        return BoardSpec.parse(BspSamples.file(name));
    }

    private static String addBridge(BoardSpec spec) throws BoardSpecException {
        return spec.edit().putChannel(RD_DESC).putChannel(RD_STATUS).text();
    }

    /**
     * Asserts that {@code before} and {@code after} share every line up to the first changed line
     * and every line after the last, and that the changed lines are exactly {@code oldLines} in
     * {@code before} and {@code newLines} in {@code after}.
     */
    private static void assertOnlyLinesChanged(String before, String after, String oldLines, String newLines) {
        int max = Math.min(before.length(), after.length());
        int prefix = 0;
        while (prefix < max && before.charAt(prefix) == after.charAt(prefix)) {
            prefix++;
        }
        prefix = before.lastIndexOf('\n', prefix - 1) + 1;
        int suffix = 0;
        while (suffix < max - prefix && before.charAt(before.length() - 1 - suffix) == after.charAt(after.length() - 1 - suffix)) {
            suffix++;
        }
        while (suffix > 0 && before.length() - suffix > 0 && before.charAt(before.length() - suffix - 1) != '\n') {
            suffix--;
        }
        assertEquals(before.substring(0, prefix), after.substring(0, prefix), "prefix before the first changed line");
        assertEquals(before.substring(before.length() - suffix), after.substring(after.length() - suffix), "suffix after the last changed line");
        assertEquals(oldLines, before.substring(prefix, before.length() - suffix), "changed lines of the original");
        assertEquals(newLines, after.substring(prefix, after.length() - suffix), "changed lines of the edit");
    }

    @Test
    void addingTwoChannelsToN6001InsertsOnlyTheirLinesAfterTheLastChannel() throws Exception {
        BoardSpec original = sample(BspSamples.N6001);
        String edited = addBridge(original);
        assertOnlyLinesChanged(original.text(), edited, "", "    " + RD_DESC_XML + "\n    " + RD_STATUS_XML + "\n");

        BoardSpec reparsed = BoardSpec.parse(edited, "edited.xml");
        assertEquals(18, reparsed.channels().size());
        Channel desc = reparsed.channelsWithId("direkt_rd_desc").getFirst();
        assertEquals("direkt_bridge", desc.name());
        assertEquals("rd_desc", desc.port());
        assertEquals("streamsink", desc.type());
        assertEquals("256", desc.width());
        assertEquals("71:5", desc.region().position());
        Channel status = reparsed.channelsWithId("direkt_rd_status").getFirst();
        assertEquals("streamsource", status.type());
        assertEquals("64", status.width());
        assertEquals("72:5", status.region().position());
        assertEquals(List.of(), reparsed.validate(Optional.of(BspSamples.boardName(BspSamples.N6001))));
    }

    @Test
    void applyingTheSameEditAgainInReplaceModeGivesByteIdenticalText() throws Exception {
        for (String name : List.of(BspSamples.A10, BspSamples.D5005, BspSamples.N6001)) {
            BoardSpec once = BoardSpec.parse(addBridge(sample(name)), name);
            assertEquals(once.text(), addBridge(once), name + ": putChannel twice");
            BoardSpecEditor again = once.edit().replaceInstanceChannels("direkt_bridge", List.of(RD_DESC, RD_STATUS));
            assertEquals(once.text(), again.text(), name + ": replaceInstanceChannels after putChannel");
            assertFalse(again.changed());
        }
    }

    @Test
    void removingTheAddedChannelsRestoresTheOriginalBytesWhenChannelsExisted() throws Exception {
        BoardSpec original = sample(BspSamples.N6001);
        BoardSpec edited = BoardSpec.parse(addBridge(original), "edited.xml");
        assertEquals(original.text(), edited.edit().removeChannel("direkt_rd_desc").removeChannel("direkt_rd_status").text());
        assertEquals(original.text(), edited.edit().removeInstanceChannels("direkt_bridge").removeChannelsElementIfEmpty().text(),
                "a <channels> with other channels and comments is not empty and stays");
    }

    @Test
    void aBoardWithoutChannelsGetsTheElementRightAfterInterfacesAndCanLoseItAgain() throws Exception {
        for (String name : List.of(BspSamples.A10, BspSamples.D5005)) {
            BoardSpec original = sample(name);
            String edited = addBridge(original);
            assertOnlyLinesChanged(original.text(), edited, "",
                    "  <channels>\n    " + RD_DESC_XML + "\n    " + RD_STATUS_XML + "\n  </channels>\n");
            assertTrue(edited.contains("  </interfaces>\n  <channels>\n"), name);
            BoardSpec reparsed = BoardSpec.parse(edited, name);
            assertEquals(2, reparsed.channels().size());
            assertEquals(List.of(), reparsed.validate(Optional.of(BspSamples.boardName(name))));

            String emptied = reparsed.edit().removeInstanceChannels("direkt_bridge").text();
            assertOnlyLinesChanged(original.text(), emptied, "", "  <channels>\n  </channels>\n");
            assertTrue(BoardSpec.parse(emptied, name).channelsRegion().isPresent(), "removing the last channel keeps <channels>");
            assertEquals(original.text(), BoardSpec.parse(emptied, name).edit().removeChannelsElementIfEmpty().text());
        }
    }

    /**
     * SDK 14.x-style files: the edit inserts only direkt's lines, indented with the file's tabs and ended
     * with its line ends; every other byte stays; the same edit again changes nothing; removing the
     * channels gives the original bytes back.
     */
    @Test
    void sdk14FilesGetOnlyTheChannelLinesInTheirOwnStyleAndRoundTrip() throws Exception {
        BoardSpec single = BoardSpec.parse(Sdk14Boards.file(Sdk14Boards.SINGLE));
        String edited = addBridge(single);
        assertOnlyLinesChanged(single.text(), edited, "",
                "\t<channels>\n\t\t" + RD_DESC_XML + "\n\t\t" + RD_STATUS_XML + "\n\t</channels>\n");
        assertTrue(edited.contains("\t</interfaces>\n\t<channels>\n"), "the new <channels> follows </interfaces>");

        BoardSpec withChannels = BoardSpec.parse(Sdk14Boards.file(Sdk14Boards.CHANNELS));
        String editedCrlf = addBridge(withChannels);
        assertOnlyLinesChanged(withChannels.text(), editedCrlf, "",
                "\t\t" + RD_DESC_XML + "\r\n\t\t" + RD_STATUS_XML + "\r\n");
        assertFalse(Pattern.compile("(?<!\r)\n").matcher(editedCrlf).find(), "no bare LF");
        assertTrue(editedCrlf.endsWith("</board>"), "still no newline after </board>");
        assertTrue(editedCrlf.contains("chan_id=\"eth0_out\"/>\t\r\n"), "the trailing tab after a foreign channel stays");

        for (BoardSpec original : List.of(single, withChannels)) {
            BoardSpec once = BoardSpec.parse(addBridge(original), original.sourceName());
            assertEquals(List.of(), once.validate(Optional.of(original.name())), original.name());
            assertEquals(once.text(), addBridge(once), original.name() + ": the same edit again changes nothing");
            assertFalse(once.edit().replaceInstanceChannels("direkt_bridge", List.of(RD_DESC, RD_STATUS)).changed(), original.name());
            assertEquals(original.text(), once.edit().removeInstanceChannels("direkt_bridge").removeChannelsElementIfEmpty().text(),
                    original.name() + ": taking the channels out again gives the original text");
            assertArrayEquals(original.bytes(), BoardSpec.parse(original.text(), original.sourceName()).bytes(), original.name());
        }
    }

    @Test
    void crlfLineEndsAndTabIndentationAreKept() throws Exception {
        String lf = sample(BspSamples.D5005).text();
        Matcher m = Pattern.compile("(?m)^((?:  )+)").matcher(lf);
        StringBuilder tabbed = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(tabbed, "\t".repeat(m.group(1).length() / 2));
        }
        m.appendTail(tabbed);
        String crlf = tabbed.toString().replace("\n", "\r\n");
        BoardSpec original = BoardSpec.parse(crlf, "crlf.xml");
        assertEquals("\r\n", original.lineEnding());
        assertEquals("\t", original.indentUnit());

        String edited = addBridge(original);
        assertOnlyLinesChanged(crlf, edited, "",
                "\t<channels>\r\n\t\t" + RD_DESC_XML + "\r\n\t\t" + RD_STATUS_XML + "\r\n\t</channels>\r\n");
        assertFalse(Pattern.compile("(?<!\r)\n").matcher(edited).find(), "no bare LF");
        assertEquals(crlf, BoardSpec.parse(edited, "crlf.xml").edit()
                .removeInstanceChannels("direkt_bridge").removeChannelsElementIfEmpty().text());
    }

    @Test
    void commentsInsideChannelsSurviveEdits() throws Exception {
        BoardSpec n6001 = sample(BspSamples.N6001);
        String edited = n6001.edit()
                .putChannel(RD_DESC)
                .putChannel(new ChannelDefinition("board", "udp_in_7", ChannelDefinition.Type.STREAMSOURCE, 128, "udp_in_7"))
                .removeChannel("udp_out_7")
                .text();
        List<String> commentsBefore = comments(n6001.text());
        assertEquals(16, commentsBefore.stream().filter(c -> c.contains("chan_id=\"udp_")).count());
        assertEquals(commentsBefore, comments(edited));
        assertOnlyLinesChanged(n6001.text(), edited,
                "    <interface name=\"board\" port=\"udp_out_7\" type=\"streamsink\"   width=\"64\" chan_id=\"udp_out_7\"/>\n"
                        + "    <interface name=\"board\" port=\"udp_in_7\"  type=\"streamsource\" width=\"64\" chan_id=\"udp_in_7\"/> \n",
                "    <interface name=\"board\" port=\"udp_in_7\" type=\"streamsource\" width=\"128\" chan_id=\"udp_in_7\"/> \n"
                        + "    " + RD_DESC_XML + "\n");

        String own = "<board version=\"24.1\" name=\"c\">\n  <channels>\n    <!-- before -->\n"
                + "    <interface name=\"io\" port=\"a\" type=\"streamsink\" width=\"8\" chan_id=\"a\"/><!-- same line -->\n"
                + "    <!-- after -->\n  </channels>\n</board>\n";
        BoardSpec spec = BoardSpec.parse(own, "own.xml");
        String replaced = spec.edit().putChannel(new ChannelDefinition("io", "a", ChannelDefinition.Type.STREAMSINK, 16, "a")).text();
        assertEquals(own.replace("width=\"8\"", "width=\"16\""), replaced);
        String removed = spec.edit().removeChannel("a").text();
        assertEquals(own.replace("<interface name=\"io\" port=\"a\" type=\"streamsink\" width=\"8\" chan_id=\"a\"/>", ""), removed);
        String added = spec.edit().removeChannel("a").putChannel(RD_DESC).text();
        assertEquals(comments(own), comments(added));
        assertTrue(added.contains("<!-- after -->\n    " + RD_DESC_XML + "\n  </channels>"), added);
        assertEquals(removed, spec.edit().removeChannel("a").removeChannelsElementIfEmpty().text(),
                "a <channels> holding comments is not empty and is kept");
    }

    @Test
    void replacingAChannelRewritesOnlyItsElement() throws Exception {
        BoardSpec n6001 = sample(BspSamples.N6001);
        String edited = n6001.edit()
                .putChannel(new ChannelDefinition("board", "udp_in_0", ChannelDefinition.Type.STREAMSOURCE, 64, "udp_in_0"))
                .text();
        assertEquals(n6001.text(), edited, "a channel that already has these attributes is not rewritten (its spacing stays)");
        String wider = n6001.edit()
                .putChannel(new ChannelDefinition("board", "udp_in_0", ChannelDefinition.Type.STREAMSOURCE, 512, "udp_in_0"))
                .text();
        assertOnlyLinesChanged(n6001.text(), wider,
                "    <interface name=\"board\" port=\"udp_in_0\"  type=\"streamsource\" width=\"64\" chan_id=\"udp_in_0\"/>\n",
                "    <interface name=\"board\" port=\"udp_in_0\" type=\"streamsource\" width=\"512\" chan_id=\"udp_in_0\"/>\n");
    }

    @Test
    void replacingAnInstanceRemovesItsStaleChannelsAndKeepsOthers() throws Exception {
        BoardSpec once = BoardSpec.parse(addBridge(sample(BspSamples.N6001)), "n.xml");
        ChannelDefinition wrDesc = new ChannelDefinition("direkt_bridge", "wr_desc", ChannelDefinition.Type.STREAMSINK, 256, "direkt_wr_desc");
        BoardSpec after = once.edit().replaceInstanceChannels("direkt_bridge", List.of(RD_DESC, wrDesc)).result();
        assertEquals(List.of("direkt_rd_desc", "direkt_wr_desc"),
                after.channelsOfInstance("direkt_bridge").stream().map(Channel::chanId).toList());
        assertEquals(16, after.channelsOfInstance("board").size());
        assertOnlyLinesChanged(once.text(), after.text(), "    " + RD_STATUS_XML + "\n",
                "    <interface name=\"direkt_bridge\" port=\"wr_desc\" type=\"streamsink\" width=\"256\" chan_id=\"direkt_wr_desc\"/>\n");
    }

    @Test
    void anEditThatWouldDuplicateAChanIdIsRefused() throws Exception {
        BoardSpec n6001 = sample(BspSamples.N6001);
        ChannelDefinition clash = new ChannelDefinition("direkt_bridge", "rd_desc", ChannelDefinition.Type.STREAMSINK, 256, "udp_in_0");
        String expected = n6001.sourceName() + ":56:5: duplicate chan_id=\"udp_in_0\": already used here by "
                + "<interface name=\"board\" port=\"udp_in_0\">";
        assertEquals(expected, assertThrows(BoardSpecException.class, () -> n6001.edit().addChannel(clash)).getMessage());
        BoardSpecEditor editor = n6001.edit();
        assertEquals(expected, assertThrows(BoardSpecException.class,
                () -> editor.replaceInstanceChannels("direkt_bridge", List.of(RD_DESC, clash))).getMessage());
        assertFalse(editor.changed(), "a refused edit changes nothing");
        assertThrows(IllegalArgumentException.class,
                () -> n6001.edit().replaceInstanceChannels("direkt_bridge", List.of(RD_DESC, RD_DESC)));
        assertThrows(IllegalArgumentException.class,
                () -> n6001.edit().replaceInstanceChannels("board", List.of(RD_DESC)));

        BoardSpec twice = BoardSpec.parse(n6001.text().replace("chan_id=\"udp_in_1\"", "chan_id=\"udp_in_0\""), "twice.xml");
        assertEquals("twice.xml:58:5: chan_id=\"udp_in_0\" is already used by 2 channels (first at 56:5); fix the file before replacing it",
                assertThrows(BoardSpecException.class, () -> twice.edit().putChannel(clash)).getMessage());
    }

    @Test
    void definitionsThatTheSdkWouldRefuseCannotBeBuilt() {
        assertThrows(IllegalArgumentException.class, () -> new ChannelDefinition("b", "p", ChannelDefinition.Type.STREAMSINK, 0, "c"));
        assertThrows(IllegalArgumentException.class, () -> new ChannelDefinition("b", "p", ChannelDefinition.Type.STREAMSINK, 12, "c"));
        assertThrows(IllegalArgumentException.class, () -> new ChannelDefinition("b", "p", ChannelDefinition.Type.STREAMSINK, -8, "c"));
        assertThrows(IllegalArgumentException.class, () -> new ChannelDefinition("b", " ", ChannelDefinition.Type.STREAMSINK, 8, "c"));
        assertThrows(IllegalArgumentException.class, () -> new ChannelDefinition("b", "p", ChannelDefinition.Type.STREAMSINK, 8, " c"));
        assertEquals("<interface name=\"a&amp;b\" port=\"&lt;p&gt;\" type=\"streamsource\" width=\"8\" chan_id=\"&quot;q&quot;\"/>",
                new ChannelDefinition("a&b", "<p>", ChannelDefinition.Type.STREAMSOURCE, 8, "\"q\"").toXml());
    }

    @Test
    void aByteOrderMarkDeclarationAndMissingFinalNewlineAreKept() throws Exception {
        String text = "\uFEFF<?xml version='1.0' encoding='utf-8'?>\n<board name='x' version='2024.0'>\n"
                + "    <interfaces>\n        <interface name='board' port='kernel_irq' type='irq' width='1'/>\n    </interfaces>\n</board>";
        BoardSpec spec = BoardSpec.parse(text, "bom.xml");
        assertEquals("    ", spec.indentUnit());
        String edited = addBridge(spec);
        assertOnlyLinesChanged(text, edited, "",
                "    <channels>\n        " + RD_DESC_XML + "\n        " + RD_STATUS_XML + "\n    </channels>\n");
        assertTrue(edited.startsWith("\uFEFF<?xml version='1.0' encoding='utf-8'?>\n"));
        assertTrue(edited.endsWith("</board>"));
    }

    @Test
    void boardsWithoutInterfacesOrWithEverythingOnOneLineStillGetValidChannels() throws Exception {
        assertEquals("<board name=\"x\">\n  <channels>\n    " + RD_DESC_XML + "\n  </channels>\n</board>\n",
                BoardSpec.parse("<board name=\"x\">\n</board>\n", "a.xml").edit().putChannel(RD_DESC).text());
        assertEquals("<board name=\"x\">\n  <channels>\n    " + RD_DESC_XML + "\n  </channels>\n</board>",
                BoardSpec.parse("<board name=\"x\"/>", "b.xml").edit().putChannel(RD_DESC).text());
        assertEquals("<board name=\"x\"><interfaces/>\n  <channels>\n    " + RD_DESC_XML + "\n  </channels>\n</board>",
                BoardSpec.parse("<board name=\"x\"><interfaces/></board>", "c.xml").edit().putChannel(RD_DESC).text());
        assertEquals("<board name=\"x\">\n  <channels>\n    " + RD_DESC_XML + "\n  </channels>\n</board>\n",
                BoardSpec.parse("<board name=\"x\">\n  <channels/>\n</board>\n", "d.xml").edit().putChannel(RD_DESC).text());
        assertEquals("<board name=\"x\"><channels>" + RD_STATUS_XML + "\n    " + RD_DESC_XML + "\n  </channels></board>",
                BoardSpec.parse("<board name=\"x\"><channels>" + RD_STATUS_XML + "</channels></board>", "e.xml")
                        .edit().putChannel(RD_DESC).text());
    }

    @Test
    void writingReplacesTheFileAtomicallyWithTheEditedBytes(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("board_spec.xml");
        Files.copy(BspSamples.file(BspSamples.N6001), file);
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        BoardSpec edited = BoardSpec.parse(file).edit().putChannel(RD_DESC).result();
        edited.write(file);
        assertEquals(edited.text(), Files.readString(file));
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(file), listing.toList(), "no temporary file is left behind");
        }
        Path fresh = dir.resolve("new.xml");
        AtomicWriter.write(fresh, new byte[] {'<', 'b', '/', '>'});
        assertEquals("<b/>", Files.readString(fresh));
    }

    private static List<String> comments(String text) {
        return Pattern.compile("<!--.*?-->", Pattern.DOTALL).matcher(text).results().map(r -> r.group()).toList();
    }
}
