// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

/** How a GPU buffer's data travels between GPU memory and FPGA memory. */
public enum DataPath {
    /**
     * Peer-to-peer: GPU memory is exported as a dma-buf, the importer maps it for the FPGA, and
     * kernel descriptors on those bus addresses let the FPGA's data movers read and write the GPU's
     * memory directly. No CPU copy.
     */
    DIRECT,
    /**
     * Through pinned host memory: a CUDA copy between GPU memory and a pinned host buffer, and the
     * FPGA's host DMA path (host descriptors through the BSP's descriptor controller) between that
     * buffer and FPGA memory. Taken when peer-to-peer is not possible.
     */
    BOUNCE,
    /**
     * GPU master: the GPU's copy engine writes or reads FPGA memory through the overlay's aperture, a
     * flat FPGA-memory BAR that CUDA registered as I/O memory. Only a copy takes it
     * ({@link ApertureCopy}, {@link Session#masters()}), never a buffer; no CPU copy, no FPGA data mover.
     */
    APERTURE
}
