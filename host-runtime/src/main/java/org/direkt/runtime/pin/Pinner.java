// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * How a {@link PinCache} pins and unpins: supplied by its owner, so the same cache works with the
 * simulated importer and with the real driver. The cache calls these one at a time (never two at
 * once), outside its own lock, and calls {@link #unpin} exactly once for every value {@link #pin}
 * returned. Neither may wait for a revocation to be delivered to the same cache.
 *
 * @param <V> what a pinned range is to its owner (e.g. an {@code ImportedRange} or an address table)
 */
public interface Pinner<V> {
    /** Pins the range (milliseconds, typically); an exception leaves nothing pinned. */
    V pin(PinRange range);

    /** Unpins what {@link #pin} returned for the range, revoked or not. */
    void unpin(PinRange range, V pinned);

    static <V> Pinner<V> of(Function<? super PinRange, ? extends V> pin, BiConsumer<? super PinRange, ? super V> unpin) {
        return new Pinner<>() {
            @Override
            public V pin(PinRange range) {
                return pin.apply(range);
            }

            @Override
            public void unpin(PinRange range, V pinned) {
                unpin.accept(range, pinned);
            }
        };
    }
}
