// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import static org.direkt.overlay.header.HeaderFiles.read;
import static org.direkt.overlay.header.HeaderFiles.readWords;
import static org.direkt.overlay.header.HeaderFiles.resource;
import static org.direkt.overlay.header.HeaderFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Builds {@code direkt_dma.h} with PoCL and runs a kernel that calls every helper it offers, in
 * emulation mode: the descriptors the kernel built must equal {@link Layout#CLDESC}'s packing bit
 * for bit, and the statuses it decoded must equal the fields of {@link Layout#KERNEL_STATUS_TAGGED}
 * or {@link Layout#KERNEL_STATUS_CYCLES}. Hardware mode is compiled with stand-ins for the Intel
 * channel built-ins (direkt_hw_stubs.h): a syntax and type check of everything but the channels.
 */
class HeaderPoclTest {
    private static final String RES = "/org/direkt/overlay/header/";
    private static final int REC_IN = 16;
    private static final int REC_OUT = 28;
    private static final int WORK_ITEMS = 2;
    private static final int SLOTS = 16;
    private static final int DESC_BYTES = Layout.CLDESC.bits() / 8;
    private static final int FPGA_MEM_BYTES = 4096;
    private static final long MAX_BYTES = (long) Layout.MAX_DWORDS * 4;

    /** One set of builder inputs. */
    record Case(long gpu, long fpga, long offset, long bytes, long tag, long id) {
    }

    private static final List<Case> CASES = List.of(
            new Case(0x0000_0000_1000_0000L, 0x0L, 0, 4, 0, 128),
            new Case(0x0000_0012_3456_7800L, 0x1_2345_6780L, 64, 4096, 0xDEAD_BEEFL, 200),
            new Case(0xFFFF_FFFF_FFFF_FFFCL, 0x1_FFFF_FFFCL, 4, MAX_BYTES, 0xFFFF_FFFFL, 255),
            new Case(0x8000_0000_0000_0000L, 0xFFFF_FFFF_0000_0000L, 128, MAX_BYTES + 4, 1, 129),
            new Case(0x0000_0001_0000_0000L, 0x7FFF_FFFCL, 252, MAX_BYTES + 8, 0x8000_0000L, 255),
            new Case(0x0000_00FF_FFFF_F000L, 0x8000_0000L, 8, 6, 42, 130),
            new Case(0xCAFE_BABE_0000_0004L, 4, 12, 0, 7, 0),
            new Case(0x0000_0001_0000_0004L, 0x0000_0002_0000_0000L, 16, 0xFFFF_FFFCL, 3, 250),
            new Case(0x0000_0000_FFFF_FFFCL, 0x0000_0000_FFFF_FFFCL, 2048, 1024, 0x1234_5678L, 254));

    @BeforeAll
    static void toolsArePresent() {
        Pocl.driver();
    }

    @ParameterizedTest
    @EnumSource(Preset.class)
    void emulationMatchesTheLayout(Preset preset) throws IOException {
        Bridge.Params p = preset.params();
        boolean managed = p.idMode() == BridgeModes.IdMode.MANAGED;
        boolean tagged = p.statusMode() == BridgeModes.StatusMode.TAGGED;
        Path dir = stage(preset, "emu");
        Random rnd = new Random(0xD1EC7L + preset.ordinal());
        List<Layout.Field> fields = Layout.CLDESC.fields();
        assertEquals(REC_IN - 6, fields.size(), "header_test.cl sets one raw value per cldesc field");

        // inputs: the cases, one raw value per field, the statuses the "bridge" returns
        int n = CASES.size();
        long[] in = new long[1 + n * REC_IN];
        in[0] = n;
        long[][] raw = new long[n][fields.size()];
        long[] rdStatus = new long[n];
        long[] wrStatus = new long[n];
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            long[] r = {c.gpu(), c.fpga(), c.offset(), c.bytes(), c.tag(), c.id()};
            System.arraycopy(r, 0, in, 1 + i * REC_IN, r.length);
            for (int f = 0; f < fields.size(); f++) {
                raw[i][f] = i == 0 ? 0xFFFF_FFFFL : rnd.nextLong() & 0xFFFF_FFFFL;
                in[1 + i * REC_IN + 6 + f] = raw[i][f];
            }
            rdStatus[i] = status(tagged, rnd, 2 * i);
            wrStatus[i] = status(tagged, rnd, 2 * i + 1);
        }
        long[] rdStatusBuf = new long[WORK_ITEMS * SLOTS];
        long[] wrStatusBuf = new long[WORK_ITEMS * SLOTS];
        for (int i = 0; i < n; i++) {
            rdStatusBuf[slot(i, 0, 1)] = rdStatus[i];
            wrStatusBuf[slot(i, 0, 1)] = wrStatus[i];
        }
        write(dir.resolve("in.bin"), in);
        write(dir.resolve("rd_status.bin"), rdStatusBuf);
        write(dir.resolve("wr_status.bin"), wrStatusBuf);
        int descBuf = WORK_ITEMS * SLOTS * DESC_BYTES;
        Pocl.build(dir, dir.resolve("header_test.cl"),
                "-DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=" + SLOTS + " -I" + dir + " -Werror", "header_test", WORK_ITEMS,
                List.of("in:in.bin", "out:" + n * REC_OUT * 8 + ":out.bin", "out:" + FPGA_MEM_BYTES + ":fpga_mem.bin",
                        "out:" + descBuf + ":rd_desc.bin", "in:rd_status.bin",
                        "out:" + descBuf + ":wr_desc.bin", "in:wr_status.bin"));
        long[] out = read(dir.resolve("out.bin"));
        long[] rdDesc = readWords(dir.resolve("rd_desc.bin"));
        long[] wrDesc = readWords(dir.resolve("wr_desc.bin"));

        long fpgaBase = out[0] - CASES.get(0).offset();
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            String at = preset + " case " + i + " " + c;
            long[] o = java.util.Arrays.copyOfRange(out, i * REC_OUT, (i + 1) * REC_OUT);
            long fpgaPtr = o[0];
            assertEquals(fpgaBase + c.offset(), fpgaPtr, at + ": direkt_fpga_addr(fpga_mem + offset)");
            long id = managed ? 0 : c.id();
            long tag = tagged ? c.tag() : 0;
            // rd: gpu_to_fpga (pointer), gpu_to_fpga_addr, make (raw: the ID and tag as given)
            assertDesc(expected(c.gpu(), fpgaPtr, c.bytes(), id, tag), rdDesc, slot(i, 0, 3), at + " rd gpu_to_fpga");
            assertDesc(expected(c.gpu(), c.fpga(), c.bytes(), id, tag), rdDesc, slot(i, 1, 3), at + " rd gpu_to_fpga_addr");
            assertDesc(expected(c.gpu(), c.fpga(), c.bytes(), c.id(), c.tag()), rdDesc, slot(i, 2, 3), at + " rd make");
            // wr: fpga_to_gpu (pointer), fpga_to_gpu_addr, the descriptor built with the setters
            assertDesc(expected(fpgaPtr, c.gpu(), c.bytes(), id, tag), wrDesc, slot(i, 0, 3), at + " wr fpga_to_gpu");
            assertDesc(expected(c.fpga(), c.gpu(), c.bytes(), id, tag), wrDesc, slot(i, 1, 3), at + " wr fpga_to_gpu_addr");
            Map<String, Long> set = new LinkedHashMap<>();
            for (int f = 0; f < fields.size(); f++) {
                Layout.Field fd = fields.get(f);
                set.put(fd.name(), raw[i][f] & fd.mask().longValue());
                assertEquals(raw[i][f] & fd.mask().longValue(), o[1 + f], at + ": direkt_cldesc_get_" + fd.name());
            }
            BigInteger s = Layout.CLDESC.pack(set);
            assertDesc(s, wrDesc, slot(i, 2, 3), at + " wr setters");
            assertEquals(join(set.get("src_hi"), set.get("src_lo")), o[11], at + ": direkt_cldesc_get_src");
            assertEquals(join(set.get("dst_hi"), set.get("dst_lo")), o[12], at + ": direkt_cldesc_get_dst");
            assertEquals(Layout.CLDESC.field("dwords").getLong(s) * 4, o[13], at + ": direkt_cldesc_get_bytes");
            boolean lenOk = c.bytes() % 4 == 0 && c.bytes() >= 4 && c.bytes() <= MAX_BYTES;
            assertEquals(lenOk ? 1 : 0, o[14], at + ": direkt_len_ok");
            assertStatus(tagged, rdStatus[i], o, 15, at + " rd status");
            assertStatus(tagged, wrStatus[i], o, 19, at + " wr status");
            assertEquals(Layout.VERSION, o[23], "DIREKT_LAYOUT_VERSION");
            assertEquals(MAX_BYTES, o[24], "DIREKT_MAX_BYTES");
            assertEquals(-1L, o[25], "DIREKT_EMU_NO_STATUS");
            assertEquals(0, o[26], "direkt_status_ok(DIREKT_EMU_NO_STATUS)");
        }
        // nothing beyond the descriptors submitted
        for (int w = 0; w < WORK_ITEMS; w++) {
            int used = 3 * (n / WORK_ITEMS + (w < n % WORK_ITEMS ? 1 : 0));
            for (int k = used; k < SLOTS; k++) {
                for (int x = 0; x < Layout.CLDESC_WORDS; x++) {
                    assertEquals(0, rdDesc[(w * SLOTS + k) * Layout.CLDESC_WORDS + x], "rd slot " + (w * SLOTS + k) + " unused");
                    assertEquals(0, wrDesc[(w * SLOTS + k) * Layout.CLDESC_WORDS + x], "wr slot " + (w * SLOTS + k) + " unused");
                }
            }
        }
    }

    /**
     * A work-item gets DIREKT_EMU_SLOTS entries: past them submits are dropped and waits return
     * DIREKT_EMU_NO_STATUS. One work-item, with buffers twice the slots, so that an entry written or
     * read past the bound shows.
     */
    @ParameterizedTest
    @EnumSource(Preset.class)
    void emulationKeepsAWorkItemInItsSlots(Preset preset) throws IOException {
        Path dir = stage(preset, "slots");
        long[] status = new long[2 * SLOTS];
        for (int i = 0; i < status.length; i++) {
            status[i] = 0x5EED_0000_0000_0000L + 0x1_0001L * i;
        }
        write(dir.resolve("rd_status.bin"), status);
        write(dir.resolve("wr_status.bin"), new long[2 * SLOTS]);
        int descBuf = 2 * SLOTS * DESC_BYTES;
        Pocl.build(dir, dir.resolve("header_test.cl"), "-DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=" + SLOTS + " -I" + dir + " -Werror",
                "header_test_slots", 1,
                List.of("out:" + descBuf + ":rd_desc.bin", "in:rd_status.bin", "out:" + descBuf + ":wr_desc.bin", "in:wr_status.bin"));
        long[] rd = readWords(dir.resolve("rd_desc.bin"));
        long[] wr = readWords(dir.resolve("wr_desc.bin"));
        for (int k = 0; k < SLOTS; k++) {
            assertDesc(expected(status[k], k, 4, 0, 0), rd, k, preset + " rd entry " + k);
        }
        for (int k = SLOTS; k < 2 * SLOTS; k++) {
            assertDesc(BigInteger.ZERO, rd, k, preset + " rd entry " + k + " lies past the slots: nothing may be written there");
        }
        assertDesc(expected(0, 2, 4, 0, 0), wr, 0, preset + ": the two waits past the slots return DIREKT_EMU_NO_STATUS");
    }

    @ParameterizedTest
    @EnumSource(Preset.class)
    void hardwareModeCompilesWithChannelStubs(Preset preset) throws IOException {
        Path dir = stage(preset, "hw");
        // PoCL takes no -Wno-... options: build without -Werror and allow only the warnings that the
        // channel parts cause (the Intel pragma and the channels' depth and io attributes).
        Pocl.Result r = Pocl.build(dir, dir.resolve("header_test.cl"), "-DDIREKT_TEST_HW_STUBS -I" + dir, "-", 0, List.of());
        List<String> warnings = r.output().lines().filter(l -> l.contains("warning:")).toList();
        List<String> unexpected = warnings.stream()
                .filter(l -> !l.contains("OpenCL extension 'cl_intel_channels' unknown")
                        && !l.contains("unknown attribute 'depth' ignored") && !l.contains("unknown attribute 'io' ignored"))
                .toList();
        assertEquals(List.of(), unexpected, "warnings outside the channel parts:\n" + r.output());
        assertEquals(9, warnings.size(), "one pragma and two attributes on each of the four channels:\n" + r.output());
    }

    /** header_test.cl calls every function and function-like macro the header declares for kernels. */
    @ParameterizedTest
    @EnumSource(Preset.class)
    void theTestKernelUsesEveryHelper(Preset preset) {
        String h = preset.header();
        String kernel = resource("header_test.cl");
        Set<String> helpers = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?m)^static inline [a-z_]+ (direkt_\\w+)\\(|^#define (direkt_\\w+)\\(").matcher(h);
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            if (!name.startsWith("direkt_emu_")) {
                helpers.add(name);
            }
        }
        assertTrue(helpers.size() > 30, "helpers found: " + helpers);
        List<String> unused = new ArrayList<>();
        for (String name : helpers) {
            if (!Pattern.compile("\\b" + name + "\\(").matcher(kernel).find()) {
                unused.add(name);
            }
        }
        assertEquals(List.of(), unused, "helpers header_test.cl does not call");
        for (String macro : List.of("DIREKT_KERNEL_ARGS", "DIREKT_KERNEL_ARGS_ONLY", "DIREKT_BEGIN", "DIREKT_EMU_SLOTS", "DIREKT_EMU_NO_STATUS", "DIREKT_LAYOUT_VERSION", "DIREKT_MAX_BYTES")) {
            assertTrue(kernel.contains(macro), macro);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Writes the header, the test kernel and the channel stubs to a fresh folder. */
    private static Path stage(Preset preset, String what) {
        Path dir = HeaderFiles.dir(what + "-" + preset.name().toLowerCase(java.util.Locale.ROOT));
        HeaderFiles.write(dir, "direkt_dma.h", preset.header());
        HeaderFiles.write(dir, "header_test.cl", resource("header_test.cl"));
        HeaderFiles.write(dir, "direkt_hw_stubs.h", resource("direkt_hw_stubs.h"));
        return dir;
    }


    /** Index of the k-th of {@code per} entries case i leaves in its work-item's part of a buffer. */
    private static int slot(int i, int k, int per) {
        return (i % WORK_ITEMS) * SLOTS + (i / WORK_ITEMS) * per + k;
    }

    /** A status: tagged ones with each error code in turn and extreme fields, or cycle counts; some all ones. */
    private static long status(boolean tagged, Random rnd, int i) {
        if (i % 5 == 4) {
            return -1L;
        }
        if (!tagged) {
            return i % 5 == 3 ? 0 : rnd.nextLong() >>> (i % 3);
        }
        Layout.Error[] errors = Layout.Error.values();
        long elapsedMax = Layout.KERNEL_STATUS_TAGGED.field("elapsed").mask().longValue();
        Map<String, Long> v = new LinkedHashMap<>();
        v.put("tag", rnd.nextLong() & 0xFFFF_FFFFL);
        v.put("error", (long) errors[i % errors.length].code());
        v.put("elapsed", i % 3 == 0 ? elapsedMax : rnd.nextLong() & elapsedMax);
        return Layout.KERNEL_STATUS_TAGGED.pack(v).longValue();
    }

    private static void assertStatus(boolean tagged, long status, long[] o, int at, String what) {
        BigInteger s = new BigInteger(Long.toUnsignedString(status));
        if (tagged) {
            Layout.Word w = Layout.KERNEL_STATUS_TAGGED;
            assertEquals(w.field("tag").getLong(s), o[at], what + ": direkt_status_tag");
            assertEquals(w.field("error").getLong(s), o[at + 1], what + ": direkt_status_error");
            assertEquals(w.field("elapsed").getLong(s), o[at + 2], what + ": direkt_status_elapsed");
            assertEquals(w.field("error").getLong(s) == Layout.Error.OK.code() ? 1 : 0, o[at + 3], what + ": direkt_status_ok");
        } else {
            Layout.Word w = Layout.KERNEL_STATUS_CYCLES;
            assertEquals(w.field("cycles").getLong(s), o[at], what + ": direkt_status_cycles");
            assertEquals(w.field("failed").getLong(s), o[at + 1], what + ": direkt_status_failed");
            assertEquals(w.field("failed").getLong(s) == 0 ? 1 : 0, o[at + 2], what + ": direkt_status_ok");
        }
    }

    /**
     * The descriptor the header must build: the Layout's packing of the addresses, the length in
     * dwords (cut to its field, with every len_overflow bit set when it does not fit), ID and tag.
     */
    private static BigInteger expected(long src, long dst, long bytes, long id, long tag) {
        Layout.Field dwordsField = Layout.CLDESC.field("dwords");
        long dwordsMask = dwordsField.mask().longValue();
        long dwords = bytes / 4;
        Map<String, Long> v = new LinkedHashMap<>();
        int loBits = Layout.CLDESC.field("src_lo").width();
        v.put("src_lo", src & 0xFFFF_FFFFL);
        v.put("src_hi", src >>> loBits);
        v.put("dst_lo", dst & 0xFFFF_FFFFL);
        v.put("dst_hi", dst >>> Layout.CLDESC.field("dst_lo").width());
        v.put("dwords", dwords & dwordsMask);
        v.put("len_overflow", dwords > dwordsMask ? Layout.CLDESC.field("len_overflow").mask().longValue() : 0);
        v.put("id", id & Layout.CLDESC.field("id").mask().longValue());
        v.put("tag", tag);
        return Layout.CLDESC.pack(v);
    }

    private static void assertDesc(BigInteger expected, long[] words, int slot, String what) {
        long[] want = Layout.cldescWords(expected);
        long[] got = java.util.Arrays.copyOfRange(words, slot * Layout.CLDESC_WORDS, (slot + 1) * Layout.CLDESC_WORDS);
        for (int x = 0; x < Layout.CLDESC_WORDS; x++) {
            assertEquals(want[x], got[x], what + String.format(": x%d = 0x%08X, Layout says 0x%08X (descriptor %s)",
                    x, got[x], want[x], hex(got)));
        }
    }

    private static String hex(long[] words) {
        StringBuilder b = new StringBuilder();
        for (long w : words) {
            b.append(String.format("%08X ", w));
        }
        return b.toString().trim();
    }

    private static long join(long hi, long lo) {
        return hi << Layout.CLDESC.field("src_lo").width() | lo;
    }



}
