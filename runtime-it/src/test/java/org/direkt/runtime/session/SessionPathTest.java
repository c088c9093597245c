// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.direkt.overlay.cli.Main;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.LinuxBusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which path a session takes and why: without an importer or without a GPU every buffer goes
 * through pinned host memory (a CUDA copy and the FPGA's host DMA path), a refusal of the exporter
 * sends one buffer that way, and the same program moves the same bytes on either path.
 */
@Tag("sim")
class SessionPathTest {

    @TempDir
    static Path tmp;

    static Path overlay;

    static final long APERTURE = 0x38_0000_0000L;
    static final long APERTURE_SIZE = 1L << 30;
    static final String NO_DRIVER = "no /dev/direkt_importer: the importer module is not loaded (insmod direkt_importer.ko)";
    static final String REFUSAL = "the exporter refuses peer-to-peer: GPU 0000:1b:00.0 and FPGA 0000:af:00.0 sit under"
            + " different root complexes";

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

    private static SimulatedImporter importer() {
        return new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 11);
    }

    /**
     * The program: open a window over the aperture, put data in GPU memory, copy it to the FPGA and
     * back into another part of the buffer; returns what came back. It does not ask which path it
     * is on, and passes nothing between the two copies: the FPGA's memory holds the data.
     */
    private static byte[] roundTrip(Session s, Session.GpuBuffer g, byte[] data) {
        s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
        g.write(4, data);
        Session.FpgaBuffer f = s.fpgaBuffer(0x2000_0000L, data.length);
        s.copy(g, 4, f, 0, data.length).await();
        assertArrayEquals(data, s.readFpga(f, 0, data.length), "FPGA memory after GPU -> FPGA");
        long back = (g.length() / 2) & ~3L;
        s.copy(f, 0, g, back, data.length).await();
        return g.read(back, data.length);
    }

    private static byte[] data(int n, long seed) {
        byte[] d = new byte[n];
        new Random(seed).nextBytes(d);
        return d;
    }

    @Test
    void withoutAnImporterEveryBufferBouncesThroughPinnedHostMemoryAndTheDataIsExact() throws Exception {
        try (Session s = Session.open(overlay, BusAddressImporter.none(NO_DRIVER), Session.Gpu.SIMULATED)) {
            assertEquals(DataPath.BOUNCE, s.path());
            assertEquals(NO_DRIVER, s.pathReason());
            Session.GpuBuffer g = s.allocateGpu(2 * AddressTable.PAGE_SIZE * 5);
            assertEquals(DataPath.BOUNCE, g.path());
            assertEquals(NO_DRIVER, g.pathReason());
            // The pinned host buffer is one contiguous range on the bus, outside the importer's aperture.
            assertEquals(1, g.table().segmentCount());
            long bus = g.table().busAddress(0);
            assertTrue(bus + g.length() <= APERTURE || bus >= APERTURE + APERTURE_SIZE, Long.toHexString(bus));
            // Contiguous on the bus, a copy splits only at the movers' limit of 1 MB - 4 B.
            Session.GpuBuffer big = s.allocateGpu(2L << 20);
            assertEquals(2, s.copy(big, 0, s.fpgaBuffer(0, 2L << 20), 0, (1 << 20) + 4).descriptorCount());
            big.close();
            byte[] data = data(300_004, 7);
            assertArrayEquals(data, roundTrip(s, g, data), "GPU memory after GPU -> FPGA -> GPU through pinned host memory");
        }
    }

    /** The Linux importer where its module is not loaded: the session bounces and names the missing node. */
    @Test
    void withoutTheImporterModuleTheSessionBouncesAndNamesWhatIsMissing() throws Exception {
        Path node = tmp.resolve("direkt_importer");
        BusAddressImporter linux = LinuxBusAddressImporter.locate(node, tmp, "0000:3b:00.0");
        try (Session s = Session.open(overlay, linux, Session.Gpu.SIMULATED)) {
            assertEquals(DataPath.BOUNCE, s.path());
            assertTrue(s.pathReason().startsWith("no " + node + ": the importer kernel module is not loaded"), s.pathReason());
            Session.GpuBuffer g = s.allocateGpu(65_536);
            assertEquals(DataPath.BOUNCE, g.path());
            byte[] data = data(4_096, 9);
            assertArrayEquals(data, roundTrip(s, g, data), "the same program, through pinned host memory");
        }
    }

    @Test
    void whenTheExporterRefusesThatBufferBouncesAndTheOthersStayDirect() throws Exception {
        SimulatedImporter importer = importer();
        try (Session s = Session.open(overlay, importer, Session.Gpu.SIMULATED)) {
            assertEquals(DataPath.DIRECT, s.path(), s.pathReason());
            importer.refuseImports(REFUSAL);
            Session.GpuBuffer refused = s.allocateGpu(200_000);
            importer.acceptImports();
            Session.GpuBuffer direct = s.allocateGpu(200_000);
            assertEquals(DataPath.BOUNCE, refused.path());
            assertEquals(REFUSAL, refused.pathReason());
            assertEquals(DataPath.DIRECT, direct.path(), direct.pathReason());
            assertEquals(DataPath.DIRECT, s.path(), "a refusal concerns one buffer, not the session");
            assertEquals(1, importer.refusals());
            assertEquals(1, importer.liveImports().size(), "the refused buffer holds no mapping");

            // GPU -> FPGA from the refused buffer (bounce), FPGA -> GPU into the other (direct), from the same FPGA memory.
            s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
            byte[] data = data(65_536 + 12, 8);
            refused.write(8, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x100_0000L, data.length);
            Session.Copy in = s.copy(refused, 8, f, 0, data.length);
            assertEquals(DataPath.BOUNCE, in.path());
            in.await();
            Session.Copy out = s.copy(f, 0, direct, 65_536 - 4, data.length);
            assertEquals(DataPath.DIRECT, out.path());
            out.await();
            assertArrayEquals(data, direct.read(65_536 - 4, data.length));
        }
        assertTrue(importer.liveImports().isEmpty(), "closing the session released the direct buffer's import");
    }

    @Test
    void onAMachineWithoutAGpuTheSessionBouncesAndSaysWhy() throws Exception {
        assumeFalse(Session.gpuPresent(), "this machine has a GPU");
        try (Session s = Session.open(overlay, importer())) {
            assertTrue(!s.hasGpu());
            assertEquals(DataPath.BOUNCE, s.path());
            assertTrue(s.pathReason().startsWith("no GPU") && s.pathReason().contains("host memory stands in"), s.pathReason());
            Session.GpuBuffer g = s.allocateGpu(1);
            assertEquals(DataPath.BOUNCE, g.path());
            assertEquals(s.pathReason(), g.pathReason());
        }
    }

    @Test
    void aSessionOpenedAsWithoutAGpuBouncesWhateverTheImporter() throws Exception {
        SimulatedImporter importer = importer();
        try (Session s = Session.open(overlay, importer, Session.Gpu.NONE)) {
            assertEquals(DataPath.BOUNCE, s.path());
            assertTrue(s.pathReason().startsWith("no GPU"), s.pathReason());
            s.allocateGpu(65_536).close();
            assertEquals(0, importer.imports(), "nothing is exported or imported without a GPU");
        }
    }

    @Test
    void badInputIsRefusedTheSameWayOnEitherPath() throws Exception {
        for (Session.Gpu gpu : new Session.Gpu[] {Session.Gpu.SIMULATED, Session.Gpu.NONE}) {
            try (Session s = Session.open(overlay, importer(), gpu); Session other = Session.open(overlay, importer(), gpu)) {
                Session.GpuBuffer g = s.allocateGpu(65_536);
                Session.FpgaBuffer f = s.fpgaBuffer(0x1000, 4096);
                String path = " (" + g.path() + ")";
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.copy(g, 0, f, 2, 64));
                assertTrue(e.getMessage().contains("offset 2 is not a multiple of 4"), e.getMessage() + path);
                e = assertThrows(IllegalArgumentException.class, () -> s.copy(g, 2, f, 0, 64));
                assertTrue(e.getMessage().contains("not dword-aligned"), e.getMessage() + path);
                e = assertThrows(IllegalArgumentException.class, () -> s.copy(g, 0, f, 0, 6));
                assertTrue(e.getMessage().contains("not a multiple of 4"), e.getMessage() + path);
                e = assertThrows(IllegalArgumentException.class, () -> s.copy(g, 65_536 - 64, f, 0, 128));
                assertTrue(e.getMessage().contains("outside this 65536-byte GPU buffer"), e.getMessage() + path);
                e = assertThrows(IllegalArgumentException.class, () -> other.copy(g, 0, other.fpgaBuffer(0x1000, 64), 0, 64));
                assertTrue(e.getMessage().contains("belongs to another session"), e.getMessage() + path);
                Session.Copy c = s.copy(g, 0, f, 0, 64);
                g.close();
                g.close();
                IllegalStateException closed = assertThrows(IllegalStateException.class, c::await);
                assertTrue(closed.getMessage().contains("was closed before it ran"), closed.getMessage() + path);
                closed = assertThrows(IllegalStateException.class, () -> g.read(0, 4));
                assertTrue(closed.getMessage().contains("is closed"), closed.getMessage() + path);
            }
        }
    }
}
