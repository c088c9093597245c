// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What each refusal of {@code cuMemHostRegister(IOMEMORY | DEVICEMAP)} tells the user, without a GPU. */
class IoMemoryRefusedExceptionTest {
    private static final long PAGE = 4096;
    private static final long ALIGNED = 0x7f00_0000_0000L;

    private static IoMemoryRefusedException refused(int code, String name, long address, long bytes) {
        CudaException e = new CudaException("cuMemHostRegister_v2(" + Cuda.hex(address) + ", " + bytes + " bytes, flags 0x6)",
                code, name, "the driver's words");
        IoMemoryRefusedException r = IoMemoryRefusedException.of(e, address, bytes, PAGE);
        assertSame(e, r.getCause());
        assertEquals(code, r.code());
        assertEquals(name, r.errorName());
        assertTrue(r.getMessage().startsWith(e.getMessage() + ": "), r.getMessage());
        return r;
    }

    @Test
    void anUnprivilegedCallerIsToldHowToBePermitted() {
        IoMemoryRefusedException e = refused(800, "CUDA_ERROR_NOT_PERMITTED", ALIGNED, PAGE);
        assertEquals(IoMemoryRefusedException.Reason.NOT_PERMITTED, e.reason());
        assertTrue(e.getMessage().contains("run as root, or load the nvidia module with"
                + " NVreg_RegistryDwords=\"PeerMappingOverride=1\""), e.getMessage());
    }

    @Test
    void invalidValueIsEitherNotIoMemoryOrNotPageAligned() {
        IoMemoryRefusedException e = refused(1, "CUDA_ERROR_INVALID_VALUE", ALIGNED, 16 * PAGE);
        assertEquals(IoMemoryRefusedException.Reason.NOT_IO_MEMORY, e.reason());
        assertTrue(e.getMessage().contains("the range is not I/O memory CUDA can register: it must be one VM_IO|VM_PFNMAP"
                + " mapping of a device's BAR"), e.getMessage());
        assertTrue(e.getMessage().contains("ordinary RAM (malloc, an anonymous or file mapping)"), e.getMessage());
        e = refused(1, "CUDA_ERROR_INVALID_VALUE", ALIGNED + 8, PAGE - 8);
        assertEquals(IoMemoryRefusedException.Reason.NOT_PAGE_ALIGNED, e.reason());
        assertTrue(e.getMessage().contains("the range is not page aligned: its start 0x7f0000000008 and its length 4088 must be"
                + " multiples of the page size (4096 bytes)"), e.getMessage());
        assertEquals(IoMemoryRefusedException.Reason.NOT_PAGE_ALIGNED, refused(1, "CUDA_ERROR_INVALID_VALUE", ALIGNED, PAGE + 4)
                .reason(), "an aligned start with a length of part of a page");
    }

    @Test
    void anOldDriverOrKernelIsNamedWithTheVersionsNeeded() {
        IoMemoryRefusedException e = refused(801, "CUDA_ERROR_NOT_SUPPORTED", ALIGNED, PAGE);
        assertEquals(IoMemoryRefusedException.Reason.NOT_SUPPORTED, e.reason());
        assertTrue(e.getMessage().contains("kernels 6.10 and later (no follow_pfn) need NVIDIA's open kernel modules 570.133.07"
                + " or later"), e.getMessage());
    }

    @Test
    void aSecondRegistrationIsNamed() {
        IoMemoryRefusedException e = refused(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", ALIGNED, PAGE);
        assertEquals(IoMemoryRefusedException.Reason.ALREADY_REGISTERED, e.reason());
        assertTrue(e.getMessage().contains("registered already in this process: unregister it first"), e.getMessage());
    }

    @Test
    void aRangeTheDriverCannotMapForTheGpuGetsThePeerToPeerAdvice() {
        for (int code : new int[] {2, 999}) {
            IoMemoryRefusedException e = refused(code, "CUDA_ERROR_X", ALIGNED, PAGE);
            assertEquals(IoMemoryRefusedException.Reason.NOT_MAPPED_FOR_THE_GPU, e.reason());
            assertTrue(e.getMessage().contains("could not map the range for the GPU; the GPU reaches the BAR by its bus address,"
                    + " which the driver maps with dma_map_resource: an IOMMU is no obstacle"), e.getMessage());
            assertTrue(e.getMessage().contains("root complex"), e.getMessage());
        }
        assertEquals(IoMemoryRefusedException.Reason.OTHER, refused(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", ALIGNED, PAGE).reason());
    }
}
