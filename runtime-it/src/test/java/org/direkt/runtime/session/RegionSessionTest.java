// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.Descriptors;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.RevocationListener;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.ReplayJob;
import org.direkt.runtime.sim.SimulatedDevice;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regions through the session's simulated FPGA: an overlay made with the {@code regions} preset,
 * GPU buffers of the simulated GPU whose pages the simulated importer scatters over its aperture,
 * the page and region tables programmed through the CSR of the bridge's Verilog, and copies that
 * are one region request each. One session for the whole class (its bridge is built once per
 * configuration); every test closes what it opens.
 */
@Tag("sim")
class RegionSessionTest {
    static final long PAGE = 65_536;
    static final long MB = 1L << 20;

    @TempDir
    static Path tmp;

    static RecordingImporter importer;
    static Session s;

    /**
     * The simulated importer, telling the test of every release before it happens: what the
     * bridge's tables hold at the moment the pages go.
     */
    static final class RecordingImporter implements BusAddressImporter {
        final SimulatedImporter inner = new SimulatedImporter(0x38_0000_0000L, 1L << 30, 0.5, 23);
        Consumer<ImportedRange> beforeRelease = r -> { };

        @Override
        public ImportedRange importDmaBuf(int fd, long offset, long length) {
            return inner.importDmaBuf(fd, offset, length);
        }

        @Override
        public void release(ImportedRange range) {
            beforeRelease.accept(range);
            inner.release(range);
        }

        @Override
        public void addRevocationListener(RevocationListener listener) {
            inner.addRevocationListener(listener);
        }

        @Override
        public void removeRevocationListener(RevocationListener listener) {
            inner.removeRevocationListener(listener);
        }
    }

    @BeforeAll
    static void openASessionOnARegionsOverlay() throws Exception {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "repository not found above " + Path.of("").toAbsolutePath());
        Path overlay = tmp.resolve("overlay");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", p.resolve("examples/bsp/direkt_ref").toString(), "--out", overlay.toString(),
            "--preset", "regions"}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        importer = new RecordingImporter();
        s = Session.open(overlay, importer, Session.Gpu.SIMULATED);
    }

    @AfterAll
    static void closeTheSession() {
        if (s != null) {
            s.close();
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    long csr(String name, int region) {
        s.device().csrWrite("REGION_SELECT", region);
        return s.device().csrRead(name);
    }

    @Test
    void aRegionOverScatteredPagesCopiesGpuToFpgaAndBackByteExact() {
        assertEquals(BridgeModes.Addressing.REGIONS, s.addressing());
        try (Session.GpuBuffer g = s.allocateGpu(5 * PAGE); Session.Region r = s.openRegion(g, true, true)) {
            assertEquals(DataPath.DIRECT, g.path(), g.pathReason());
            assertTrue(g.table().segmentCount() > 2, "scattered pages: " + g.table());
            assertEquals(g.length(), csr("REGION_LENGTH", r.number()), "the region's length in the bridge");
            assertEquals(Layout.CSR_REGION_CTRL.pack(Map.of("first", r.firstEntry(), "allow_rd", 1, "allow_wr", 1)).longValue(),
                    csr("REGION_CTRL", r.number()));
            byte[] data = random(200_004, 1);
            g.write(12, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x4000_0000L, data.length);
            Session.Copy in = s.copy(r, 12, f, 0, data.length);
            in.await();
            assertEquals(1, in.descriptorCount(), "one region request; the bridge splits it at the pages");
            assertArrayEquals(data, s.readFpga(f, 0, data.length), "FPGA memory after GPU -> FPGA through the region");
            s.copy(f, 0, r, 100_000, data.length).await();
            assertArrayEquals(data, g.read(100_000, data.length), "GPU memory after FPGA -> GPU through the region");
        }
    }

    @Test
    void aRequestPastTheRegionsEndOrAgainstItsDirectionIsRefusedAndMovesNothing() {
        try (Session.GpuBuffer g = s.allocateGpu(2 * PAGE); Session.Region r = s.openRegion(g, true, true);
                Session.Region readOnly = s.openRegion(g, true, false)) {
            Session.FpgaBuffer f = s.fpgaBuffer(0x5000_0000L, 4096);
            byte[] fpga = random(4096, 2);
            byte[] gpu = random((int) g.length(), 3);
            s.writeFpga(f, 0, fpga);
            g.write(0, gpu);
            DmaException out = assertThrows(DmaException.class, s.copy(r, g.length() - 64, f, 0, 128)::await);
            assertEquals(Layout.Error.REGION_RANGE, out.error());
            assertTrue(out.getMessage().contains("through region " + r.number()), out.getMessage());
            DmaException in = assertThrows(DmaException.class, s.copy(f, 0, r, g.length() - 64, 128)::await);
            assertEquals(Layout.Error.REGION_RANGE, in.error());
            DmaException denied = assertThrows(DmaException.class, s.copy(f, 0, readOnly, 0, 64)::await);
            assertEquals(Layout.Error.REGION, denied.error(), "a region that allows reads only");
            assertArrayEquals(fpga, s.readFpga(f, 0, fpga.length), "FPGA memory untouched");
            assertArrayEquals(gpu, g.read(0, gpu.length), "GPU memory untouched");
        }
    }

    @Test
    void aClosedRegionIsGoneFromTheBridgesTable() {
        try (Session.GpuBuffer g = s.allocateGpu(PAGE)) {
            Session.Region r = s.openRegion(g, true, true);
            Session.FpgaBuffer f = s.fpgaBuffer(0x6000_0000L, 64);
            Session.Copy planned = s.copy(r, 0, f, 0, 64);
            r.close();
            assertFalse(r.isOpen());
            assertEquals(0, csr("REGION_LENGTH", r.number()));
            IllegalStateException late = assertThrows(IllegalStateException.class, planned::await);
            assertTrue(late.getMessage().contains("closed before it ran"), late.getMessage());
            assertThrows(IllegalStateException.class, () -> s.copy(r, 0, f, 0, 64));
            // A kernel that still names it: the bridge rejects the request, and no data mover reaches memory.
            SimulatedDevice.Run run = s.device().run(List.of(ReplayJob.Descriptor.of(Direction.RD,
                    Descriptors.cldescRegion(r.number(), 0, 64, f.address(), 77))), List.of(), new SimulatedDevice.HostMemory() {
                        @Override
                        public void read(long bus, byte[] into) {
                            throw new AssertionError("a closed region's request read bus address 0x" + Long.toHexString(bus));
                        }

                        @Override
                        public void write(long bus, byte[] data) {
                            throw new AssertionError("a closed region's request wrote bus address 0x" + Long.toHexString(bus));
                        }
                    });
            assertEquals(Layout.Error.REGION, run.statuses().getFirst().error());
        }
    }

    /** The order that keeps a walker off freed memory: the region leaves the table, then the pages go. */
    @Test
    void closingABufferClosesItsRegionsBeforeItsPagesAreReleased() {
        Session.GpuBuffer g = s.allocateGpu(3 * PAGE);
        Session.Region r = s.openRegion(g, true, true);
        List<Long> lengthAtRelease = new ArrayList<>();
        importer.beforeRelease = range -> lengthAtRelease.add(csr("REGION_LENGTH", r.number()));
        try {
            g.close();
        } finally {
            importer.beforeRelease = range -> { };
        }
        assertEquals(List.of(0L), lengthAtRelease, "REGION_LENGTH when the buffer's pages were released");
        assertFalse(r.isOpen());
        r.close();
    }

    /**
     * 64 MB fills the page table: pages stay in it after their region closes, a region opened again
     * reuses them, and a buffer that needs the room takes it from the least recently used buffer
     * with no region open; with every entry under an open region, the next one is refused.
     */
    @Test
    void thePageTableKeepsIdlePagesUntilTheRoomIsNeeded() {
        try (Session.GpuBuffer a = s.allocateGpu(32 * MB); Session.GpuBuffer b = s.allocateGpu(32 * MB);
                Session.GpuBuffer c = s.allocateGpu(4 * PAGE)) {
            Session.Region ra = s.openRegion(a, true, true);
            Session.Region rb = s.openRegion(b, true, true);
            assertEquals(List.of(0, 512), List.of(ra.firstEntry(), rb.firstEntry()), "first fit in an empty table");
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> s.openRegion(c, true, true));
            assertTrue(full.getMessage().contains("its 4 pages do not fit in the page table of 1024 entries beside the pages of the "
                    + "open regions (0 entries free)"), full.getMessage());
            ra.close();
            rb.close();
            try (Session.Region rc = s.openRegion(c, true, true)) {
                assertEquals(0, rc.firstEntry(), "c took the room of a, the buffer whose pages were used least recently");
                long index = s.device().csrRead("PAGE_INDEX");
                Session.Region rb2 = s.openRegion(b, false, true);
                assertEquals(512, rb2.firstEntry());
                assertEquals(index, s.device().csrRead("PAGE_INDEX"), "b's pages were still in the table: none written again");
                byte[] data = random((int) (4 * PAGE), 4);
                c.write(0, data);
                Session.FpgaBuffer f = s.fpgaBuffer(0x7000_0000L, data.length);
                s.copy(rc, 0, f, 0, data.length).await();
                s.copy(f, 0, rb2, 32 * MB - data.length, data.length).await();
                assertArrayEquals(data, b.read(32 * MB - data.length, data.length), "c's bytes through FPGA memory into b");
                IllegalStateException noRoom = assertThrows(IllegalStateException.class, () -> s.openRegion(a, true, true));
                assertTrue(noRoom.getMessage().contains("its 512 pages do not fit"), noRoom.getMessage());
                rb2.close();
            }
        }
    }

    @Test
    void windowsAndCopiesByBusAddressAreRefusedOnARegionsOverlay() {
        IllegalStateException window = assertThrows(IllegalStateException.class, () -> s.openWindow(0x38_0000_0000L,
                0x38_000F_FFFFL));
        assertTrue(window.getMessage().contains("has regions addressing") && window.getMessage().contains("openRegion"),
                window.getMessage());
        try (Session.GpuBuffer g = s.allocateGpu(PAGE)) {
            IllegalStateException raw = assertThrows(IllegalStateException.class, () -> s.copy(g, 0, s.fpgaBuffer(0, 64), 0, 64));
            assertTrue(raw.getMessage().contains("rejects raw descriptors"), raw.getMessage());
        }
        // A buffer the exporter will not map for the FPGA bounces: no region, but its host descriptors work.
        importer.inner.refuseImports("no peer-to-peer path (test)");
        Session.GpuBuffer bounced;
        try {
            bounced = s.allocateGpu(PAGE);
        } finally {
            importer.inner.acceptImports();
        }
        try (Session.GpuBuffer g = bounced) {
            IllegalArgumentException region = assertThrows(IllegalArgumentException.class, () -> s.openRegion(g, true, true));
            assertTrue(region.getMessage().contains("bounce path (no peer-to-peer path (test))"), region.getMessage());
            byte[] data = random(4096, 5);
            g.write(0, data);
            s.copy(g, 0, s.fpgaBuffer(0x7800_0000L, 4096), 0, 4096).await();
            assertArrayEquals(data, s.readFpga(s.fpgaBuffer(0x7800_0000L, 4096), 0, 4096));
        }
    }
}
