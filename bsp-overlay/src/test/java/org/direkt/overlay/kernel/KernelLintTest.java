// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class KernelLintTest {

    private static List<String> lint(String source, List<BoardChannel> board) {
        KernelChannels k = KernelChannels.parse(source, "sample.cl");
        return KernelLint.check(k, board, SampleKernel.TYPE_BITS).stream().map(LintMessage::format).toList();
    }

    private static String replaceOnce(String text, String from, String to) {
        assertTrue(text.contains(from), from);
        return text.replaceFirst(Pattern.quote(from), Matcher.quoteReplacement(to));
    }

    @Test
    void publishedStyleKernelIsClean() {
        assertEquals(List.of(), lint(SampleKernel.SOURCE, SampleKernel.BOARD));
    }

    @Test
    void unknownChanId() {
        String src = replaceOnce(SampleKernel.SOURCE, "io(\"rdclmstatus\")", "io(\"rdclmstat\")");
        assertEquals(List.of("sample.cl:8:15: error: channel 'rdclmstatus': the board has no I/O channel"
                + " with chan_id \"rdclmstat\" (did you mean \"rdclmstatus\"?)",
                "sample.cl:8:15: note: the board's I/O channels: rdcldesc (streamsink, 256 bits),"
                + " rdclmstatus (streamsource, 64 bits)"), lint(src, SampleKernel.BOARD));
    }

    @Test
    void writeToStreamsource() {
        String src = replaceOnce(SampleKernel.SOURCE, "write_channel_intel(rdcldesc, d);\n",
                "write_channel_intel(rdclmstatus, 1);\n");
        assertEquals(List.of(
                "sample.cl:7:18: warning: I/O channel 'rdcldesc' (io(\"rdcldesc\")) is never read or written",
                "sample.cl:19:5: error: write to channel 'rdclmstatus', but board channel \"rdclmstatus\""
                        + " is a streamsource: the kernel can only read it"), lint(src, SampleKernel.BOARD));
    }

    @Test
    void readFromStreamsink() {
        String src = replaceOnce(SampleKernel.SOURCE, "read_channel_intel(rdclmstatus)",
                "read_channel_intel(rdcldesc).ctl");
        assertEquals(List.of(
                "sample.cl:8:15: warning: I/O channel 'rdclmstatus' (io(\"rdclmstatus\")) is never read or written",
                "sample.cl:20:20: error: read from channel 'rdcldesc', but board channel \"rdcldesc\""
                        + " is a streamsink: the kernel can only write it"), lint(src, SampleKernel.BOARD));
    }

    @Test
    void widthMismatch() {
        List<BoardChannel> board = List.of(
                new BoardChannel("rdcldesc", BoardChannel.STREAMSINK, 256),
                new BoardChannel("rdclmstatus", BoardChannel.STREAMSOURCE, 32));
        assertEquals(List.of("sample.cl:8:15: error: channel 'rdclmstatus' carries ulong (64 bits) but"
                + " board channel \"rdclmstatus\" is 32 bits wide"), lint(SampleKernel.SOURCE, board));
    }

    @Test
    void unknownType() {
        String src = replaceOnce(SampleKernel.SOURCE, "channel ulong rdclmstatus", "channel status_t rdclmstatus");
        assertEquals(List.of("sample.cl:8:18: error: channel 'rdclmstatus': unknown type 'status_t' (not an"
                + " OpenCL scalar or vector type, and the kernel declares no typedef, struct, union or enum of that name)"),
                lint(src, SampleKernel.BOARD));
    }

    @Test
    void structTypedefAndVectorWidths() {
        String src = replaceOnce(SampleKernel.SOURCE, "channel ulong rdclmstatus", "channel direkt_status_t rdclmstatus");
        src = replaceOnce(src, "channel cldesc_t rdcldesc", "channel ulong4 rdcldesc");
        assertEquals(List.of(), lint(src, SampleKernel.BOARD));
    }

    @Test
    void undeclaredAndDuplicateChannels() {
        String src = replaceOnce(SampleKernel.SOURCE, "channel uint local_ch __attribute__((depth(4)));",
                "channel uint local_ch; channel uint local_ch; channel int dup __attribute__((io(\"rdcldesc\")));");
        src = replaceOnce(src, "*out = read_channel_intel(local_ch);", "*out = read_channel_intel(nowhere);");
        assertEquals(List.of(
                "sample.cl:9:37: error: channel 'local_ch' is already declared at 9:14",
                "sample.cl:9:59: error: channel 'dup': io(\"rdcldesc\") is already bound to channel 'rdcldesc' at 7:18",
                "sample.cl:9:59: error: channel 'dup' carries int (32 bits) but board channel \"rdcldesc\" is 256 bits wide",
                "sample.cl:9:59: warning: I/O channel 'dup' (io(\"rdcldesc\")) is never read or written",
                "sample.cl:26:12: error: read from undeclared channel 'nowhere'"), lint(src, SampleKernel.BOARD));
    }

    @Test
    void builtInTypeWidths() {
        Map<String, Integer> none = Map.of();
        assertEquals(OptionalInt.of(8), KernelLint.typeBits("uchar", none));
        assertEquals(OptionalInt.of(16), KernelLint.typeBits("short", none));
        assertEquals(OptionalInt.of(32), KernelLint.typeBits("float", none));
        assertEquals(OptionalInt.of(32), KernelLint.typeBits("unsigned int", none));
        assertEquals(OptionalInt.of(256), KernelLint.typeBits("ulong4", none));
        assertEquals(OptionalInt.of(128), KernelLint.typeBits("int3", none));
        assertEquals(OptionalInt.of(512), KernelLint.typeBits("char64", Map.of("char64", 512)));
        assertEquals(OptionalInt.of(96), KernelLint.typeBits("struct x", Map.of("x", 96)));
        assertEquals(OptionalInt.empty(), KernelLint.typeBits("ulong5", none));
        assertEquals(OptionalInt.empty(), KernelLint.typeBits("cldesc_t", none));
    }

    @Test
    void boardChannelAndMessageRecords() {
        assertThrows(IllegalArgumentException.class, () -> new BoardChannel("x", "stream", 8));
        assertThrows(IllegalArgumentException.class, () -> new BoardChannel("x", BoardChannel.STREAMSINK, 0));
        LintMessage m = new LintMessage("a.cl", 3, 4, "boom");
        assertTrue(m.isError());
        assertEquals("a.cl:3:4: error: boom", m.toString());
        assertFalse(new LintMessage("a.cl", 1, 1, "hm", LintMessage.Severity.WARNING).isError());
    }
}
