// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.direkt.overlay.cli.Main;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.Master;
import org.direkt.runtime.MasterCopies;
import org.direkt.runtime.MasterTable;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPU-master copies on the session's simulated FPGA: the aperture the overlay's manifest declares
 * is the simulated FPGA's memory from {@code aperture.fpga_base} on, GPU memory the simulated
 * GPU's. Both directions byte-exact at several sizes and offsets (checked against what the host DMA
 * path and FPGA-master copies see of the same FPGA memory), a range outside the aperture refused,
 * each copy's master reported, the automatic choice following the table, and an overlay without an
 * aperture named.
 */
@Tag("sim")
class ApertureSessionTest {
    @TempDir
    static Path tmp;

    /** The overlay as the CLI writes it (no aperture), and the same with an aperture of 4 MB at FPGA address 256 MB. */
    static Path plain;
    static Path withAperture;

    static final long BASE = 0x1000_0000L;
    static final long BAR_BYTES = 4L << 20;
    /** The importer's simulated BAR aperture, for FPGA-master copies (one window covers it). */
    static final long GPU_BAR = 0x38_0000_0000L;

    @BeforeAll
    static void overlays() throws IOException {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "repository not found above " + Path.of("").toAbsolutePath());
        plain = tmp.resolve("plain");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", p.resolve("examples/bsp/direkt_ref").toString(), "--out", plain.toString()},
                new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = (ObjectNode) json.readTree(plain.resolve("direkt-overlay.json").toFile());
        m.putObject("aperture").put("bar", 2).put("bar_bytes", BAR_BYTES).put("fpga_base", BASE).put("outstanding_reads", 16)
                .put("max_read_bytes", 512);
        withAperture = Files.createDirectories(tmp.resolve("aperture"));
        Files.writeString(withAperture.resolve("direkt-overlay.json"), json.writeValueAsString(m));
    }

    private static BusAddressImporter importer() {
        return new SimulatedImporter(GPU_BAR, 1L << 30, 0.5, 17);
    }

    private static Session open(Path overlay) throws IOException {
        Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED);
        s.openWindow(GPU_BAR, GPU_BAR + (1L << 30) - 1);
        return s;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void gpuMasterCopiesAreByteExactBothWaysAtSeveralSizesAndOffsets() throws Exception {
        try (Session s = open(withAperture)) {
            MasterCopies m = s.masters().use(MasterCopies.Policy.GPU);
            assertEquals(Optional.empty(), m.unavailableReason());
            assertTrue(m.devicePointer().isEmpty(), "the simulated aperture has no CUDA address");
            Session.GpuBuffer g = s.allocateGpu(4L << 20);
            Session.GpuBuffer back = s.allocateGpu(4L << 20);
            Session.FpgaBuffer f = s.fpgaBuffer(BASE, BAR_BYTES);
            // bytes, GPU offset, FPGA offset: a word, pages and a bit at odd words, past 1 MB - 4 B (the movers' piece), the aperture's end
            long[][] cases = {{4, 0, 0}, {4096 + 4, 65_536 - 4, 8}, {256 * 1024, 12, (1 << 20) + 4},
                {(1 << 20) + 8, 4, BAR_BYTES - (1 << 20) - 8}};
            int seed = 1;
            for (long[] c : cases) {
                int n = (int) c[0];
                long gOff = c[1];
                long fOff = c[2];
                byte[] data = random(n, seed++);
                g.write(gOff, data);
                Session.Copy in = m.copy(g, gOff, f, fOff, n);
                assertEquals(Master.GPU_MASTER, in.master());
                assertEquals(DataPath.APERTURE, in.path());
                assertEquals(0, in.descriptorCount(), "no descriptor: the GPU's copy engine moves it");
                in.await();
                byte[] around = s.readFpga(f, fOff == 0 ? 0 : fOff - 4, n + (fOff == 0 ? 0 : 4) + (fOff + n < BAR_BYTES ? 4 : 0));
                int at = fOff == 0 ? 0 : 4;
                assertArrayEquals(data, Arrays.copyOfRange(around, at, at + n), n + " bytes GPU -> FPGA at FPGA offset " + fOff);
                assertTrue(Arrays.equals(new byte[at], Arrays.copyOfRange(around, 0, at))
                        && Arrays.equals(new byte[around.length - at - n], Arrays.copyOfRange(around, at + n, around.length)),
                        "nothing either side of the range is written");
                // FPGA -> GPU of what the host loaded into FPGA memory, into another buffer at another offset
                byte[] loaded = random(n, seed++);
                s.writeFpga(f, fOff, loaded);
                Session.Copy out = m.copy(f, fOff, back, gOff + 4 <= back.length() - n ? gOff + 4 : 0, n);
                assertEquals(Master.GPU_MASTER, out.master());
                out.await();
                assertArrayEquals(loaded, back.read(gOff + 4 <= back.length() - n ? gOff + 4 : 0, n),
                        n + " bytes FPGA -> GPU from FPGA offset " + fOff);
                IllegalStateException noCycles = assertThrows(IllegalStateException.class, out::dmaCycles);
                assertTrue(noCycles.getMessage().contains("GPU's copy engine"), noCycles.getMessage());
            }
        }
    }

    /** Both masters reach the same FPGA memory: what one writes, the other reads. */
    @Test
    void whatOneMasterWritesTheOtherReads() throws Exception {
        try (Session s = open(withAperture)) {
            MasterCopies m = s.masters();
            Session.GpuBuffer g = s.allocateGpu(256 * 1024);
            Session.FpgaBuffer f = s.fpgaBuffer(BASE + (2L << 20), 128 * 1024);
            byte[] data = random(100_000, 40);
            g.write(8, data);
            m.use(MasterCopies.Policy.GPU).copy(g, 8, f, 64, data.length).await();
            Session.Copy fpgaMaster = m.use(MasterCopies.Policy.FPGA).copy(f, 64, g, 128 * 1024, data.length);
            assertEquals(Master.FPGA_MASTER, fpgaMaster.master());
            assertEquals(DataPath.DIRECT, fpgaMaster.path());
            fpgaMaster.await();
            assertArrayEquals(data, g.read(128 * 1024, data.length), "GPU-master write, FPGA-master read");
            byte[] other = random(40_000, 41);
            g.write(0, other);
            s.copy(g, 0, f, 4096, other.length).await();  // Session.copy: always FPGA-master
            Session.Copy gpuMaster = m.use(MasterCopies.Policy.GPU).copy(f, 4096, g, 200 * 1024, other.length);
            gpuMaster.await();
            assertArrayEquals(other, g.read(200 * 1024, other.length), "FPGA-master write, GPU-master read");
        }
    }

    @Test
    void aCopyOutsideTheApertureIsRefusedAndAutoTakesTheFpgaMaster() throws Exception {
        try (Session s = open(withAperture)) {
            MasterCopies m = s.masters().use(MasterCopies.Policy.GPU);
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.FpgaBuffer below = s.fpgaBuffer(BASE - 4096, 8192);  // straddles the aperture's start
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.copy(g, 0, below, 0, 8192));
            assertTrue(e.getMessage().contains("FPGA range [0xffff000, +8192 B (8 KB)) is not inside the aperture: BAR 2 exposes FPGA"
                    + " memory [0x10000000, 0x10400000) to the GPU"), e.getMessage());
            Session.FpgaBuffer past = s.fpgaBuffer(BASE + BAR_BYTES - 4, 8);  // its last word and one past it
            e = assertThrows(IllegalArgumentException.class, () -> m.copy(past, 0, g, 0, 8));
            assertTrue(e.getMessage().contains("is not inside the aperture"), e.getMessage());
            m.copy(past, 0, g, 0, 4).await();  // the last word alone is inside
            e = assertThrows(IllegalArgumentException.class, () -> m.copy(g, 2, s.fpgaBuffer(BASE, 64), 0, 8));
            assertTrue(e.getMessage().contains("multiples of 4"), e.getMessage());

            m.use(MasterCopies.Policy.AUTO).use(MasterTable.crossovers(1L << 20, 1L << 20));
            byte[] data = random(8192, 50);
            g.write(0, data);
            Session.Copy c = m.copy(g, 0, below, 0, 8192);
            assertEquals(Master.FPGA_MASTER, c.master(), "outside the aperture, the table's GPU master cannot move it");
            assertTrue(m.choose(MasterTable.Direction.GPU_TO_FPGA, below, 0, 8192).reason().contains("is not inside the aperture"));
            c.await();
            assertArrayEquals(data, s.readFpga(below, 0, 8192));
        }
    }

    @Test
    void autoFollowsTheTableByDirectionAndSize() throws Exception {
        try (Session s = open(withAperture)) {
            MasterCopies m = s.masters();
            assertEquals(MasterCopies.Policy.AUTO, m.policy(), "the default");
            assertEquals(MasterTable.MEASURED, m.table(), "the default");
            Session.GpuBuffer g = s.allocateGpu(1L << 20);
            Session.FpgaBuffer f = s.fpgaBuffer(BASE, BAR_BYTES);
            // the measured table: small copies GPU-master, large ones FPGA-master, each direction
            for (MasterTable.Direction d : MasterTable.Direction.values()) {
                long cross = MasterTable.MEASURED.crossover(d).bytes();
                assertEquals(Master.GPU_MASTER, m.choose(d, f, 0, 4096).master(), d + ": " + m.choose(d, f, 0, 4096).reason());
                assertEquals(Master.GPU_MASTER, m.choose(d, f, 0, cross - 4).master());
                assertEquals(Master.FPGA_MASTER, m.choose(d, f, 0, cross + 4).master(), m.choose(d, f, 0, cross + 4).reason());
            }
            // a table of the caller's: GPU -> FPGA GPU-master below 64 KB, FPGA -> GPU below 16 KB
            m.use(MasterTable.crossovers(64 * 1024, 16 * 1024));
            int seed = 60;
            for (int[] c : new int[][] {{1, 4096, 1}, {1, 64 * 1024 - 4, 1}, {1, 64 * 1024, 0}, {0, 16 * 1024 - 4, 1},
                {0, 16 * 1024, 0}, {0, 4096, 1}}) {
                boolean toFpga = c[0] == 1;
                int n = c[1];
                Master want = c[2] == 1 ? Master.GPU_MASTER : Master.FPGA_MASTER;
                byte[] data = random(n, seed++);
                Session.Copy copy;
                if (toFpga) {
                    g.write(0, data);
                    copy = m.copy(g, 0, f, 4096, n);
                } else {
                    s.writeFpga(f, 8192, data);
                    copy = m.copy(f, 8192, g, 4, n);
                }
                assertEquals(want, copy.master(), (toFpga ? "GPU -> FPGA " : "FPGA -> GPU ") + n + " bytes");
                copy.await();
                assertArrayEquals(data, toFpga ? s.readFpga(f, 4096, n) : g.read(4, n));
            }
            assertTrue(m.choose(MasterTable.Direction.FPGA_TO_GPU, f, 0, 16 * 1024).reason().startsWith("FPGA -> GPU copy of 16384 B"
                    + " (16 KB): FPGA master: the table has the GPU master below 16384 B (16 KB), the FPGA master from there on"));
        }
    }

    @Test
    void anOverlayWithoutAnApertureHasOnlyFpgaMasterCopies() throws Exception {
        try (Session s = open(plain)) {
            MasterCopies m = s.masters();
            assertTrue(m.aperture().isEmpty());
            String why = m.unavailableReason().orElseThrow();
            assertTrue(why.contains("declares no aperture (no \"aperture\" section)"), why);
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.FpgaBuffer f = s.fpgaBuffer(BASE, 65_536);
            byte[] data = random(4096, 70);
            g.write(0, data);
            Session.Copy c = m.copy(g, 0, f, 0, 4096);  // AUTO: the table says GPU master for 4 KB, but there is no aperture
            assertEquals(Master.FPGA_MASTER, c.master());
            assertTrue(m.choose(MasterTable.Direction.GPU_TO_FPGA, f, 0, 4096).reason().contains("declares no aperture"));
            c.await();
            assertArrayEquals(data, s.readFpga(f, 0, 4096));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> m.use(MasterCopies.Policy.GPU).copy(g, 0, f, 0, 4096));
            assertTrue(e.getMessage().contains("declares no aperture"), e.getMessage());
        }
    }

    @Test
    void aClosedSessionRunsNoGpuMasterCopy() throws Exception {
        Session s = open(withAperture);
        Session.GpuBuffer g = s.allocateGpu(65_536);
        Session.Copy c = s.masters().use(MasterCopies.Policy.GPU).copy(g, 0, s.fpgaBuffer(BASE, 4096), 0, 4096);
        s.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, c::await);
        assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        assertThrows(IllegalStateException.class, s::masters);
    }
}
