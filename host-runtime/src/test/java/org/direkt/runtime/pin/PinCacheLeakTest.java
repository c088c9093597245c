// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import static org.direkt.runtime.pin.ImporterPinner.GPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.Test;

class PinCacheLeakTest {
    private static final long P = AddressTable.PAGE_SIZE;

    @Test
    void tenThousandCyclesLeaveNothingPinned() {
        for (EvictionPolicy policy : EvictionPolicy.values()) {
            SimulatedImporter importer = new SimulatedImporter(0x38_0000_0000L, 2L << 20, 0.5, 7);
            ImporterPinner pinner = new ImporterPinner(importer);
            PinCache<ImportedRange> cache = new PinCache<>(2L << 20, policy, policy == EvictionPolicy.LRU ? 0 : 2, pinner);
            Random r = new Random(11);
            for (int i = 0; i < 10_000; i++) {
                PinRange range = new PinRange(GPU + r.nextInt(64) * 4 * P, (1 + r.nextInt(4)) * P);
                try (Lease<ImportedRange> l = cache.pin(range)) {
                    assertEquals(range.length(), l.pinned().length());
                }
                assertTrue(cache.stats().pinnedBytes() <= 2L << 20);
            }
            PinCacheStats s = cache.stats();
            assertEquals(10_000, s.hits() + s.misses(), policy + ": " + s);
            assertTrue(s.evictions() > 1_000, policy + " evicted: " + s);
            assertEquals(s.entries(), cache.clear(), "clear unpins every idle range");
            assertEquals(0, cache.stats().pinnedBytes());
            assertEquals(0, cache.stats().entries());
            cache.close();
            pinner.assertAllReleasedOnce();
            assertEquals(s.pinCalls(), importer.imports());
            assertEquals(importer.imports(), importer.releases());
        }
    }
}
