// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

/**
 * Prints what the CUDA driver reports about every GPU (driver version, names, PCI addresses,
 * dma-buf and GPUDirect RDMA support). Run with {@code --enable-native-access=ALL-UNNAMED}; exits
 * with 1 when libcuda.so.1 cannot be loaded and 2 when the driver fails.
 */
public final class GpuInfo {
    private GpuInfo() {}

    /** Entry point; takes no arguments. */
    public static void main(String[] args) {
        Cuda cuda;
        try {
            cuda = Cuda.load();
        } catch (NativeLibraryException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        try {
            cuda.init();
            System.out.println("CUDA driver API version " + Cuda.formatVersion(cuda.driverVersion()));
            var devices = cuda.devices();
            System.out.println(devices.size() + " device(s)");
            devices.forEach(d -> System.out.print(d.describe()));
        } catch (CudaException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
    }
}
