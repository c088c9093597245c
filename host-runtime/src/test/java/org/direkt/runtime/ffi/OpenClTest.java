// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenCL bindings against whatever platform the ICD loader finds; in CI that is PoCL on the CPU.
 * Skipped (assumption) only when libOpenCL.so.1 itself is missing.
 */
class OpenClTest {
    private static final String VADD = """
            __kernel void vadd(__global const int* a, __global const int* b, __global int* c, uint n) {
                size_t i = get_global_id(0);
                if (i < n) {
                    c[i] = a[i] + b[i];
                }
            }
            __kernel void affine(__global long* x, ulong add, int mul) {
                size_t i = get_global_id(0);
                x[i] = x[i] * mul + (long) add;
            }
            """;

    @BeforeAll
    static void needsLoader() {
        assumeTrue(OpenCl.isAvailable(), "libOpenCL.so.1 is not installed");
    }

    @Test
    void listsPlatformsAndDevices() {
        OpenCl cl = OpenCl.load();
        List<OpenCl.Platform> platforms = cl.platforms();
        assertFalse(platforms.isEmpty(), "the ICD loader found no OpenCL platform (install pocl-opencl-icd)");
        for (OpenCl.Platform p : platforms) {
            System.out.println("platform: " + p.name() + " | " + p.vendor() + " | " + p.version());
            assertFalse(p.name().isEmpty());
            assertTrue(p.version().startsWith("OpenCL "), p.version());
            for (OpenCl.Device d : cl.devices(p.id(), OpenCl.CL_DEVICE_TYPE_ALL)) {
                System.out.println("  device: " + d.name() + " (" + d.typeName() + ")");
                assertFalse(d.name().isEmpty());
            }
        }
    }

    @Test
    void addsVectors() {
        int n = 1000;
        byte[] a = ints(n, i -> i);
        byte[] b = ints(n, i -> 3 * i + 7);
        try (ClContext ctx = ClContext.open("pocl");
             ClProgram program = ctx.build(VADD, "-cl-std=CL1.2");
             ClKernel vadd = program.kernel("vadd");
             ClBuffer ba = ctx.buffer(4L * n);
             ClBuffer bb = ctx.buffer(4L * n);
             ClBuffer bc = ctx.buffer(4L * n)) {
            System.out.println("opened " + ctx);
            ba.write(a);
            ctx.write(bb, b);
            vadd.argBuffer(0, ba).argBuffer(1, bb).argBuffer(2, bc).argUInt(3, n);
            ctx.run(vadd, n);
            byte[] c = new byte[4 * n];
            bc.read(c);
            assertArrayEquals(ints(n, i -> 4 * i + 7), c);
        }
    }

    @Test
    void passesLongAndIntArgumentsThroughNativeSegments() {
        int n = 64;
        try (ClContext ctx = ClContext.open(null);
             ClProgram program = ctx.build(VADD, "");
             ClKernel affine = program.kernel("affine");
             ClBuffer x = ctx.buffer(8L * n);
             Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, n);
            for (int i = 0; i < n; i++) {
                host.setAtIndex(ValueLayout.JAVA_LONG, i, i);
            }
            ctx.write(x, host);
            affine.argBuffer(0, x).argULong(1, 1L << 40).argInt(2, -3);
            ctx.run(affine, new long[] {n}, null);
            MemorySegment back = arena.allocate(ValueLayout.JAVA_LONG, n);
            ctx.read(x, back);
            for (int i = 0; i < n; i++) {
                assertEquals(-3L * i + (1L << 40), back.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
            }
        }
    }

    @Test
    void rebuildsFromItsOwnBinary() {
        int n = 16;
        try (ClContext ctx = ClContext.open("pocl")) {
            byte[] binary;
            try (ClProgram fromSource = ctx.build(VADD, "")) {
                binary = fromSource.binary();
            }
            System.out.println("program binary: " + binary.length + " bytes");
            assertTrue(binary.length > 0);
            try (ClProgram program = ctx.buildFromBinary(binary, "");
                 ClKernel vadd = program.kernel("vadd");
                 ClBuffer ba = ctx.buffer(4L * n);
                 ClBuffer bb = ctx.buffer(4L * n);
                 ClBuffer bc = ctx.buffer(4L * n)) {
                ba.write(ints(n, i -> 100 * i));
                bb.write(ints(n, i -> -i));
                vadd.argBuffer(0, ba).argBuffer(1, bb).argBuffer(2, bc).argUInt(3, n);
                ctx.run(vadd, n);
                byte[] c = new byte[4 * n];
                bc.read(c);
                assertArrayEquals(ints(n, i -> 99 * i), c);
            }
        }
    }

    @Test
    void syntaxErrorCarriesTheBuildLog() {
        String broken = """
                __kernel void broken(__global int* x) {
                    x[get_global_id(0)] = undeclared_thing_42 + 1;
                }
                """;
        try (ClContext ctx = ClContext.open("pocl")) {
            OpenClException e = assertThrows(OpenClException.class, () -> ctx.build(broken, ""));
            System.out.println(e.getMessage());
            assertEquals(OpenClException.CL_BUILD_PROGRAM_FAILURE, e.code());
            assertTrue(e.getMessage().startsWith("clBuildProgram("), e.getMessage());
            assertTrue(e.getMessage().contains("-11 CL_BUILD_PROGRAM_FAILURE"), e.getMessage());
            assertNotNull(e.buildLog());
            String errorLine = e.buildLog().lines()
                    .filter(l -> l.contains("error") && l.contains("undeclared_thing_42"))
                    .findFirst().orElseThrow(() -> new AssertionError("no error line in the log:\n" + e.buildLog()));
            assertTrue(e.getMessage().contains(errorLine), "the message carries the log line " + errorLine);
        }
    }

    @Test
    void wrongKernelNameIsNamed() {
        try (ClContext ctx = ClContext.open("pocl");
             ClProgram program = ctx.build(VADD, "")) {
            OpenClException e = assertThrows(OpenClException.class, () -> program.kernel("no_such_kernel"));
            System.out.println(e.getMessage());
            assertEquals(OpenClException.CL_INVALID_KERNEL_NAME, e.code());
            assertEquals("clCreateKernel(\"no_such_kernel\") failed: -46 CL_INVALID_KERNEL_NAME", e.getMessage());
        }
    }

    @Test
    void wrongArgumentIndexIsNamed() {
        try (ClContext ctx = ClContext.open("pocl");
             ClProgram program = ctx.build(VADD, "");
             ClKernel vadd = program.kernel("vadd")) {
            OpenClException e = assertThrows(OpenClException.class, () -> vadd.argInt(9, 1));
            assertTrue(e.getMessage().contains("clSetKernelArg(9, 4 bytes) failed: -49 CL_INVALID_ARG_INDEX"),
                    e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> vadd.argUInt(3, -1));
        }
    }

    @Test
    void namesTheStandardErrorCodes() {
        assertEquals("CL_SUCCESS", OpenClException.errorName(0));
        assertEquals("CL_DEVICE_NOT_FOUND", OpenClException.errorName(-1));
        assertEquals("CL_BUILD_PROGRAM_FAILURE", OpenClException.errorName(-11));
        assertEquals("CL_INVALID_VALUE", OpenClException.errorName(-30));
        assertEquals("CL_INVALID_KERNEL_NAME", OpenClException.errorName(-46));
        assertEquals("CL_MAX_SIZE_RESTRICTION_EXCEEDED", OpenClException.errorName(-72));
        assertEquals("CL_PLATFORM_NOT_FOUND_KHR", OpenClException.errorName(-1001));
        assertEquals("CL_UNKNOWN_ERROR_-500", OpenClException.errorName(-500));
    }

    /** n little-endian ints, element i = f(i). */
    private static byte[] ints(int n, java.util.function.IntUnaryOperator f) {
        ByteBuffer buf = ByteBuffer.allocate(4 * n).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            buf.putInt(f.applyAsInt(i));
        }
        return buf.array();
    }
}
