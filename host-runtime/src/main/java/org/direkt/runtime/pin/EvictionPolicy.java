// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

/** Which idle pinned ranges a full {@link PinCache} unpins to make room. */
public enum EvictionPolicy {
    /** Unpin the least recently leased idle ranges first. */
    LRU,
    /**
     * The first N distinct ranges the cache pins are kept: capacity pressure never unpins them.
     * Among the other ranges, least recently leased first, as {@link #LRU}. See {@link PinCache}.
     */
    KEEP_FIRST_N
}
