// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.direkt.overlay.cli.Main;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code direkt lint-kernel} on kernels written as published io-channel kernels are: struct channels
 * from headers, emulation branches, extern declarations, {@code __attribute}, macro-wrapped builtins,
 * non-UTF-8 files; and on boards with mistakes in {@code <channels>}. One test per way the lint
 * used to fail on them, run through the command line as a user runs it.
 */
class LintKernelOnRealKernelsTest {

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    private Path inc;

    @BeforeEach
    void header() throws IOException {
        inc = Files.createDirectories(dir.resolve("inc"));
        // 1 + 1 + 2 + 4 + 8 (ulong at 8) = 16; float3 at 16 (16 bytes, aligned to 16); v[VEC] floats: 32 + 4 * VEC,
        // rounded up to 16: 64 bytes (512 bits) for VEC = 8.
        Files.writeString(inc.resolve("msg.h"), """
                #ifndef MSG_H
                #define MSG_H
                typedef struct {
                    uchar  port;
                    uchar  flags;
                    ushort len;
                    uint   seq;
                    ulong  stamp;
                } msg_head_t;

                typedef struct {
                    msg_head_t head;
                    float3     pos;
                    float      v[VEC];
                } msg_t;
                #endif
                """);
    }

    private static Run direkt(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    private Path board(String name, String channels) throws IOException {
        return Files.writeString(dir.resolve(name), "<?xml version=\"1.0\"?>\n<board version=\"20.3\" name=\"net\">\n"
                + "  <channels>\n" + channels + "  </channels>\n</board>\n");
    }

    private static String channel(String id, String type, int width) {
        return "    <interface name=\"board\" port=\"" + id + "_port\" type=\"" + type + "\" width=\"" + width + "\" chan_id=\"" + id + "\"/>\n";
    }

    private Path kernel(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private Run lint(Path kernel, Path board, String... more) {
        List<String> args = new ArrayList<>(List.of("lint-kernel", kernel.toString(), "--board", board.toString()));
        args.addAll(List.of(more));
        return direkt(args.toArray(String[]::new));
    }

    // ---------------------------------------------------------------- 1. struct channels

    @Test
    void aStructChannelFromAnIncludedHeaderHasItsOpenClLayoutWidth() throws IOException {
        Path k = kernel("k.cl", """
                #include "msg.h"
                channel msg_t rx __attribute__((io("rx")));
                __kernel void k(void) { msg_t m = read_channel_intel(rx); }
                """);
        Run ok = lint(k, board("b.xml", channel("rx", "streamsource", 512)), "-I", inc.toString(), "-D", "VEC=8");
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().contains("1 io channels, all match"), ok.out());
        Run wide = lint(k, board("wide.xml", channel("rx", "streamsource", 544)), "-I", inc.toString(), "-D", "VEC=8");
        assertEquals(1, wide.code());
        assertTrue(wide.err().contains(k + ":2:15: error: channel 'rx' carries msg_t (512 bits) but board channel \"rx\" is 544 bits wide"),
                wide.err());
    }

    @Test
    void aWidthThatDependsOnAnUndefinedMacroNamesTheMacroAndTheDefine() throws IOException {
        Path k = kernel("k.cl", "#include \"msg.h\"\nchannel msg_t rx __attribute__((io(\"rx\")));\n"
                + "__kernel void k(void) { msg_t m = read_channel_intel(rx); }\n");
        Run r = lint(k, board("b.xml", channel("rx", "streamsource", 512)), "-I", inc.toString());
        assertEquals(1, r.code());
        assertTrue(r.err().contains(k + ":2:15: error: channel 'rx': cannot compute the width of msg_t: member 'v' ("
                + inc.resolve("msg.h") + ":14:16): "), r.err());
        assertTrue(r.err().contains("'VEC' is not a defined macro (nor an enum constant); pass -D VEC=<value>"), r.err());
    }

    // ---------------------------------------------------------------- 2. #ifdef branches and -D

    @Test
    void onlyTheActiveBranchOfAnIfdefIsRead() throws IOException {
        Path k = kernel("k.cl", """
                #ifdef EMULATION
                channel uint4 out0 __attribute__((io("emulated_0")));
                #else
                channel uint4 out0 __attribute__((io("kernel_output_ch0")));
                #endif
                __kernel void k(void) { write_channel_intel(out0, (uint4)(1)); }
                """);
        Run hw = lint(k, board("hw.xml", channel("kernel_output_ch0", "streamsink", 128)));
        assertEquals(0, hw.code(), hw.err());
        Run emu = lint(k, board("emu.xml", channel("emulated_0", "streamsink", 128)), "-D", "EMULATION");
        assertEquals(0, emu.code(), emu.err());
        Run swapped = lint(k, board("swapped.xml", channel("kernel_output_ch0", "streamsource", 128)));
        assertEquals(1, swapped.code());
        assertTrue(swapped.err().contains(k + ":6:25: error: write to channel 'out0', but board channel"
                + " \"kernel_output_ch0\" is a streamsource"), swapped.err());
    }

    // ---------------------------------------------------------------- 3. extern

    @Test
    void anExternDeclarationAndItsDefinitionAreOneChannel() throws IOException {
        Path k = kernel("k.cl", """
                extern channel ulong stat;
                channel ulong stat __attribute__((io("status")));
                __kernel void k(__global ulong *o) { *o = read_channel_intel(stat); }
                """);
        Run r = lint(k, board("b.xml", channel("status", "streamsource", 64)));
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
    }

    // ---------------------------------------------------------------- 4. __attribute

    @Test
    void theAttributeSpellingWithoutTrailingUnderscoresIsAccepted() throws IOException {
        Path k = kernel("k.cl", """
                channel uint cmd __attribute((io("cmd"))) __attribute((depth(4)));
                __kernel void k(__global uint *o) { *o = read_channel_intel(cmd); }
                """);
        Run r = lint(k, board("b.xml", channel("cmd", "streamsource", 32)));
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void aMalformedDeclarationIsAnErrorTaggedAsOne() throws IOException {
        Path k = kernel("k.cl", "channel uint cmd __attribute__((io(\"cmd\")))\n__kernel void k(void) {}\n");
        Run r = lint(k, board("b.xml", channel("cmd", "streamsource", 32)));
        assertEquals(1, r.code());
        assertTrue(r.err().contains(k + ":2:1: error: unexpected '__kernel' in channel declaration, expecting ',' or ';'"), r.err());
    }

    // ---------------------------------------------------------------- 5. calls through macros

    @Test
    void callsThroughAMacroAliasAreCheckedAtTheCall() throws IOException {
        Path k = kernel("k.cl", """
                #define read_channel read_channel_intel
                #define SEND(c, v) write_channel_intel(c, v)
                channel uint in0 __attribute__((io("in0")));
                channel uint out0 __attribute__((io("out0")));
                __kernel void k(void) {
                    uint v = read_channel(in0);
                    SEND(out0, v + 1);
                }
                """);
        Run ok = lint(k, board("b.xml", channel("in0", "streamsource", 32) + channel("out0", "streamsink", 32)));
        assertEquals(0, ok.code(), ok.err());
        assertEquals("", ok.err(), "both channels are used");
        Run swapped = lint(k, board("s.xml", channel("in0", "streamsink", 32) + channel("out0", "streamsource", 32)));
        assertEquals(1, swapped.code());
        assertEquals(List.of(
                k + ":6:14: error: read from channel 'in0', but board channel \"in0\" is a streamsink: the kernel can only write it",
                k + ":7:5: error: write to channel 'out0', but board channel \"out0\" is a streamsource: the kernel can only read it"),
                swapped.err().lines().toList());
    }

    // ---------------------------------------------------------------- 6. board mistakes

    @Test
    void mistakesInTheBoardsChannelsAreReportedAtTheirPlace() throws IOException {
        Path k = kernel("k.cl", "channel uint c __attribute__((io(\"c\")));\n__kernel void k(void) { write_channel_intel(c, 1); }\n");
        Path b = board("b.xml", channel("c", "StreamSink", 32)
                + "    <interface name=\"board\" port=\"z\" type=\"streamsink\" width=\"0\" chan_id=\"zero\"/>\n"
                + "    <interface name=\"board\" port=\"n\" type=\"streamsink\" chan_id=\"nowidth\"/>\n"
                + "    <interface name=\"board\" port=\"w\" type=\"streamsink\" width=\"wide\" chan_id=\"word\"/>\n");
        Run r = lint(k, b);
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals(List.of(
                b + ":4:43: error: channel chan_id=\"c\": type=\"StreamSink\" is neither streamsource nor streamsink",
                b + ":5:56: error: channel chan_id=\"zero\": width=\"0\" is not a positive multiple of 8",
                b + ":6:5: error: channel chan_id=\"nowidth\": required attribute width is missing",
                b + ":7:56: error: channel chan_id=\"word\": width=\"wide\" is not a positive multiple of 8"),
                r.err().lines().toList());
    }

    // ---------------------------------------------------------------- 7. files and messages

    @Test
    void aFileThatIsNotUtf8IsRead() throws IOException {
        Path k = dir.resolve("latin1.cl");
        Files.write(k, "/* \u00a9 2021 \u00c9quipe r\u00e9seau */\nchannel uint c __attribute__((io(\"c\")));\n__kernel void k(void) { write_channel_intel(c, 1); }\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        Run r = lint(k, board("b.xml", channel("c", "streamsink", 32)));
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void aHeaderFromAnIncludeFolderIsRead() throws IOException {
        Files.writeString(inc.resolve("ports.h"), "channel ulong2 rx __attribute__((io(\"rx\")));\n");
        Path k = kernel("k.cl", "#include <ports.h>\n__kernel void k(void) { ulong2 v = read_channel_intel(rx); }\n");
        Run r = lint(k, board("b.xml", channel("rx", "streamsource", 128)), "-I", inc.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("1 io channels (declared in " + inc.resolve("ports.h") + "), all match"), r.out());
    }

    @Test
    void theBoardsChannelsAreListedOnceNotOnEveryMissingChannel() throws IOException {
        Path k = kernel("k.cl", """
                channel uint a __attribute__((io("data_in0")));
                channel uint b __attribute__((io("status")));
                __kernel void k(void) { uint v = read_channel_intel(a); write_channel_intel(b, v); }
                """);
        Path b = board("b.xml", channel("data_in_0", "streamsource", 32) + channel("ctl_out", "streamsink", 32));
        Run r = lint(k, b);
        assertEquals(1, r.code());
        assertEquals(List.of(
                k + ":1:14: error: channel 'a': the board has no I/O channel with chan_id \"data_in0\" (did you mean \"data_in_0\"?)",
                k + ":2:14: error: channel 'b': the board has no I/O channel with chan_id \"status\"",
                k + ":1:14: note: the board's I/O channels: data_in_0 (streamsource, 32 bits, " + b + ":4:5), ctl_out (streamsink, 32 bits, "
                        + b + ":5:5)"), r.err().lines().toList());
    }

    // ---------------------------------------------------------------- all of it at once

    /** A struct from an included header, an #ifdef emulation branch, macro-wrapped builtins. */
    @Test
    void aKernelInThePublishedStyleLintsCleanAndReportsASwappedDirectionAtTheCall() throws IOException {
        Path k = kernel("fwd.cl", """
                #pragma OPENCL EXTENSION cl_intel_channels : enable
                #include "msg.h"
                #define read_channel read_channel_intel
                #define WRITE(c, m) write_channel_intel(c, m)
                #ifdef EMULATION
                channel msg_t in0 __attribute__((io("emulated_in0")));
                channel msg_t out0 __attribute__((io("emulated_out0")));
                #else
                channel msg_t in0 __attribute__((depth(8))) __attribute((io("kernel_input_ch0")));
                channel msg_t out0 __attribute__((depth(8))) __attribute((io("kernel_output_ch0")));
                #endif
                __kernel void fwd(void) {
                    while (1) {
                        msg_t m = read_channel(in0);
                        m.head.flags |= 1;
                        WRITE(out0, m);
                    }
                }
                """);
        Path matching = board("nic.xml", channel("kernel_input_ch0", "streamsource", 512) + channel("kernel_output_ch0", "streamsink", 512));
        Run ok = lint(k, matching, "-D", "VEC=8", "-I", inc.toString());
        assertEquals(0, ok.code(), ok.err());
        assertEquals("", ok.err());
        assertTrue(ok.out().contains("2 io channels, all match"), ok.out());
        Path swapped = board("swapped.xml", channel("kernel_input_ch0", "streamsink", 512) + channel("kernel_output_ch0", "streamsource", 512));
        Run bad = lint(k, swapped, "-D", "VEC=8", "-I", inc.toString());
        assertEquals(1, bad.code());
        assertEquals(List.of(
                k + ":14:19: error: read from channel 'in0', but board channel \"kernel_input_ch0\" is a streamsink: the kernel can only write it",
                k + ":16:9: error: write to channel 'out0', but board channel \"kernel_output_ch0\" is a streamsource: the kernel can only read it"),
                bad.err().lines().toList());
        assertFalse(bad.err().contains("emulated"), "the emulation branch is not read");
    }
}
