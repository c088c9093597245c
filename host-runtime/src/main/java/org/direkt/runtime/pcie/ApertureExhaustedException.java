// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * The GPU's BAR aperture (BAR1) has no room for another mapping: less is free than was asked
 * for. Releasing mappings (or unpinning cached ones) makes room.
 */
public final class ApertureExhaustedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final long requested;
    private final long free;
    private final long apertureSize;

    public ApertureExhaustedException(long requested, long free, long apertureSize) {
        super("GPU BAR aperture exhausted: cannot map " + Bytes.size(requested) + ", only " + Bytes.size(free)
                + " of the " + Bytes.size(apertureSize) + " BAR1 budget is free; release mappings first");
        this.requested = requested;
        this.free = free;
        this.apertureSize = apertureSize;
    }

    /**
     * The aperture is full as a driver reports it (ENOSPC), without saying how much is free:
     * {@link #free()} and {@link #apertureSize()} are -1.
     */
    public ApertureExhaustedException(String message, long requested) {
        super(message);
        this.requested = requested;
        this.free = -1;
        this.apertureSize = -1;
    }

    public long requested() {
        return requested;
    }

    public long free() {
        return free;
    }

    public long apertureSize() {
        return apertureSize;
    }
}
