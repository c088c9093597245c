// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What the CUDA driver reports about one GPU: its name, PCI address, memory and the
 * {@link CuDeviceAttribute} values (an attribute the driver does not know is left out).
 *
 * @param ordinal the device's ordinal (0-based, in the driver's order)
 * @param handle the CUdevice
 * @param name the marketing name
 * @param pciBusId the PCI address "dddd:bb:dd.f"
 * @param totalMemoryBytes the device memory
 * @param attributes attribute values, in enum order
 */
public record GpuDevice(int ordinal, int handle, String name, String pciBusId, long totalMemoryBytes,
                        Map<CuDeviceAttribute, Integer> attributes) {

    /** Copies the attribute map (unmodifiable, in enum order). */
    public GpuDevice {
        EnumMap<CuDeviceAttribute, Integer> copy = new EnumMap<>(CuDeviceAttribute.class);
        copy.putAll(attributes);
        attributes = Collections.unmodifiableMap(copy);
    }

    /** Queries the device with this ordinal ({@link Cuda#init()} must have run). */
    public static GpuDevice query(Cuda cuda, int ordinal) {
        int dev = cuda.device(ordinal);
        EnumMap<CuDeviceAttribute, Integer> attrs = new EnumMap<>(CuDeviceAttribute.class);
        for (CuDeviceAttribute a : CuDeviceAttribute.values()) {
            try {
                attrs.put(a, cuda.deviceAttribute(dev, a));
            } catch (CudaException e) {
                // An attribute newer than the driver: CUDA_ERROR_INVALID_VALUE. Leave it out.
            }
        }
        return new GpuDevice(ordinal, dev, cuda.deviceName(dev), cuda.pciBusId(dev), cuda.deviceTotalMemory(dev), attrs);
    }

    /** The attribute's value, empty when the driver did not report it. */
    public OptionalInt attribute(CuDeviceAttribute attribute) {
        Integer v = attributes.get(attribute);
        return v == null ? OptionalInt.empty() : OptionalInt.of(v);
    }

    /** Whether the device can export memory as a dma-buf ({@link CuDeviceAttribute#DMA_BUF_SUPPORTED}). */
    public boolean dmaBufSupported() {
        return attribute(CuDeviceAttribute.DMA_BUF_SUPPORTED).orElse(0) != 0;
    }

    /** Whether the device supports GPUDirect RDMA ({@link CuDeviceAttribute#GPU_DIRECT_RDMA_SUPPORTED}). */
    public boolean gpuDirectRdmaSupported() {
        return attribute(CuDeviceAttribute.GPU_DIRECT_RDMA_SUPPORTED).orElse(0) != 0;
    }

    /** The compute capability as "major.minor", or "?" when unknown. */
    public String computeCapability() {
        OptionalInt major = attribute(CuDeviceAttribute.COMPUTE_CAPABILITY_MAJOR);
        OptionalInt minor = attribute(CuDeviceAttribute.COMPUTE_CAPABILITY_MINOR);
        return major.isPresent() && minor.isPresent() ? major.getAsInt() + "." + minor.getAsInt() : "?";
    }

    /** A multi-line report: name, PCI address, memory, then one attribute per line. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("GPU ").append(ordinal).append(": ").append(name).append('\n');
        sb.append("  PCI bus id:          ").append(pciBusId).append('\n');
        sb.append("  memory:              ").append(totalMemoryBytes >> 20).append(" MiB\n");
        sb.append("  compute capability:  ").append(computeCapability()).append('\n');
        attributes.forEach((a, v) -> sb.append("  ").append(String.format("%-37s", a.name() + " (" + a.code() + "):"))
                .append(' ').append(v).append('\n'));
        return sb.toString();
    }
}
