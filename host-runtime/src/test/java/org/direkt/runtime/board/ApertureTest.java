// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.ffi.ApertureDevice;
import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.pcie.HeaderAbi;
import org.direkt.runtime.pcie.PciAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aperture's parts that need no kernel module: its request's layout against the C header, and
 * the words each refusal of the module (the open and the mapping) is named in. The module itself
 * is exercised in the VM test (make test-importer).
 */
class ApertureTest {
    private static final CsrRange CSR = new CsrRange(PciAddress.parse("0000:3b:00.0"), 4, 0x20000, 0x1000);
    private static final OverlayManifest.Aperture DECLARED = new OverlayManifest.Aperture(2, 256L << 20, 1L << 30, 16, 512);
    private static final Path NODE = Path.of("/dev/direkt_importer");

    @TempDir
    Path dir;

    /** The request is the header's: 72 bytes, each field where the header puts it, and the same request number. */
    @Test
    void abiIsTheHeaders() throws IOException, InterruptedException {
        Map<String, Long> java = ApertureDevice.abi();
        assertEquals(new TreeMap<>(java), HeaderAbi.of(java, dir));
        assertEquals(72, java.get("sizeof(struct direkt_aperture_open)"), "the header documents 72 bytes");
        long[] offsets = {0, 24, 28, 32, 36, 40, 48, 56, 60, 64, 68};
        String[] fields = {"csr", "version", "flags", "bar", "fd", "offset", "length", "found_magic", "found_version", "caching",
            "reserved"};
        for (int i = 0; i < fields.length; i++) {
            assertEquals(offsets[i], java.get("offsetof(struct direkt_aperture_open, " + fields[i] + ")"), fields[i]);
        }
        assertEquals(0xC048_D709L, java.get("DIREKT_IOC_APERTURE_OPEN"), "_IOWR(0xD7, 9, 72 bytes)");
    }

    @Test
    void aMissingModuleIsNamedWithWhatToDo() {
        ApertureException e = assertThrows(ApertureException.class,
                () -> Aperture.open(dir.resolve("direkt_importer"), CSR, DECLARED, 2));
        assertEquals(ApertureException.Reason.NO_MODULE, e.reason());
        assertTrue(e.getMessage().startsWith("no " + dir.resolve("direkt_importer") + ": the importer kernel module is not"
                + " loaded, and GPU-master copies need its aperture"), e.getMessage());
    }

    /** A node that answers no aperture request (/dev/null: ENOTTY), as a module older than apertures does. */
    @Test
    void aModuleWithoutAperturesIsNamed() {
        ApertureException e = assertThrows(ApertureException.class, () -> Aperture.open(Path.of("/dev/null"), CSR, DECLARED, 2));
        assertEquals(ApertureException.Reason.MODULE_WITHOUT_APERTURES, e.reason());
        assertEquals(CsrDevice.ENOTTY, e.errno());
        assertTrue(e.getMessage().startsWith("/dev/null is a direkt_importer without apertures (ENOTTY (25)): load the module"
                + " from this release"), e.getMessage());
    }

    private static ApertureException refused(int errno, int magic, int version) {
        return ApertureException.refused(NODE, CSR, 2, 2, 0, 256L << 20, new ApertureDevice.Opened(errno, -1, magic, version, 0));
    }

    private static void assertRefused(ApertureException.Reason reason, String start, ApertureException e) {
        assertEquals(reason, e.reason());
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }

    @Test
    void eachRefusalOfTheOpenSaysWhatIsMissing() {
        assertRefused(ApertureException.Reason.NO_FPGA, "no FPGA at 0000:3b:00.0: no PCI function has that address (ENODEV (19))",
                refused(CsrDevice.ENODEV, 0, 0));
        assertRefused(ApertureException.Reason.NOT_A_MEMORY_BAR, "BAR 2 (the aperture's) or BAR 4 (the CSR's) of 0000:3b:00.0 is"
                + " not a memory BAR (ENXIO (6)): the bitstream has no flat FPGA-memory BAR", refused(CsrDevice.ENXIO, 0, 0));
        assertRefused(ApertureException.Reason.BEYOND_THE_BAR, "0000:3b:00.0 BAR 2 [0x0, +256 MB) (or the CSR 0000:3b:00.0 BAR 4"
                + " [0x20000, +4 KB)) ends past its BAR (ERANGE (34)): the bitstream's BAR is smaller than aperture.bar_bytes",
                refused(CsrDevice.ERANGE, 0, 0));
        assertRefused(ApertureException.Reason.OVERLAPS_THE_CSR, "0000:3b:00.0 BAR 2 [0x0, +256 MB) shares a page with the"
                + " bridge's registers", refused(ApertureDevice.EADDRINUSE, 0, 0));
        assertTrue(refused(ApertureDevice.EADDRINUSE, 0, 0).getMessage().contains("(EADDRINUSE (98))"));
        assertRefused(ApertureException.Reason.NOT_PAGE_ALIGNED, "the aperture 0000:3b:00.0 BAR 2 [0x0, +256 MB) is not whole"
                + " pages of", refused(CsrDevice.EINVAL, 0, 0));
        assertRefused(ApertureException.Reason.NOT_ANSWERING, "BAR 4 + 0x20000 of 0000:3b:00.0 does not answer (EIO (5))",
                refused(CsrDevice.EIO, -1, -1));
        assertRefused(ApertureException.Reason.NOT_A_DIREKT_BRIDGE, "a bitstream without direkt's bridge: at BAR 4 + 0x20000 of"
                + " 0000:3b:00.0 the CSR's MAGIC register reads 0x010000ed, direkt's bridge reads 0x44524b54 (\"DRKT\")"
                + " (EMEDIUMTYPE (124))", refused(CsrDevice.EMEDIUMTYPE, 0x010000ed, 0));
        assertRefused(ApertureException.Reason.OTHER_LAYOUT_VERSION, "the bitstream's direkt bridge at BAR 4 + 0x20000 of"
                + " 0000:3b:00.0 has layout version 1, the overlay's manifest says 2 (EPROTO (71))",
                refused(CsrDevice.EPROTO, CsrDevice.MAGIC, 1));
        assertRefused(ApertureException.Reason.NO_RESOURCES, "the aperture 0000:3b:00.0 BAR 2 [0x0, +256 MB) could not be made"
                + " (EMFILE (24))", refused(ApertureDevice.EMFILE, 0, 0));
        assertEquals(ApertureException.Reason.REFUSED, refused(ApertureDevice.EFAULT, 0, 0).reason());
        assertRefused(ApertureException.Reason.NO_ACCESS, NODE + " is not open to this user (EACCES (13)): the node is root-only",
                ApertureException.cannotOpen(NODE, CsrDevice.EACCES));
    }

    @Test
    void eachRefusedMappingSaysWhy() {
        String range = "0000:3b:00.0 BAR 2 [0x0, +256 MB)";
        assertRefused(ApertureException.Reason.FPGA_REMOVED, "mapping the aperture " + range + " failed (ENODEV (19)): the FPGA"
                + " was removed from the PCI bus after the aperture opened", ApertureException.mapRefused(range, CsrDevice.ENODEV));
        assertRefused(ApertureException.Reason.NO_RESOURCES, "mapping the aperture " + range + " failed (ENOMEM (12)): no address"
                + " space", ApertureException.mapRefused(range, ApertureDevice.ENOMEM));
        assertRefused(ApertureException.Reason.BEYOND_THE_BAR, "mapping the aperture " + range + " failed (ERANGE (34))",
                ApertureException.mapRefused(range, CsrDevice.ERANGE));
        assertTrue(ApertureException.mapRefused(range, CsrDevice.EINVAL).getMessage().contains("never private or executable"));
    }
}
