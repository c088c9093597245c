// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.contract.Layout;
import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.pcie.HeaderAbi;
import org.direkt.runtime.pcie.PciAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CSR window's parts that need no kernel module: its ABI against the C header, the identity
 * registers against the bridge's layout, the range's rules, and the words each refusal is named
 * in. The module itself is exercised in the VM test (make test-importer), from C and from Java.
 */
class CsrWindowTest {
    private static final CsrRange RANGE = new CsrRange(PciAddress.parse("0000:3b:00.0"), 4, 0x20000, 0x1000);
    private static final Path NODE = Path.of("/dev/direkt_importer");

    @TempDir
    Path dir;

    /** Every struct size, field offset, request number and constant the Java side uses is the C header's. */
    @Test
    void abiIsTheHeaders() throws IOException, InterruptedException {
        Map<String, Long> java = CsrDevice.abi();
        Map<String, Long> header = HeaderAbi.of(java, dir);
        assertEquals(new TreeMap<>(java), header);
        assertEquals(48, java.get("sizeof(struct direkt_csr_open)"), "the open request is 48 bytes on every ABI");
    }

    /** The module identifies the bridge by the registers the generators give it (CSR words, 4 bytes each). */
    @Test
    void theIdentityIsTheBridgesMagicAndVersion() {
        assertEquals(Layout.CSR_MAGIC, Integer.toUnsignedLong(CsrDevice.MAGIC));
        assertEquals(4 * Layout.CSR_MAGIC_OFFSET, CsrDevice.MAGIC_OFFSET);
        assertEquals(4 * Layout.CSR_VERSION_OFFSET, CsrDevice.VERSION_OFFSET);
    }

    @Test
    void aRangeIsWholeWordsOfOneBar() {
        assertEquals("0000:3b:00.0 BAR 4 [0x20000, +4 KB)", RANGE.toString());
        PciAddress f = RANGE.fpga();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CsrRange(f, 6, 0, 64)).getMessage()
                .contains("BARs 0..5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CsrRange(f, 0, 2, 64)).getMessage()
                .contains("CSR offset 0x2 in BAR 0 of 0000:3b:00.0: must be a non-negative multiple of 4"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CsrRange(f, 0, 0, 4)).getMessage()
                .contains("at least 8 B (MAGIC and VERSION)"));
    }

    @Test
    void aMissingModuleIsNamedWithWhatToDo() {
        CsrWindowException e = assertThrows(CsrWindowException.class,
                () -> CsrWindow.open(dir.resolve("direkt_importer"), RANGE, 2));
        assertEquals(CsrWindowException.Reason.NO_MODULE, e.reason());
        assertTrue(e.getMessage().startsWith("no " + dir.resolve("direkt_importer")
                + ": the importer kernel module is not loaded"), e.getMessage());
    }

    /** A node that answers no CSR request (/dev/null: ENOTTY), as a module older than CSR windows does. */
    @Test
    void aModuleWithoutCsrWindowsIsNamed() {
        CsrWindowException e = assertThrows(CsrWindowException.class, () -> CsrWindow.open(Path.of("/dev/null"), RANGE, 2));
        assertEquals(CsrWindowException.Reason.MODULE_WITHOUT_CSR, e.reason());
        assertTrue(e.getMessage().startsWith("/dev/null is a direkt_importer without CSR windows (ENOTTY (25)): load the"
                + " module from this release"), e.getMessage());
    }

    private static CsrWindowException refused(int errno, int magic, int version) {
        return CsrWindowException.refused(NODE, RANGE, 2, new CsrDevice.Opened(errno, 0, magic, version));
    }

    @Test
    void eachRefusalOfTheWindowSaysWhatIsMissing() {
        CsrWindowException e = refused(CsrDevice.ENODEV, 0, 0);
        assertEquals(CsrWindowException.Reason.NO_FPGA, e.reason());
        assertTrue(e.getMessage().startsWith("no FPGA at 0000:3b:00.0: no PCI function has that address (ENODEV (19))"),
                e.getMessage());
        e = refused(CsrDevice.EMEDIUMTYPE, 0x010000ed, 0);
        assertEquals(CsrWindowException.Reason.NOT_A_DIREKT_BRIDGE, e.reason());
        assertTrue(e.getMessage().startsWith("a bitstream without direkt's bridge: at BAR 4 + 0x20000 of 0000:3b:00.0 the"
                + " CSR's MAGIC register reads 0x010000ed, direkt's bridge reads 0x44524b54 (\"DRKT\") (EMEDIUMTYPE (124))"),
                e.getMessage());
        e = refused(CsrDevice.EPROTO, CsrDevice.MAGIC, 1);
        assertEquals(CsrWindowException.Reason.OTHER_LAYOUT_VERSION, e.reason());
        assertTrue(e.getMessage().startsWith("the bitstream's direkt bridge at BAR 4 + 0x20000 of 0000:3b:00.0 has layout"
                + " version 1, the overlay's manifest says 2 (EPROTO (71))"), e.getMessage());
        assertEquals(CsrWindowException.Reason.NOT_A_MEMORY_BAR, refused(CsrDevice.ENXIO, 0, 0).reason());
        assertTrue(refused(CsrDevice.ENXIO, 0, 0).getMessage().startsWith("BAR 4 of 0000:3b:00.0 is not a memory BAR (ENXIO (6))"));
        assertEquals(CsrWindowException.Reason.BEYOND_THE_BAR, refused(CsrDevice.ERANGE, 0, 0).reason());
        assertTrue(refused(CsrDevice.ERANGE, 0, 0).getMessage()
                .startsWith("0000:3b:00.0 BAR 4 [0x20000, +4 KB) ends past BAR 4 (ERANGE (34))"));
        assertEquals(CsrWindowException.Reason.NOT_ANSWERING, refused(CsrDevice.EIO, -1, -1).reason());
        assertTrue(refused(CsrDevice.EIO, -1, -1).getMessage().contains("is the BSP's driver loaded and the FPGA programmed"));
        assertEquals(CsrWindowException.Reason.REFUSED, refused(12, 0, 0).reason());
        assertEquals(CsrWindowException.Reason.NO_ACCESS, CsrWindowException.cannotOpen(NODE, CsrDevice.EACCES).reason());
        assertTrue(CsrWindowException.cannotOpen(NODE, CsrDevice.EACCES).getMessage()
                .contains("the node is root-only (mode 0600); run as root, or let a group open it with a udev rule"));
    }

    @Test
    void eachRefusedAccessSaysWhy() {
        CsrWindowException e = CsrWindowException.access(RANGE, "read", 0x1000, CsrDevice.ERANGE);
        assertEquals(CsrWindowException.Reason.OUTSIDE_THE_WINDOW, e.reason());
        assertEquals("read of register 0x1000 refused: it lies outside the CSR window 0000:3b:00.0 BAR 4 [0x20000, +4 KB),"
                + " registers 0x0..0xffc (ERANGE (34))", e.getMessage());
        e = CsrWindowException.access(RANGE, "write", 6, CsrDevice.EINVAL);
        assertEquals(CsrWindowException.Reason.OUTSIDE_THE_WINDOW, e.reason());
        assertEquals("write of register 0x6 refused: the CSR's registers are 32-bit words at multiples of 4 (EINVAL (22))",
                e.getMessage());
        e = CsrWindowException.access(RANGE, "read", 8, CsrDevice.ENODEV);
        assertEquals(CsrWindowException.Reason.FPGA_REMOVED, e.reason());
        assertTrue(e.getMessage().contains("0000:3b:00.0 was removed from the PCI bus after the window opened"), e.getMessage());
    }
}
