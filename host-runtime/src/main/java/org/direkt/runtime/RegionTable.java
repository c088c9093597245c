// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.math.BigInteger;
import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import org.direkt.contract.Layout;
import org.direkt.runtime.pcie.Bytes;

/**
 * The bridge's page table and region table (addressing=regions) as the host keeps them, written
 * through the CSR by the register names of {@link Layout#CSR_REGION_REGS}. A pinned range's pages
 * take a contiguous run of page table entries, the first run that fits; a region is programmed over
 * a run and takes the lowest free region number. Both are read back after every write, so a table
 * that did not take what was written is found at once, not by a request that goes astray later.
 *
 * <p>The order the walkers need is kept here: a region is closed (REGION_BYTES = 0, then
 * REGION_CTRL) and its REGION_STATUS.busy seen low before its number or its pages are handed out
 * again, and a run is freed only once every region over it is closed, so no request still in a
 * walker reads an entry rewritten under it (the bridge refuses such page writes, REGION_STATUS.refused).
 * Not thread-safe: its session calls it one operation at a time.
 */
final class RegionTable {
    /** A region's pages: the table maps 64 KB pages, as GPU memory is pinned. */
    static final long PAGE = 1L << Layout.PAGE_BITS;

    /** The bridge's CSR, by register name. */
    interface Registers {
        void write(String name, long value);

        long read(String name);
    }

    /** Page table entries {@code first .. first + pages - 1} holding one pinned range's pages, and the regions open over them. */
    static final class Run {
        final int first;
        final int pages;
        final String what;
        private final TreeSet<Integer> open = new TreeSet<>();
        private boolean released;

        private Run(int first, int pages, String what) {
            this.first = first;
            this.pages = pages;
            this.what = what;
        }

        /** Whether region {@code number} is open over this run. */
        boolean isOpen(int number) {
            return open.contains(number);
        }

        @Override
        public String toString() {
            return "page table entries " + first + ".." + (first + pages - 1) + " (" + what + ")";
        }
    }

    private final Registers csr;
    private final int entries;
    private final int regions;
    private final Duration busyLimit;
    private final BitSet usedEntries;
    private final BitSet usedRegions;

    /**
     * @param entries   page table entries ({@code region_pages})
     * @param regions   region table entries ({@code regions})
     * @param busyLimit how long a closed region may stay busy (a request naming it still in a walker) before closing it fails
     */
    RegionTable(Registers csr, int entries, int regions, Duration busyLimit) {
        this.csr = Objects.requireNonNull(csr, "csr");
        this.entries = entries;
        this.regions = regions;
        this.busyLimit = busyLimit;
        this.usedEntries = new BitSet(entries);
        this.usedRegions = new BitSet(regions);
    }

    int entries() {
        return entries;
    }

    int regions() {
        return regions;
    }

    /** Page table entries not held by a run. */
    int freeEntries() {
        return entries - usedEntries.cardinality();
    }

    /** Region numbers not open. */
    int freeRegions() {
        return regions - usedRegions.cardinality();
    }

    /** Whether {@code pages} contiguous entries are free now. */
    boolean fits(int pages) {
        return firstRun(pages) >= 0;
    }

    /**
     * Writes {@code bus} (a bus address per 64 KB page, in order) into the first run of free entries
     * that holds them: PAGE_INDEX, then PAGE_LO and PAGE_HI per page (PAGE_HI's write stores the page
     * and steps PAGE_INDEX on).
     *
     * @throws IllegalStateException no run of that many entries is free (the message gives the
     *     table's size, the free entries and the longest free run), or the bridge refused a page
     */
    Run writePages(long[] bus, String what) {
        int n = bus.length;
        int first = firstRun(n);
        if (first < 0) {
            throw new IllegalStateException("cannot write the " + n + " pages of " + what + " into the page table: no run of "
                    + n + " free entries among its " + entries + " (" + freeEntries() + " free, the longest free run "
                    + longestFreeRun() + "); close regions or the GPU buffers they are over");
        }
        csr.write("PAGE_INDEX", first);
        for (long b : bus) {
            csr.write("PAGE_LO", Layout.CSR_PAGE_LO.pack(Map.of("addr", (b >>> Layout.PAGE_BITS) & 0xFFFF)).longValueExact());
            csr.write("PAGE_HI", b >>> 32);
        }
        long index = csr.read("PAGE_INDEX");
        Map<String, BigInteger> status = Layout.CSR_REGION_STATUS.unpack(BigInteger.valueOf(csr.read("REGION_STATUS")));
        if (status.get("refused").signum() != 0 || index != first + n) {
            csr.write("REGION_STATUS", 0);  // clears refused for the next check
            throw new IllegalStateException("the bridge refused a page of " + what + " written to page table entries " + first
                    + ".." + (first + n - 1) + " (REGION_STATUS.refused " + status.get("refused") + ", PAGE_INDEX " + index
                    + " after the writes, " + (first + n) + " expected): an entry still in a walk's range, or past the table of "
                    + entries);
        }
        usedEntries.set(first, first + n);
        return new Run(first, n, what);
    }

    /**
     * Programs the lowest free region number over {@code run}: REGION_SELECT, REGION_BYTES, then
     * REGION_CTRL (whose write stores the entry), and reads REGION_LENGTH and REGION_CTRL back.
     *
     * @return the region number
     * @throws IllegalArgumentException {@code bytes} is not inside the run's pages, or neither direction is allowed
     * @throws IllegalStateException    every region number is open, or the table did not keep what was written
     */
    int open(Run run, long bytes, boolean allowRd, boolean allowWr) {
        checkLive(run);
        long maxBytes = (1L << Layout.REGION_ENTRY.field("bytes").width()) - 1;
        if (bytes <= 0 || bytes > run.pages * PAGE || bytes > maxBytes) {
            throw new IllegalArgumentException("a region of " + bytes + " bytes over " + run + ": the length must be positive, at most "
                    + "its " + run.pages + " pages and at most " + maxBytes + " (region_entry.bytes is "
                    + Layout.REGION_ENTRY.field("bytes").width() + " bits)");
        }
        if (!allowRd && !allowWr) {
            throw new IllegalArgumentException("a region over " + run + " that allows neither direction would be closed: allow reads "
                    + "(GPU -> FPGA), writes (FPGA -> GPU) or both");
        }
        int r = usedRegions.nextClearBit(0);
        if (r >= regions) {
            throw new IllegalStateException("cannot open a region over " + run + ": all " + regions + " region numbers of the bridge "
                    + "are open; close a region first");
        }
        long ctrl = Layout.CSR_REGION_CTRL.pack(Map.of("first", run.first, "allow_rd", allowRd ? 1 : 0, "allow_wr",
                allowWr ? 1 : 0)).longValueExact();
        csr.write("REGION_SELECT", r);
        csr.write("REGION_BYTES", bytes);
        csr.write("REGION_CTRL", ctrl);
        long length = csr.read("REGION_LENGTH");
        long stored = csr.read("REGION_CTRL");
        if (length != bytes || stored != ctrl) {
            csr.write("REGION_BYTES", 0);
            csr.write("REGION_CTRL", 0);
            throw new IllegalStateException("region " + r + " over " + run + " reads back REGION_LENGTH " + length + " and REGION_CTRL 0x"
                    + Long.toHexString(stored) + ", written " + bytes + " and 0x" + Long.toHexString(ctrl)
                    + ": the bridge's region table did not keep the entry (closed again)");
        }
        usedRegions.set(r);
        run.open.add(r);
        return r;
    }

    /**
     * Closes region {@code number} over {@code run} (REGION_BYTES = 0, then REGION_CTRL) and waits
     * until no request naming it is in a walker (REGION_STATUS.busy low) before its number is free again.
     *
     * @throws IllegalStateException it stayed busy longer than the limit: its number stays taken
     *     and its pages stay in the table, since a walker may still read them
     */
    void close(Run run, int number) {
        if (!run.open.contains(number)) {
            throw new IllegalStateException("region " + number + " is not open over " + run);
        }
        csr.write("REGION_SELECT", number);
        csr.write("REGION_BYTES", 0);
        csr.write("REGION_CTRL", 0);
        long deadline = System.nanoTime() + busyLimit.toNanos();
        while (Layout.CSR_REGION_STATUS.field("busy").getLong(BigInteger.valueOf(csr.read("REGION_STATUS"))) != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("region " + number + " over " + run + " is closed in the table, but a request naming "
                        + "it is still in a walker after " + busyLimit.toMillis() + " ms (REGION_STATUS.busy): its number and "
                        + "its pages stay taken, as the walker may still read them");
            }
            Thread.onSpinWait();
        }
        run.open.remove(number);
        usedRegions.clear(number);
    }

    /**
     * Releases {@code run}'s entries for other pages: first every region still open over it is
     * closed ({@link #close}), then the entries are free.
     */
    void release(Run run) {
        checkLive(run);
        for (int r : new TreeSet<>(run.open)) {
            close(run, r);
        }
        run.released = true;
        usedEntries.clear(run.first, run.first + run.pages);
    }

    private void checkLive(Run run) {
        if (run.released) {
            throw new IllegalStateException(run + " was released: its entries may hold other pages now");
        }
    }

    private int firstRun(int n) {
        int at = usedEntries.nextClearBit(0);
        while (at + n <= entries) {
            int used = usedEntries.nextSetBit(at);
            if (used < 0 || used >= at + n) {
                return at;
            }
            at = usedEntries.nextClearBit(used);
        }
        return -1;
    }

    private int longestFreeRun() {
        int best = 0;
        for (int at = usedEntries.nextClearBit(0); at < entries; ) {
            int used = usedEntries.nextSetBit(at);
            int end = used < 0 || used > entries ? entries : used;
            best = Math.max(best, end - at);
            if (used < 0) {
                break;
            }
            at = usedEntries.nextClearBit(used);
        }
        return best;
    }

    @Override
    public String toString() {
        return "RegionTable[" + (entries - freeEntries()) + " of " + entries + " page entries (" + Bytes.human(entries * PAGE)
                + "), " + (regions - freeRegions()) + " of " + regions + " regions open]";
    }
}
