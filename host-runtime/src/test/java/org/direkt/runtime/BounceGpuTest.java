// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.PinnedMemory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bounce path's CUDA half on a real GPU: pinned host memory ({@code cuMemHostAlloc}) and the
 * copies between it and device memory, as a {@link Session} makes them. Tagged "gpu" (see
 * CudaGpuTest); the GPU bundle's {@code run.sh tests} runs it.
 */
@Tag("gpu")
class BounceGpuTest {

    @Test
    void theFirstGpuIsFoundAndSaysWhetherItExportsDmaBufs() {
        try (GpuMemory gpu = GpuMemory.firstGpuOrNone()) {
            System.out.println("GPU memory: " + gpu.description() + "; dma-buf export: "
                    + gpu.exportRefusal().orElse("possible"));
            assertTrue(gpu.real(), gpu.description());
            assertTrue(Session.gpuPresent());
        }
    }

    @Test
    void pinnedCopiesBetweenHostAndGpuAreByteExactAtEverySize() {
        try (GpuMemory gpu = GpuMemory.firstGpuOrNone()) {
            long length = 8L << 20;
            GpuMemory.Allocation mem = gpu.allocate(length);
            GpuMemory.Pinned staging = gpu.allocatePinned(length);
            try {
                Random rnd = new Random(3);
                for (long bytes : new long[] {4, 65_536 + 4, 4L << 20}) {
                    long offset = 65_536 - 4;
                    byte[] data = new byte[(int) bytes];
                    rnd.nextBytes(data);
                    MemorySegment stage = staging.segment().asSlice(offset, bytes);
                    stage.copyFrom(MemorySegment.ofArray(data));
                    mem.write(offset, stage, bytes);                      // pinned host -> GPU
                    stage.fill((byte) 0);
                    mem.read(stage, offset, bytes);                       // GPU -> pinned host
                    assertArrayEquals(data, stage.toArray(ValueLayout.JAVA_BYTE), bytes + " bytes");
                }
            } finally {
                staging.free();
                mem.free();
            }
        }
    }

    @Test
    void pinnedMemoryIsFreedOnceAndAZeroSizeIsRefused() {
        Cuda cuda = Cuda.load();
        try (GpuMemory gpu = GpuMemory.firstGpuOrNone()) {  // makes the primary context current
            assertTrue(gpu.real(), gpu.description());
            PinnedMemory p = cuda.allocatePinned(4096);
            assertEquals(4096, p.size());
            assertTrue(p.segment().isNative());
            p.close();
            p.close();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cuda.memHostAlloc(0, 0));
            assertTrue(e.getMessage().contains("must be positive"), e.getMessage());
        }
    }
}
