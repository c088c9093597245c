// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

/** Which device's engine moves a copy's bytes across PCIe ({@link Session.Copy#master()}). */
public enum Master {
    /**
     * The GPU's copy engine: it writes (GPU -> FPGA) or reads (FPGA -> GPU) FPGA memory through the
     * overlay's aperture, a flat FPGA-memory BAR that CUDA registered as I/O memory ({@link ApertureCopy}).
     */
    GPU_MASTER,
    /**
     * The FPGA's data movers: kernel descriptors on the GPU buffer's bus addresses or through a region
     * (the direct path), or host DMA from pinned host memory (the bounce path).
     */
    FPGA_MASTER
}
