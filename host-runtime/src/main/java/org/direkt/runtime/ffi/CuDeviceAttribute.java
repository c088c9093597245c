// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

/**
 * The {@code CUdevice_attribute} values (cuda.h) that the runtime reads with
 * {@link Cuda#deviceAttribute(int, CuDeviceAttribute)}. Each constant carries the driver's number.
 */
public enum CuDeviceAttribute {
    /** CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: number of streaming multiprocessors. */
    MULTIPROCESSOR_COUNT(16),
    /** CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: PCI bus number of the device. */
    PCI_BUS_ID(33),
    /** CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: PCI device (slot) number of the device. */
    PCI_DEVICE_ID(34),
    /** CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: the device shares a unified address space with the host. */
    UNIFIED_ADDRESSING(41),
    /** CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: PCI domain (segment) number of the device. */
    PCI_DOMAIN_ID(50),
    /** CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR. */
    COMPUTE_CAPABILITY_MAJOR(75),
    /** CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR. */
    COMPUTE_CAPABILITY_MINOR(76),
    /** CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: the device supports GPUDirect RDMA APIs. */
    GPU_DIRECT_RDMA_SUPPORTED(116),
    /** CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: bitmask of CUflushGPUDirectRDMAWritesOptions. */
    GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS(117),
    /** CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: a CUGPUDirectRDMAWritesOrdering value. */
    GPU_DIRECT_RDMA_WRITES_ORDERING(118),
    /** CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: the device can export memory as a Linux dma-buf. */
    DMA_BUF_SUPPORTED(124);

    /** The driver's number of {@link #GPU_DIRECT_RDMA_SUPPORTED}. */
    public static final int CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116;
    /** The driver's number of {@link #DMA_BUF_SUPPORTED}. */
    public static final int CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124;

    private final int code;

    CuDeviceAttribute(int code) {
        this.code = code;
    }

    /** The attribute's number in {@code CUdevice_attribute}. */
    public int code() {
        return code;
    }
}
