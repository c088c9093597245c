// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A pinned range in use. While a lease is open its range is never unpinned to make room; closing
 * it lets the cache unpin the range later, when space is needed (the range stays pinned until then).
 * If the mapping is revoked or invalidated while the lease is open, {@link #pinned()} fails from
 * then on, naming the range and why.
 *
 * <p>Close every lease once (try-with-resources); closing again does nothing. Thread-safe.
 *
 * @param <V> what the cache's {@link Pinner} returned for the range
 */
public final class Lease<V> implements AutoCloseable {
    private final PinCache<V> cache;
    private final PinCache.Entry<V> entry;
    private final AtomicBoolean closed = new AtomicBoolean();

    Lease(PinCache<V> cache, PinCache.Entry<V> entry) {
        this.cache = cache;
        this.entry = entry;
    }

    public PinRange range() {
        return entry.range;
    }

    /**
     * What the pinner returned for the range (its bus addresses).
     *
     * @throws IllegalStateException if this lease is closed, or the range's mapping was revoked or
     *     invalidated (the message names the range and the reason)
     */
    public V pinned() {
        if (closed.get()) {
            throw new IllegalStateException("lease on " + entry.range + " is closed");
        }
        String invalid = entry.invalidReason;
        if (invalid != null) {
            throw new IllegalStateException("pinned range " + entry.range + " can no longer be used: " + invalid
                    + "; pin it again for new bus addresses");
        }
        return entry.value;
    }

    /** Whether {@link #pinned()} would succeed now. */
    public boolean isValid() {
        return !closed.get() && entry.invalidReason == null;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            cache.release(entry);
        }
    }

    @Override
    public String toString() {
        return "Lease" + entry.range + (closed.get() ? " (closed)" : entry.invalidReason != null ? " (invalid)" : "");
    }
}
