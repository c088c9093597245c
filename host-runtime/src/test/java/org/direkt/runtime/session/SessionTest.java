package org.direkt.runtime.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.direkt.generators.bridge.Layout;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime API end to end on the simulated bridge: a round trip, and an error status as an exception. */
@Tag("sim")
class SessionTest {

    @TempDir
    static Path tmp;

    static Path overlay;

    static final long APERTURE = 0x38_0000_0000L;

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
        return new SimulatedImporter(APERTURE, 1L << 30, 0.5, 11);
    }

    @Test
    void gpuToFpgaToGpuRoundTripIsByteExact() throws Exception {
        try (Session s = Session.open(overlay, importer())) {
            s.openWindow(APERTURE, APERTURE + (1L << 30) - 1);
            Session.GpuBuffer g = s.allocateGpu(300_000);
            byte[] data = new byte[200_004];
            new Random(5).nextBytes(data);
            g.write(4, data);
            Session.FpgaBuffer f = s.fpgaBuffer(0x2000_0000L, data.length);
            Session.Copy in = s.copy(g, 4, f, 0, data.length);
            in.await();
            assertArrayEquals(data, in.fpgaContents(), "FPGA memory after GPU -> FPGA");
            Session.Copy out = s.copy(f, 0, g, 100_000 & ~3, data.length).withFpgaContents(in.fpgaContents());
            out.await();
            assertArrayEquals(data, g.read(100_000 & ~3, data.length), "GPU memory after FPGA -> GPU");
            assertTrue(in.descriptorCount() >= 1 && out.descriptorCount() >= 1);
        }
    }

    @Test
    void aStatusWithAnErrorCodeBecomesAnException() throws Exception {
        try (Session s = Session.open(overlay, importer())) {
            // No window opened: the bridge rejects every kernel descriptor.
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.Copy c = s.copy(g, 0, s.fpgaBuffer(0x1000, 4096), 0, 4096);
            DmaException e = assertThrows(DmaException.class, c::await);
            assertEquals(Layout.Error.WINDOW, e.error());
            assertTrue(e.getMessage().contains("WINDOW"), e.getMessage());
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
