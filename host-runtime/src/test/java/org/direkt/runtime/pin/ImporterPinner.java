// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.SimulatedImporter;

/**
 * A pinner over a {@link SimulatedImporter} that keeps books: how often each import was pinned and
 * unpinned, and the most bytes ever pinned at once. GPU range {@code [GPU + o, ...)} is dma-buf
 * offset {@code o}.
 */
final class ImporterPinner implements Pinner<ImportedRange> {
    static final long GPU = 0x7f00_0000_0000L;
    static final int FD = 3;

    final SimulatedImporter importer;
    final Map<Long, AtomicInteger> unpinsByHandle = new ConcurrentHashMap<>();
    final AtomicLong pins = new AtomicLong();
    final AtomicLong unpins = new AtomicLong();
    final AtomicLong liveBytes = new AtomicLong();
    final AtomicLong maxLiveBytes = new AtomicLong();
    final AtomicInteger inCall = new AtomicInteger();
    final AtomicInteger concurrentCalls = new AtomicInteger();

    ImporterPinner(SimulatedImporter importer) {
        this.importer = importer;
    }

    @Override
    public ImportedRange pin(PinRange range) {
        enter();
        try {
            ImportedRange r = importer.importDmaBuf(FD, range.gpuBase() - GPU, range.length());
            pins.incrementAndGet();
            unpinsByHandle.put(r.handle(), new AtomicInteger());
            long live = liveBytes.addAndGet(r.length());
            maxLiveBytes.accumulateAndGet(live, Math::max);
            return r;
        } finally {
            inCall.decrementAndGet();
        }
    }

    @Override
    public void unpin(PinRange range, ImportedRange pinned) {
        enter();
        try {
            assertEquals(range.length(), pinned.length(), "unpin gets the value pinned for the range");
            assertEquals(range.gpuBase() - GPU, pinned.offset());
            importer.release(pinned);
            unpins.incrementAndGet();
            unpinsByHandle.get(pinned.handle()).incrementAndGet();
            liveBytes.addAndGet(-pinned.length());
        } finally {
            inCall.decrementAndGet();
        }
    }

    private void enter() {
        if (inCall.incrementAndGet() > 1) {
            concurrentCalls.incrementAndGet();
        }
    }

    /** Every pin was unpinned exactly once, and the importer holds nothing. */
    void assertAllReleasedOnce() {
        assertEquals(pins.get(), unpins.get(), "unpins match pins");
        unpinsByHandle.forEach((h, n) -> assertEquals(1, n.get(), "import #" + h + " unpinned exactly once"));
        assertEquals(0, liveBytes.get(), "nothing left pinned");
        assertEquals(0, importer.liveImports().size(), "the importer holds no mapping");
        assertEquals(0, importer.mappedBytes());
        assertEquals(0, concurrentCalls.get(), "the cache never calls the pinner concurrently");
    }
}
