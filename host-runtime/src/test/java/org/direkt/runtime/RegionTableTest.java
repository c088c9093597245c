// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;
import org.direkt.runtime.pcie.AddressTable;
import org.junit.jupiter.api.Test;

/**
 * The page and region tables as the host programs them, against a model of the bridge's region
 * registers (what the CSR stores and reads back, PAGE_INDEX stepping on, REGION_STATUS): where
 * pages and regions land, what is read back, the errors when the tables are full, and the order
 * that keeps a walker from reading entries rewritten under it. The same registers in the real
 * Verilog are RegionSessionTest's.
 */
class RegionTableTest {
    static final long PAGE = RegionTable.PAGE;
    static final Duration LIMIT = Duration.ofSeconds(5);

    /** The region registers as the bridge keeps them, and every access in order. */
    static final class BridgeModel implements RegionTable.Registers {
        final List<String> log = new ArrayList<>();
        final long[] pages;
        final long[] length;
        final long[] ctrl;
        /** REGION_STATUS reads that still find region r busy; -1: busy for ever. */
        final Map<Integer, Integer> busyReads = new HashMap<>();
        boolean refusePages;
        /** REGION_CTRL bits the table does not keep (a broken bridge). */
        long ctrlLost;
        long pageIndex;
        long pageLo;
        int select;
        long bytes;
        boolean refused;

        BridgeModel(int entries, int regions) {
            pages = new long[entries];
            length = new long[regions];
            ctrl = new long[regions];
        }

        @Override
        public void write(String name, long value) {
            log.add(name + "=" + value);
            switch (name) {
                case "PAGE_INDEX" -> pageIndex = value;
                case "PAGE_LO" -> pageLo = value;
                case "PAGE_HI" -> {
                    if (refusePages || pageIndex >= pages.length) {
                        refused = true;
                    } else {
                        pages[(int) pageIndex++] = value << 32 | pageLo;
                    }
                }
                case "REGION_SELECT" -> select = (int) value;
                case "REGION_BYTES" -> bytes = value;
                case "REGION_CTRL" -> {
                    length[select] = bytes;
                    ctrl[select] = value & ~ctrlLost;
                }
                case "REGION_STATUS" -> refused = false;
                default -> throw new AssertionError("write to " + name);
            }
        }

        @Override
        public long read(String name) {
            log.add(name + "?");
            return switch (name) {
                case "PAGE_INDEX" -> pageIndex;
                case "REGION_LENGTH" -> length[select];
                case "REGION_CTRL" -> ctrl[select];
                case "REGION_STATUS" -> {
                    int left = busyReads.getOrDefault(select, 0);
                    if (left > 0) {
                        busyReads.put(select, left - 1);
                    }
                    yield (left != 0 ? 2 : 0) | (refused ? 1 : 0);
                }
                default -> throw new AssertionError("read of " + name);
            };
        }
    }

    static long[] bus(long... pageNumbers) {
        return Arrays.stream(pageNumbers).map(p -> 0x38_0000_0000L + p * PAGE).toArray();
    }

    static Map<String, BigInteger> ctrlOf(BridgeModel b, int region) {
        return Layout.CSR_REGION_CTRL.unpack(BigInteger.valueOf(b.ctrl[region]));
    }

    @Test
    void pagesTakeTheFirstFreeRunThatFitsAndLandInTheTableAsWritten() {
        assertEquals(AddressTable.PAGE_SIZE, PAGE, "the table's pages are the pages GPU memory is pinned in");
        BridgeModel b = new BridgeModel(16, 4);
        RegionTable t = new RegionTable(b, 16, 4, LIMIT);
        RegionTable.Run a = t.writePages(bus(9, 3, 4, 0x1_0000), "a");
        RegionTable.Run c = t.writePages(bus(7, 8, 1), "c");
        assertEquals(0, a.first);
        assertEquals(4, c.first);
        assertArrayEquals(bus(9, 3, 4, 0x1_0000), Arrays.copyOfRange(b.pages, 0, 4), "page frames above 4 GB keep PAGE_HI");
        t.release(a);
        RegionTable.Run d = t.writePages(bus(20, 21), "d");
        RegionTable.Run e = t.writePages(bus(30, 31, 32), "e");
        assertEquals(0, d.first, "first fit: the freed run's start");
        assertEquals(7, e.first, "entries 2..3 are too few for 3 pages");
        assertEquals(16 - 8, t.freeEntries());
        assertEquals(List.of("PAGE_INDEX=7", "PAGE_LO=" + (bus(30)[0] & 0xFFFF_FFFFL), "PAGE_HI=" + (bus(30)[0] >>> 32)),
                b.log.subList(b.log.lastIndexOf("PAGE_INDEX=7"), b.log.lastIndexOf("PAGE_INDEX=7") + 3));
    }

    @Test
    void aRegionTakesTheLowestFreeNumberAndItsEntryIsReadBack() {
        BridgeModel b = new BridgeModel(16, 4);
        RegionTable t = new RegionTable(b, 16, 4, LIMIT);
        t.writePages(bus(1), "first");
        RegionTable.Run run = t.writePages(bus(5, 6, 7), "g");
        int r0 = t.open(run, 3 * PAGE, true, true);
        int r1 = t.open(run, 3 * PAGE - 4096, true, false);
        assertEquals(0, r0);
        assertEquals(1, r1);
        assertEquals(3 * PAGE - 4096, b.length[1]);
        assertEquals(Map.of("first", BigInteger.ONE, "allow_rd", BigInteger.ONE, "allow_wr", BigInteger.ZERO,
                "reserved", BigInteger.ZERO), ctrlOf(b, 1));
        assertTrue(b.log.indexOf("REGION_LENGTH?") > b.log.indexOf("REGION_CTRL=" + b.ctrl[0]), "read back after the write");
        t.close(run, r0);
        assertEquals(0, b.length[0], "a closed region's length is 0 in the table");
        assertFalse(run.isOpen(r0));
        assertEquals(0, t.open(run, PAGE, false, true), "the closed region's number is free again");
    }

    @Test
    void fullTablesAreReportedWithTheirCounts() {
        BridgeModel b = new BridgeModel(16, 2);
        RegionTable t = new RegionTable(b, 16, 2, LIMIT);
        RegionTable.Run a = t.writePages(bus(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), "a");
        IllegalStateException pages = assertThrows(IllegalStateException.class, () -> t.writePages(bus(20, 21, 22, 23, 24, 25, 26,
                27), "b"));
        assertTrue(pages.getMessage().contains("no run of 8 free entries among its 16 (6 free, the longest free run 6)"),
                pages.getMessage());
        t.open(a, PAGE, true, true);
        t.open(a, PAGE, true, true);
        IllegalStateException regions = assertThrows(IllegalStateException.class, () -> t.open(a, PAGE, true, true));
        assertTrue(regions.getMessage().contains("all 2 region numbers of the bridge are open"), regions.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> t.open(a, 10 * PAGE + 4, true, true));
        assertTrue(tooLong.getMessage().contains("at most its 10 pages"), tooLong.getMessage());
        IllegalArgumentException neither = assertThrows(IllegalArgumentException.class, () -> t.open(a, PAGE, false, false));
        assertTrue(neither.getMessage().contains("neither direction"), neither.getMessage());
    }

    /** The rule the walkers need: every region over a run is closed and idle before the run's entries are free. */
    @Test
    void releasingARunClosesItsRegionsAndWaitsForThemBeforeItsEntriesAreFree() {
        BridgeModel b = new BridgeModel(16, 4);
        RegionTable t = new RegionTable(b, 16, 4, LIMIT);
        RegionTable.Run run = t.writePages(bus(1, 2, 3, 4), "g");
        int r0 = t.open(run, 4 * PAGE, true, true);
        int r1 = t.open(run, 2 * PAGE, false, true);
        b.busyReads.put(r1, 3);  // a request naming r1 is still in a walker for three reads
        int before = b.log.size();
        t.release(run);
        List<String> closing = List.copyOf(b.log.subList(before, b.log.size()));
        RegionTable.Run next = t.writePages(bus(9, 10, 11, 12), "next");
        assertEquals(0, next.first, "the released entries hold the next pages");
        assertEquals(List.of("REGION_SELECT=" + r0, "REGION_BYTES=0", "REGION_CTRL=0", "REGION_STATUS?",
                "REGION_SELECT=" + r1, "REGION_BYTES=0", "REGION_CTRL=0", "REGION_STATUS?", "REGION_STATUS?", "REGION_STATUS?",
                "REGION_STATUS?"), closing,
                "each region closed and awaited idle (r1 busy three reads), before the next pages are written");
        assertEquals(0, b.length[r0]);
        assertEquals(0, b.length[r1]);
        assertFalse(run.isOpen(r0) || run.isOpen(r1));
        assertThrows(IllegalStateException.class, () -> t.open(run, PAGE, true, true), "a released run takes no region");
    }

    @Test
    void aRegionThatStaysBusyKeepsItsNumberAndItsPages() {
        BridgeModel b = new BridgeModel(16, 2);
        RegionTable t = new RegionTable(b, 16, 2, Duration.ofMillis(20));
        RegionTable.Run run = t.writePages(bus(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), "g");
        int r = t.open(run, PAGE, true, true);
        b.busyReads.put(r, -1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.release(run));
        assertTrue(e.getMessage().contains("region 0 over page table entries 0..15 (g) is closed in the table, but a request "
                + "naming it is still in a walker after 20 ms"), e.getMessage());
        assertEquals(0, b.length[r], "closed in the table all the same");
        assertEquals(0, t.freeEntries(), "its pages stay");
        assertEquals(1, t.open(run, PAGE, true, true), "its number stays taken");
    }

    @Test
    void aPageOrARegionTheBridgeDidNotKeepIsReported() {
        BridgeModel b = new BridgeModel(16, 2);
        RegionTable t = new RegionTable(b, 16, 2, LIMIT);
        b.refusePages = true;
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> t.writePages(bus(1, 2), "g"));
        assertTrue(refused.getMessage().contains("refused a page of g written to page table entries 0..1"), refused.getMessage());
        assertEquals("REGION_STATUS=0", b.log.getLast(), "refused is cleared for the next check");
        assertEquals(16, t.freeEntries());
        b.refusePages = false;
        RegionTable.Run run = t.writePages(bus(1, 2), "g");
        b.ctrlLost = 1L << 17;
        IllegalStateException lost = assertThrows(IllegalStateException.class, () -> t.open(run, PAGE, true, true));
        assertTrue(lost.getMessage().contains("did not keep the entry"), lost.getMessage());
        assertEquals(0, b.length[0], "closed again");
        assertEquals(2, t.freeRegions());
    }
}
