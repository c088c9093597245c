// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.direkt.runtime.pcie.Bytes;

/**
 * Pinned GPU ranges, kept pinned after use ("lazy unpinning") because pinning costs milliseconds,
 * within a budget of bytes (the GPU's BAR1 aperture). {@link #pin} returns a {@link Lease}: a hit
 * when the exact range is cached, otherwise the range is pinned through the owner's {@link Pinner}.
 * A leased range is never unpinned to make room. Ranges match exactly: a range inside or overlapping
 * a cached one is a different key and is pinned on its own (pin whole allocations to share them).
 *
 * <h2>Eviction</h2>
 * Only when a new range does not fit in the budget are idle (unleased) cached ranges unpinned,
 * least recently leased first, until it fits. If even unpinning every idle range the policy allows
 * would not make room, nothing is unpinned and the pin fails with
 * {@link PinBudgetExceededException}; a range larger than the whole budget fails at once with
 * {@link IllegalArgumentException}.
 * <ul>
 * <li>{@link EvictionPolicy#LRU}: every idle range may be unpinned.</li>
 * <li>{@link EvictionPolicy#KEEP_FIRST_N}: the first {@code n} distinct ranges the cache pins
 *     successfully become its kept set, fixed for the cache's life. A kept range is never unpinned to
 *     make room; it is unpinned only when its mapping is revoked or invalidated, by {@link #clear()}
 *     or by {@link #close()}, and if it is pinned again later it is kept again. Kept ranges use the
 *     budget like any other; the remaining ranges are evicted least recently leased first.</li>
 * </ul>
 *
 * <h2>Revocation</h2>
 * When the exporter invalidates a mapping, its owner calls {@link #revoke(PinRange, String)} or
 * {@link #revokeValue(Object, String)} (for an importer: {@code importer.addRevocationListener((r,
 * why) -> cache.revokeValue(r, why))}). The range leaves the cache at once and is unpinned, leased or
 * not; every open lease on it fails from then on ({@link Lease#pinned()} throws
 * {@link IllegalStateException} naming the range), and the next pin of the range pins it anew.
 * {@link #invalidate} does the same for the owner's own reasons (the memory is about to be freed).
 *
 * <h2>Threads</h2>
 * Thread-safe. A hit takes no lock: a concurrent map lookup and a compare-and-set on the range's
 * lease count, so threads hitting at once do not queue behind each other or behind a pin in
 * progress. Everything else (misses, eviction, revocation, {@link #clear()}, {@link #close()}) runs
 * under one lock, and so do all calls to the {@link Pinner}: pins and unpins never overlap, so the
 * bytes actually pinned never exceed the budget, not even for a moment, and two threads missing on
 * the same range pin it once. An idle range is claimed for eviction by setting its lease count from
 * 0 to a "dead" mark, which a hit cannot pass, so a range is never unpinned under a lease.
 *
 * @param <V> what the pinner returns for a pinned range
 */
public final class PinCache<V> implements AutoCloseable {
    /** Lease count of a range claimed for unpinning: hits fail their compare-and-set and take the slow path. */
    private static final int DEAD = Integer.MIN_VALUE / 2;

    /** A cached range. */
    static final class Entry<V> {
        final PinRange range;
        final V value;
        final boolean kept;
        /** Open leases, or {@link #DEAD} while the slow path holds the range for unpinning. */
        final AtomicInteger leases = new AtomicInteger();
        /** Tick of the last lease taken: eviction order. */
        volatile long lastUsed;
        /** Why the range may no longer be used; null while it is cached. */
        volatile String invalidReason;

        Entry(PinRange range, V value, boolean kept) {
            this.range = range;
            this.value = value;
            this.kept = kept;
        }
    }

    private final long budget;
    private final EvictionPolicy policy;
    private final int keepFirst;
    private final Pinner<V> pinner;

    /** Serialises the slow path: misses, every call to the pinner, removals. The fields below marked so change only under it. */
    private final ReentrantLock slow = new ReentrantLock();
    private final ConcurrentHashMap<PinRange, Entry<V>> entries = new ConcurrentHashMap<>();
    /** Changes under {@link #slow}. */
    private final Set<PinRange> keptSet = ConcurrentHashMap.newKeySet();
    private final AtomicLong clock = new AtomicLong();
    private volatile boolean closed;
    private final LongAdder hits = new LongAdder();
    private final LongAdder openLeases = new LongAdder();
    /** Change under {@link #slow}; atomics only so that {@link #stats()} may read them without it. */
    private final AtomicLong pinnedBytes = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicLong revocations = new AtomicLong();
    private final AtomicLong pinCalls = new AtomicLong();
    private final AtomicLong unpinCalls = new AtomicLong();

    /**
     * @param budgetBytes the most bytes pinned at once, positive
     * @param policy how room is made
     * @param keepFirst for {@link EvictionPolicy#KEEP_FIRST_N}, how many ranges are kept ({@code >= 0});
     *     must be 0 for {@link EvictionPolicy#LRU}
     */
    public PinCache(long budgetBytes, EvictionPolicy policy, int keepFirst, Pinner<V> pinner) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("pin budget " + budgetBytes + " must be > 0 bytes");
        }
        Objects.requireNonNull(policy, "policy");
        if (keepFirst < 0 || (policy == EvictionPolicy.LRU && keepFirst != 0)) {
            throw new IllegalArgumentException("keepFirst " + keepFirst + " must be >= 0, and 0 with the LRU policy");
        }
        this.budget = budgetBytes;
        this.policy = policy;
        this.keepFirst = keepFirst;
        this.pinner = Objects.requireNonNull(pinner, "pinner");
    }

    public static <V> PinCache<V> lru(long budgetBytes, Pinner<V> pinner) {
        return new PinCache<>(budgetBytes, EvictionPolicy.LRU, 0, pinner);
    }

    public static <V> PinCache<V> keepFirst(int n, long budgetBytes, Pinner<V> pinner) {
        return new PinCache<>(budgetBytes, EvictionPolicy.KEEP_FIRST_N, n, pinner);
    }

    public long budgetBytes() {
        return budget;
    }

    public EvictionPolicy policy() {
        return policy;
    }

    /** {@code pin(new PinRange(gpuBase, length))}. */
    public Lease<V> pin(long gpuBase, long length) {
        return pin(new PinRange(gpuBase, length));
    }

    /**
     * Leases the range, pinning it first if it is not cached (and unpinning idle ranges to make
     * room, as the policy says).
     *
     * @throws IllegalArgumentException if the range is larger than the whole budget
     * @throws PinBudgetExceededException if the leased and kept ranges leave no room for it now
     * @throws IllegalStateException if the cache is closed
     * @throws RuntimeException whatever the pinner throws (nothing is then cached for the range)
     */
    public Lease<V> pin(PinRange range) {
        Objects.requireNonNull(range, "range");
        if (range.length() > budget) {
            throw new IllegalArgumentException("cannot pin " + range + ": its " + Bytes.size(range.length())
                    + " exceed the whole pin budget of " + Bytes.size(budget) + " (the BAR1 space set aside for pinning)");
        }
        Lease<V> hit = hit(range);
        if (hit != null) {
            return hit;
        }
        slow.lock();
        try {
            hit = hit(range); // pinned by another thread while this one waited
            if (hit != null) {
                return hit;
            }
            misses.incrementAndGet();
            unpinAll(makeRoom(range));
            V value = pinner.pin(range);
            pinCalls.incrementAndGet();
            pinnedBytes.addAndGet(range.length());
            if (policy == EvictionPolicy.KEEP_FIRST_N && keptSet.size() < keepFirst) {
                keptSet.add(range);
            }
            Entry<V> e = new Entry<>(range, value, keptSet.contains(range));
            e.leases.set(1);
            e.lastUsed = clock.incrementAndGet();
            openLeases.increment();
            entries.put(range, e);
            return new Lease<>(this, e);
        } finally {
            slow.unlock();
        }
    }

    /** The lock-free path: a lease on the cached range, or null when the slow path must decide. */
    private Lease<V> hit(PinRange range) {
        if (closed) {
            throw new IllegalStateException("the pin cache is closed: cannot pin " + range);
        }
        Entry<V> e = entries.get(range);
        if (e == null) {
            return null;
        }
        int n;
        do {
            n = e.leases.get();
            if (n < 0) {
                return null; // being unpinned
            }
        } while (!e.leases.compareAndSet(n, n + 1));
        if (e.invalidReason != null) {
            e.leases.decrementAndGet(); // revoked or closed since the lookup
            return null;
        }
        e.lastUsed = clock.incrementAndGet();
        openLeases.increment();
        hits.increment();
        return new Lease<>(this, e);
    }

    /** Under {@link #slow}: claims and removes the victims, or throws and removes nothing. */
    private List<Entry<V>> makeRoom(PinRange range) {
        long need = pinnedBytes.get() + range.length() - budget;
        if (need <= 0) {
            return List.of();
        }
        List<Entry<V>> candidates = new ArrayList<>();
        for (Entry<V> e : entries.values()) {
            if (!e.kept && e.leases.get() == 0) {
                candidates.add(e);
            }
        }
        candidates.sort(Comparator.comparingLong(e -> e.lastUsed));
        List<Entry<V>> victims = new ArrayList<>();
        long freed = 0;
        for (Entry<V> e : candidates) {
            if (freed >= need) {
                break;
            }
            if (e.leases.compareAndSet(0, DEAD)) { // else leased since the scan
                victims.add(e);
                freed += e.range.length();
            }
        }
        if (freed < need) {
            for (Entry<V> v : victims) {
                v.leases.set(0);
            }
            long leased = 0;
            long keptIdle = 0;
            for (Entry<V> e : entries.values()) {
                if (e.leases.get() > 0) {
                    leased += e.range.length();
                } else if (e.kept) {
                    keptIdle += e.range.length();
                }
            }
            throw new PinBudgetExceededException(range, budget, pinnedBytes.get(), leased, keptIdle);
        }
        for (Entry<V> v : victims) {
            remove(v, "it was evicted from the pin cache");
            evictions.incrementAndGet();
        }
        return victims;
    }

    /** Under {@link #slow}. */
    private void remove(Entry<V> e, String why) {
        e.invalidReason = why;
        entries.remove(e.range, e);
    }

    /** Under {@link #slow}: unpins each, keeping the books even when the pinner throws. */
    private void unpinAll(List<Entry<V>> gone) {
        RuntimeException failure = null;
        for (Entry<V> e : gone) {
            try {
                pinner.unpin(e.range, e.value);
            } catch (RuntimeException ex) {
                if (failure == null) {
                    failure = ex;
                } else {
                    failure.addSuppressed(ex);
                }
            } finally {
                unpinCalls.incrementAndGet();
                pinnedBytes.addAndGet(-e.range.length());
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Called once per lease by {@link Lease#close()}. */
    void release(Entry<V> e) {
        e.leases.decrementAndGet();
        openLeases.decrement();
    }

    /**
     * The exporter invalidated the range's mapping: drops it from the cache and unpins it now,
     * leased or not; its open leases fail from now on.
     *
     * @return false if the range is not cached
     */
    public boolean revoke(PinRange range, String reason) {
        return drop(range, null, "its mapping was revoked (" + reason + ")");
    }

    /** {@link #revoke(PinRange, String)} of the cached range whose pinned value is {@code value}. */
    public boolean revokeValue(V value, String reason) {
        return drop(null, value, "its mapping was revoked (" + reason + ")");
    }

    /**
     * The owner invalidates the range (it is about to free or remap the memory): as
     * {@link #revoke(PinRange, String)}, with the reason given.
     */
    public boolean invalidate(PinRange range, String reason) {
        return drop(range, null, "it was invalidated (" + reason + ")");
    }

    private boolean drop(PinRange range, V value, String why) {
        slow.lock();
        try {
            Entry<V> e = null;
            if (range != null) {
                e = entries.get(range);
            } else {
                for (Entry<V> c : entries.values()) {
                    if (c.value == value || Objects.equals(c.value, value)) {
                        e = c;
                        break;
                    }
                }
            }
            if (e == null) {
                return false;
            }
            remove(e, why);
            revocations.incrementAndGet();
            unpinAll(List.of(e));
            return true;
        } finally {
            slow.unlock();
        }
    }

    /**
     * Unpins every cached range that is not leased, kept ones included (they are kept again when
     * pinned again). Leased ranges stay.
     *
     * @return how many ranges were unpinned
     */
    public int clear() {
        slow.lock();
        try {
            List<Entry<V>> gone = new ArrayList<>();
            for (Entry<V> e : entries.values()) {
                if (e.leases.compareAndSet(0, DEAD)) {
                    remove(e, "the pin cache was cleared");
                    gone.add(e);
                }
            }
            unpinAll(gone);
            return gone.size();
        } finally {
            slow.unlock();
        }
    }

    /**
     * Unpins everything, leased or not, and refuses pins from now on; open leases fail on use (they
     * may still be closed). Closing again does nothing.
     */
    @Override
    public void close() {
        slow.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            List<Entry<V>> gone = new ArrayList<>(entries.values());
            for (Entry<V> e : gone) {
                remove(e, "the pin cache was closed");
            }
            unpinAll(gone);
        } finally {
            slow.unlock();
        }
    }

    /** Whether the range is cached now (does not count as a use). */
    public boolean contains(PinRange range) {
        return entries.containsKey(range);
    }

    /** Whether the range belongs to the kept set of {@link EvictionPolicy#KEEP_FIRST_N}. */
    public boolean isKept(PinRange range) {
        return keptSet.contains(range);
    }

    /** The cached ranges, least recently leased first (the order LRU evicts them in). */
    public List<PinRange> cachedRanges() {
        List<Entry<V>> all = new ArrayList<>(entries.values());
        all.sort(Comparator.comparingLong(e -> e.lastUsed));
        return all.stream().map(e -> e.range).toList();
    }

    /** The statistics; exact when no other thread is using the cache, a close estimate while one is. */
    public PinCacheStats stats() {
        int count = 0;
        int leased = 0;
        int kept = 0;
        for (Entry<V> e : entries.values()) {
            count++;
            if (e.leases.get() > 0) {
                leased++;
            }
            if (e.kept) {
                kept++;
            }
        }
        return new PinCacheStats(budget, pinnedBytes.get(), count, leased, kept, openLeases.sum(), hits.sum(),
                misses.get(), evictions.get(), revocations.get(), pinCalls.get(), unpinCalls.get());
    }

    @Override
    public String toString() {
        PinCacheStats s = stats();
        return "PinCache[" + policy + (policy == EvictionPolicy.KEEP_FIRST_N ? " n=" + keepFirst : "") + ", "
                + Bytes.human(s.pinnedBytes()) + " of " + Bytes.human(budget) + " pinned in " + s.entries() + " ranges]";
    }
}
