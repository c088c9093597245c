// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.direkt.overlay.OverlayException;
import org.direkt.overlay.kernel.ChannelUse.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Preprocessing as aoc does it, every position in the original file. */
class KernelPreprocessorTest {

    @TempDir
    Path dir;

    private KernelChannels read(Path kernel, List<String> defines, Map<String, String> predefined) throws IOException, OverlayException {
        return KernelChannels.read(kernel, new KernelPreprocessor.Options(List.of(dir.resolve("inc")), defines, predefined, true));
    }

    private KernelChannels read(String kernel, String... defines) throws IOException, OverlayException {
        return read(Files.writeString(dir.resolve("k.cl"), kernel), List.of(defines), AocMacros.openCl());
    }

    @Test
    void aCallThroughMacrosIsAtTheOutermostInvocation() throws IOException, OverlayException {
        KernelChannels k = read("""
                #define read_channel read_channel_intel
                #define READ_CH(c) read_channel_intel(c)
                #define RD READ_CH
                #define PUT(c, v) write_channel_intel(c, v)
                channel uint a, b;
                void f(void) {
                    uint x = read_channel(a);
                    x += RD(a);
                    PUT(b, x);
                    PUT(b, READ_CH(a));
                }
                """);
        String src = dir.resolve("k.cl").toString();
        assertEquals(List.of(
                new ChannelUse("a", Kind.READ, 7, 14, src),
                new ChannelUse("a", Kind.READ, 8, 10, src),
                new ChannelUse("b", Kind.WRITE, 9, 5, src),
                new ChannelUse("b", Kind.WRITE, 10, 5, src),
                new ChannelUse("a", Kind.READ, 10, 5, src)), k.uses(), "a call in a macro argument: at the outermost invocation");
    }

    @Test
    void declarationsAndCallsInAHeaderAreInTheHeader() throws IOException, OverlayException {
        Path inc = Files.createDirectories(dir.resolve("inc"));
        Files.writeString(inc.resolve("ch.h"), "#pragma once\nchannel ulong st __attribute__((io(\"st\")));\n"
                + "ulong status(void) { return read_channel_intel(st); }\n");
        KernelChannels k = read("#include \"ch.h\"\n#include <ch.h>\nvoid g(void) { status(); }\n");
        String h = inc.resolve("ch.h").toString();
        assertEquals(List.of(new ChannelDecl("ulong", "st", "st", 2, 15, h)), k.declarations(), "#pragma once: declared once");
        assertEquals(List.of(new ChannelUse("st", Kind.READ, 3, 29, h)), k.uses());
        assertEquals(List.of(dir.resolve("k.cl").toString(), h), k.files());
    }

    @Test
    void definesAsAocTakesThem() throws IOException, OverlayException {
        String kernel = """
                #if defined(PLAIN) && PLAIN == 1 && WIDTH == 8
                channel uint ok __attribute__((io(ID)));
                #endif
                channel PICK(uint4, uint8) picked;
                """;
        KernelChannels k = read(kernel, "PLAIN", "WIDTH=8", "ID=\"port0\"", "PICK(a, b)=b");
        assertEquals("port0", k.declaration("ok").ioId());
        assertEquals("uint8", k.declaration("picked").type());
        OverlayException bad = assertThrows(OverlayException.class, () -> read("", "1X=2"));
        assertTrue(bad.getMessage().contains("-D 1X=2: expected NAME, NAME=VALUE or NAME(ARGS)=BODY"), bad.getMessage());
    }

    @Test
    void theBoardsPredefinedMacros() {
        Map<String, String> a10 = AocMacros.forBoard("a10gx", Optional.of("19.1"));
        assertEquals("191", a10.get("INTELFPGA_CL"));
        assertEquals("1", a10.get("AOCL_BOARD_a10gx"));
        assertEquals("1", a10.get("ACL_BOARD_a10gx"));
        assertEquals("120", a10.get("__OPENCL_VERSION__"));
        assertFalse(AocMacros.forBoard("s5", Optional.of("16.1")).containsKey("INTELFPGA_CL"), "the Altera SDK did not define it");
        assertEquals("1", AocMacros.forBoard("x", Optional.empty()).get("INTELFPGA_CL"));
        assertFalse(AocMacros.forBoard("my-board", Optional.of("20.1")).keySet().stream().anyMatch(m -> m.startsWith("AOCL_BOARD")),
                "a board name that is no identifier defines no AOCL_BOARD_ macro");
        assertFalse(AocMacros.openCl().containsKey("__FPGA_EMULATION_X86__"), "a lint checks the hardware compile");
    }

    @Test
    void aBoardsMacrosChooseItsBranch() throws IOException, OverlayException {
        Path k = Files.writeString(dir.resolve("k.cl"), """
                #if defined(AOCL_BOARD_nic) && INTELFPGA_CL >= 191
                channel ulong8 w __attribute__((io("w")));
                #else
                channel ulong4 w __attribute__((io("w")));
                #endif
                """);
        assertEquals("ulong8", read(k, List.of(), AocMacros.forBoard("nic", Optional.of("20.3"))).declaration("w").type());
        assertEquals("ulong4", read(k, List.of(), AocMacros.forBoard("nic", Optional.of("18.1"))).declaration("w").type());
    }

    @Test
    void errorAndWarningDirectivesAreReportedWhereTheyAre() throws IOException, OverlayException {
        KernelChannels k = read("#ifndef VEC\n#  error \"set VEC\"\n#endif\n#warning \"old board\"\n");
        String src = dir.resolve("k.cl").toString();
        assertEquals(List.of(
                new LintMessage(src, 2, 4, "#error \"set VEC\""),
                new LintMessage(src, 4, 2, "#warning \"old board\"", LintMessage.Severity.WARNING)), k.problems());
        assertEquals(List.of(), read("#ifndef VEC\n#error \"set VEC\"\n#endif\n", "VEC=4").problems());
    }

    @Test
    void aConditionalLeftOpenIsAnErrorAtItsDirective() throws IOException, OverlayException {
        KernelChannels k = read("#ifdef A\n#endif\n  #  if B\n#ifndef C\n#endif\nchannel uint c;\n");
        assertEquals(List.of(new LintMessage(dir.resolve("k.cl").toString(), 3, 3,
                "unterminated conditional directive: no #endif before the end of the file")), k.problems());
    }

    @Test
    void aHeaderFoundNowhereNamesEveryPlaceLookedIn() throws IOException, OverlayException {
        OverlayException e = assertThrows(OverlayException.class, () -> read("\n  #include \"missing.h\"\n"));
        assertEquals(OverlayException.Kind.INPUT, e.kind());
        assertEquals(dir.resolve("k.cl") + ":2:12: error: cannot find \"missing.h\": it is not at " + dir.resolve("missing.h") + ", "
                + dir.resolve("inc/missing.h") + "; pass its folder with -I", e.getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsReadAsLatin1() {
        byte[] latin1 = "// caf\u00e9\nchannel uint c;\n".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("// caf\u00e9\nchannel uint c;\n", KernelPreprocessor.decode(latin1));
        byte[] utf8 = "\uFEFF// caf\u00e9\n".getBytes(StandardCharsets.UTF_8);
        assertEquals("// caf\u00e9\n", KernelPreprocessor.decode(utf8), "UTF-8, its byte-order mark dropped");
    }

    @Test
    void externDeclarationsMergeWithTheirDefinitionAndConflictsAreErrors() throws IOException, OverlayException {
        KernelChannels k = read("""
                extern channel uint a __attribute__((io("a")));
                channel uint a;
                channel uint b __attribute__((io("b")));
                extern channel uint b;
                extern channel int c __attribute__((io("c1")));
                channel uint c __attribute__((io("c2")));
                """);
        String src = dir.resolve("k.cl").toString();
        assertEquals(List.of(
                new ChannelDecl("uint", "a", "a", 2, 14, src),
                new ChannelDecl("uint", "b", "b", 3, 14, src),
                new ChannelDecl("uint", "c", "c2", 6, 14, src)), k.declarations());
        assertEquals(List.of(
                new LintMessage(src, 6, 14, "channel 'c' is declared with type uint here but int at 5:20"),
                new LintMessage(src, 6, 14, "channel 'c' has io(\"c2\") here but io(\"c1\") at 5:20")), k.problems());
    }

    @Test
    void aChannelArrayWithIoIsNotSupportedAndSaysSo() throws IOException, OverlayException {
        KernelChannels k = read("#define N 4\nchannel uint lanes[N] __attribute__((io(\"lane\")));\nchannel uint fifo[N][2];\n");
        assertEquals(1, k.problems().size());
        assertTrue(k.problems().getFirst().format().contains("k.cl:2:14: error: channel 'lanes' is an array of channels with"
                + " io(\"lane\"): not supported"), k.problems().getFirst().format());
    }
}
