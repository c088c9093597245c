// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.direkt.contract.Layout;
import org.direkt.runtime.Descriptors;

/** The job format, status decoding and the descriptor split, without a simulator. */
class ReplayJobTest {
    @Test
    void jobJsonIsTheDocumentedFormat() throws IOException {
        BigInteger cl = Descriptors.cldesc(0x38_0001_0000L, 0x1000, 64, 9);
        ReplayJob job = ReplayJob.builder().param("inflight", 4).clocks(7000, 5000)
                .gpuPage(0x38_0001_0000L, new byte[] {1, 2, 3})
                .fpga(0x1000, new byte[] {(byte) 0xFF})
                .window(0x38_0000_0000L, 0x38_000F_FFFFL, true, false)
                .csrWrite("WIN1_SIZE", 21)
                .pipelined(2)
                .descriptor(Direction.RD, cl)
                .readBackGpu(0x38_0001_0000L, 16).readBackFpga(0x1000, 4)
                .channelWordOrder("x0_high").csrRead("CONFIG").csrReadAt(0x30)
                .build();
        JsonNode n = new ObjectMapper().readTree(SimulatedBridge.toJson(job));
        assertEquals(ReplayJob.VERSION, n.get("version").asInt());
        assertEquals(2, ReplayJob.VERSION);
        assertEquals("default", n.get("preset").asText());
        assertEquals(4, n.get("bridge_params").get("inflight").asInt());
        assertEquals(7000, n.get("clocks").get("kernel_ps").asLong());
        assertEquals(5000, n.get("clocks").get("dma_ps").asLong());
        assertEquals(65536, n.get("gpu_page_size").asLong());
        JsonNode page = n.get("gpu_pages").get(0);
        assertEquals(0x38_0001_0000L, page.get("bus").asLong());
        assertEquals("AQID", page.get("data_b64").asText());
        assertFalse(page.has("size"));
        assertEquals(Base64.getEncoder().encodeToString(new byte[] {(byte) 0xFF}), n.get("fpga").get(0).get("data_b64").asText());
        JsonNode w = n.get("windows").get(0);
        assertTrue(w.get("rd").asBoolean());
        assertFalse(w.get("wr").asBoolean());
        assertEquals(0x38_000F_FFFFL, w.get("last").asLong());
        JsonNode cw = n.get("csr_writes").get(0);
        assertEquals("WIN1_SIZE", cw.get("name").asText());
        assertEquals(21, cw.get("value").asLong());
        assertEquals("pipelined", n.get("issue").get("mode").asText());
        assertEquals(2, n.get("issue").get("inflight").asInt());
        JsonNode d = n.get("descriptors").get(0);
        assertEquals("rd", d.get("direction").asText());
        long[] x = Layout.cldescWords(cl);
        for (int i = 0; i < 8; i++) {
            assertEquals(x[i], d.get("words").get(i).asLong());
        }
        assertEquals(0x0001_0000L, x[0]);
        assertEquals(0x38, x[1]);
        assertEquals(16, x[4]);
        assertEquals(9, x[5]);
        assertEquals("[[240518234112,16]]", n.get("read_back").get("gpu").toString());
        assertEquals("[[4096,4]]", n.get("read_back").get("fpga").toString());
        assertEquals(cl, job.descriptors().get(0).value());
        assertEquals("x0_high", n.get("channel_word_order").asText());
        assertEquals("[{\"name\":\"CONFIG\"},{\"offset\":48}]", n.get("csr_reads").toString());
        JsonNode plain = new ObjectMapper().readTree(SimulatedBridge.toJson(ReplayJob.builder().build()));
        assertFalse(plain.has("channel_word_order"), "unset: the bridge's own order");
        assertEquals("[]", plain.get("csr_reads").toString());
    }

    @Test
    void badJobsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ReplayJob.Descriptor(Direction.RD, new long[7], false));
        assertThrows(IllegalArgumentException.class, () -> new ReplayJob.Descriptor(Direction.RD,
                new long[] {1L << 32, 0, 0, 0, 0, 0, 0, 0}, false));
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().preset("fast").build());
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().gpuPage(-1, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().param("preset", "paper").build());
        assertEquals("lean", ReplayJob.builder().preset("lean").build().preset());
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().csrWrite("WIN0_SIZE", 1L << 32));
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().csrWrite(" ", 0));
        IllegalArgumentException order = assertThrows(IllegalArgumentException.class,
                () -> ReplayJob.builder().channelWordOrder("x0_middle").build());
        assertTrue(order.getMessage().contains("word_order = x0_middle"), order.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ReplayJob.CsrRead("CONFIG", 2));
        assertThrows(IllegalArgumentException.class, () -> new ReplayJob.CsrRead(null, null));
        assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().csrReadAt(-1));
    }

    @Test
    void hostMemoryAndHostDescriptorsAreTheDocumentedFormat() throws IOException {
        long bus = 0x20_0000_0000L;
        ReplayJob job = ReplayJob.builder()
                .hostMemory(bus, 4096, new byte[] {5})
                .hostDescriptor(Direction.RD, bus, 0x1000, 64)
                .hostDescriptor(Direction.WR, 0x1000, bus + 64, 64)
                .readBackHost(bus + 64, 64)
                .build();
        JsonNode n = new ObjectMapper().readTree(SimulatedBridge.toJson(job));
        JsonNode h = n.get("host_memory").get(0);
        assertEquals(bus, h.get("bus").asLong());
        assertEquals(4096, h.get("size").asLong());
        assertEquals("BQ==", h.get("data_b64").asText());
        JsonNode d = n.get("host_descriptors").get(1);
        assertEquals("wr", d.get("direction").asText());
        assertEquals(0x1000, d.get("src").asLong());
        assertEquals(bus + 64, d.get("dst").asLong());
        assertEquals(64, d.get("bytes").asInt());
        assertEquals("[[" + (bus + 64) + ",64]]", n.get("read_back").get("host").toString());
        assertFalse(ReplayJob.builder().hostMemory(bus, 64, null).build().hostMemory().isEmpty());
    }

    @Test
    void badHostMemoryAndHostDescriptorsAreRefusedWithTheReason() {
        long bus = 0x20_0000_0000L;
        String[] messages = {
            assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().hostMemory(bus, 6, null)).getMessage(),
            assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().hostMemory(bus, 4, new byte[8])).getMessage(),
            assertThrows(IllegalArgumentException.class,
                    () -> ReplayJob.builder().hostMemory(bus, 4096, null).hostMemory(bus + 4092, 8, null).build()).getMessage(),
            assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().hostDescriptor(Direction.RD, bus, 2, 64)).getMessage(),
            assertThrows(IllegalArgumentException.class,
                    () -> ReplayJob.builder().hostDescriptor(Direction.RD, bus, 0, Layout.MAX_DWORDS * 4 + 4)).getMessage(),
            assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().hostDescriptor(null, bus, 0, 64)).getMessage(),
        };
        String[] says = {"multiples of 4", "8 bytes of data for a region of 4", "overlaps", "multiples of 4",
            "in 4.." + Layout.MAX_DWORDS * 4, "needs a direction"};
        for (int i = 0; i < says.length; i++) {
            assertTrue(messages[i].contains(says[i]), messages[i]);
        }
    }

    @Test
    void windowsAreAlignedPowerOfTwoBlocksOfAtLeastOneMegabyte() {
        long base = 0x38_0000_0000L;
        ReplayJob.builder().window(base, base + (1L << 20) - 1, true, true);         // 1 MB
        ReplayJob.builder().window(base, base + (1L << 30) - 1, true, true);         // 1 GB at a multiple of 1 GB
        long largest = Layout.WINDOW_MAX_LOG2 == 63 ? Long.MAX_VALUE : (1L << Layout.WINDOW_MAX_LOG2) - 1;
        ReplayJob.builder().window(0, largest, true, true);                           // the largest, at 0
        if (Layout.WINDOW_MAX_LOG2 < 62) {
            long twice = (1L << (Layout.WINDOW_MAX_LOG2 + 1)) - 1;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplayJob.builder().window(0, twice, true, true));
            assertTrue(e.getMessage().contains("larger than the largest window"), e.getMessage());
        }
        String[][] bad = {
            {"0x3800000000", "0x38000000ff", "smaller than the smallest window"},    // 256 B
            {"0x3800000000", "0x38002fffff", "not a power of two"},                  // 3 MB
            {"0x3800100000", "0x38002fffff", "not a multiple of the size"},          // 2 MB at an odd MB
            {"0x3800000004", "0x3800100003", "not a multiple of the size"},          // 1 MB, unaligned
            {"0x3800100000", "0x38000fffff", "below the base"},
        };
        for (String[] b : bad) {
            long lo = Long.decode(b[0]);
            long hi = Long.decode(b[1]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ReplayJob.builder().window(lo, hi, true, true), b[0] + ".." + b[1]);
            assertTrue(e.getMessage().contains(b[2]), e.getMessage());
            assertTrue(e.getMessage().contains(b[0]) && e.getMessage().contains(b[1]), e.getMessage());
        }
    }

    @Test
    void statusesDecodeWithLayout() {
        BigInteger tagged = Layout.KERNEL_STATUS_TAGGED.pack(Map.of("tag", 0xBAD1L, "error", (long) Layout.Error.WINDOW.code(),
                "elapsed", 3L));
        ReplayResult.Status s = SimulatedBridge.decode(0, Direction.RD, tagged, true, 1, 2);
        assertEquals(Layout.Error.WINDOW, s.error());
        assertEquals(0xBAD1, s.tag());
        assertEquals(3, s.elapsed());
        assertTrue(s.failed());
        assertEquals(tagged.longValue(), s.raw());

        BigInteger allOnes = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        ReplayResult.Status c = SimulatedBridge.decode(1, Direction.WR, allOnes, false, 1, 2);
        assertTrue(c.failed());
        assertNull(c.error());
        assertEquals(-1L, c.raw());
        ReplayResult.Status ok = SimulatedBridge.decode(1, Direction.WR, BigInteger.valueOf(1234), false, 1, 2);
        assertEquals(Layout.Error.OK, ok.error());
        assertEquals(1234, ok.elapsed());
        assertEquals(-1, ok.tag());
    }

    @Test
    void splitAtDiscontinuitiesAndAtOneMegabyteMinusFour() {
        long page = 64 * 1024;
        long base = 0x38_0000_0000L;
        long[] bus = new long[40];
        for (int i = 0; i < 20; i++) {
            bus[i] = base + i * page;               // 20 contiguous pages: 1.25 MB
        }
        for (int i = 20; i < 40; i++) {
            bus[i] = base + (100 + 2 * i) * page;   // then scattered
        }
        GpuPages gpu = new GpuPages(page, bus, 1);
        List<GpuPages.Piece> p = gpu.split(4, 20 * page + 8, 0, GpuPages.MAX_BYTES);
        assertEquals(GpuPages.MAX_BYTES, p.get(0).bytes());
        assertEquals(base + 4, p.get(0).bus());
        assertEquals(20 * page - 4 - GpuPages.MAX_BYTES, p.get(1).bytes());
        assertEquals(bus[20], p.get(2).bus());
        assertEquals(12, p.get(2).bytes());
        assertEquals(3, p.size());
        assertEquals(20 * page + 8, p.stream().mapToLong(GpuPages.Piece::bytes).sum());
    }

    @Test
    void missingEnvironmentSaysMakeSetup(@TempDir Path dir) throws IOException {
        Path bench = dir.resolve(SimulatedBridge.BENCH_DIR);
        Files.createDirectories(bench);
        Files.writeString(bench.resolve("test_bridge_replay.py"), "");
        SimulatedBridge b = SimulatedBridge.at(dir);
        SimulationException e = assertThrows(SimulationException.class, () -> b.run(ReplayJob.builder().build()));
        assertTrue(e.getMessage().contains("make setup"), e.getMessage());
        assertThrows(SimulationException.class, () -> SimulatedBridge.at(dir.resolve("nowhere")));
        assertThrows(IllegalArgumentException.class, () -> b.withSimulator("modelsim"));
    }
}
