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
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.sim.SimulationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime API end to end on the session's simulated FPGA, on the direct path (a simulated GPU
 * and the simulated importer): a round trip through FPGA memory that lasts the session, FPGA memory
 * loaded and read through the host DMA path, an error status as an exception, and a simulation
 * that dies. The bounce path is {@link SessionPathTest}'s.
 */
@Tag("sim")
class SessionTest {

    @TempDir
    static Path tmp;

    static Path overlay;

    /** The simulated BAR aperture: 1 GB at a multiple of 1 GB, so one window (an aligned power-of-two block) covers it. */
    static final long APERTURE = 0x38_0000_0000L;
    static final long APERTURE_SIZE = 1L << 30;
    static final long MB = 1L << 20;

    @BeforeAll
    static void overlayTheExampleBoard() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "repository not found above " + Path.of("").toAbsolutePath());
        overlay = tmp.resolve("overlay");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", p.resolve("examples/bsp/direkt_ref").toString(), "--out", overlay.toString()},
                new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
    }

    private static BusAddressImporter importer() {
        return new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 11);
    }

    @Test
    void theApertureIsOneAlignedWindow() {
        assertEquals(0, APERTURE % APERTURE_SIZE, "the aperture's base is a multiple of its size");
        assertEquals(1, Long.bitCount(APERTURE_SIZE));
        WindowBlock w = WindowBlock.of(APERTURE, APERTURE + APERTURE_SIZE - 1, Layout.WINDOW_MIN_LOG2, Layout.WINDOW_MAX_LOG2);
        assertEquals(APERTURE, w.base());
        assertEquals(30, w.log2());
        assertEquals(APERTURE + APERTURE_SIZE - 1, w.last());
    }

    @Test
    void openWindowTakesAlignedPowerOfTwoBlocksOfAtLeastOneMegabyte() throws Exception {
        int entries = new ObjectMapper().readTree(overlay.resolve("direkt-overlay.json").toFile())
                .path("bridge").path("window_entries").asInt();
        assertTrue(entries >= 2, "the example overlay has " + entries + " window entries");
        try (Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED)) {
            String[][] bad = {
                {"0x3800000000", "0x38000fff00", "not a power of two"},
                {"0x3800000000", "0x3800000fff", "smaller than the smallest window"},   // 4 KB
                {"0x3800080000", "0x380017ffff", "not a multiple of the size"},         // 1 MB at 512 KB
                {"0x3800000000", "0x38005fffff", "not a power of two"},                 // 6 MB
                {"0x3800100000", "0x3800000000", "below the base"},
            };
            for (String[] b : bad) {
                long lo = Long.decode(b[0]);
                long hi = Long.decode(b[1]);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.openWindow(lo, hi));
                assertTrue(e.getMessage().contains(b[2]) && e.getMessage().contains(b[0]), e.getMessage());
            }
            assertTrue(s.windows().isEmpty(), "a refused window takes no entry");
            assertEquals(0, s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1));
            for (int i = 1; i < entries; i++) {
                assertEquals(i, s.openWindow(APERTURE + APERTURE_SIZE + i * MB, APERTURE + APERTURE_SIZE + (i + 1) * MB - 1));
            }
            assertEquals(entries, s.windows().size());
            assertEquals(new WindowBlock(APERTURE, 30), s.windows().getFirst());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> s.openWindow(0, MB - 1));
            assertTrue(full.getMessage().contains("all " + entries + " window entries"), full.getMessage());
        }
    }

    @Test
    void regionsAreRefusedOnAnOverlayWithWindows() throws Exception {
        try (Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED)) {
            assertEquals(BridgeModes.Addressing.RAW, s.addressing());
            Session.GpuBuffer g = s.allocateGpu(65_536);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.openRegion(g, true, true));
            assertTrue(e.getMessage().contains("has raw addressing") && e.getMessage().contains("--preset regions"), e.getMessage());
        }
    }

    /**
     * The acceptance test of one device per session: GPU -> FPGA, then FPGA -> GPU into another
     * part of the buffer, with nothing passed between the two copies here: the second copy reads
     * what the first left in the simulated FPGA's memory.
     */
    @Test
    void aSessionCopiesGpuToFpgaThenFpgaToGpuFromTheSameFpgaMemory() throws Exception {
        try (Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED)) {
            s.openWindow(APERTURE, APERTURE + (1L << 30) - 1);
            assertEquals(DataPath.DIRECT, s.path(), s.pathReason());
            Session.GpuBuffer g = s.allocateGpu(300_000);
            assertEquals(DataPath.DIRECT, g.path(), g.pathReason());
            assertTrue(g.pathReason().startsWith("peer-to-peer"), g.pathReason());
            assertTrue(g.table().segmentCount() > 1, "scattered pages: " + g.table());
            byte[] data = new byte[200_004];
            new Random(5).nextBytes(data);
            g.write(4, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x2000_0000L, data.length);
            Session.Copy in = s.copy(g, 4, f, 0, data.length);
            in.await();
            Session.Copy out = s.copy(f, 0, g, 100_000 & ~3, data.length);
            out.await();
            assertArrayEquals(data, g.read(100_000 & ~3, data.length), "GPU memory after GPU -> FPGA, then FPGA -> GPU");
            assertTrue(in.descriptorCount() > 1 && out.descriptorCount() > 1, "split at page discontinuities");
            assertTrue(out.dmaCycles() >= data.length / 64, "the movers' time: " + out.dmaCycles() + " dma_clk cycles");
            // The data is in FPGA memory, as the FPGA's host DMA path reads it too.
            assertArrayEquals(data, s.readFpga(f, 0, data.length), "FPGA memory after both copies");
        }
    }

    @Test
    void fpgaMemoryLoadedThroughTheHostDmaPathIsWhatAnFpgaToGpuCopyMoves() throws Exception {
        try (Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED)) {
            s.openWindow(APERTURE, APERTURE + (1L << 30) - 1);
            Session.GpuBuffer g = s.allocateGpu(2 * 65_536);
            Session.FpgaBuffer f = s.fpgaBuffer(0x3000_0000L, 2 * 65_536);
            byte[] data = new byte[65_536 + 8];
            new Random(6).nextBytes(data);
            s.writeFpga(f, 4096, data);
            s.copy(f, 4096, g, 8, data.length).await();
            assertArrayEquals(data, g.read(8, data.length));
            // A range nothing wrote holds what the device's memory starts with: zeros.
            s.copy(f, 65_536 + 8192, g, 0, 4096).await();
            assertArrayEquals(new byte[4096], g.read(0, 4096));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.readFpga(f, 2, 8));
            assertTrue(e.getMessage().contains("multiples of 4"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> s.writeFpga(f, 2 * 65_536 - 4, new byte[8]));
            assertTrue(e.getMessage().contains("outside the FPGA buffer"), e.getMessage());
        }
    }

    /** The simulation dies under the session: the next call, and every one after it, says so and why. */
    @Test
    void whenTheSimulatedFpgaDiesTheNextCallSaysWhy() throws Exception {
        Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED);
        try {
            s.openWindow(APERTURE, APERTURE + (1L << 30) - 1);
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.Copy c = s.copy(g, 0, s.fpgaBuffer(0x1000, 4096), 0, 4096);
            ProcessHandle sim = ProcessHandle.of(s.device().simulatorPid()).orElseThrow();
            sim.destroyForcibly();
            sim.onExit().get(30, TimeUnit.SECONDS);
            SimulationException e = assertThrows(SimulationException.class, c::await);
            assertTrue(e.getMessage().contains("the simulated device is gone") && e.getMessage().contains("SIGKILL")
                    && e.getMessage().contains("device.log"), e.getMessage());
            SimulationException again = assertThrows(SimulationException.class, () -> s.readFpga(s.fpgaBuffer(0, 64), 0, 64));
            assertTrue(again.getMessage().contains("is gone") && again.getMessage().contains("SIGKILL"), again.getMessage());
            assertTrue(!s.device().usable());
        } finally {
            s.close();
            deleteTree(s.device().directory());  // kept for the message that named its log
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void aStatusWithAnErrorCodeBecomesAnException() throws Exception {
        try (Session s = Session.open(overlay, importer(), Session.Gpu.SIMULATED)) {
            // No window opened: the bridge rejects every kernel descriptor.
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.Copy c = s.copy(g, 0, s.fpgaBuffer(0x1000, 4096), 0, 4096);
            DmaException e = assertThrows(DmaException.class, c::await);
            assertEquals(Layout.Error.WINDOW, e.error());
            assertTrue(e.getMessage().contains("WINDOW"), e.getMessage());
            // A window that does not hold the buffer's pages (the 1 MB block just below the aperture): rejected all the same.
            s.openWindow(APERTURE - MB, APERTURE - 1);
            DmaException again = assertThrows(DmaException.class, s.copy(g, 0, s.fpgaBuffer(0x1000, 4096), 0, 4096)::await);
            assertEquals(Layout.Error.WINDOW, again.error());
        }
    }

    @Test
    void anOverlayOfAnotherLayoutVersionIsRefused() throws Exception {
        Path other = Files.createDirectories(tmp.resolve("old"));
        Files.writeString(other.resolve("direkt-overlay.json"), "{\"layout\": {\"version\": 0}, \"bridge\": {}}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Session.open(other, importer()));
        assertTrue(e.getMessage().contains("layout version 0, this runtime speaks " + Layout.VERSION), e.getMessage());
    }
}
