// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.BouncedBuffer;
import org.direkt.runtime.DataPath;
import org.direkt.runtime.DirectBuffer;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.board.BoardDevice;
import org.direkt.runtime.board.BridgeStandIn;
import org.direkt.runtime.board.IssuingBinary;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.sim.SimulatedFpga;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One {@link Session} behaviour, two devices: every test here runs on the simulated FPGA (the
 * overlay's bridge in Verilator) and on a {@link BoardDevice} whose board-only parts stand in (the
 * bridge's registers, channels and movers: {@link BridgeStandIn}; the OpenCL platform: PoCL, the
 * runtime's issuing kernels loaded from their binary file). The session's code is the same on
 * both: buffers on either path, copies both ways through FPGA memory, windows and regions through
 * the bridge's registers, errors as {@link DmaException}s. The board half is skipped without PoCL.
 */
@Tag("sim")
class SessionBehaviourTest {
    static final long APERTURE = 0x38_0000_0000L;
    static final long APERTURE_SIZE = 1L << 30;
    static final long PAGE = 65_536;
    static final long MB = 1L << 20;
    /** The FPGA memory the board device holds; every FPGA address below lies inside it. */
    static final long FPGA_BYTES = 16 * MB;

    @TempDir
    static Path tmp;

    static Path raw;
    static Path regions;
    static boolean pocl;

    /** Where a session runs. */
    enum Device {
        SIMULATED, BOARD
    }

    @BeforeAll
    static void overlaysAndTheirIssuingKernels() throws IOException {
        raw = overlay("raw", "default");
        regions = overlay("regions", "regions");
        pocl = IssuingBinary.poclPresent();
        if (pocl) {
            IssuingBinary.build(raw, raw.resolve("direkt_issue.pocl"));
            IssuingBinary.build(regions, regions.resolve("direkt_issue.pocl"));
        }
    }

    private static Path overlay(String name, String preset) {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "repository not found above " + Path.of("").toAbsolutePath());
        Path out = tmp.resolve(name);
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", p.resolve("examples/bsp/direkt_ref").toString(), "--out", out.toString(),
            "--preset", preset}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        return out;
    }

    static SimulatedImporter importer() {
        return new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 11);
    }

    /** A session on {@code overlay} with a simulated GPU, on {@code device}. */
    static Session open(Device device, Path overlay, BusAddressImporter importer) throws IOException {
        if (device == Device.SIMULATED) {
            return Session.open(overlay, importer, Session.Gpu.SIMULATED);
        }
        assumeTrue(pocl, "no OpenCL loader or no PoCL platform");
        Path binary = overlay.resolve("direkt_issue.pocl");
        return Session.open(overlay, importer, Session.Gpu.SIMULATED, m -> {
            BridgeStandIn bridge = new BridgeStandIn(m);
            return BoardDevice.open(m, bridge, IssuingBinary.POCL, binary, FPGA_BYTES, bridge);
        });
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void openTheAperture(Session s) {
        s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void theDeviceIsTheOneAsked(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            FpgaDevice d = s.fpga();
            assertEquals(device == Device.SIMULATED, d instanceof SimulatedFpga, d.describe());
            assertEquals(Layout.CSR_MAGIC, d.csrRead("MAGIC"));
            assertEquals(Layout.VERSION, d.csrRead("VERSION"));
            assertTrue(d.usable());
        }
    }

    /** A kernel the device cannot run is refused, naming it: the simulation runs only the issuing kernels, a board its binary's. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void aKernelTheDeviceDoesNotHoldIsRefusedByName(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> s.fpga().launch(List.of(new KernelCall.Named("vadd",
                    List.of(new KernelCall.UInt(4))))));
            assertTrue(e.getMessage().contains("vadd") && e.getMessage().contains(KernelCall.Issue.KERNEL), e.getMessage());
        }
    }

    /** Peer-to-peer: GPU -> FPGA, then FPGA -> GPU into another part of the buffer; the second copy reads what the first left. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void aDirectRoundTripThroughFpgaMemoryIsByteExact(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            openTheAperture(s);
            Session.GpuBuffer g = s.allocateGpu(300_000);
            assertTrue(g instanceof DirectBuffer, g.pathReason());
            assertTrue(g.table().segmentCount() > 1, "scattered pages: " + g.table());
            byte[] data = random(200_004, 5);
            g.write(4, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x10_0000L, data.length);
            Session.Copy in = s.copy(g, 4, f, 0, data.length);
            in.await();
            Session.Copy out = s.copy(f, 0, g, 100_000, data.length);
            out.await();
            assertArrayEquals(data, g.read(100_000, data.length), "GPU memory after GPU -> FPGA, then FPGA -> GPU");
            assertTrue(in.descriptorCount() > 1 && out.descriptorCount() > 1, "split at page discontinuities");
            assertArrayEquals(data, s.readFpga(f, 0, data.length), "FPGA memory, as host DMA reads it");
        }
    }

    /** Without an importer every buffer bounces through pinned host memory, and the same program moves the same bytes. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void withoutAnImporterTheSameProgramBouncesAndIsByteExact(Device device) throws IOException {
        String why = "no importer (test)";
        try (Session s = open(device, raw, BusAddressImporter.none(why))) {
            assertEquals(DataPath.BOUNCE, s.path());
            Session.GpuBuffer big = s.allocateGpu(2 * MB);
            assertTrue(big instanceof BouncedBuffer);
            assertEquals(why, big.pathReason());
            assertEquals(2, s.copy(big, 0, s.fpgaBuffer(0, 2 * MB), 0, (int) MB + 4).descriptorCount(), "split at 1 MB - 4 B");
            byte[] data = random(300_004, 7);
            big.write(8, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x20_0000L, data.length);
            s.copy(big, 8, f, 0, data.length).await();
            assertArrayEquals(data, s.readFpga(f, 0, data.length));
            s.copy(f, 0, big, MB, data.length).await();
            assertArrayEquals(data, big.read(MB, data.length));
        }
    }

    /** A refused import bounces that buffer alone; copies of either path meet in the same FPGA memory. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void aRefusedBufferBouncesAndMeetsADirectOneInFpgaMemory(Device device) throws IOException {
        SimulatedImporter importer = importer();
        try (Session s = open(device, raw, importer)) {
            openTheAperture(s);
            importer.refuseImports("no peer-to-peer path (test)");
            Session.GpuBuffer refused = s.allocateGpu(200_000);
            importer.acceptImports();
            Session.GpuBuffer direct = s.allocateGpu(200_000);
            assertEquals(DataPath.BOUNCE, refused.path());
            assertEquals(DataPath.DIRECT, direct.path());
            byte[] data = random((int) PAGE + 12, 8);
            refused.write(8, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x30_0000L, data.length);
            s.copy(refused, 8, f, 0, data.length).await();
            s.copy(f, 0, direct, PAGE - 4, data.length).await();
            assertArrayEquals(data, direct.read(PAGE - 4, data.length));
        }
        assertTrue(importer.liveImports().isEmpty(), "closing the session released the direct buffer's import");
    }

    /** The bridge lets kernels reach only the windows the host opened: a copy outside them fails with WINDOW and moves nothing. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void aCopyOutsideTheOpenWindowsFailsWithWindow(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            Session.GpuBuffer g = s.allocateGpu(PAGE);
            Session.FpgaBuffer f = s.fpgaBuffer(0x1000, 4096);
            byte[] fpga = random(4096, 9);
            s.writeFpga(f, 0, fpga);
            DmaException e = assertThrows(DmaException.class, s.copy(g, 0, f, 0, 4096)::await);
            assertEquals(Layout.Error.WINDOW, e.error());
            assertTrue(e.getMessage().contains("WINDOW") && e.getMessage().contains("piece at GPU offset 0"), e.getMessage());
            s.openWindow(APERTURE - MB, APERTURE - 1);
            assertEquals(Layout.Error.WINDOW, assertThrows(DmaException.class, s.copy(g, 0, f, 0, 4096)::await).error(),
                    "a window that does not hold the buffer's pages");
            assertArrayEquals(fpga, s.readFpga(f, 0, fpga.length), "FPGA memory untouched");
            openTheAperture(s);
            s.copy(g, 0, f, 0, 4096).await();
            assertArrayEquals(new byte[4096], s.readFpga(f, 0, 4096), "the zeroed GPU page, once a window holds it");
        }
    }

    /** Windows are written into the bridge's entries by the manifest's names, in order; bad blocks and a full table are refused. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void windowsAreProgrammedIntoTheBridgesEntries(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> s.openWindow(APERTURE,
                    APERTURE + 0xFFF));
            assertTrue(bad.getMessage().contains("smaller than the smallest window"), bad.getMessage());
            assertEquals(0, s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1));
            FpgaDevice d = s.fpga();
            assertEquals(APERTURE & 0xFFFF_FFFFL, d.csrRead("WIN0_BASE_LO"));
            assertEquals(APERTURE >>> 32, d.csrRead("WIN0_BASE_HI"));
            assertEquals(30, Layout.CSR_WINDOW_SIZE.field("log2").getLong(java.math.BigInteger.valueOf(d.csrRead("WIN0_SIZE"))));
            assertEquals(Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValue(),
                    d.csrRead("WIN0_CTRL"));
            int entries = s.openWindow(0, MB - 1) + 1;
            while (entries < Bridge.Params.defaults().windowEntries()) {
                entries = s.openWindow(entries * MB, (entries + 1) * MB - 1) + 1;
            }
            assertEquals(new WindowBlock(APERTURE, 30), s.windows().getFirst());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> s.openWindow(0, MB - 1));
            assertTrue(full.getMessage().contains("all " + entries + " window entries"), full.getMessage());
        }
    }

    /** Host DMA loads FPGA memory that a copy then moves to the GPU; its own bad input is refused. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void fpgaMemoryLoadedByHostDmaIsWhatACopyMoves(Device device) throws IOException {
        try (Session s = open(device, raw, importer())) {
            openTheAperture(s);
            Session.GpuBuffer g = s.allocateGpu(2 * PAGE);
            Session.FpgaBuffer f = s.fpgaBuffer(0x40_0000L, 2 * PAGE);
            byte[] data = random((int) PAGE + 8, 6);
            s.writeFpga(f, 4096, data);
            s.copy(f, 4096, g, 8, data.length).await();
            assertArrayEquals(data, g.read(8, data.length));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.readFpga(f, 2, 8));
            assertTrue(e.getMessage().contains("multiples of 4"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> s.writeFpga(f, 2 * PAGE - 4, new byte[8]));
            assertTrue(e.getMessage().contains("outside the FPGA buffer"), e.getMessage());
        }
    }

    /** Bad input is refused before anything runs, with the same words on either path and either device. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void badInputIsRefusedTheSameWay(Device device) throws IOException {
        for (BusAddressImporter importer : List.of(importer(), BusAddressImporter.none("no importer (test)"))) {
            try (Session s = open(device, raw, importer); Session other = open(device, raw, importer())) {
                Session.GpuBuffer g = s.allocateGpu(PAGE);
                Session.FpgaBuffer f = s.fpgaBuffer(0x1000, 4096);
                String path = " (" + g.path() + ")";
                assertTrue(assertThrows(IllegalArgumentException.class, () -> s.copy(g, 0, f, 2, 64)).getMessage()
                        .contains("offset 2 is not a multiple of 4"), path);
                assertTrue(assertThrows(IllegalArgumentException.class, () -> s.copy(g, 2, f, 0, 64)).getMessage()
                        .contains("not dword-aligned"), path);
                assertTrue(assertThrows(IllegalArgumentException.class, () -> s.copy(g, 0, f, 0, 6)).getMessage()
                        .contains("not a multiple of 4"), path);
                assertTrue(assertThrows(IllegalArgumentException.class, () -> s.copy(g, PAGE - 64, f, 0, 128)).getMessage()
                        .contains("outside this 65536-byte GPU buffer"), path);
                assertTrue(assertThrows(IllegalArgumentException.class, () -> other.copy(g, 0, other.fpgaBuffer(0x1000, 64), 0,
                        64)).getMessage().contains("belongs to another session"), path);
                Session.Copy c = s.copy(g, 0, f, 0, 64);
                g.close();
                assertTrue(assertThrows(IllegalStateException.class, c::await).getMessage().contains("was closed before it ran"),
                        path);
            }
        }
        Session closed = open(device, raw, importer());
        closed.close();
        assertTrue(assertThrows(IllegalStateException.class, () -> closed.allocateGpu(PAGE)).getMessage().contains("is closed"));
    }

    /**
     * Regions (an overlay with regions addressing): a copy through a region is one request the
     * bridge translates through the page and region tables the session programmed; a request
     * outside the region or against its direction fails and moves nothing; a closed region is gone.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Device.class)
    void copiesThroughRegionsAreCheckedAndTranslatedByTheBridge(Device device) throws IOException {
        try (Session s = open(device, regions, importer())) {
            assertEquals(BridgeModes.Addressing.REGIONS, s.addressing());
            Session.GpuBuffer g = s.allocateGpu(5 * PAGE);
            Session.Region r = s.openRegion(g, true, true);
            Session.Region readOnly = s.openRegion(g, true, false);
            s.fpga().csrWrite("REGION_SELECT", r.number());
            assertEquals(g.length(), s.fpga().csrRead("REGION_LENGTH"), "the region's length in the bridge");
            byte[] data = random(200_004, 1);
            g.write(12, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x50_0000L, data.length);
            Session.Copy in = s.copy(r, 12, f, 0, data.length);
            in.await();
            assertEquals(1, in.descriptorCount(), "one region request; the bridge splits it at the pages");
            assertArrayEquals(data, s.readFpga(f, 0, data.length));
            s.copy(f, 0, r, 100_000, data.length).await();
            assertArrayEquals(data, g.read(100_000, data.length));

            byte[] before = g.read(0, (int) g.length());
            DmaException out = assertThrows(DmaException.class, s.copy(r, g.length() - 64, f, 0, 128)::await);
            assertEquals(Layout.Error.REGION_RANGE, out.error());
            assertTrue(out.getMessage().contains("through region " + r.number()), out.getMessage());
            assertEquals(Layout.Error.REGION, assertThrows(DmaException.class, s.copy(f, 0, readOnly, 0, 64)::await).error());
            assertArrayEquals(before, g.read(0, (int) g.length()), "GPU memory untouched");

            Session.Copy planned = s.copy(r, 0, f, 0, 64);
            r.close();
            assertFalse(r.isOpen());
            assertTrue(assertThrows(IllegalStateException.class, planned::await).getMessage().contains("closed before it ran"));
            assertEquals(0, s.fpga().csrRead("REGION_LENGTH"), "closed in the bridge's table");
            assertTrue(assertThrows(IllegalStateException.class, () -> s.copy(g, 0, f, 0, 64)).getMessage()
                    .contains("rejects raw descriptors"));
            assertTrue(assertThrows(IllegalStateException.class, () -> s.openWindow(APERTURE, APERTURE + MB - 1)).getMessage()
                    .contains("has regions addressing"));
        }
    }
}
