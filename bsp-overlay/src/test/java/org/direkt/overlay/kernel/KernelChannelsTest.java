// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.direkt.overlay.kernel.ChannelUse.Kind;
import org.junit.jupiter.api.Test;

class KernelChannelsTest {

    private static KernelSyntaxException malformed(String text) {
        return assertThrows(KernelSyntaxException.class, () -> KernelChannels.parse(text, "k.cl"));
    }

    @Test
    void publishedStyleKernel() {
        KernelChannels k = KernelChannels.parse(SampleKernel.SOURCE, "sample.cl");
        assertEquals(List.of(
                new ChannelDecl("cldesc_t", "rdcldesc", "rdcldesc", 7, 18, "sample.cl"),
                new ChannelDecl("ulong", "rdclmstatus", "rdclmstatus", 8, 15, "sample.cl"),
                new ChannelDecl("uint", "local_ch", null, 9, 14, "sample.cl")), k.declarations());
        assertEquals(List.of(
                new ChannelUse("rdcldesc", Kind.WRITE, 19, 5, "sample.cl"),
                new ChannelUse("rdclmstatus", Kind.READ, 20, 20, "sample.cl"),
                new ChannelUse("local_ch", Kind.WRITE, 21, 5, "sample.cl"),
                new ChannelUse("local_ch", Kind.READ, 26, 12, "sample.cl")), k.uses());
        assertEquals("sample.cl", k.sourceName());
        assertEquals(2, k.usesOf("local_ch").size());
        assertEquals("ulong", k.declaration("rdclmstatus").type());
    }

    @Test
    void declarationVariantsAndCallForms() {
        KernelChannels k = KernelChannels.parse("""
                channel ulong4 a __attribute__((io("A"), depth(8)));
                channel struct desc b __attribute__((depth(2), io("B")));
                channel float c __attribute__((io( "C" )));
                channel uint __attribute__((io("D"))) d;
                channel unsigned int e, f __attribute__((io("F")));
                channel char g[4] __attribute__((depth(1)));
                void k(uint x, int i) {
                    ulong4 v = read_channel_altera(a);
                    write_channel_altera(b, (struct desc){ x, { 1, 2 } });
                    bool ok;
                    float r = read_channel_nb_intel(c, &ok);
                    ok = write_channel_nb_intel(d, f(1, (2)));
                    char ch = read_channel_intel(g[i + (1)]);
                    write_channel_nb_altera(e, x);
                    uint y = read_channel_nb_altera(f, &ok);
                }
                """, "variants.cl");
        assertEquals(List.of(
                new ChannelDecl("ulong4", "a", "A", 1, 16, "variants.cl"),
                new ChannelDecl("struct desc", "b", "B", 2, 21, "variants.cl"),
                new ChannelDecl("float", "c", "C", 3, 15, "variants.cl"),
                new ChannelDecl("uint", "d", "D", 4, 39, "variants.cl"),
                new ChannelDecl("unsigned int", "e", null, 5, 22, "variants.cl"),
                new ChannelDecl("unsigned int", "f", "F", 5, 25, "variants.cl"),
                new ChannelDecl("char", "g", null, 6, 14, "variants.cl")), k.declarations());
        assertEquals(List.of(
                new ChannelUse("a", Kind.READ, 8, 16, "variants.cl"),
                new ChannelUse("b", Kind.WRITE, 9, 5, "variants.cl"),
                new ChannelUse("c", Kind.READ, 11, 15, "variants.cl"),
                new ChannelUse("d", Kind.WRITE, 12, 10, "variants.cl"),
                new ChannelUse("g", Kind.READ, 13, 15, "variants.cl"),
                new ChannelUse("e", Kind.WRITE, 14, 5, "variants.cl"),
                new ChannelUse("f", Kind.READ, 15, 14, "variants.cl")), k.uses());
    }

    @Test
    void arbitraryCIsSkipped() {
        KernelChannels k = KernelChannels.parse("""
                #define CAT(a, b) a ## b
                #if defined(X) && (Y > 2)
                #endif
                struct s { int channelish; char q[3]; };
                static int f(int (*g)(int), const char *t) { return g('(') + t[')'] + sizeof "(("; }
                __kernel void k(__global float *p) { p[0] = 1.5e-3f + 0x1Fu + .5f; @ ` \\ }
                """, "c.cl");
        assertEquals(List.of(), k.declarations());
        assertEquals(List.of(), k.uses());
    }

    // ---- malformed input ------------------------------------------------------------------

    @Test
    void unterminatedDeclarationAtEndOfFile() {
        assertEquals("k.cl:1:39: unexpected end of file in __attribute__, expecting ')'",
                malformed("channel uint x __attribute__((io(\"a\"))").getMessage());
    }

    @Test
    void declarationWithoutSemicolon() {
        KernelSyntaxException e = malformed("channel uint x __attribute__((io(\"a\")))\n__kernel void k() {}\n");
        assertEquals(2, e.line());
        assertEquals(1, e.column());
        assertEquals("k.cl:2:1: unexpected '__kernel' in channel declaration, expecting "
                + "',' or ';'", e.getMessage());
    }

    @Test
    void unterminatedString() {
        assertEquals("k.cl:3:21: unterminated string literal",
                malformed("// strings\nvoid k() {\n  const char *msg = \"no end;\n}\n").getMessage());
    }

    @Test
    void unterminatedComment() {
        assertEquals("k.cl:2:5: unterminated comment",
                malformed("int a;\nint /* b;\nchannel uint c;\n").getMessage());
    }

    @Test
    void unterminatedCharacter() {
        assertEquals("k.cl:1:10: unterminated character literal",
                malformed("char c = 'x;\n").getMessage());
    }

    @Test
    void ioWithoutString() {
        assertEquals("k.cl:1:31: io attribute takes one string literal, as in io(\"chan_id\")",
                malformed("channel uint c __attribute__((io(3)));").getMessage());
    }

    @Test
    void callWithoutChannel() {
        assertEquals("k.cl:2:40: unexpected ')' in channel call, expecting identifier",
                malformed("void k() {\n  uint v = 1 + read_channel_intel(     );\n}\n").getMessage());
    }

    @Test
    void writeWithoutValue() {
        assertEquals("k.cl:1:33: unexpected ')' in channel call, expecting ','",
                malformed("void k() { write_channel_intel(c); }").getMessage());
    }
}
