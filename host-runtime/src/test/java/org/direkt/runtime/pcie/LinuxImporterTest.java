// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.runtime.ffi.ImporterDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux importer's parts that need no kernel module: its ABI against the C header, finding the
 * module and the FPGA (and the reason when one is missing), PCI addresses, and turning segments
 * into 64 KB pages. The module itself is exercised in the VM test (make test-importer).
 */
class LinuxImporterTest {
    private static final long P = AddressTable.PAGE_SIZE;

    @TempDir
    Path dir;

    /** Every struct size, field offset and request number the Java side uses is the C header's. */
    @Test
    void abiIsTheHeaders() throws IOException, InterruptedException {
        Map<String, Long> java = ImporterDevice.abi();
        Map<String, Long> header = HeaderAbi.of(java, dir);
        assertEquals(new TreeMap<>(java), header);
        assertEquals(56, java.get("sizeof(struct direkt_import)"), "the import request is 56 bytes on every 64-bit ABI");
    }

    @Test
    void aMissingModuleIsNamedWithWhatToDo() {
        BusAddressImporter imp = LinuxBusAddressImporter.locate(dir.resolve("direkt_importer"), dir, "0000:3b:00.0");
        String why = imp.unavailableReason().orElseThrow();
        assertTrue(why.startsWith("no " + dir.resolve("direkt_importer") + ": the importer kernel module is not loaded"), why);
        assertTrue(why.contains("insmod host-runtime/driver/direkt_importer.ko"), why);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> imp.importDmaBuf(3, 0, P));
        assertTrue(e.getMessage().startsWith(why), e.getMessage());
    }

    @Test
    void theFpgaIsFoundByItsVendorOrNamed() throws IOException {
        Path node = Files.createFile(dir.resolve("node"));
        Path sys = Files.createDirectories(dir.resolve("devices"));
        String none = LinuxBusAddressImporter.locate(node, sys, null).unavailableReason().orElseThrow();
        assertTrue(none.startsWith("no Intel FPGA (PCI vendor 0x1172) under " + sys), none);
        device(sys, "0000:00:01.0", "0x8086");
        device(sys, "0000:3b:00.0", "0x1172");
        assertEquals(List.of(PciAddress.parse("0000:3b:00.0")), PciAddress.withVendor(sys, PciAddress.INTEL_FPGA_VENDOR));
        device(sys, "0001:af:00.1", "0x1172");
        String two = LinuxBusAddressImporter.locate(node, sys, null).unavailableReason().orElseThrow();
        assertTrue(two.startsWith("2 Intel FPGAs [0000:3b:00.0, 0001:af:00.1]: choose one with DIREKT_FPGA="), two);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> LinuxBusAddressImporter.locate(node, sys, "3b:00"));
        assertTrue(bad.getMessage().startsWith("the FPGA's address (--fpga or DIREKT_FPGA): '3b:00' is not a PCI address"), bad.getMessage());
    }

    /** A node that answers no importer ioctl (here a plain file: ENOTTY) is named as not the importer. */
    @Test
    void aNodeThatIsNotTheImporterIsNamed() throws IOException {
        Path node = Files.createFile(dir.resolve("not-the-importer"));
        String why = LinuxBusAddressImporter.locate(node, dir, "0000:3b:00.0").unavailableReason().orElseThrow();
        assertEquals(node + " is not the direkt importer (DIREKT_IOC_STATS failed: ENOTTY (25))", why);
    }

    private static void device(Path sys, String name, String vendor) throws IOException {
        Files.writeString(Files.createDirectories(sys.resolve(name)).resolve("vendor"), vendor + "\n");
    }

    @Test
    void pciAddressesParseAndPrintAsLinuxWritesThem() {
        assertEquals(new PciAddress(0, 0x3b, 0, 0), PciAddress.parse("0000:3b:00.0"));
        assertEquals(new PciAddress(0x10000, 0xaf, 0x1f, 7), PciAddress.parse("10000:af:1f.7"));
        assertEquals("0000:03:00.1", PciAddress.parse("03:00.1").toString());
        assertThrows(IllegalArgumentException.class, () -> PciAddress.parse("0000:3b:20.0"), "device 32");
        assertThrows(IllegalArgumentException.class, () -> PciAddress.parse("0000:3b:00.8"), "function 8");
        assertThrows(IllegalArgumentException.class, () -> PciAddress.parse("0000:3b:00"), "no function");
        assertThrows(IllegalArgumentException.class, () -> new PciAddress(0, 256, 0, 0));
    }

    @Test
    void segmentsBecomePagesInBufferOrder() {
        long[] pages = LinuxBusAddressImporter.pages(new long[] {0x10_0000, 0x80_0000}, new long[] {2 * P, P}, 3 * P);
        assertArrayEquals(new long[] {0x10_0000, 0x10_0000 + P, 0x80_0000}, pages);
        IllegalStateException odd = assertThrows(IllegalStateException.class,
                () -> LinuxBusAddressImporter.pages(new long[] {0x1000}, new long[] {4096}, P));
        assertTrue(odd.getMessage().contains("segment 0 (4096 B (4 KB) at bus 0x1000) in a piece that is not whole 64 KB pages"),
                odd.getMessage());
        IllegalStateException shortTable = assertThrows(IllegalStateException.class,
                () -> LinuxBusAddressImporter.pages(new long[] {0x10_0000}, new long[] {P}, 2 * P));
        assertTrue(shortTable.getMessage().contains("segments cover"), shortTable.getMessage());
        assertThrows(IllegalStateException.class,
                () -> LinuxBusAddressImporter.pages(new long[] {0x10_0000}, new long[] {3 * P}, 2 * P), "too long");
    }
}
