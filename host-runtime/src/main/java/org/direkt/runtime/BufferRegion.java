// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import org.direkt.runtime.pin.Lease;

/**
 * A region of the bridge's region table over a direct buffer's pages ({@link Regions}), open until
 * closed or its buffer or session is closed. Closing removes it from the region table before
 * anything else may reuse its number or its pages.
 */
public final class BufferRegion implements Session.Region {
    private final Regions regions;
    private final DirectBuffer buffer;
    private final Lease<RegionTable.Run> lease;
    private final RegionTable.Run run;
    private final int number;
    private final boolean allowRd;
    private final boolean allowWr;

    BufferRegion(Regions regions, DirectBuffer buffer, Lease<RegionTable.Run> lease, RegionTable.Run run, int number,
            boolean allowRd, boolean allowWr) {
        this.regions = regions;
        this.buffer = buffer;
        this.lease = lease;
        this.run = run;
        this.number = number;
        this.allowRd = allowRd;
        this.allowWr = allowWr;
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public DirectBuffer buffer() {
        return buffer;
    }

    @Override
    public long length() {
        return buffer.length;
    }

    @Override
    public int firstEntry() {
        return run.first;
    }

    @Override
    public boolean allowsRead() {
        return allowRd;
    }

    @Override
    public boolean allowsWrite() {
        return allowWr;
    }

    @Override
    public boolean isOpen() {
        return !buffer.isClosed() && run.isOpen(number);
    }

    /**
     * Closes the region (REGION_BYTES = 0, REGION_CTRL) and waits until no request naming it is in
     * a walker; its pages stay in the page table for a later region over the same buffer until the
     * room is needed. Later calls do nothing.
     *
     * @throws IllegalStateException a request naming it stayed in a walker too long: it is closed in
     *     the table, but its number and pages stay taken
     */
    @Override
    public void close() {
        try {
            regions.close(run, number);
        } finally {
            lease.close();
        }
    }

    @Override
    public String toString() {
        return "Region[" + number + " over " + buffer + (allowRd ? ", rd" : "") + (allowWr ? ", wr" : "")
                + (isOpen() ? "" : ", closed") + "]";
    }
}
