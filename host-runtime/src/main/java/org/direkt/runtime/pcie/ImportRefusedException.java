// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * The exporter of a dma-buf refuses to map it for the FPGA: there is no peer-to-peer path between
 * the GPU and the FPGA (the exporter does not allow P2P for this device, the two sit under
 * different root complexes, or the exporter does not support the importer's kind of attachment).
 * Nothing was mapped; the memory can still reach the FPGA through host memory.
 */
public final class ImportRefusedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ImportRefusedException(String message) {
        super(message);
    }
}
