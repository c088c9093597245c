// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What needs no GPU: loading libcuda (or the clear failure without it), messages, libc. */
class CudaLoadTest {

    @Test
    void loadsOrExplainsWhatIsMissing() {
        if (Cuda.isAvailable()) {
            // A machine with the NVIDIA driver: loading works and is done once.
            Cuda cuda = Cuda.load();
            assertSame(cuda, Cuda.load());
            System.out.println("libcuda.so.1 loaded");
            return;
        }
        NativeLibraryException e = assertThrows(NativeLibraryException.class, Cuda::load);
        String m = e.getMessage();
        System.out.println(m);
        assertTrue(m.startsWith("The NVIDIA CUDA driver library libcuda.so.1 could not be loaded."), m);
        assertTrue(m.contains("Tried with dlopen: libcuda.so.1 ("), "names the soname tried: " + m);
        assertTrue(m.contains("/usr/local/nvidia/lib64/libcuda.so.1 ("), "names the paths tried: " + m);
        assertTrue(m.contains("LD_LIBRARY_PATH="), m);
        assertTrue(m.contains("Install the NVIDIA driver's user-space compute library"), "says what to install: " + m);
        assertTrue(m.contains("libnvidia-compute-580"), m);
        assertTrue(m.contains("-Ddirekt.libcuda="), m);
    }

    @Test
    void cudaExceptionMessageNamesCallCodeNameAndMeaning() {
        CudaException e = new CudaException("cuMemAlloc_v2(1099511627776 bytes)", 2,
                "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
        assertEquals("cuMemAlloc_v2(1099511627776 bytes) failed: 2 CUDA_ERROR_OUT_OF_MEMORY (out of memory)",
                e.getMessage());
        assertEquals(2, e.code());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertEquals("CUDA_ERROR_INVALID_VALUE", Cuda.CudaErrors.name(1));
        assertEquals("CUDA_ERROR_UNRECOGNIZED_12345", Cuda.CudaErrors.name(12345));
    }

    @Test
    void formatsDriverVersions() {
        assertEquals("13.0", Cuda.formatVersion(13000));
        assertEquals("12.8", Cuda.formatVersion(12080));
    }

    @Test
    void attributeNumbersMatchCudaH() {
        assertEquals(124, CuDeviceAttribute.DMA_BUF_SUPPORTED.code());
        assertEquals(116, CuDeviceAttribute.GPU_DIRECT_RDMA_SUPPORTED.code());
        assertEquals(33, CuDeviceAttribute.PCI_BUS_ID.code());
        assertEquals(34, CuDeviceAttribute.PCI_DEVICE_ID.code());
        assertEquals(50, CuDeviceAttribute.PCI_DOMAIN_ID.code());
        assertEquals(6, Cuda.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
        assertEquals(7, Cuda.CU_POINTER_ATTRIBUTE_BUFFER_ID);
        assertEquals(1, Cuda.CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD);
        assertEquals(1L, Cuda.CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
    }

    @Test
    void closingABadDescriptorReportsEbadf() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Libc.close(-1));
        assertEquals("close(-1) failed: errno 9 (EBADF: not an open file descriptor)", e.getMessage());
    }
}
