// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;
import org.direkt.contract.WindowTable;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.WindowBlock;

/**
 * The bridge's windows as a session opens them (raw addressing): kernels reach only the PCIe ranges
 * the host opens, each a naturally aligned power-of-two block programmed into the next free entry
 * of the window table by the manifest's register names. Windows govern kernel descriptors only:
 * host DMA does not pass through them.
 */
final class Windows {
    private final WindowTable table;
    private final FpgaDevice fpga;
    private final List<WindowBlock> opened = new ArrayList<>();

    Windows(WindowTable table, FpgaDevice fpga) {
        this.table = table;
        this.fpga = fpga;
    }

    /**
     * Opens {@code [base, last]} (inclusive) in both directions: the next free entry's BASE_LO,
     * BASE_HI, SIZE and CTRL written. {@code last - base + 1} must be a power of two of at least
     * 2^{@code window_min_log2} bytes (1 MB) and {@code base} a multiple of it.
     *
     * @return the window entry used
     * @throws IllegalArgumentException the range is not such a block (the message says why)
     * @throws IllegalStateException    every window entry of the bridge is already open
     */
    int open(long base, long last) {
        WindowBlock w = WindowBlock.of(base, last, table.minLog2(), table.maxLog2());
        int i = opened.size();
        if (i >= table.entries()) {
            throw new IllegalStateException("cannot open window [" + Bytes.hex(base) + ", " + Bytes.hex(last)
                    + "]: all " + table.entries() + " window entries of the bridge are open");
        }
        List<String> regs = table.names().get(i);
        fpga.csrWrite(regs.get(0), w.base() & 0xFFFF_FFFFL);
        fpga.csrWrite(regs.get(1), w.base() >>> 32);
        fpga.csrWrite(regs.get(2), Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", w.log2())).longValueExact());
        fpga.csrWrite(regs.get(3), Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact());
        opened.add(w);
        return i;
    }

    /** The windows opened so far, in entry order. */
    List<WindowBlock> opened() {
        return List.copyOf(opened);
    }
}
