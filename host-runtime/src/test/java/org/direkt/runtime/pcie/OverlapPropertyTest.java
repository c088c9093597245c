// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link AddressTable#of} refuses exactly the page lists in which two pages share a bus address,
 * whether its pages lie close together (checked with a bitmap of the span) or spread over the bus
 * (checked by sorting): seeded random lists against a hash-map answer; the failing seed is printed
 * and {@code -Ddirekt.seed=N} replays it.
 */
class OverlapPropertyTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final long GPU = 0x7f00_0000_0000L;
    private static final int TRIALS = 3_000;
    private static final Pattern NAMED = Pattern.compile("pages (\\d+) and (\\d+) overlap on the bus: both map to (0x[0-9a-f]+)");

    @Test
    void refusedExactlyWhenTwoPagesShareABusAddress() {
        String replay = System.getProperty("direkt.seed");
        long base = replay != null ? Long.parseLong(replay) : 0x0be7_1a90L;
        int trials = replay != null ? 1 : TRIALS;
        int[] seen = new int[4]; // {close, wide} x {accepted, refused}
        for (int t = 0; t < trials; t++) {
            long seed = base + t;
            try {
                seen[trial(new Random(seed))]++;
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("overlap property failed for seed " + seed + " (replay with -Ddirekt.seed=" + seed
                        + "): " + e.getMessage(), e);
            }
        }
        if (replay == null) {
            for (int k = 0; k < 4; k++) {
                assertTrue(seen[k] > trials / 20, "every kind of case is drawn often: " + java.util.Arrays.toString(seen));
            }
        }
    }

    /** One random list; returns its kind: 0/1 close accepted/refused, 2/3 wide accepted/refused. */
    private static int trial(Random r) {
        int pages = 1 + r.nextInt(r.nextBoolean() ? 16 : 700);
        boolean wide = r.nextBoolean();
        // Close: pages drawn from a window a few times the range (runs of neighbours, reversed runs,
        // single pages). Wide: from the whole 48-bit page-number space, with runs as well.
        long window = wide ? 1L << 47 : Math.max(2, pages * (1 + r.nextInt(8)));
        long origin = wide ? 0 : (r.nextLong() >>> 17);
        long[] bus = new long[pages];
        for (int i = 0; i < pages; ) {
            long start = Math.floorMod(r.nextLong(), window);
            int run = 1 + r.nextInt(Math.min(r.nextBoolean() ? 40 : 300, pages - i));
            boolean down = r.nextInt(4) == 0;
            for (int k = 0; k < run; k++, i++) {
                long page = down ? start - k : start + k;
                bus[i] = ((origin + Math.floorMod(page, window)) & ((1L << 48) - 1)) << 16;
            }
        }
        if (r.nextInt(3) == 0 && pages > 1) { // force a shared page somewhere
            bus[r.nextInt(pages)] = bus[r.nextInt(pages)];
        }
        Map<Long, Integer> first = new HashMap<>();
        int clash = -1;
        int clashWith = -1;
        for (int i = 0; i < pages && clash < 0; i++) {
            Integer before = first.putIfAbsent(bus[i], i);
            if (before != null) {
                clash = i;
                clashWith = before;
            }
        }
        long length = pages * P;
        if (clash < 0) {
            AddressTable t = AddressTable.of(GPU, length, bus);
            assertEquals(length, t.length());
            return wide ? 2 : 0;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AddressTable.of(GPU, length, bus),
                "pages " + clashWith + " and " + clash + " share " + Bytes.hex(bus[clash]));
        // The message names two pages and the address they share; they must really share it.
        Matcher m = NAMED.matcher(e.getMessage());
        assertTrue(m.find(), e.getMessage());
        int a = Integer.parseInt(m.group(1));
        int b = Integer.parseInt(m.group(2));
        assertTrue(a != b && bus[a] == bus[b] && Bytes.hex(bus[a]).equals(m.group(3)), e.getMessage());
        return wide ? 3 : 1;
    }

    @Test
    void segmentsThatTouchWithoutSharingArePassedAndSharedPagesAtWordEdgesAreFound() {
        // 200 pages in two runs, the later run placed just below the earlier one: they touch on the
        // bus but share nothing; with a page of one moved onto the other at bit 63, 64 and inside.
        long base = 0x40_0000_0000L;
        long[] bus = new long[200];
        for (int i = 0; i < 100; i++) {
            bus[i] = base + (100 + i) * P;
            bus[100 + i] = base + i * P;
        }
        assertEquals(2, AddressTable.of(GPU, 200 * P, bus).segmentCount());
        for (int at : new int[] {0, 63, 64, 99}) {
            long[] shared = bus.clone();
            shared[100 + at] = base + (100 + at / 2) * P; // a page of the upper run, inside it
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AddressTable.of(GPU, 200 * P, shared));
            assertTrue(e.getMessage().contains("overlap on the bus: both map to " + Bytes.hex(base + (100 + at / 2) * P)), e.getMessage());
        }
        // A short run inside a long one that comes after it: they share pages only in words the
        // long run covers whole.
        long[] inside = new long[310];
        for (int i = 0; i < 10; i++) {
            inside[i] = base + (130 + i) * P;
        }
        for (int i = 0; i < 300; i++) {
            inside[10 + i] = base + i * P;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AddressTable.of(GPU, 310 * P, inside));
        assertTrue(e.getMessage().contains("pages 0 and 140 overlap on the bus: both map to " + Bytes.hex(base + 130 * P)), e.getMessage());
        // The same two runs spread far apart (the sorting path) and made to overlap by one page.
        long far = 0x8000_0000_0000_0000L;
        long[] wide = bus.clone();
        for (int i = 0; i < 100; i++) {
            wide[i] = far + i * P;
        }
        assertEquals(2, AddressTable.of(GPU, 200 * P, wide).segmentCount());
        wide[150] = far + 3 * P;
        assertThrows(IllegalArgumentException.class, () -> AddressTable.of(GPU, 200 * P, wide));
    }
}
