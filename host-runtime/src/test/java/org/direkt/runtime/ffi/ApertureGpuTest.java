// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The GPU-master direction's CUDA calls on a real GPU (device 0), where no FPGA is: registering
 * what is not I/O memory is refused and the refusal names why, and streams copy byte-exact. Tagged
 * "gpu" (see CudaGpuTest); skipped where there is no GPU. The copy engine's rate to pinned memory,
 * the aperture's upper bound, is ApertureRateGpuTest's.
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApertureGpuTest {
    private Cuda cuda;
    private CudaIo io;
    private PrimaryContext context;
    private long page;
    private boolean gpu;

    @BeforeAll
    void openDevice() {
        try {
            cuda = Cuda.load();
            cuda.init();
            gpu = cuda.deviceCount() > 0;
        } catch (NativeLibraryException | CudaException e) {
            gpu = false;
        }
        if (gpu) {
            io = CudaIo.load();
            context = cuda.retainPrimaryContext(cuda.device(0));
            page = Libc.pageSize();
        }
    }

    @BeforeEach
    void makeCurrent() {
        assumeTrue(gpu, "no NVIDIA GPU here");
        context.makeCurrent();
    }

    @AfterAll
    void release() {
        if (context != null) {
            context.close();
        }
    }

    /** Ordinary RAM: anonymous pages, touched so they exist. */
    private MemorySegment ram(long pages) {
        MemorySegment m = Libc.mmap(pages * page, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0);
        for (long i = 0; i < pages; i++) {
            m.set(ValueLayout.JAVA_BYTE, i * page, (byte) 1);
        }
        return m;
    }

    /** Either refusal a GPU machine gives RAM: not I/O memory, or (unprivileged, without the override) not permitted. */
    private static void assertNamed(IoMemoryRefusedException e, IoMemoryRefusedException.Reason whenInvalid, String words) {
        System.out.println(e.getMessage());
        assertTrue(e.code() == 1 || e.code() == 800, "CUDA_ERROR_INVALID_VALUE or CUDA_ERROR_NOT_PERMITTED: " + e.getMessage());
        if (e.code() == 1) {
            assertEquals(whenInvalid, e.reason());
            assertEquals("CUDA_ERROR_INVALID_VALUE", e.errorName());
            assertTrue(e.getMessage().contains(words), e.getMessage());
        } else {
            assertEquals(IoMemoryRefusedException.Reason.NOT_PERMITTED, e.reason());
            assertEquals("CUDA_ERROR_NOT_PERMITTED", e.errorName());
            assertTrue(e.getMessage().contains("NVreg_RegistryDwords=\"PeerMappingOverride=1\""), e.getMessage());
        }
    }

    @Test
    void ramIsRefusedAsIoMemoryAndTheMessageSaysWhy() {
        MemorySegment m = ram(16);
        try {
            IoMemoryRefusedException e = assertThrows(IoMemoryRefusedException.class, () -> io.registerIoMemory(m));
            assertNamed(e, IoMemoryRefusedException.Reason.NOT_IO_MEMORY, "the range is not I/O memory CUDA can register");
            assertTrue(e.getMessage().startsWith("cuMemHostRegister_v2(" + Cuda.hex(m.address()) + ", " + 16 * page
                    + " bytes, flags 0x6) failed: "), e.getMessage());
        } finally {
            Libc.munmap(m);
        }
    }

    @Test
    void anUnalignedRangeIsRefused() {
        MemorySegment m = ram(4);
        try {
            MemorySegment unaligned = m.asSlice(8, 3 * page - 8);
            IoMemoryRefusedException e = assertThrows(IoMemoryRefusedException.class, () -> io.registerIoMemory(unaligned));
            assertNamed(e, IoMemoryRefusedException.Reason.NOT_PAGE_ALIGNED, "the range is not page aligned: its start "
                    + Cuda.hex(m.address() + 8));
        } finally {
            Libc.munmap(m);
        }
    }

    /** RAM registered as such (no IOMEMORY) works, maps for the GPU, and a second registration is named. */
    @Test
    void ramRegisteredOnceIsMappedForTheGpuAndASecondTimeIsNamed() {
        MemorySegment m = ram(4);
        try {
            io.memHostRegister(m, CudaIo.CU_MEMHOSTREGISTER_DEVICEMAP);
            try {
                assertNotEquals(0, io.memHostGetDevicePointer(m));
                CudaException again = assertThrows(CudaException.class, () -> io.memHostRegister(m, CudaIo.CU_MEMHOSTREGISTER_DEVICEMAP));
                IoMemoryRefusedException e = IoMemoryRefusedException.of(again, m.address(), m.byteSize(), page);
                System.out.println(e.getMessage());
                assertEquals(IoMemoryRefusedException.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, e.code(), e.getMessage());
                assertEquals(IoMemoryRefusedException.Reason.ALREADY_REGISTERED, e.reason());
            } finally {
                io.memHostUnregister(m);
            }
        } finally {
            Libc.munmap(m);
        }
    }

    /** A stream per direction, as a GPU-master copy uses them: host -> GPU -> GPU -> host, byte-exact at offsets. */
    @Test
    void streamCopiesAreByteExact() {
        long bytes = 4L << 20;
        try (DeviceMemory a = cuda.allocate(bytes); DeviceMemory b = cuda.allocate(bytes); PinnedMemory host = cuda.allocatePinned(bytes);
                CudaIo.Stream down = io.createStream(); CudaIo.Stream up = io.createStream()) {
            Random rnd = new Random(7);
            for (long n : new long[] {4, 4096 + 4, 1L << 20}) {
                long off = 65_536 - 4;
                byte[] data = new byte[(int) n];
                rnd.nextBytes(data);
                MemorySegment h = host.segment().asSlice(off, n);
                h.copyFrom(MemorySegment.ofArray(data));
                io.memcpyHtoDAsync(a.pointer() + off, h, up);
                io.memcpyDtoDAsync(b.pointer() + 8, a.pointer() + off, n, up);
                up.synchronize();
                h.fill((byte) 0);
                io.memcpyDtoHAsync(h, b.pointer() + 8, down);
                down.synchronize();
                assertArrayEquals(data, h.toArray(ValueLayout.JAVA_BYTE), n + " bytes");
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> io.memcpyHtoDAsync(a.pointer(), MemorySegment.ofArray(new byte[4]), up));
            assertTrue(e.getMessage().contains("must be native"), e.getMessage());
        }
    }
}
