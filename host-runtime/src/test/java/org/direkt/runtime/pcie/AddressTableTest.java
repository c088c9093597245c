// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.direkt.contract.Layout;

class AddressTableTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final long GPU = 0x7f00_0000_0000L;
    private static final int MAX = AddressTable.MAX_TRANSFER_BYTES;

    private static long[] contiguous(long bus, int pages) {
        long[] a = new long[pages];
        for (int i = 0; i < pages; i++) {
            a[i] = bus + i * P;
        }
        return a;
    }

    @Test
    void maxTransferIsTheLayoutLimit() {
        assertEquals(1024 * 1024 - 4, MAX);
        assertEquals(Layout.MAX_DWORDS * 4, MAX);
    }

    @Test
    void contiguousPagesFormOneSegment() {
        AddressTable t = AddressTable.of(GPU, 32 * P, contiguous(0xe000_0000L, 32));
        assertEquals(1, t.segmentCount());
        assertEquals(List.of(new Segment(0xe000_0000L, 32 * P)), t.segments());
        assertEquals(32, t.pageCount());
        assertEquals(0xe000_0000L + 12345 * 4, t.busAddress(12345 * 4));
        assertEquals(0xe000_0000L + 31 * P + P - 1, t.busAddress(32 * P - 1));
    }

    @Test
    void discontinuitiesStartNewSegments() {
        long[] pages = {0x10_0000L, 0x11_0000L, 0x50_0000L, 0x20_0000L, 0x21_0000L, 0x22_0000L};
        AddressTable t = AddressTable.of(GPU, 6 * P, pages);
        assertEquals(List.of(new Segment(0x10_0000L, 2 * P), new Segment(0x50_0000L, P), new Segment(0x20_0000L, 3 * P)),
                t.segments());
        assertEquals(0, t.segmentGpuOffset(0));
        assertEquals(2 * P, t.segmentGpuOffset(1));
        assertEquals(3 * P, t.segmentGpuOffset(2));
        for (int i = 0; i < pages.length; i++) {
            assertEquals(pages[i], t.pageBusAddress(i));
            assertEquals(pages[i] + 100, t.busAddress(i * P + 100));
        }
        // A page placed below its predecessor is a discontinuity too.
        assertEquals(2, AddressTable.of(0, 2 * P, new long[] {0x20_0000L, 0x1f_0000L}).segmentCount());
    }

    @Test
    void splitNeverCrossesADiscontinuity() {
        long[] pages = {0x10_0000L, 0x11_0000L, 0x50_0000L};
        AddressTable t = AddressTable.of(GPU, 3 * P, pages);
        assertEquals(List.of(new Transfer(0x10_0000L + 4, 4, (int) (2 * P - 4)), new Transfer(0x50_0000L, 2 * P, 100)),
                t.split(4, 2 * P - 4 + 100));
    }

    @Test
    void splitCutsLongSegmentsAtTheMoverLimit() {
        AddressTable t = AddressTable.of(GPU, 48 * P, contiguous(0x1_0000_0000L, 48)); // 3 MB
        List<Transfer> pieces = t.split(0, 48 * P);
        assertEquals(List.of(new Transfer(0x1_0000_0000L, 0, MAX), new Transfer(0x1_0000_0000L + MAX, MAX, MAX),
                new Transfer(0x1_0000_0000L + 2L * MAX, 2L * MAX, MAX),
                new Transfer(0x1_0000_0000L + 3L * MAX, 3L * MAX, 12)), pieces);
        assertEquals(Layout.MAX_DWORDS, pieces.get(0).dwords());
        assertEquals(List.of(new Transfer(0x1_0000_0000L + 8, 8, 4)), t.split(8, 4));
        assertEquals(6, t.split(0, 24, 4).size());
    }

    @Test
    void splitRefusesIllegalRequests() {
        AddressTable t = AddressTable.of(GPU, 4 * P, contiguous(0x10_0000L, 4));
        assertMessage(t, 2, 8, "offset 2 is not dword-aligned");
        assertMessage(t, 0, 6, "size 6 is not a multiple of 4");
        assertMessage(t, 0, 0, "size 0 must be > 0");
        assertMessage(t, 0, -4, "size -4 must be > 0");
        assertMessage(t, -4, 8, "offset -4");
        assertMessage(t, 4 * P - 4, 8, "does not lie inside the GPU range");
        assertMessage(t, 4 * P, 4, "does not lie inside the GPU range");
        assertMessage(t, 4, Long.MAX_VALUE - 3, "does not lie inside");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.split(0, 4, MAX + 4));
        assertTrue(e.getMessage().contains("at most 1048572"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.split(0, 4, 6));
        assertThrows(IllegalArgumentException.class, () -> t.busAddress(4 * P));
        assertThrows(IllegalArgumentException.class, () -> t.busAddress(-1));
    }

    private static void assertMessage(AddressTable t, long offset, long bytes, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.split(offset, bytes));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void buildRefusesIllegalTables() {
        build(GPU + 4096, P, new long[] {0}, "GPU base 0x7f0000001000 is not 64 KB aligned");
        build(GPU, 0, new long[0], "length 0 must be > 0");
        build(GPU, -P, new long[0], "must be > 0");
        build(GPU, P + 4, new long[] {0}, "is not a multiple of 64 KB");
        build(GPU, 2 * P, new long[] {0}, "has 2 pages of 64 KB but 1 bus addresses were given");
        build(GPU, P, new long[] {0x10_1000L}, "bus address 0x101000 of page 0 (GPU offset 0x0) is not 64 KB aligned");
        build(GPU, 3 * P, new long[] {0x10_0000L, 0x30_0000L, 0x10_0000L}, "pages 0 and 2 overlap on the bus: both map to 0x100000");
        build(-P, 2 * P, new long[] {0, P}, "runs past the end of the 64-bit address space");
    }

    private static void build(long base, long length, long[] pages, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AddressTable.of(base, length, pages));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void topOfTheBusAddressSpace() {
        // The last bus page ends exactly at 2^64: legal, and not contiguous with page 0.
        AddressTable t = AddressTable.of(-P, P, new long[] {-P});
        assertEquals(-1L, t.busAddress(P - 1));
        AddressTable w = AddressTable.of(0, 2 * P, new long[] {-P, 0});
        assertEquals(2, w.segmentCount());
        assertEquals(List.of(new Transfer(-P + P - 4, P - 4, 4), new Transfer(0, P, 4)), w.split(P - 4, 8));
        // Overlap detection compares unsigned: 0x8000... and 0x7fff...0000 are distinct pages.
        assertEquals(2, AddressTable.of(0, 2 * P, new long[] {Long.MIN_VALUE, Long.MAX_VALUE & ~(P - 1)}).segmentCount());
        assertThrows(IllegalArgumentException.class, () -> new Segment(-P, P + 1));
        assertThrows(IllegalArgumentException.class, () -> new Segment(0, 0));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void oneGigabyteTablesBuildAndSplitWithoutPerByteWork() {
        int pages = 16_384; // 1 GB
        long length = pages * P;
        AddressTable flat = AddressTable.of(GPU, length, contiguous(0x40_0000_0000L, pages));
        assertEquals(1, flat.segmentCount());
        List<Transfer> pieces = flat.split(0, length);
        assertEquals(length / MAX + 1, pieces.size());
        assertEquals(length, pieces.stream().mapToLong(Transfer::bytes).sum());

        // Every page on its own (reversed order): 16,384 one-page segments, one piece each.
        long[] reversed = new long[pages];
        for (int i = 0; i < pages; i++) {
            reversed[i] = 0x40_0000_0000L + (long) (pages - 1 - i) * P;
        }
        AddressTable scattered = AddressTable.of(GPU, length, reversed);
        assertEquals(pages, scattered.segmentCount());
        List<Transfer> each = scattered.split(0, length);
        assertEquals(pages, each.size());
        assertEquals(new Transfer(0x40_0000_0000L, length - P, (int) P), each.get(pages - 1));
        assertEquals(0x40_0000_0000L + 5 * P + 8, scattered.busAddress((pages - 6) * P + 8));
    }
}
