// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Sizes and alignments of the types a kernel declares, as OpenCL C lays them out. */
class KernelTypesTest {

    private static KernelTypes.Layout layout(String declarations, String type) {
        Optional<KernelTypes.Layout> l = KernelChannels.parse(declarations, "t.cl").types().layout(type);
        assertTrue(l.isPresent(), type + " is declared");
        return l.get();
    }

    private static KernelTypes.Known known(long size, long align) {
        return new KernelTypes.Known(size, align);
    }

    private static String reason(String declarations, String type) {
        KernelTypes.Layout l = layout(declarations, type);
        assertTrue(l instanceof KernelTypes.Unknown, type + " has no size: " + l);
        return ((KernelTypes.Unknown) l).reason();
    }

    @Test
    void builtInScalarsAndVectors() {
        assertEquals(Optional.of(known(1, 1)), KernelTypes.builtin("signed char"));
        assertEquals(Optional.of(known(8, 8)), KernelTypes.builtin("unsigned long int"));
        assertEquals(Optional.of(known(4, 4)), KernelTypes.builtin("unsigned"));
        assertEquals(Optional.of(known(16, 16)), KernelTypes.builtin("uint3"), "a 3-element vector takes 4 elements");
        assertEquals(Optional.of(known(16, 16)), KernelTypes.builtin("half8"));
        assertEquals(Optional.of(known(128, 128)), KernelTypes.builtin("double16"));
        assertEquals(Optional.empty(), KernelTypes.builtin("uint5"));
    }

    @Test
    void membersAreNaturallyAlignedAndTheStructRoundedUp() {
        assertEquals(known(12, 4), layout("typedef struct { uchar a; uint b; uchar c; } s_t;", "s_t"));
        assertEquals(known(32, 16), layout("typedef struct { float3 p; float w; } v_t;", "v_t"));
        assertEquals(known(6, 2), layout("struct triple { ushort s[3]; };", "struct triple"));
        assertEquals(known(16, 8), layout("typedef struct { __global uint *p; uint n; } span_t;", "span_t"));
    }

    @Test
    void nestedStructsTypedefChainsArraysAndUnions() {
        String decls = """
                typedef struct { uchar tag; ushort len; } head_t;
                typedef head_t head_alias_t;
                typedef head_alias_t heads_t[4];
                struct frame { heads_t heads; union { ulong word; uchar bytes[12]; } body; };
                typedef struct frame frame_t;
                """;
        assertEquals(known(4, 2), layout(decls, "head_alias_t"));
        assertEquals(known(16, 2), layout(decls, "heads_t"));
        assertEquals(known(32, 8), layout(decls, "frame_t"), "heads 16, the union at 16 (16 bytes)");
    }

    @Test
    void packedAndAligned() {
        assertEquals(known(9, 1), layout("typedef struct __attribute__((packed)) { uchar a; ulong b; } p_t;", "p_t"));
        assertEquals(known(9, 1), layout("typedef struct { uchar a; ulong b; } __attribute__((packed)) p_t;", "p_t"));
        assertEquals(known(64, 64), layout("typedef struct { uint a; } __attribute__((aligned(64))) line_t;", "line_t"));
        assertEquals(known(16, 8), layout("typedef struct { uchar k; uint v __attribute__((aligned(8))); } kv_t;", "kv_t"));
        assertEquals(known(5, 1), layout("typedef struct { uchar k; uint v __attribute__((packed)); } kv_t;", "kv_t"));
        String wide = "typedef uint wide_u __attribute__((aligned(16))); typedef struct { uchar a; wide_u b; } w_t;";
        assertEquals(known(4, 16), layout(wide, "wide_u"));
        assertEquals(known(32, 16), layout(wide, "w_t"));
        assertEquals(known(16, 16), layout("typedef struct { uchar a; } __attribute__((aligned)) any_t;", "any_t"),
                "aligned without a number: 16");
    }

    @Test
    void arrayLengthsAreConstantExpressions() {
        assertEquals(known(5, 1), layout("enum { N = 5 }; typedef struct { uchar d[N]; } e_t;", "e_t"));
        assertEquals(known(32, 8), layout("#define W 32\ntypedef struct { uchar pad[W - sizeof(ulong)]; ulong v; } s_t;", "s_t"));
        assertEquals(known(24, 4), layout("#define L 2\ntypedef struct { float m[L * 3][(L > 1) ? 1 : 2]; } m_t;", "m_t"));
        assertEquals(known(4, 4), layout("typedef enum { A, B = 7, C } e_t;", "e_t"));
    }

    @Test
    void whatHasNoSizeSaysWhy() {
        assertEquals("member 'v' (t.cl:1:24): array size (t.cl:1:26): 'VEC' is not a defined macro (nor an enum constant);"
                + " pass -D VEC=<value>, as aoc is given it", reason("typedef struct { float v[VEC]; } m_t;", "m_t"));
        assertEquals("member 'a' (t.cl:1:23): a bit-field, which OpenCL C does not have",
                reason("typedef struct { uint a : 3; uint b; } b_t;", "b_t"));
        assertEquals("'struct later' is declared but never defined (an incomplete type has no size)",
                reason("typedef struct later later_t;", "later_t"));
        assertTrue(reason("typedef struct { unknown_t x; } u_t;", "u_t").contains("unknown type 'unknown_t'"));
    }

    @Test
    void aStructDefinedAfterItsTypedefHasItsSize() {
        assertEquals(known(8, 4), layout("typedef struct node node_t; struct node { uint a; float b; };", "node_t"));
    }
}
