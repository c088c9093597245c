// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

import org.direkt.contract.Layout;

/**
 * The PCIe bus addresses behind a pinned GPU range, and the splitting of transfers into pieces the
 * FPGA's data movers accept.
 *
 * <p>GPU memory is pinned for a peer in 64 KB pages, and the bus addresses of consecutive pages are
 * not guaranteed to be contiguous. The table is built from one bus address per page and coalesces
 * runs of bus-contiguous pages into {@link Segment}s, so its size and the cost of every lookup
 * depend on the number of discontinuities, never on the number of bytes: a 1 GB range (16,384
 * pages) that the exporter mapped in one run is a single segment.
 *
 * <p>Offsets are byte offsets into the GPU range ({@code 0 <= offset < length()}); the GPU virtual
 * base is carried for messages and for callers that index by virtual address. Instances are
 * immutable and safe to share between threads.
 */
public final class AddressTable {
    /** The granularity at which GPU memory is pinned for a peer and bus addresses are handed out. */
    public static final long PAGE_SIZE = 64 * 1024;

    /**
     * The largest piece one mover descriptor moves: {@link Layout#MAX_DWORDS} dwords (1 MB - 4 B).
     * The bridge's Layout is the one definition of this limit.
     */
    public static final int MAX_TRANSFER_BYTES = Layout.MAX_DWORDS * 4;

    private static final long PAGE_MASK = PAGE_SIZE - 1;
    /** log2 of {@link #PAGE_SIZE}: page numbers and counts by shifting (lengths are positive). */
    private static final int PAGE_SHIFT = Long.numberOfTrailingZeros(PAGE_SIZE);

    private final long gpuBase;
    private final long length;
    // Segment i covers GPU offsets [segOffset[i], segOffset[i+1]) at bus addresses from segBus[i];
    // segOffset has one more entry than segBus (the total length) so lookups need no special case.
    private final long[] segOffset;
    private final long[] segBus;

    private AddressTable(long gpuBase, long length, long[] segOffset, long[] segBus) {
        this.gpuBase = gpuBase;
        this.length = length;
        this.segOffset = segOffset;
        this.segBus = segBus;
    }

    /**
     * Builds the table of the GPU range {@code [gpuBase, gpuBase + length)} from the bus address of
     * each of its 64 KB pages, in order ({@code pageBusAddresses[i]} is where bytes
     * {@code [i * 64 KB, (i + 1) * 64 KB)} of the range sit on the bus).
     *
     * @throws IllegalArgumentException if the base is not 64 KB aligned, the length is not positive
     *     or not a multiple of 64 KB, the range runs past 2^64, the number of pages does not match the
     *     length, a bus page is not 64 KB aligned, or two pages share bus addresses (an exporter bug:
     *     the FPGA would read or write the same memory through two GPU offsets)
     */
    public static AddressTable of(long gpuBase, long length, long[] pageBusAddresses) {
        if ((gpuBase & PAGE_MASK) != 0) {
            throw new IllegalArgumentException("GPU base " + Bytes.hex(gpuBase) + " is not 64 KB aligned: pinned GPU ranges "
                    + "start on a 64 KB page (" + Bytes.hex(gpuBase & ~PAGE_MASK) + " is the page it falls in)");
        }
        if (length <= 0) {
            throw new IllegalArgumentException("GPU range at " + Bytes.hex(gpuBase) + ": length " + length + " must be > 0");
        }
        if ((length & PAGE_MASK) != 0) {
            throw new IllegalArgumentException("GPU range at " + Bytes.hex(gpuBase) + ": length " + Bytes.size(length)
                    + " is not a multiple of 64 KB (pinned ranges are whole 64 KB pages)");
        }
        if (Long.compareUnsigned(gpuBase + length - 1, gpuBase) < 0) {
            throw new IllegalArgumentException("GPU range at " + Bytes.hex(gpuBase) + " of " + Bytes.size(length)
                    + " runs past the end of the 64-bit address space (2^64)");
        }
        long pages = length / PAGE_SIZE;
        if (pageBusAddresses.length != pages) {
            throw new IllegalArgumentException("GPU range at " + Bytes.hex(gpuBase) + " of " + Bytes.size(length) + " has "
                    + pages + " pages of 64 KB but " + pageBusAddresses.length + " bus addresses were given");
        }
        // Alignment first, as one OR over every page (a loop the compiler vectorizes); only when it
        // shows a low bit set are the pages searched for the first one not aligned. An aligned page
        // can never run past 2^64: its last byte is at most 2^64 - 1.
        long lowBits = 0;
        for (long page : pageBusAddresses) {
            lowBits |= page;
        }
        if ((lowBits & PAGE_MASK) != 0) {
            for (int i = 0; i < pageBusAddresses.length; i++) {
                if ((pageBusAddresses[i] & PAGE_MASK) != 0) {
                    throw new IllegalArgumentException("bus address " + Bytes.hex(pageBusAddresses[i]) + " of page " + i
                            + " (GPU offset " + Bytes.hex(i * PAGE_SIZE) + ") is not 64 KB aligned");
                }
            }
        }
        // Then one pass that notes every segment's start in this thread's scratch; the table's
        // arrays are copies of the notes (a copy into a new array is not zeroed first).
        long[] offsets = scratch(OFFSET_NOTES, pageBusAddresses.length + 1, NOTES_KEPT);
        long[] buses = scratch(BUS_NOTES, pageBusAddresses.length, NOTES_KEPT);
        long previous = pageBusAddresses[0];
        buses[0] = previous;
        int segments = 1;
        for (int i = 1; i < pageBusAddresses.length; i++) {
            long page = pageBusAddresses[i];
            if (!follows(previous, page)) {
                offsets[segments] = i * PAGE_SIZE;
                buses[segments] = page;
                segments++;
            }
            previous = page;
        }
        offsets[0] = 0;
        offsets[segments] = length;
        long[] segOffset = Arrays.copyOf(offsets, segments + 1);
        long[] segBus = Arrays.copyOf(buses, segments);
        if (!segmentsDisjoint(segOffset, segBus)) {
            checkNoOverlap(pageBusAddresses); // names the two pages that collide
        }
        return new AddressTable(gpuBase, length, segOffset, segBus);
    }

    /**
     * Bus spans up to this many times the range's own page count are checked with a bitmap of the
     * span (at most one 64-bit word per page of the range); wider spans are sorted instead.
     */
    private static final long BITMAP_SPAN_PER_PAGE = 64;
    /**
     * Each thread keeps its working arrays for the next table (a fresh array per table costs more
     * than the work with some collectors): the notes of segment starts up to 16,384 pages (1 GB,
     * 128 KB each), the bitmap up to 4,096 words (32 KB); larger ones are made for one table.
     */
    private static final ThreadLocal<long[]> OFFSET_NOTES = ThreadLocal.withInitial(() -> new long[64]);
    private static final ThreadLocal<long[]> BUS_NOTES = ThreadLocal.withInitial(() -> new long[64]);
    private static final ThreadLocal<long[]> BITMAP = ThreadLocal.withInitial(() -> new long[64]);
    private static final int NOTES_KEPT = (1 << 14) + 1;
    private static final int BITMAP_KEPT = 4096;

    /** This thread's array of at least {@code length} entries (contents left from the last use). */
    private static long[] scratch(ThreadLocal<long[]> mine, int length, int kept) {
        long[] a = mine.get();
        if (length > a.length) {
            a = new long[length];
            if (length <= kept) {
                mine.set(a);
            }
        }
        return a;
    }

    /**
     * True when no two segments share a bus address. Pages are 64 KB aligned, so this is a question
     * about page numbers (bus address / 64 KB, below 2^48). When the segments' pages lie within a
     * span of at most {@link #BITMAP_SPAN_PER_PAGE} times the range's page count (the usual case:
     * a range's pages come from one aperture), each segment marks its pages in a bitmap of the span,
     * word by word, and a page marked twice is an overlap: linear in segments plus span / 64.
     * Wider spans fall back to sorting.
     */
    private static boolean segmentsDisjoint(long[] segOffset, long[] segBus) {
        int n = segBus.length;
        if (n == 1) {
            return true;
        }
        long low = Long.MAX_VALUE;
        long high = 0;
        for (int i = 0; i < n; i++) {
            long first = segBus[i] >>> PAGE_SHIFT;
            low = Math.min(low, first);
            high = Math.max(high, first + ((segOffset[i + 1] - segOffset[i]) >>> PAGE_SHIFT) - 1);
        }
        long span = high - low + 1;
        if (span > BITMAP_SPAN_PER_PAGE * (segOffset[n] / PAGE_SIZE)) {
            return segmentsDisjointSorted(segOffset, segBus);
        }
        int words = (int) ((span + 63) >>> 6);
        long[] marked = scratch(BITMAP, words, BITMAP_KEPT);
        Arrays.fill(marked, 0, words, 0L);
        for (int i = 0; i < n; i++) {
            long from = (segBus[i] >>> PAGE_SHIFT) - low;
            long to = from + ((segOffset[i + 1] - segOffset[i]) >>> PAGE_SHIFT); // exclusive
            int w = (int) (from >>> 6);
            int last = (int) ((to - 1) >>> 6);
            long head = -1L << (from & 63);
            long tail = -1L >>> (63 - ((to - 1) & 63));
            if (w == last) {
                long bits = head & tail;
                if ((marked[w] & bits) != 0) {
                    return false;
                }
                marked[w] |= bits;
                continue;
            }
            if ((marked[w] & head) != 0) {
                return false;
            }
            marked[w] |= head;
            for (w++; w < last; w++) {
                if (marked[w] != 0) {
                    return false;
                }
                marked[w] = -1L;
            }
            if ((marked[last] & tail) != 0) {
                return false;
            }
            marked[last] |= tail;
        }
        return true;
    }

    /**
     * The same question for pages spread wide: intervals are pairwise disjoint exactly when, with
     * their starts and their ends sorted separately, every end is below the next start.
     */
    private static boolean segmentsDisjointSorted(long[] segOffset, long[] segBus) {
        int n = segBus.length;
        long[] starts = new long[n];
        long[] lasts = new long[n];
        for (int i = 0; i < n; i++) {
            // Unsigned order through the sign flip; "last" (inclusive) cannot overflow past 2^64 - 1.
            starts[i] = segBus[i] ^ Long.MIN_VALUE;
            lasts[i] = (segBus[i] + (segOffset[i + 1] - segOffset[i]) - 1) ^ Long.MIN_VALUE;
        }
        Arrays.sort(starts);
        Arrays.sort(lasts);
        for (int i = 0; i + 1 < n; i++) {
            if (lasts[i] >= starts[i + 1]) {
                return false;
            }
        }
        return true;
    }

    private static boolean follows(long previousPage, long page) {
        // The page ending at 2^64 is not followed by page 0: the bus does not wrap.
        return previousPage != -PAGE_SIZE && page == previousPage + PAGE_SIZE;
    }

    private static void checkNoOverlap(long[] pages) {
        // Aligned 64 KB pages overlap exactly when they are equal.
        long[] sorted = pages.clone();
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] ^= Long.MIN_VALUE; // signed order of the flipped values = unsigned order
        }
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                long bus = sorted[i] ^ Long.MIN_VALUE;
                int first = -1;
                int second = -1;
                for (int p = 0; p < pages.length; p++) {
                    if (pages[p] == bus) {
                        if (first < 0) {
                            first = p;
                        } else {
                            second = p;
                            break;
                        }
                    }
                }
                throw new IllegalArgumentException("pages " + first + " and " + second + " overlap on the bus: both map to "
                        + Bytes.hex(bus) + " (every page of a pinned range must have its own bus address)");
            }
        }
    }

    /** The GPU virtual address of offset 0. */
    public long gpuBase() {
        return gpuBase;
    }

    /** Bytes in the range, a positive multiple of {@link #PAGE_SIZE}. */
    public long length() {
        return length;
    }

    public int pageCount() {
        return (int) (length / PAGE_SIZE);
    }

    /** Number of bus-contiguous runs; 1 when the whole range is contiguous on the bus. */
    public int segmentCount() {
        return segBus.length;
    }

    /** The bus-contiguous runs in GPU-offset order (a view; no copy). */
    public List<Segment> segments() {
        return new SegmentList();
    }

    /** GPU offset at which segment {@code i} starts. */
    public long segmentGpuOffset(int i) {
        return segOffset[checkSegment(i)];
    }

    private int checkSegment(int i) {
        if (i < 0 || i >= segBus.length) {
            throw new IndexOutOfBoundsException("segment " + i + " of " + segBus.length);
        }
        return i;
    }

    /** The bus address of page {@code page} of the range. */
    public long pageBusAddress(int page) {
        if (page < 0 || page >= pageCount()) {
            throw new IndexOutOfBoundsException("page " + page + " of a range of " + pageCount() + " pages");
        }
        return busAddress(page * PAGE_SIZE);
    }

    /** The bus address of the byte at {@code offset} into the range. */
    public long busAddress(long offset) {
        if (offset < 0 || offset >= length) {
            throw new IllegalArgumentException("offset " + offset + " (" + Bytes.hex(offset) + ") is outside the GPU range at "
                    + Bytes.hex(gpuBase) + " of " + Bytes.size(length) + ": offsets run from 0 to " + (length - 1));
        }
        int s = segmentOf(offset);
        return segBus[s] + (offset - segOffset[s]);
    }

    /** Index of the segment holding {@code offset}; offset must be inside the range. */
    private int segmentOf(long offset) {
        int i = Arrays.binarySearch(segOffset, 0, segBus.length, offset);
        return i >= 0 ? i : -i - 2;
    }

    /**
     * Splits {@code bytes} bytes starting {@code offset} bytes into the range into mover-legal
     * pieces of at most {@link #MAX_TRANSFER_BYTES}: see {@link #split(long, long, int)}.
     */
    public List<Transfer> split(long offset, long bytes) {
        return split(offset, bytes, MAX_TRANSFER_BYTES);
    }

    /**
     * Splits {@code bytes} bytes starting {@code offset} bytes into the range into pieces the data
     * movers accept, in order: each piece is dword-aligned (address and length), at most
     * {@code maxPieceBytes} long, and lies inside one bus-contiguous segment, so no descriptor
     * crosses a discontinuity. Pieces are as long as those rules allow; together they cover the
     * request exactly. The cost is proportional to the number of pieces.
     *
     * @param maxPieceBytes a positive multiple of 4, at most {@link #MAX_TRANSFER_BYTES} (smaller
     *     values let a caller bound the time one descriptor holds the mover)
     * @throws IllegalArgumentException if the offset or size is not a multiple of 4, the size is not
     *     positive, or the request does not lie inside the range
     */
    public List<Transfer> split(long offset, long bytes, int maxPieceBytes) {
        if (maxPieceBytes <= 0 || (maxPieceBytes & 3) != 0 || maxPieceBytes > MAX_TRANSFER_BYTES) {
            throw new IllegalArgumentException("largest piece " + maxPieceBytes + " must be a positive multiple of 4 and at most "
                    + MAX_TRANSFER_BYTES + " (" + Layout.MAX_DWORDS + " dwords, the data movers' limit)");
        }
        if ((offset & 3) != 0) {
            throw new IllegalArgumentException("transfer offset " + offset + " is not dword-aligned: the data movers need "
                    + "addresses that are multiples of 4");
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("transfer size " + bytes + " must be > 0");
        }
        if ((bytes & 3) != 0) {
            throw new IllegalArgumentException("transfer size " + bytes + " is not a multiple of 4: the data movers move "
                    + "whole dwords");
        }
        if (offset < 0 || offset >= length || bytes > length - offset) {
            throw new IllegalArgumentException("transfer of " + Bytes.size(bytes) + " at offset " + offset + " ("
                    + Bytes.hex(offset) + ") does not lie inside the GPU range at " + Bytes.hex(gpuBase) + " of "
                    + Bytes.size(length) + " (offset + size must be <= " + length + ")");
        }
        long end = offset + bytes;
        int s = segmentOf(offset);
        List<Transfer> out = new ArrayList<>((int) Math.min(Integer.MAX_VALUE - 8,
                bytes / maxPieceBytes + (segmentOf(end - 1) - s) + 1));
        long at = offset;
        while (at < end) {
            long segEnd = Math.min(segOffset[s + 1], end);
            long bus = segBus[s] + (at - segOffset[s]);
            while (at < segEnd) {
                int piece = (int) Math.min(maxPieceBytes, segEnd - at);
                out.add(new Transfer(bus, at, piece));
                at += piece;
                bus += piece;
            }
            s++;
        }
        return out;
    }

    @Override
    public String toString() {
        return "AddressTable[gpu " + Bytes.hex(gpuBase) + ", " + Bytes.human(length) + ", " + pageCount() + " pages in "
                + segmentCount() + " segment" + (segmentCount() == 1 ? "" : "s") + "]";
    }

    private final class SegmentList extends AbstractList<Segment> implements RandomAccess {
        @Override
        public Segment get(int i) {
            checkSegment(i);
            return new Segment(segBus[i], segOffset[i + 1] - segOffset[i]);
        }

        @Override
        public int size() {
            return segBus.length;
        }
    }
}
