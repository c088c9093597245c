// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

/**
 * The bridge's modes that host software and kernels see: which mover a direction drives, how
 * descriptor IDs are handed out, what a kernel reads back as status, how a kernel names GPU memory,
 * and where the descriptor's first word sits on the channel. The generators build the hardware
 * from them; the runtime and the OpenCL header speak them.
 */
public final class BridgeModes {
    private BridgeModes() {
    }

    public enum Direction {
        RD("rd", "GPU->FPGA (Read Data Mover)"), WR("wr", "FPGA->GPU (Write Data Mover)");

        private final String tag;
        private final String describe;

        Direction(String tag, String describe) {
            this.tag = tag;
            this.describe = describe;
        }

        public String tag() {
            return tag;
        }

        public String describe() {
            return describe;
        }
    }

    /** Managed: the bridge hands out IDs 128.. itself. Paper: the kernel's ID from x4 goes through. */
    public enum IdMode { MANAGED, PAPER }

    /** Tagged: tag, error code, elapsed cycles. Cycles: the elapsed cycles (high word all ones on error). */
    public enum StatusMode { TAGGED, CYCLES }

    /**
     * Raw: kernels write descriptors with PCIe bus addresses, checked against the window table.
     * Regions: kernels write region requests (region, offset, length, FPGA address), translated by a
     * region walker per direction through a page table the host programs; a kernel never names
     * a bus address.
     */
    public enum Addressing { RAW, REGIONS }

    /** Where cldesc word x0 sits on the 256-bit channel: bits [31:0] (default) or [255:224]. */
    public enum WordOrder { X0_LOW, X0_HIGH }
}
