// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import static org.direkt.runtime.pin.ImporterPinner.GPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eight threads pin, lease, close, revoke, invalidate and clear at random over a simulated
 * importer whose aperture is exactly the cache's budget (so any over-pinning fails the import).
 * Seeds are printed on failure; {@code -Ddirekt.seed=N} sets the base seed.
 */
class PinCacheConcurrencyTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final long BUDGET = 4L << 20;
    private static final int THREADS = 8;
    private static final int OPS = 6_000;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eightThreadsKeepEveryInvariant() throws InterruptedException {
        long base = Long.getLong("direkt.seed", 0xC0FFEEL);
        Random shape = new Random(base);
        List<PinRange> pool = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < 48; i++) {
            long len = (1 + shape.nextInt(8)) * P; // 64 KB .. 512 KB
            pool.add(new PinRange(GPU + at, len));
            at += len + (shape.nextBoolean() ? P : 0);
        }
        SimulatedImporter importer = new SimulatedImporter(0x38_0000_0000L, BUDGET, 0.3, base);
        ImporterPinner pinner = new ImporterPinner(importer);
        PinCache<ImportedRange> cache = PinCache.keepFirst(3, BUDGET, pinner);
        importer.addRevocationListener((r, why) -> cache.revokeValue(r, why));

        AtomicLong leased = new AtomicLong();
        AtomicLong closed = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong revokedSeen = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = base + 1 + t;
            threads.add(Thread.ofPlatform().name("hammer-" + t).start(() -> {
                Random r = new Random(seed);
                List<Lease<ImportedRange>> held = new ArrayList<>();
                try {
                    start.await();
                    for (int op = 0; op < OPS; op++) {
                        int dice = r.nextInt(100);
                        if (dice < 50 && held.size() < 3) {
                            PinRange range = pool.get(r.nextInt(pool.size()));
                            try {
                                Lease<ImportedRange> l = cache.pin(range);
                                leased.incrementAndGet();
                                held.add(l);
                                check(l);
                            } catch (PinBudgetExceededException full) {
                                refused.incrementAndGet();
                            }
                        } else if (dice < 92) {
                            if (!held.isEmpty()) {
                                Lease<ImportedRange> l = held.remove(r.nextInt(held.size()));
                                if (!check(l)) {
                                    revokedSeen.incrementAndGet();
                                }
                                l.close();
                                closed.incrementAndGet();
                            }
                        } else if (dice < 96) {
                            List<ImportedRange> live = importer.liveImports();
                            if (!live.isEmpty()) {
                                importer.revoke(live.get(r.nextInt(live.size())), "hammer");
                            }
                        } else if (dice < 99) {
                            cache.invalidate(pool.get(r.nextInt(pool.size())), "hammer");
                        } else {
                            cache.clear();
                        }
                        long pinned = cache.stats().pinnedBytes();
                        assertTrue(pinned <= BUDGET, "pinned " + pinned + " <= budget " + BUDGET);
                    }
                } catch (Throwable e) {
                    failures.add(new AssertionError("thread seed " + seed + ": " + e, e));
                } finally {
                    for (Lease<ImportedRange> l : held) {
                        l.close();
                        closed.incrementAndGet();
                    }
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(failures.size() + " thread(s) failed (base seed " + base + ")",
                    failures.peek());
            failures.forEach(e::addSuppressed);
            throw e;
        }

        PinCacheStats s = cache.stats();
        assertEquals(leased.get(), closed.get(), "every lease closed");
        assertEquals(0, s.openLeases(), "no lease lost");
        assertEquals(0, s.leasedEntries());
        assertEquals(leased.get(), s.hits() + s.misses() - refused.get(), "each pin is a hit or a miss");
        assertTrue(pinner.maxLiveBytes.get() <= BUDGET, "never more than the budget pinned: " + pinner.maxLiveBytes.get());
        long cachedBytes = cache.cachedRanges().stream().mapToLong(PinRange::length).sum();
        assertEquals(cachedBytes, s.pinnedBytes(), "pinned bytes are the cached ranges");
        assertEquals(s.pinCalls(), pinner.pins.get());
        assertEquals(s.pinCalls() - s.unpinCalls(), s.entries());
        assertTrue(s.evictions() > 0 && s.revocations() > 0 && s.hits() > 0, "the hammer exercised eviction, revocation, hits: " + s);
        cache.close();
        assertEquals(0, cache.stats().pinnedBytes());
        pinner.assertAllReleasedOnce();
        System.out.printf("hammer: %s, %d leases (%d saw a revoked range), %d refused for lack of room%n", s, leased.get(),
                revokedSeen.get(), refused.get());
    }

    /** A lease is valid with the right value, or revoked with the range named; returns whether valid. */
    private static boolean check(Lease<ImportedRange> l) {
        try {
            ImportedRange v = l.pinned();
            assertEquals(l.range().length(), v.length());
            assertEquals(l.range().gpuBase() - GPU, v.offset());
            return true;
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains(l.range().toString()) && e.getMessage().contains("can no longer be used"),
                    e.getMessage());
            return false;
        }
    }
}
