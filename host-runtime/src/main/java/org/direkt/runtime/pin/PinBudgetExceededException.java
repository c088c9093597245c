// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import org.direkt.runtime.pcie.Bytes;

/**
 * A range fits the pin budget but not now: the ranges that could make room are leased or kept.
 * Closing leases (or clearing the cache) makes room.
 */
public final class PinBudgetExceededException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PinBudgetExceededException(PinRange range, long budget, long pinned, long leased, long kept) {
        super("cannot pin " + range + " (" + Bytes.size(range.length()) + "): " + Bytes.size(pinned) + " of the "
                + Bytes.size(budget) + " pin budget is pinned, " + Bytes.size(leased) + " of it leased and "
                + Bytes.size(kept) + " kept (KEEP_FIRST_N), so not enough can be unpinned; close leases first");
    }
}
