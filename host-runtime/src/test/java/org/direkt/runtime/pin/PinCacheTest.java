// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import static org.direkt.runtime.pin.ImporterPinner.GPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.Test;

class PinCacheTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final long MB = 1 << 20;

    /** Range i: 1 MB at GPU + i MB. */
    private static PinRange r(int i) {
        return new PinRange(GPU + i * MB, MB);
    }

    /** Records pins and unpins as "+i" / "-i" (i the range's MB index); the value is a sequence number. */
    private static final class Recorder implements Pinner<Integer> {
        final List<String> log = new ArrayList<>();
        int next;

        @Override
        public Integer pin(PinRange range) {
            log.add("+" + (range.gpuBase() - GPU) / MB);
            return next++;
        }

        @Override
        public void unpin(PinRange range, Integer pinned) {
            log.add("-" + (range.gpuBase() - GPU) / MB);
        }
    }

    private static void use(PinCache<?> cache, int... ranges) {
        for (int i : ranges) {
            cache.pin(r(i)).close();
        }
    }

    @Test
    void hitsAndMissesAreCountedAndRangesStayPinnedAfterUse() {
        Recorder rec = new Recorder();
        PinCache<Integer> cache = PinCache.lru(4 * MB, rec);
        try (Lease<Integer> a = cache.pin(r(0)); Lease<Integer> b = cache.pin(r(0))) {
            assertSame(a.pinned(), b.pinned());
            assertEquals(r(0), a.range());
        }
        use(cache, 0, 1, 0);
        assertEquals(List.of("+0", "+1"), rec.log, "lazy unpinning: nothing unpinned while there is room");
        PinCacheStats s = cache.stats();
        assertEquals(3, s.hits());
        assertEquals(2, s.misses());
        assertEquals(0, s.evictions());
        assertEquals(2 * MB, s.pinnedBytes());
        assertEquals(2, s.entries());
        assertEquals(0, s.openLeases());
        assertEquals(0, s.leasedEntries());
        assertEquals(2, s.pinCalls());
        assertEquals(0, s.unpinCalls());
        assertEquals(4 * MB, s.budgetBytes());
    }

    @Test
    void lruEvictsTheLeastRecentlyLeasedIdleRangesOnlyWhenFull() {
        Recorder rec = new Recorder();
        PinCache<Integer> cache = PinCache.lru(3 * MB, rec);
        use(cache, 0, 1, 2);
        use(cache, 0); // 1 is now the least recently used
        assertEquals(List.of(r(1), r(2), r(0)), cache.cachedRanges());
        use(cache, 3);
        assertEquals(List.of("+0", "+1", "+2", "-1", "+3"), rec.log);
        use(cache, 4);
        assertEquals("-2", rec.log.get(5));
        assertEquals(List.of(r(0), r(3), r(4)), cache.cachedRanges());
        // A 2 MB range needs two victims.
        cache.pin(new PinRange(GPU + 10 * MB, 2 * MB)).close();
        assertEquals(List.of("-0", "-3", "+10"), rec.log.subList(7, 10));
        assertEquals(4, cache.stats().evictions());
        assertEquals(3 * MB, cache.stats().pinnedBytes());
    }

    @Test
    void aLeasedRangeIsNeverEvicted() {
        Recorder rec = new Recorder();
        PinCache<Integer> cache = PinCache.lru(2 * MB, rec);
        try (Lease<Integer> held = cache.pin(r(0))) {
            use(cache, 1, 2, 3);
            assertTrue(cache.contains(r(0)));
            assertEquals(List.of("+0", "+1", "-1", "+2", "-2", "+3"), rec.log);
            assertEquals(1, cache.stats().leasedEntries());
            assertEquals(0, held.pinned());
            try (Lease<Integer> other = cache.pin(r(3))) {
                PinBudgetExceededException e = assertThrows(PinBudgetExceededException.class, () -> cache.pin(r(4)));
                assertTrue(e.getMessage().startsWith("cannot pin [gpu 0x7f0000400000, +1 MB) (1048576 B (1 MB)): 2097152 B "
                        + "(2 MB) of the 2097152 B (2 MB) pin budget is pinned, 2097152 B (2 MB) of it leased"), e.getMessage());
                assertTrue(other.isValid());
            }
            assertEquals(List.of(r(0), r(3)), cache.cachedRanges(), "a refused pin unpins nothing");
        }
        use(cache, 4);
        assertEquals("-0", rec.log.get(6), "once its lease is closed the range is the LRU victim");
    }

    @Test
    void aRangeLargerThanTheBudgetIsRefused() {
        PinCache<Integer> cache = PinCache.lru(2 * MB, new Recorder());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cache.pin(new PinRange(GPU, 2 * MB + P)));
        assertEquals("cannot pin [gpu 0x7f0000000000, +2.063 MB): its 2162688 B (2.063 MB) exceed the whole pin budget of "
                + "2097152 B (2 MB) (the BAR1 space set aside for pinning)", e.getMessage());
        assertEquals(0, cache.stats().misses());
        assertThrows(IllegalArgumentException.class, () -> cache.pin(GPU + 4096, P));
    }

    @Test
    void keepFirstNKeepsTheFirstRangesAndEvictsTheRestLru() {
        Recorder rec = new Recorder();
        PinCache<Integer> cache = PinCache.keepFirst(2, 4 * MB, rec);
        use(cache, 0, 1, 2, 3); // 0 and 1 are kept
        assertTrue(cache.isKept(r(0)) && cache.isKept(r(1)) && !cache.isKept(r(2)));
        assertEquals(2, cache.stats().keptEntries());
        use(cache, 2); // 3 is the least recently used of the others
        use(cache, 4, 5, 6, 7, 8);
        assertEquals(List.of("+0", "+1", "+2", "+3", "-3", "+4", "-2", "+5", "-4", "+6", "-5", "+7", "-6", "+8"), rec.log,
                "kept ranges 0 and 1 are never chosen though least recently used");
        assertTrue(cache.contains(r(0)) && cache.contains(r(1)));

        // Kept ranges use the budget; with the others leased there is no room.
        try (Lease<Integer> a = cache.pin(r(7)); Lease<Integer> b = cache.pin(r(8))) {
            PinBudgetExceededException e = assertThrows(PinBudgetExceededException.class, () -> cache.pin(r(9)));
            assertTrue(e.getMessage().contains("2097152 B (2 MB) kept (KEEP_FIRST_N)"), e.getMessage());
            assertTrue(a.isValid() && b.isValid());
        }

        // A kept range that is revoked is unpinned, and kept again when pinned again.
        assertTrue(cache.revoke(r(0), "test"));
        assertFalse(cache.contains(r(0)));
        use(cache, 0);
        assertTrue(cache.isKept(r(0)));
        assertEquals(2, cache.stats().keptEntries());
        // clear() unpins kept ranges too, but the kept set stays.
        assertEquals(4, cache.clear());
        assertEquals(0, cache.stats().pinnedBytes());
        use(cache, 10, 1);
        assertFalse(cache.isKept(r(10)));
        assertEquals(1, cache.stats().keptEntries());
    }

    @Test
    void keepFirstZeroIsPlainLru() {
        Recorder rec = new Recorder();
        PinCache<Integer> cache = PinCache.keepFirst(0, MB, rec);
        use(cache, 0, 1);
        assertEquals(List.of("+0", "-0", "+1"), rec.log);
        assertThrows(IllegalArgumentException.class, () -> new PinCache<>(MB, EvictionPolicy.LRU, 1, rec));
        assertThrows(IllegalArgumentException.class, () -> PinCache.keepFirst(-1, MB, rec));
        assertThrows(IllegalArgumentException.class, () -> PinCache.lru(0, rec));
    }

    @Test
    void revocationUnpinsAtOnceAndLeasesFailNamingTheRange() {
        SimulatedImporter imp = new SimulatedImporter(0xe000_0000L, 16 * MB);
        ImporterPinner pinner = new ImporterPinner(imp);
        PinCache<ImportedRange> cache = PinCache.lru(8 * MB, pinner);
        imp.addRevocationListener((range, why) -> cache.revokeValue(range, why));

        Lease<ImportedRange> lease = cache.pin(r(1));
        ImportedRange first = lease.pinned();
        assertTrue(imp.revoke(first, "GPU memory migrated"));
        assertFalse(cache.contains(r(1)));
        assertEquals(1, pinner.unpins.get(), "unpinned at once although leased");
        assertFalse(lease.isValid());
        IllegalStateException e = assertThrows(IllegalStateException.class, lease::pinned);
        assertEquals("pinned range [gpu 0x7f0000100000, +1 MB) can no longer be used: its mapping was revoked (GPU memory "
                + "migrated); pin it again for new bus addresses", e.getMessage());
        assertEquals(1, cache.stats().openLeases(), "the revoked lease is still open until closed");

        try (Lease<ImportedRange> again = cache.pin(r(1))) {
            assertNotSame(first, again.pinned(), "pinned anew");
            assertTrue(again.isValid());
        }
        lease.close();
        lease.close(); // closing twice does nothing
        PinCacheStats s = cache.stats();
        assertEquals(0, s.openLeases());
        assertEquals(1, s.revocations());
        assertEquals(2, s.misses());
        assertEquals(MB, s.pinnedBytes());
        assertThrows(IllegalStateException.class, lease::pinned);
        assertFalse(cache.revoke(r(5), "not cached"));

        // invalidate: the owner frees the memory.
        try (Lease<ImportedRange> l = cache.pin(r(1))) {
            assertTrue(cache.invalidate(r(1), "cuMemFree"));
            e = assertThrows(IllegalStateException.class, l::pinned);
            assertTrue(e.getMessage().contains("[gpu 0x7f0000100000, +1 MB) can no longer be used: it was invalidated (cuMemFree)"),
                    e.getMessage());
        }
        cache.close();
        pinner.assertAllReleasedOnce();
    }

    @Test
    void closeUnpinsEverythingAndRefusesLaterPins() {
        SimulatedImporter imp = new SimulatedImporter(0xe000_0000L, 16 * MB, 0.5, 1);
        ImporterPinner pinner = new ImporterPinner(imp);
        PinCache<ImportedRange> cache = PinCache.keepFirst(1, 8 * MB, pinner);
        Lease<ImportedRange> held = cache.pin(r(0));
        use(cache, 1, 2);
        cache.close();
        cache.close();
        pinner.assertAllReleasedOnce();
        IllegalStateException e = assertThrows(IllegalStateException.class, held::pinned);
        assertTrue(e.getMessage().contains("the pin cache was closed"), e.getMessage());
        held.close();
        assertEquals(0, cache.stats().openLeases());
        assertThrows(IllegalStateException.class, () -> cache.pin(r(0)));
    }

    @Test
    void aFailedPinLeavesNothingBehind() {
        SimulatedImporter imp = new SimulatedImporter(0xe000_0000L, 2 * MB);
        ImporterPinner pinner = new ImporterPinner(imp);
        // The cache's budget is larger than the aperture: the importer refuses first.
        PinCache<ImportedRange> cache = PinCache.lru(4 * MB, pinner);
        Lease<ImportedRange> a = cache.pin(r(0));
        Lease<ImportedRange> b = cache.pin(r(1));
        assertThrows(org.direkt.runtime.pcie.ApertureExhaustedException.class, () -> cache.pin(r(2)));
        assertFalse(cache.contains(r(2)));
        PinCacheStats s = cache.stats();
        assertEquals(2 * MB, s.pinnedBytes());
        assertEquals(2, s.openLeases());
        a.close();
        b.close();
        cache.close();
        pinner.assertAllReleasedOnce();
    }

    @Test
    void pinRangesAreWholePages() {
        assertThrows(IllegalArgumentException.class, () -> new PinRange(P / 2, P));
        assertThrows(IllegalArgumentException.class, () -> new PinRange(0, P - 4));
        assertThrows(IllegalArgumentException.class, () -> new PinRange(0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PinRange(-P, 2 * P));
        assertEquals("[gpu 0x7f0000000000, +64 KB)", new PinRange(GPU, P).toString());
    }
}
