// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The CUDA driver bindings on a real GPU (device 0). Tagged "gpu": excluded by default; run with
 * {@code -Ddirekt.excludedGroups= -Dgroups=gpu}. Every test prints what it measured.
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CudaGpuTest {
    private static final long MB64 = 64L << 20;

    private Cuda cuda;
    private int device;
    private PrimaryContext context;

    @BeforeAll
    void openDevice() {
        cuda = Cuda.load();
        cuda.init();
        device = cuda.device(0);
        context = cuda.retainPrimaryContext(device);
    }

    @BeforeEach
    void makeCurrent() {
        context.makeCurrent();  // contexts are per thread
    }

    @AfterAll
    void release() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void initVersionAndDevices() {
        int version = cuda.driverVersion();
        int count = cuda.deviceCount();
        System.out.println("driver API " + Cuda.formatVersion(version) + " (" + version + "), " + count + " device(s)");
        assertTrue(version >= 11070, "cuMemGetHandleForAddressRange needs CUDA 11.7+: " + version);
        assertTrue(count >= 1);
        for (GpuDevice d : cuda.devices()) {
            System.out.print(d.describe());
        }
    }

    @Test
    void nameAndPciIdentity() {
        String name = cuda.deviceName(device);
        String pci = cuda.pciBusId(device);
        int domain = cuda.deviceAttribute(device, CuDeviceAttribute.PCI_DOMAIN_ID);
        int bus = cuda.deviceAttribute(device, CuDeviceAttribute.PCI_BUS_ID);
        int slot = cuda.deviceAttribute(device, CuDeviceAttribute.PCI_DEVICE_ID);
        System.out.printf("device 0: %s at %s (domain %04x bus %02x device %02x), %d MiB%n",
                name, pci, domain, bus, slot, cuda.deviceTotalMemory(device) >> 20);
        assertFalse(name.isBlank());
        assertTrue(name.contains("NVIDIA"), name);
        assertTrue(pci.matches("[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]"), pci);
        assertEquals(String.format("%02x:%02x.0", bus, slot), pci.substring(pci.indexOf(':') + 1).toLowerCase());
    }

    @Test
    void dmaBufAndGpuDirectRdmaAttributes() {
        int dmaBuf = cuda.deviceAttribute(device, CuDeviceAttribute.DMA_BUF_SUPPORTED);
        int rdma = cuda.deviceAttribute(device, CuDeviceAttribute.GPU_DIRECT_RDMA_SUPPORTED);
        int raw = cuda.deviceAttribute(device, CuDeviceAttribute.CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
        System.out.println("DMA_BUF_SUPPORTED = " + dmaBuf + ", GPU_DIRECT_RDMA_SUPPORTED = " + rdma
                + ", GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = "
                + cuda.deviceAttribute(device, CuDeviceAttribute.GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS)
                + ", GPU_DIRECT_RDMA_WRITES_ORDERING = "
                + cuda.deviceAttribute(device, CuDeviceAttribute.GPU_DIRECT_RDMA_WRITES_ORDERING));
        assertEquals(dmaBuf, raw);
        assertTrue(dmaBuf == 0 || dmaBuf == 1);
        assertTrue(rdma == 0 || rdma == 1);
    }

    @Test
    void allocatesAlignedMemoryWithPointerAttributes() {
        try (DeviceMemory mem = cuda.allocate(MB64)) {
            long p = mem.pointer();
            System.out.println("cuMemAlloc_v2(64 MiB) -> " + Cuda.hex(p) + ", 64 KiB aligned: " + (p % 65536 == 0));
            assertNotEquals(0L, p);
            assertEquals(0, p % 65536, "64 KiB alignment of " + Cuda.hex(p));

            boolean before = cuda.syncMemops(p);
            cuda.setSyncMemops(p, true);
            boolean after = cuda.syncMemops(p);
            long bufferId = cuda.bufferId(p);
            long memType = cuda.pointerGetAttribute(p, Cuda.CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
            System.out.println("SYNC_MEMOPS " + before + " -> " + after + ", BUFFER_ID " + Long.toUnsignedString(bufferId)
                    + ", MEMORY_TYPE " + memType);
            assertTrue(after);
            assertNotEquals(0L, bufferId);
            assertEquals(Cuda.CU_MEMORYTYPE_DEVICE, memType);
            // An interior pointer belongs to the same allocation.
            assertEquals(bufferId, cuda.bufferId(p + 4096));
            try (DeviceMemory other = cuda.allocate(1 << 20)) {
                long otherId = cuda.bufferId(other.pointer());
                System.out.println("second allocation BUFFER_ID " + Long.toUnsignedString(otherId));
                assertNotEquals(bufferId, otherId);
            }
        }
    }

    @Test
    void exportsDmaBuf() {
        boolean supported = cuda.deviceAttribute(device, CuDeviceAttribute.DMA_BUF_SUPPORTED) != 0;
        try (DeviceMemory mem = cuda.allocate(MB64)) {
            if (!supported) {
                CudaException e = assertThrows(CudaException.class, () -> mem.exportDmaBuf(Cuda.CU_MEM_RANGE_FLAG_NONE));
                System.out.println("DMA_BUF_SUPPORTED = 0; export refused as expected: " + e.getMessage());
                assertTrue(e.getMessage().startsWith("cuMemGetHandleForAddressRange("), e.getMessage());
                return;
            }
            int fd = mem.exportDmaBuf(Cuda.CU_MEM_RANGE_FLAG_NONE);
            System.out.println("dma-buf export of 64 MiB at " + Cuda.hex(mem.pointer()) + " -> fd " + fd);
            assertTrue(fd >= 0, "fd " + fd);
            Libc.close(fd);

            // The PCIe mapping type (what a peer PCIe device needs); newer drivers only: report either outcome.
            try {
                int pcieFd = mem.exportDmaBuf(Cuda.CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
                System.out.println("dma-buf export with CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE -> fd " + pcieFd);
                assertTrue(pcieFd >= 0);
                Libc.close(pcieFd);
            } catch (CudaException e) {
                System.out.println("dma-buf export with CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE refused: "
                        + e.getMessage());
                assertTrue(e.getMessage().startsWith("cuMemGetHandleForAddressRange("), e.getMessage());
            }

            // A page-aligned sub-range of the allocation exports too.
            int subFd = cuda.exportDmaBuf(mem.pointer() + (1 << 20), 2 << 20, Cuda.CU_MEM_RANGE_FLAG_NONE);
            System.out.println("dma-buf export of 2 MiB at offset 1 MiB -> fd " + subFd);
            assertTrue(subFd >= 0);
            Libc.close(subFd);
        }
    }

    @Test
    void copiesHostToDeviceAndBack() {
        int n = 1 << 20;
        try (DeviceMemory mem = cuda.allocate(n); Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(n, 64);
            for (int i = 0; i < n / 4; i++) {
                src.setAtIndex(ValueLayout.JAVA_INT, i, i * 0x9E3779B1);
            }
            long t0 = System.nanoTime();
            mem.write(src, n);
            MemorySegment dst = arena.allocate(n, 64);
            mem.read(dst, n);
            long t1 = System.nanoTime();
            System.out.printf("HtoD + DtoH of %d bytes (native segments): %.1f us%n", n, (t1 - t0) / 1e3);
            assertEquals(-1L, src.mismatch(dst), "first differing byte");

            // Heap arrays go through a staging buffer.
            byte[] pattern = new byte[4096];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i * 31 + 5);
            }
            cuda.memcpyHtoD(mem.pointer() + 8192, pattern);
            assertArrayEquals(pattern, cuda.memcpyDtoH(mem.pointer() + 8192, pattern.length));

            cuda.memsetD8(mem.pointer(), (byte) 0xA5, 4096);
            cuda.synchronize();
            byte[] filled = cuda.memcpyDtoH(mem.pointer(), 4096);
            for (byte b : filled) {
                assertEquals((byte) 0xA5, b);
            }
            System.out.println("heap-array copy of 4096 bytes and cuMemsetD8_v2 of 4096 bytes verified");
        }
    }

    @Test
    void doubleFreeIsNamed() {
        long p = cuda.memAlloc(1 << 20);
        cuda.memFree(p);
        CudaException e = assertThrows(CudaException.class, () -> cuda.memFree(p));
        System.out.println("second cuMemFree: " + e.getMessage());
        assertEquals("cuMemFree_v2(" + Cuda.hex(p) + ")", e.call());
        assertTrue(e.errorName().startsWith("CUDA_ERROR_"), e.errorName());
        assertTrue(e.getMessage().startsWith("cuMemFree_v2(" + Cuda.hex(p) + ") failed: " + e.code() + " CUDA_ERROR_"),
                e.getMessage());
    }

    @Test
    void hugeAllocationIsOutOfMemory() {
        long tib = 1L << 40;
        CudaException e = assertThrows(CudaException.class, () -> cuda.memAlloc(tib));
        System.out.println("1 TiB allocation: " + e.getMessage());
        assertEquals(2, e.code());
        assertEquals("cuMemAlloc_v2(1099511627776 bytes) failed: 2 CUDA_ERROR_OUT_OF_MEMORY (out of memory)",
                e.getMessage());
    }

    @Test
    void badDmaBufRangesAreNamed() {
        try (DeviceMemory mem = cuda.allocate(MB64)) {
            CudaException unaligned = assertThrows(CudaException.class,
                    () -> cuda.exportDmaBuf(mem.pointer() + 1, 4096, Cuda.CU_MEM_RANGE_FLAG_NONE));
            System.out.println("unaligned range: " + unaligned.getMessage());
            assertTrue(unaligned.getMessage().startsWith("cuMemGetHandleForAddressRange(" + Cuda.hex(mem.pointer() + 1)),
                    unaligned.getMessage());
            assertTrue(unaligned.errorName().startsWith("CUDA_ERROR_"));

            CudaException tooLarge = assertThrows(CudaException.class,
                    () -> cuda.exportDmaBuf(mem.pointer(), 2 * MB64, Cuda.CU_MEM_RANGE_FLAG_NONE));
            System.out.println("range past the allocation: " + tooLarge.getMessage());
            assertTrue(tooLarge.getMessage().startsWith("cuMemGetHandleForAddressRange("), tooLarge.getMessage());
            assertTrue(tooLarge.errorName().startsWith("CUDA_ERROR_"));
        }
    }
}
