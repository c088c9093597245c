// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ImporterTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final long BAR = 0x38_0000_0000L;

    @Test
    void unfragmentedApertureGivesContiguousFirstFitRanges() {
        SimulatedImporter imp = new SimulatedImporter(BAR, 256 * P);
        ImportedRange a = imp.importDmaBuf(7, 0, 16 * P);
        ImportedRange b = imp.importDmaBuf(7, 16 * P, 4 * P);
        assertEquals(1, a.addressTable(0x7f00_0000_0000L).segmentCount());
        assertEquals(BAR, a.pageBusAddress(0));
        assertEquals(BAR + 16 * P, b.pageBusAddress(0));
        assertEquals(20 * P, imp.mappedBytes());
        imp.release(a);
        // The hole a left is reused first.
        ImportedRange c = imp.importDmaBuf(8, 0, 2 * P);
        assertEquals(BAR, c.pageBusAddress(0));
        assertEquals(6 * P, imp.mappedBytes());
        assertEquals(2, imp.liveImports().size());
    }

    @Test
    void fragmentationIsSeededAndRoughlyTheConfiguredProbability() {
        long[] one = new SimulatedImporter(BAR, 4096 * P, 0.25, 42).importDmaBuf(3, 0, 1024 * P).pageBusAddresses();
        long[] two = new SimulatedImporter(BAR, 4096 * P, 0.25, 42).importDmaBuf(3, 0, 1024 * P).pageBusAddresses();
        assertArrayEquals(one, two, "same seed, same placement");
        long[] other = new SimulatedImporter(BAR, 4096 * P, 0.25, 43).importDmaBuf(3, 0, 1024 * P).pageBusAddresses();
        assertFalse(java.util.Arrays.equals(one, other), "another seed, another placement");

        int breaks = AddressTable.of(0, 1024 * P, one).segmentCount() - 1;
        assertTrue(breaks > 1023 * 0.15 && breaks < 1023 * 0.4, "about 25% of 1023 page boundaries break, got " + breaks);
        Set<Long> distinct = new HashSet<>();
        for (long b : one) {
            assertTrue(b >= BAR && b < BAR + 4096 * P && b % P == 0, "page inside the aperture, aligned: " + Long.toHexString(b));
            distinct.add(b);
        }
        assertEquals(1024, distinct.size());

        long[] full = new SimulatedImporter(BAR, 4096 * P, 1.0, 1).importDmaBuf(3, 0, 512 * P).pageBusAddresses();
        assertEquals(512, AddressTable.of(0, 512 * P, full).segmentCount(), "fragmentation 1: no page follows its predecessor");
    }

    @Test
    void exhaustedApertureIsRefusedWithTheNumbers() {
        SimulatedImporter imp = new SimulatedImporter(BAR, 8 * P, 0.5, 9);
        ImportedRange a = imp.importDmaBuf(3, 0, 6 * P);
        ApertureExhaustedException e = assertThrows(ApertureExhaustedException.class, () -> imp.importDmaBuf(3, 0, 4 * P));
        assertEquals(4 * P, e.requested());
        assertEquals(2 * P, e.free());
        assertTrue(e.getMessage().contains("GPU BAR aperture exhausted: cannot map 262144 B (256 KB), only 131072 B (128 KB) of "
                + "the 524288 B (512 KB) BAR1 budget is free"), e.getMessage());
        imp.release(a);
        ImportedRange b = imp.importDmaBuf(3, 0, 8 * P);
        assertEquals(8, new HashSet<>(List.of(java.util.Arrays.stream(b.pageBusAddresses()).boxed().toArray(Long[]::new))).size());
    }

    @Test
    void argumentsAreChecked() {
        SimulatedImporter imp = new SimulatedImporter(BAR, 8 * P);
        assertThrows(IllegalArgumentException.class, () -> imp.importDmaBuf(-1, 0, P));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> imp.importDmaBuf(3, 4096, P));
        assertTrue(e.getMessage().contains("offset 4096 (0x1000) must be >= 0 and 64 KB aligned"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> imp.importDmaBuf(3, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> imp.importDmaBuf(3, 0, P + 4));
        assertThrows(IllegalArgumentException.class, () -> new SimulatedImporter(BAR + 4, 8 * P));
        assertThrows(IllegalArgumentException.class, () -> new SimulatedImporter(BAR, 8 * P, 1.5, 0));
        assertThrows(IllegalArgumentException.class, () -> new SimulatedImporter(-P, 2 * P));
    }

    @Test
    void releaseIsOncePerImport() {
        SimulatedImporter imp = new SimulatedImporter(BAR, 8 * P);
        ImportedRange a = imp.importDmaBuf(3, 0, P);
        imp.release(a);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> imp.release(a));
        assertTrue(e.getMessage().contains("is not mapped by this importer"), e.getMessage());
        ImportedRange foreign = new SimulatedImporter(BAR, 8 * P).importDmaBuf(3, 0, P);
        assertThrows(IllegalArgumentException.class, () -> imp.release(foreign));
        assertEquals(1, imp.imports());
        assertEquals(1, imp.releases());
    }

    @Test
    void revocationFreesThePagesTellsListenersAndStillNeedsARelease() {
        SimulatedImporter imp = new SimulatedImporter(BAR, 8 * P);
        List<String> told = new ArrayList<>();
        RevocationListener listener = (r, why) -> told.add(r.handle() + ": " + why);
        imp.addRevocationListener(listener);
        ImportedRange a = imp.importDmaBuf(3, 0, 4 * P);
        assertTrue(imp.revoke(a, "memory moved"));
        assertEquals(List.of(a.handle() + ": memory moved"), told);
        assertTrue(imp.isRevoked(a));
        assertEquals(0, imp.mappedBytes(), "a revoked range's pages are back in the aperture");
        assertFalse(imp.revoke(a), "revoking twice tells nobody");
        ImportedRange b = imp.importDmaBuf(3, 0, 8 * P);
        assertEquals(BAR, b.pageBusAddress(0), "the revoked pages are reused");
        imp.release(a); // the owner's release of a revoked range is accepted, once
        assertFalse(imp.isRevoked(a));
        assertThrows(IllegalArgumentException.class, () -> imp.release(a));
        assertFalse(imp.revoke(a), "a released range cannot be revoked");
        imp.removeRevocationListener(listener);
        imp.revoke(b);
        assertEquals(1, told.size());
        assertEquals(2, imp.revocations(), "b was revoked too, with no listener left to tell");
        assertNotEquals(0, imp.liveImports().size());
    }

    @Test
    void noImporterSaysWhatIsMissing() {
        BusAddressImporter none = BusAddressImporter.none();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> none.importDmaBuf(5, 0, P));
        assertTrue(e.getMessage().startsWith("no bus-address importer is configured: the FPGA driver must import the dma-buf (fd 5"),
                e.getMessage());
        assertEquals(java.util.Optional.of("no bus-address importer is configured"), none.unavailableReason());
        BusAddressImporter missing = BusAddressImporter.none("no /dev/direkt_importer");
        assertEquals(java.util.Optional.of("no /dev/direkt_importer"), missing.unavailableReason());
        assertTrue(assertThrows(IllegalStateException.class, () -> missing.importDmaBuf(5, 0, P)).getMessage()
                .startsWith("no /dev/direkt_importer: "));
        assertTrue(new SimulatedImporter(BAR, 16 * P).unavailableReason().isEmpty(), "a working importer has no reason");
        assertTrue(e.getMessage().contains("use SimulatedImporter for testing"), e.getMessage());
        none.addRevocationListener((r, why) -> { });
        ImportedRange r = new ImportedRange(1, 5, 0, P, new long[] {BAR});
        assertThrows(IllegalArgumentException.class, () -> none.release(r));
    }

    @Test
    void importedRangeIsACheckedCopy() {
        long[] pages = {BAR, BAR + P};
        ImportedRange r = new ImportedRange(9, 4, P, 2 * P, pages);
        pages[0] = 0;
        assertEquals(BAR, r.pageBusAddress(0));
        assertEquals("dma-buf fd 4 [0x10000, +128 KB) import #9", r.toString());
        assertThrows(IllegalArgumentException.class, () -> new ImportedRange(1, 4, 0, 2 * P, new long[] {BAR}));
        AddressTable t = r.addressTable(0x7000_0000_0000L);
        assertEquals(BAR + P + 8, t.busAddress(P + 8));
    }
}
