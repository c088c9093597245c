// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

/**
 * The statistics of a {@link PinCache}: exact when no thread is using it, a close estimate while one is.
 *
 * @param budgetBytes the most bytes the cache keeps pinned at once (the BAR1 budget)
 * @param pinnedBytes bytes pinned now: every range pinned and not yet unpinned
 * @param entries ranges cached (pinned and usable)
 * @param leasedEntries cached ranges with at least one open lease
 * @param keptEntries cached ranges that {@link EvictionPolicy#KEEP_FIRST_N} keeps
 * @param openLeases leases not yet closed, including those on revoked ranges
 * @param hits pins served from the cache
 * @param misses pins that had to pin (successfully or not)
 * @param evictions ranges unpinned to make room
 * @param revocations ranges dropped because their mapping was revoked or invalidated
 * @param pinCalls calls of {@link Pinner#pin} that succeeded
 * @param unpinCalls calls of {@link Pinner#unpin}
 */
public record PinCacheStats(long budgetBytes, long pinnedBytes, int entries, int leasedEntries, int keptEntries,
        long openLeases, long hits, long misses, long evictions, long revocations, long pinCalls, long unpinCalls) {
}
