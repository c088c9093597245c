// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import static org.direkt.overlay.header.HeaderFiles.read;
import static org.direkt.overlay.header.HeaderFiles.readInts;
import static org.direkt.overlay.header.HeaderFiles.readWords;
import static org.direkt.overlay.header.HeaderFiles.resource;
import static org.direkt.overlay.header.HeaderFiles.write;
import static org.direkt.overlay.header.HeaderFiles.writeInts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.overlay.OverlayModel;
import org.direkt.overlay.Templates;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The region part of {@code direkt_dma.h} (a header for addressing=regions), built with PoCL: the
 * requests its builders make equal {@link Layout#CLDESC_REGION}'s packing bit for bit, and the
 * example kernel {@code examples/kernels/gpu_region_copy.cl} runs in emulation mode, one request and
 * one status per copy. A header for raw addressing has none of it, and a regions header none of the
 * raw direction builders, so a kernel written for the other addressing fails to compile.
 */
class RegionHeaderPoclTest {
    private static final String RES = "/org/direkt/overlay/header/";
    private static final int NF = Layout.CLDESC_REGION.fields().size();
    private static final int REC_IN = 6 + NF;
    private static final int REC_OUT = 2 * NF + 10;
    private static final int SLOTS = 64;
    private static final int DESC_BYTES = Layout.CLDESC.bits() / 8;
    private static final int FPGA_MEM_BYTES = 4096;
    private static final long REGION_MAX_BYTES = 0xFFFF_FFFCL;

    /** One set of builder inputs: region, offset, FPGA address, bytes, tag, offset into fpga_mem. */
    record Case(long region, long offset, long fpga, long bytes, long tag, long mem) {
    }

    private static final List<Case> CASES = List.of(
            new Case(0, 0, 0, 4, 0, 0),
            new Case(15, 0x0001_0040L, 0x1_2345_6780L, 64L << 20, 0xDEAD_BEEFL, 64),
            new Case(255, 0xFFFF_FFFCL, 0xFFFF_FFFF_FFFF_FFFCL, REGION_MAX_BYTES, 0xFFFF_FFFFL, 4092),
            new Case(256, 4, 8, 12, 1, 8),
            new Case(0xFFFF_FFFFL, 8, 0x8000_0000L, 0, 2, 12),
            new Case(3, 12, 0x4_0000_0000L, 6, 3, 16));

    static String header() {
        Bridge.Params p = Bridge.Params.regionsPreset();
        return Templates.render("direkt_dma.h.vm", OverlayModel.of(p, new Bridge().elaborate(p), List.of(), Map.of()));
    }

    @BeforeAll
    static void toolsArePresent() {
        Pocl.driver();
    }

    @Test
    void everyRegionBuilderMatchesTheLayout() throws IOException {
        Path dir = stage("regions-emu");
        Random rnd = new Random(0x5E610L);
        List<Layout.Field> fields = Layout.CLDESC_REGION.fields();
        assertEquals(12, fields.size(), "header_regions_test.cl (NF) gets and sets every cldesc_region field");
        int n = CASES.size();
        long[] in = new long[1 + n * REC_IN];
        in[0] = n;
        long[][] raw = new long[n][fields.size()];
        long[] statuses = new long[SLOTS];
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            long[] r = {c.region(), c.offset(), c.fpga(), c.bytes(), c.tag(), c.mem()};
            System.arraycopy(r, 0, in, 1 + i * REC_IN, r.length);
            for (int f = 0; f < fields.size(); f++) {
                raw[i][f] = i == 0 ? 0xFFFF_FFFFL : rnd.nextLong() & 0xFFFF_FFFFL;
                in[1 + i * REC_IN + 6 + f] = raw[i][f];
            }
            statuses[i] = rnd.nextLong();
        }
        write(dir.resolve("in.bin"), in);
        write(dir.resolve("rd_status.bin"), statuses);
        write(dir.resolve("wr_status.bin"), new long[SLOTS]);
        int descBuf = SLOTS * DESC_BYTES;
        Pocl.build(dir, dir.resolve("header_regions_test.cl"), "-DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=" + SLOTS + " -I" + dir + " -Werror",
                "header_regions_test", 1,
                List.of("in:in.bin", "out:" + n * REC_OUT * 8 + ":out.bin", "out:" + FPGA_MEM_BYTES + ":fpga_mem.bin",
                        "out:" + descBuf + ":rd_desc.bin", "in:rd_status.bin", "out:" + descBuf + ":wr_desc.bin", "in:wr_status.bin"));
        long[] out = read(dir.resolve("out.bin"));
        long[] rd = readWords(dir.resolve("rd_desc.bin"));
        long[] wr = readWords(dir.resolve("wr_desc.bin"));
        // the FPGA address of fpga_mem + mem, as the kernel saw it: from case 0's direkt_region_to_fpga
        long fpgaBase = Layout.CLDESC_REGION.field("fpga_lo").getLong(words(rd, 1)) | Layout.CLDESC_REGION.field("fpga_hi").getLong(words(rd, 1)) << 32;
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            String at = "case " + i + " " + c;
            long[] o = Arrays.copyOfRange(out, i * REC_OUT, (i + 1) * REC_OUT);
            BigInteger want = expected(c.region(), c.offset(), c.fpga(), c.bytes(), c.tag());
            assertDesc(want, rd, 4 * i, at + ": direkt_region_request");
            for (int f = 0; f < fields.size(); f++) {
                Layout.Field fd = fields.get(f);
                assertEquals(fd.getLong(want), o[f], at + ": direkt_cldesc_region_get_" + fd.name());
            }
            assertEquals(c.fpga(), o[NF], at + ": direkt_cldesc_region_get_fpga");
            boolean lenOk = c.bytes() % 4 == 0 && c.bytes() >= 4 && c.bytes() <= REGION_MAX_BYTES;
            assertEquals(lenOk ? 1 : 0, o[NF + 1], at + ": direkt_region_len_ok");
            long pointer = fpgaBase + c.mem();
            assertDesc(expected(c.region(), c.offset(), pointer, c.bytes(), c.tag()), rd, 4 * i + 1, at + ": direkt_region_to_fpga");
            assertDesc(expected(c.region(), c.offset(), pointer, c.bytes(), c.tag()), wr, i, at + ": direkt_region_from_fpga");
            Map<String, Long> set = new LinkedHashMap<>();
            for (int f = 0; f < fields.size(); f++) {
                Layout.Field fd = fields.get(f);
                set.put(fd.name(), raw[i][f] & fd.mask().longValue());
                assertEquals(raw[i][f] & fd.mask().longValue(), o[NF + 2 + f], at + ": direkt_cldesc_region_set_/get_" + fd.name());
            }
            assertDesc(Layout.CLDESC_REGION.pack(set), rd, 4 * i + 2, at + ": the setters");
            assertDesc(expected(c.region(), c.offset(), pointer, c.bytes(), c.tag()), rd, 4 * i + 3, at + ": direkt_copy_region's request");
            assertEquals(statuses[i], o[2 * NF + 2], at + ": direkt_copy_region returns the direction's next status");
            Bridge.Params p = Bridge.Params.regionsPreset();
            assertEquals(List.of(1L, (long) p.regions(), (long) p.regionPages(), 1L << Layout.PAGE_BITS, REGION_MAX_BYTES,
                    (long) Layout.KIND_RAW, (long) Layout.KIND_REGION), Arrays.stream(o, 2 * NF + 3, 2 * NF + 10).boxed().toList(),
                    "DIREKT_REGIONS, _REGION_COUNT, _REGION_PAGES, _PAGE_BYTES, _REGION_MAX_BYTES, _KIND_RAW, _KIND_REGION");
        }
        // a region number too wide for its field must not name another region: its spill sets reserved bits
        long spill = Layout.CLDESC_REGION.field("reserved_x4").getLong(words(rd, 4 * 3));
        assertEquals(1, spill, "region 256: reserved_x4 holds the bits above the region field");
    }

    /**
     * direkt_submit_strided and direkt_submit_vectored in emulation: every entry they submit equals
     * what the request's definition gives (a check entry ending where the request's bytes end, its
     * faults folded in; then the rows or elements in order, more set on all but the last), for
     * ordinary requests, a single row, no rows, an unaligned stride, a span past 4 GB, no elements.
     */
    @Test
    void stridedAndVectoredBuildersMatchTheirDefinition() throws IOException {
        Path dir = stage("regions-multi");
        // region, offset, region stride, FPGA offset, FPGA stride, row bytes, rows, tag
        long[][] strided = {
                {2, 0x100, 0x1000, 0, 256, 64, 3, 0xA1},
                {7, 0xFFF0, 0, 64, 0, 16, 1, 0xA2},
                {1, 0, 64, 128, 64, 64, 0, 0xA3},
                {1, 4, 66, 0, 64, 8, 2, 0xA4},
                {3, 0x40, 0x8000_0000L, 0, 4, 4, 3, 0xA5}};
        // region, tag, then (offset, FPGA offset, bytes) per element
        long[][][] vectored = {
                {{4, 0xB1}, {0x10, 0, 8}, {0x4000, 512, 256}, {0x20, 64, 4}},
                {{5, 0xB2}},
                {{6, 0xB3}, {0xFFFF_FFF8L, 16, 4}}};
        List<Long> in = new java.util.ArrayList<>(List.of((long) strided.length, (long) vectored.length));
        for (long[] c : strided) {
            for (long v : c) {
                in.add(v);
            }
        }
        for (long[][] c : vectored) {
            in.addAll(List.of(c[0][0], (long) (c.length - 1), c[0][1]));
            for (int k = 1; k < c.length; k++) {
                in.addAll(List.of(c[k][0], c[k][1], c[k][2]));
            }
        }
        write(dir.resolve("in.bin"), in.stream().mapToLong(Long::longValue).toArray());
        write(dir.resolve("rd_status.bin"), new long[SLOTS]);
        write(dir.resolve("wr_status.bin"), new long[SLOTS]);
        int descBuf = SLOTS * DESC_BYTES;
        Pocl.build(dir, dir.resolve("header_regions_test.cl"), "-DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=" + SLOTS + " -I" + dir + " -Werror",
                "header_multi_test", 1,
                List.of("in:in.bin", "out:" + FPGA_MEM_BYTES + ":fpga_mem.bin", "out:" + descBuf + ":rd_desc.bin", "in:rd_status.bin",
                        "out:" + descBuf + ":wr_desc.bin", "in:wr_status.bin"));
        long[] rd = readWords(dir.resolve("rd_desc.bin"));
        long[] wr = readWords(dir.resolve("wr_desc.bin"));
        // fpga_mem's FPGA address: the first strided case's first row (FPGA offset 0)
        BigInteger row0 = words(rd, 1);
        long base = Layout.CLDESC_REGION.field("fpga_lo").getLong(row0) | Layout.CLDESC_REGION.field("fpga_hi").getLong(row0) << 32;
        int slot = 0;
        for (long[] c : strided) {
            long region = c[0], off = c[1], rs = c[2], fpga = base + c[3], fs = c[4], rb = c[5], rows = c[6], tag = c[7];
            long span = rows == 0 ? 0 : rows - 1;
            long faults = ((rs | fs) & 3) | (rows == 0 || rb == 0 ? 4 : 0);
            String at = "strided case " + Arrays.toString(c);
            assertDesc(check(region, off + span * rs + rb, fpga + span * fs + rb, faults, tag, rows != 0), rd, slot++, at + ": check entry");
            for (long r = 0; r < rows; r++) {
                assertDesc(entry(region, (off + r * rs) & 0xFFFF_FFFFL, fpga + r * fs, rb, tag, r < rows - 1, false), rd, slot++,
                        at + ": row " + r);
            }
        }
        assertDesc(BigInteger.ZERO, rd, slot, "no entry after the strided cases'");
        slot = 0;
        for (long[][] c : vectored) {
            long region = c[0][0], tag = c[0][1];
            int n = c.length - 1;
            long end = 0, fend = 0;
            for (int k = 1; k <= n; k++) {
                end = Math.max(end, c[k][0] + c[k][2]);
                fend = Math.max(fend, base + c[k][1] + c[k][2]);
            }
            String at = "vectored case of " + n;
            assertDesc(check(region, end, fend, n == 0 ? 4 : 0, tag, n != 0), wr, slot++, at + ": check entry");
            for (int k = 1; k <= n; k++) {
                assertDesc(entry(region, c[k][0], base + c[k][1], c[k][2], tag, k < n, false), wr, slot++, at + ": element " + (k - 1));
            }
        }
        assertDesc(BigInteger.ZERO, wr, slot, "no entry after the vectored cases'");
    }

    /** A check entry by its definition: ends at end / fpgaEnd (4 bytes before), faults folded in, past the last offset clamped. */
    private static BigInteger check(long region, long end, long fpgaEnd, long faults, long tag, boolean more) {
        long last = Math.max(end - 4, 0);
        long offset = Math.min(last, REGION_MAX_BYTES) | (faults & 3);
        return entry(region, offset, Math.max(fpgaEnd - 4, 0), (faults & 4) != 0 ? 0 : 4, tag, more, true);
    }

    private static BigInteger entry(long region, long offset, long fpga, long bytes, long tag, boolean more, boolean check) {
        Map<String, Long> v = new LinkedHashMap<>();
        v.put("fpga_lo", fpga & 0xFFFF_FFFFL);
        v.put("fpga_hi", fpga >>> 32);
        v.put("offset", offset);
        v.put("bytes", bytes);
        v.put("region", region);
        v.put("more", more ? 1L : 0L);
        v.put("check", check ? 1L : 0L);
        v.put("tag", tag);
        v.put("kind", (long) Layout.KIND_REGION);
        return Layout.CLDESC_REGION.pack(v);
    }

    /**
     * The example kernel in emulation: one request per copy on each direction, the region numbers,
     * offset, length and tags as passed, the FPGA address of its buffer; the data scaled between the
     * two; a failed read leaves the write out.
     */
    @Test
    void theExampleKernelMakesOneRequestPerCopy() throws IOException {
        int count = 256;
        long bytes = count * 4L;
        int[] data = new Random(0xC0FFEEL).ints(count).toArray();
        for (boolean readFails : new boolean[] {false, true}) {
            Path dir = stage("regions-example-" + readFails);
            HeaderFiles.write(dir, "gpu_region_copy.cl", Files.readString(repo().resolve("examples/kernels/gpu_region_copy.cl")));
            writeInts(dir.resolve("fpga_in.bin"), data);
            long rdStatus = status(1, readFails ? Layout.Error.REGION_RANGE : Layout.Error.OK, 1234);
            long wrStatus = status(2, Layout.Error.OK, 5678);
            write(dir.resolve("rd_status.bin"), new long[] {rdStatus});
            write(dir.resolve("wr_status.bin"), new long[] {wrStatus});
            Pocl.build(dir, dir.resolve("gpu_region_copy.cl"), "-DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=1 -I" + dir + " -Werror",
                    "region_scale", 1,
                    List.of("u32:3", "u32:5", "u32:0x10040", "inout:fpga_in.bin:fpga_out.bin", "u32:" + bytes, "u32:3",
                            "out:16:status.bin", "out:" + DESC_BYTES + ":rd_desc.bin", "in:rd_status.bin",
                            "out:" + DESC_BYTES + ":wr_desc.bin", "in:wr_status.bin"));
            long[] rd = readWords(dir.resolve("rd_desc.bin"));
            long[] wr = readWords(dir.resolve("wr_desc.bin"));
            long[] st = read(dir.resolve("status.bin"));
            int[] fpga = readInts(dir.resolve("fpga_out.bin"));
            String at = readFails ? "the read fails" : "both copies";
            BigInteger rdReq = words(rd, 0);
            long fpgaAddr = Layout.CLDESC_REGION.field("fpga_lo").getLong(rdReq) | Layout.CLDESC_REGION.field("fpga_hi").getLong(rdReq) << 32;
            assertDesc(expected(3, 0x10040, fpgaAddr, bytes, 1), rd, 0, at + ": the rd request");
            assertEquals(rdStatus, st[0], at + ": status[0] is the rd status");
            if (readFails) {
                assertDesc(BigInteger.ZERO, wr, 0, at + ": no wr request after a failed read");
                assertEquals(0, st[1], at + ": status[1] untouched");
                assertTrue(Arrays.equals(data, fpga), at + ": the FPGA buffer untouched");
            } else {
                assertDesc(expected(5, 0x10040, fpgaAddr, bytes, 2), wr, 0, at + ": the wr request, from the same FPGA buffer");
                assertEquals(wrStatus, st[1], at + ": status[1] is the wr status");
                for (int i = 0; i < count; i++) {
                    assertEquals(data[i] * 3, fpga[i], at + ": FPGA word " + i + " scaled by 3");
                }
            }
        }
    }

    @Test
    void hardwareModeCompilesWithChannelStubs() throws IOException {
        Path dir = stage("regions-hw");
        HeaderFiles.write(dir, "gpu_region_copy.cl", "#include \"direkt_hw_stubs.h\"\n"
                + Files.readString(repo().resolve("examples/kernels/gpu_region_copy.cl")));
        for (String kernel : List.of("header_regions_test.cl", "gpu_region_copy.cl")) {
            Pocl.Result r = Pocl.build(dir, dir.resolve(kernel), "-DDIREKT_TEST_HW_STUBS -I" + dir, "-", 0, List.of());
            List<String> unexpected = r.output().lines().filter(l -> l.contains("warning:"))
                    .filter(l -> !l.contains("OpenCL extension 'cl_intel_channels' unknown")
                            && !l.contains("unknown attribute 'depth' ignored") && !l.contains("unknown attribute 'io' ignored"))
                    .toList();
            assertEquals(List.of(), unexpected, kernel + ": warnings outside the channel parts:\n" + r.output());
        }
    }

    /**
     * Four kernel ports: each port's channels are declared with its own ids, each has its own submit
     * and wait, and the region helpers take a port for their direction, in hardware mode and in
     * emulation (where every port of a direction is the direction's emulated pair).
     */
    @Test
    void everyKernelPortHasItsOwnChannelsAndFunctions() throws IOException {
        Bridge.Params p = Bridge.Params.regionsPreset().toBuilder().ports(4).build();
        String h = Templates.render("direkt_dma.h.vm", OverlayModel.of(p, new Bridge().elaborate(p), List.of(), Map.of()));
        for (ChannelPort.Channel c : p.channelList()) {
            assertTrue(h.contains("__attribute__((io(\"" + c.chanId() + "\")));"), "declares " + c.chanId());
        }
        for (String pre : List.of("rd", "rd_p1", "rd_p2", "rd_p3", "wr", "wr_p1", "wr_p2", "wr_p3")) {
            assertTrue(h.contains("static inline void direkt_" + pre + "_submit(cldesc_t d)"), pre);
            assertTrue(h.contains("static inline direkt_status_t direkt_" + pre + "_wait(void)"), pre);
        }
        assertFalse(h.contains("direkt_rd_p4_submit"));
        Path dir = HeaderFiles.dir("regions-ports");
        HeaderFiles.write(dir, "direkt_dma.h", h);
        HeaderFiles.write(dir, "direkt_hw_stubs.h", resource("direkt_hw_stubs.h"));
        String body = """
                __kernel void two_ports(__global uint *a, __global uint *b, __global ulong *out DIREKT_KERNEL_ARGS)
                {
                    DIREKT_BEGIN;
                    out[0] = direkt_copy_region(rd_p2, 1U, 0U, a, 4096U, 7U);
                    direkt_rd_p1_submit(direkt_region_request(1U, 4096U, direkt_fpga_addr(b), 64U, 7U));
                    out[1] = direkt_rd_p1_wait();
                    direkt_submit_strided(wr_p3, 2U, 0U, 8192U, a, 4096U, 4096U, 4U, 9U);
                    out[2] = direkt_wr_p3_wait();
                }
                """;
        HeaderFiles.write(dir, "ports_hw.cl", "#include \"direkt_hw_stubs.h\"\n#include \"direkt_dma.h\"\n" + body);
        HeaderFiles.write(dir, "ports_emu.cl", "#include \"direkt_dma.h\"\n" + body);
        String example = Files.readString(repo().resolve("examples/kernels/gpu_region_ports.cl"));
        HeaderFiles.write(dir, "example_hw.cl", "#include \"direkt_hw_stubs.h\"\n" + example);
        HeaderFiles.write(dir, "example_emu.cl", example);
        // (each build fails the test with its log unless PoCL builds the kernel)
        Pocl.build(dir, dir.resolve("example_hw.cl"), "-DDIREKT_TEST_HW_STUBS -I" + dir, "-", 0, List.of());
        Pocl.build(dir, dir.resolve("example_emu.cl"), "-DDIREKT_EMULATION -I" + dir + " -Werror", "-", 0, List.of());
        Pocl.build(dir, dir.resolve("ports_hw.cl"), "-DDIREKT_TEST_HW_STUBS -I" + dir, "-", 0, List.of());
        Pocl.build(dir, dir.resolve("ports_emu.cl"), "-DDIREKT_EMULATION -I" + dir + " -Werror", "-", 0, List.of());
    }

    /** Each addressing's header offers its own builders only. */
    @Test
    void eachAddressingOffersItsOwnBuilders() {
        String regions = header();
        String raw = Preset.DEFAULT.header();
        for (String name : List.of("direkt_copy_region(", "direkt_region_request(", "direkt_region_to_fpga(", "direkt_region_from_fpga(")) {
            assertTrue(regions.contains(name), "regions header: " + name);
            assertFalse(raw.contains(name), "raw header: " + name);
        }
        for (String name : List.of("direkt_desc_gpu_to_fpga(", "direkt_desc_fpga_to_gpu(", "direkt_desc_gpu_to_fpga_addr(")) {
            assertFalse(regions.contains(name), "regions header must not offer raw builders the bridge rejects: " + name);
            assertTrue(raw.contains(name), "raw header: " + name);
        }
        assertTrue(regions.contains("#define DIREKT_REGIONS 1"), "regions header");
        assertTrue(raw.contains("#define DIREKT_REGIONS 0"), "raw header");
    }

    // ------------------------------------------------------------------ helpers

    private static Path repo() {
        Path p = HeaderFiles.module();
        while (p != null && !Files.isRegularFile(p.resolve("examples/kernels/gpu_region_copy.cl"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "the repository (examples/kernels/gpu_region_copy.cl) is above " + HeaderFiles.module());
        return p;
    }

    private static Path stage(String what) {
        Path dir = HeaderFiles.dir(what);
        HeaderFiles.write(dir, "direkt_dma.h", header());
        HeaderFiles.write(dir, "header_regions_test.cl", resource("header_regions_test.cl"));
        HeaderFiles.write(dir, "direkt_hw_stubs.h", resource("direkt_hw_stubs.h"));
        return dir;
    }


    private static long status(long tag, Layout.Error error, long elapsed) {
        return Layout.KERNEL_STATUS_TAGGED.pack(Map.of("tag", tag, "error", (long) error.code(), "elapsed", elapsed)).longValue();
    }

    /** The region request the header must build: the region number's bits above its field spill into reserved_x4. */
    private static BigInteger expected(long region, long offset, long fpga, long bytes, long tag) {
        Layout.Word w = Layout.CLDESC_REGION;
        int regionBits = w.field("region").width();
        Map<String, Long> v = new LinkedHashMap<>();
        v.put("fpga_lo", fpga & 0xFFFF_FFFFL);
        v.put("fpga_hi", fpga >>> 32);
        v.put("offset", offset);
        v.put("bytes", bytes);
        v.put("region", region & w.field("region").mask().longValue());
        v.put("reserved_x4", (region >>> regionBits) != 0 ? 1L : 0L);
        v.put("tag", tag);
        v.put("kind", (long) Layout.KIND_REGION);
        return w.pack(v);
    }

    private static BigInteger words(long[] words, int slot) {
        BigInteger v = BigInteger.ZERO;
        for (int x = Layout.CLDESC_WORDS - 1; x >= 0; x--) {
            v = v.shiftLeft(32).or(BigInteger.valueOf(words[slot * Layout.CLDESC_WORDS + x]));
        }
        return v;
    }

    private static void assertDesc(BigInteger expected, long[] words, int slot, String what) {
        BigInteger got = words(words, slot);
        assertEquals(expected, got, what + String.format(": 0x%064x, Layout says 0x%064x", got, expected));
    }





}
