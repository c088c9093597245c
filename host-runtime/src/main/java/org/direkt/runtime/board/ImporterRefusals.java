// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.nio.file.Path;

import org.direkt.runtime.ffi.CsrDevice;

/**
 * The words of the refusals that CSR windows and apertures share: the module's node not open to
 * this user, and the bridge's identity check (the module's {@code csr_identify}, run for both).
 * {@code errno} in each is the errno's name in parentheses, as the callers print it.
 */
final class ImporterRefusals {
    private ImporterRefusals() {
    }

    static String notOpenToUser(Path node, int errno) {
        return node + " is not open to this user (" + CsrDevice.errnoName(errno) + "): the node is root-only (mode 0600);"
                + " run as root, or let a group open it with a udev rule (docs/importer-contract.md, \"The device\")";
    }

    static String notAnswering(String where, String errno) {
        return where + " does not answer" + errno + ": its memory decoding is off or MAGIC reads 0xffffffff; is the BSP's"
                + " driver loaded and the FPGA programmed (aocl diagnose)?";
    }

    static String notADirektBridge(String where, int foundMagic, String errno) {
        return "a bitstream without direkt's bridge: at " + where + " the CSR's MAGIC register reads "
                + String.format("0x%08x", foundMagic) + ", direkt's bridge reads " + String.format("0x%08x", CsrDevice.MAGIC)
                + " (\"DRKT\")" + errno + "; program the bitstream built from this overlay, or check board.csr in direkt-overlay.json";
    }

    static String otherLayoutVersion(String where, int foundVersion, int version, String errno) {
        return "the bitstream's direkt bridge at " + where + " has layout version " + Integer.toUnsignedString(foundVersion)
                + ", the overlay's manifest says " + version + errno
                + ": program the bitstream built from this overlay, or use the overlay the bitstream was built from";
    }
}
