// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property test of {@link AddressTable#split}: seeded random tables, offsets, sizes and piece
 * limits; each trial's seed is printed when it fails, and {@code -Ddirekt.seed=N} replays one.
 */
class SplitPropertyTest {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final int TRIALS = 2_000;

    @Test
    void piecesCoverTheRequestExactlyAndObeyTheMoverRules() {
        String replay = System.getProperty("direkt.seed");
        long base = replay != null ? Long.parseLong(replay) : 0x5eed_0000L;
        int trials = replay != null ? 1 : TRIALS;
        for (int t = 0; t < trials; t++) {
            long seed = base + t;
            try {
                trial(new Random(seed));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("split property failed for seed " + seed + " (replay with -Ddirekt.seed=" + seed
                        + "): " + e.getMessage(), e);
            }
        }
    }

    private static void trial(Random r) {
        int pages = switch (r.nextInt(4)) {
            case 0 -> 1 + r.nextInt(4);
            case 1 -> 1 + r.nextInt(64);
            case 2 -> 16 + r.nextInt(200);
            default -> 1 + r.nextInt(1024);
        };
        double frag = r.nextInt(3) == 0 ? 0.0 : r.nextDouble();
        // Distinct bus pages: a random walk over a shuffled pool with contiguous runs.
        long[] bus = new long[pages];
        long busBase = (r.nextLong() >>> 20) & ~(P - 1);
        long next = busBase;
        java.util.Set<Long> used = new java.util.HashSet<>();
        for (int i = 0; i < pages; i++) {
            if (i > 0 && r.nextDouble() < frag) {
                do {
                    next = busBase + (long) r.nextInt(4 * pages + 8) * P;
                } while (used.contains(next));
            }
            while (used.contains(next)) {
                next += P;
            }
            bus[i] = next;
            used.add(next);
            next += P;
        }
        long gpuBase = ((r.nextLong() >>> 16) & ~(P - 1));
        long length = pages * P;
        AddressTable table = AddressTable.of(gpuBase, length, bus);

        long offset = 4L * (long) (r.nextDouble() * (length / 4));
        long maxBytes = length - offset;
        long bytes = switch (r.nextInt(4)) {
            case 0 -> 4;
            case 1 -> maxBytes;
            default -> 4 + 4L * (long) (r.nextDouble() * (maxBytes / 4));
        };
        bytes = Math.min(bytes, maxBytes);
        int limit = r.nextBoolean() ? AddressTable.MAX_TRANSFER_BYTES : 4 * (1 + r.nextInt(AddressTable.MAX_TRANSFER_BYTES / 4));
        List<Transfer> pieces = limit == AddressTable.MAX_TRANSFER_BYTES ? table.split(offset, bytes)
                : table.split(offset, bytes, limit);

        long at = offset;
        for (Transfer p : pieces) {
            assertEquals(at, p.gpuOffset(), "pieces are in order without gap or overlap");
            assertTrue(p.bytes() > 0 && p.bytes() <= limit, "piece length " + p.bytes() + " within (0, " + limit + "]");
            assertEquals(0, p.bytes() & 3, "piece length dword-aligned");
            assertEquals(0, p.busAddress() & 3, "piece address dword-aligned");
            assertEquals(reference(bus, at), p.busAddress(), "bus address of offset " + at);
            long last = at + p.bytes() - 1;
            for (long page = at / P + 1; page <= last / P; page++) {
                assertEquals(bus[(int) page - 1] + P, bus[(int) page], "piece " + p + " crosses a discontinuity at page " + page);
            }
            long end = at + p.bytes();
            boolean segmentEnds = end % P == 0 && (end == length || bus[(int) (end / P)] != bus[(int) (end / P) - 1] + P);
            assertTrue(p.bytes() == limit || end == offset + bytes || segmentEnds,
                    "piece " + p + " is cut short without a reason (limit, request end or discontinuity)");
            at = end;
        }
        assertEquals(offset + bytes, at, "pieces cover the request exactly");
        assertEquals(reference(bus, offset + bytes - 1), table.busAddress(offset + bytes - 1));
    }

    private static long reference(long[] bus, long offset) {
        return bus[(int) (offset / P)] + offset % P;
    }
}
