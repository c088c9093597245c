// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.direkt.contract.BridgeSpec;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.pin.Lease;
import org.direkt.runtime.pin.PinBudgetExceededException;
import org.direkt.runtime.pin.PinCache;
import org.direkt.runtime.pin.PinRange;
import org.direkt.runtime.pin.Pinner;

/**
 * A session's regions (regions addressing): the bridge translates GPU memory itself, through a page
 * table and a region table the host programs through the CSR ({@link RegionTable}). A direct
 * buffer's pages (64 KB, by their bus addresses) take a contiguous run of page table entries, the
 * first that fits, and a region over them the lowest free region number; both are read back.
 *
 * <p>Pages are pinned in the page table through a {@link PinCache} whose budget is the table: its
 * pinner writes the pages, and its unpin first closes every region still open over them
 * (REGION_BYTES = 0, REGION_CTRL, then REGION_STATUS.busy awaited low, so no request in a walker
 * reads them any more) and then releases their entries. A closed region leaves the region table at
 * once, while its pages stay in the page table (a region opened again over the same buffer reuses
 * them) until the room is needed for another buffer's pages (the least recently used first) or the
 * buffer is closed.
 */
final class Regions {
    private final FpgaDevice fpga;
    private final RegionTable table;
    private final PinCache<RegionTable.Run> pins;
    /** The direct buffers whose pages {@link #pins} may pin, by GPU range. */
    private final Map<PinRange, DirectBuffer> pinnable = new HashMap<>();

    Regions(BridgeSpec bridge, FpgaDevice fpga, Duration busyLimit) {
        this.fpga = fpga;
        this.table = new RegionTable(new RegionTable.Registers() {
            @Override
            public void write(String name, long value) {
                fpga.csrWrite(name, value);
            }

            @Override
            public long read(String name) {
                return fpga.csrRead(name);
            }
        }, bridge.regionPages(), bridge.regions(), busyLimit);
        this.pins = PinCache.lru(bridge.regionPages() * RegionTable.PAGE, Pinner.of(this::pinPages, this::unpinPages));
    }

    /** A new direct buffer whose pages regions may take. */
    void admit(DirectBuffer g) {
        g.pinKey = new PinRange(g.memory.address(), g.length);
        pinnable.put(g.pinKey, g);
    }

    /** A direct buffer closing: its regions closed and its pages out of the table. */
    void forget(DirectBuffer g) {
        pinnable.remove(g.pinKey);
        pins.invalidate(g.pinKey, "its GPU buffer was closed");
    }

    /**
     * Opens a region over the whole of {@code m}, a direct buffer: its pages written into the page table unless they
     * are still there from an earlier region over it, then the lowest free region number programmed
     * over them with the directions allowed. When the free entries are too few, the pages of buffers
     * with no region open leave the table, the least recently used first; when that leaves enough
     * entries but scattered, all of them do.
     */
    Session.Region open(BufferMemory m, boolean allowRd, boolean allowWr) {
        if (m.isClosed()) {
            throw new IllegalStateException("cannot open a region over this " + m.length + "-byte GPU buffer: it is closed");
        }
        if (!(m instanceof DirectBuffer g)) {
            throw new IllegalArgumentException("cannot open a region over " + m + ": it takes the bounce path (" + m.pathReason()
                    + "), and a region gives the bridge's walkers the GPU's own pages, which only the direct path maps");
        }
        long pages = g.length / RegionTable.PAGE;
        if (pages > table.entries()) {
            throw new IllegalArgumentException("cannot open a region over " + g + ": its " + pages + " pages of 64 KB exceed the "
                    + table.entries() + " entries of the bridge's page table (region_pages)");
        }
        Lease<RegionTable.Run> lease;
        try {
            lease = pins.pin(g.pinKey);
        } catch (PinBudgetExceededException e) {
            throw new IllegalStateException("cannot open a region over " + g + ": its " + pages + " pages do not fit in the page "
                    + "table of " + table.entries() + " entries beside the pages of the open regions (" + table.freeEntries()
                    + " entries free); close a region first", e);
        } catch (IllegalStateException e) {
            // Enough entries are free, but not in one run: the idle runs between them go, and the pages are written again.
            if (table.fits((int) pages) || pins.clear() == 0) {
                throw e;
            }
            lease = pins.pin(g.pinKey);
        }
        try {
            RegionTable.Run run = lease.pinned();
            return new BufferRegion(this, g, lease, run, table.open(run, g.length, allowRd, allowWr), allowRd, allowWr);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
    }

    /** Takes region {@code number} over {@code run} out of the table (while the FPGA lives: its tables went with it). */
    void close(RegionTable.Run run, int number) {
        if (run.isOpen(number) && fpga.usable()) {
            table.close(run, number);
        }
    }

    /** The pin cache's pin: the buffer's pages into the page table. */
    private RegionTable.Run pinPages(PinRange range) {
        DirectBuffer g = pinnable.get(range);
        long[] bus = new long[(int) (g.length / RegionTable.PAGE)];
        for (int i = 0; i < bus.length; i++) {
            bus[i] = g.table().pageBusAddress(i);
        }
        return table.writePages(bus, g.toString());
    }

    /** The pin cache's unpin: the regions over the pages closed, then the entries released (while the FPGA lives). */
    private void unpinPages(PinRange range, RegionTable.Run run) {
        if (!fpga.usable()) {
            return;
        }
        try {
            table.release(run);
        } catch (RuntimeException e) {
            if (fpga.usable()) {
                throw e;
            }
            // found gone just now: the next call that needs it says so
        }
    }
}
