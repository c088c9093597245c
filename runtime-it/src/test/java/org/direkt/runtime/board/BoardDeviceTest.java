// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.Descriptors;
import org.direkt.runtime.MasterCopies;
import org.direkt.runtime.Session;
import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.PciAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The board device's OpenCL half on PoCL: the runtime's issuing kernels built from source, their
 * program binary written to a file and loaded from it as a board's {@code .aocx} is
 * ({@code clCreateProgramWithBinary}), launched with their arguments set by {@code clSetKernelArg};
 * host DMA through the platform's buffers; the bridge's registers by the manifest's byte offsets;
 * and each thing that can be missing, named. What only a board has (the bridge's registers, its
 * channels and movers) is {@link BridgeStandIn}. Skipped without the OpenCL loader or PoCL.
 */
class BoardDeviceTest {
    static final long APERTURE = 0x38_0000_0000L;
    static final long FPGA_BYTES = 1L << 20;

    @TempDir
    static Path tmp;

    static Path overlay;
    static OverlayManifest manifest;
    static Path binary;

    @BeforeAll
    static void anOverlayAndItsIssuingKernelsAsABinaryFile() throws Exception {
        assumeTrue(IssuingBinary.poclPresent(), "no OpenCL loader or no PoCL platform");
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples/bsp/direkt_ref"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "repository not found above " + Path.of("").toAbsolutePath());
        overlay = tmp.resolve("overlay");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", p.resolve("examples/bsp/direkt_ref").toString(), "--out",
            overlay.toString()}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
        manifest = OverlayManifest.read(overlay);
        binary = IssuingBinary.build(overlay, tmp.resolve("direkt_issue.pocl"));
    }

    private static BoardDevice open(BridgeStandIn bridge) {
        return BoardDevice.open(manifest, bridge, IssuingBinary.POCL, binary, FPGA_BYTES, bridge);
    }

    @Test
    void theIssuingKernelLoadedFromItsBinaryFileWritesTheDescriptorItsArgumentsSay() {
        BridgeStandIn bridge = new BridgeStandIn(manifest);
        byte[] data = new byte[4096];
        new Random(41).nextBytes(data);
        try (Arena arena = Arena.ofConfined(); BoardDevice d = open(bridge)) {
            MemorySegment gpu = arena.allocate(2 * data.length);
            gpu.asSlice(0, data.length).copyFrom(MemorySegment.ofArray(data));
            d.map(List.of(new BusRange(APERTURE, gpu.byteSize(), BusRange.Backing.of(gpu), 0, "GPU page")));
            d.csrWrite("WIN0_BASE_LO", APERTURE & 0xFFFF_FFFFL);
            d.csrWrite("WIN0_BASE_HI", APERTURE >>> 32);
            d.csrWrite("WIN0_SIZE", 20);
            d.csrWrite("WIN0_CTRL", 0b111);
            List<KernelCall> calls = List.of(new KernelCall.Issue(true, APERTURE, 0x100, data.length, 7),
                    new KernelCall.Issue(false, APERTURE + data.length, 0x100, data.length, 8));
            FpgaDevice.Launched launched = d.launch(calls);

            assertArrayEquals(Layout.cldescWords(Descriptors.cldesc(APERTURE, 0x100, data.length, 7)), bridge.descriptors().get(0),
                    "the descriptor the kernel wrote, GPU -> FPGA");
            assertArrayEquals(Layout.cldescWords(Descriptors.cldesc(0x100, APERTURE + data.length, data.length, 8)),
                    bridge.descriptors().get(1), "FPGA -> GPU");
            for (int i = 0; i < 2; i++) {
                Map<String, BigInteger> s = Layout.KERNEL_STATUS_TAGGED.unpack(new BigInteger(Long.toUnsignedString(
                        launched.statuses().get(i)[0])));
                assertEquals(7 + i, s.get("tag").intValue());
                assertEquals(Layout.Error.OK.code(), s.get("error").intValue());
            }
            assertArrayEquals(data, gpu.asSlice(data.length, data.length).toArray(ValueLayout.JAVA_BYTE),
                    "GPU -> FPGA -> GPU through the device's FPGA memory");
            assertEquals(-1, launched.dmaCycles(), "a board does not count dma_clk cycles");
        }
        assertTrue(bridge.closed(), "closing the device closes its registers");
    }

    @Test
    void theRegistersAreTheManifestsByByteOffsetAndHostDmaIsThePlatformsBuffers() {
        BridgeStandIn bridge = new BridgeStandIn(manifest);
        try (Arena arena = Arena.ofConfined(); BoardDevice d = open(bridge)) {
            assertEquals(4L * manifest.offset("WIN1_CTRL"), manifest.byteOffset("WIN1_CTRL"), "word addresses, 4 bytes each");
            d.csrWrite("WIN1_CTRL", 5);
            assertEquals(5, bridge.read32(manifest.byteOffset("WIN1_CTRL")));
            assertEquals(Layout.CSR_MAGIC, d.csrRead("MAGIC"));
            assertThrows(IllegalArgumentException.class, () -> d.csrWrite("WIN1_CTRL", 1L << 32));
            assertTrue(d.describe().contains(IssuingBinary.POCL), d.describe());

            MemorySegment in = arena.allocate(8192);
            for (int i = 0; i < 2048; i++) {
                in.setAtIndex(ValueLayout.JAVA_INT, i, i * 31 + 7);
            }
            assertTrue(d.mapPinned(in, "pinned").isEmpty(), "the platform maps pinned memory out of the host's sight");
            d.toFpga(in, FPGA_BYTES - in.byteSize());
            MemorySegment out = arena.allocate(8192);
            d.fromFpga(FPGA_BYTES - in.byteSize(), out);
            assertEquals(-1, in.mismatch(out));
            BoardDeviceException e = assertThrows(BoardDeviceException.class, () -> d.toFpga(in, FPGA_BYTES - 4096));
            assertEquals(BoardDeviceException.Reason.OUTSIDE_FPGA_MEMORY, e.reason());
            assertTrue(e.getMessage().contains("outside the 1 MB of FPGA memory"), e.getMessage());
        }
    }

    @Test
    void aBitstreamWithoutDirektsBridgeOrOfAnotherLayoutIsRefused() {
        BridgeStandIn foreign = new BridgeStandIn(manifest).with("MAGIC", 0x1234_5678L);
        BoardDeviceException e = assertThrows(BoardDeviceException.class, () -> open(foreign));
        assertEquals(BoardDeviceException.Reason.NOT_A_DIREKT_BRIDGE, e.reason());
        assertTrue(e.getMessage().startsWith("a bitstream without direkt's bridge") && e.getMessage().contains("reads 0x12345678")
                && e.getMessage().contains("0x44524b54"), e.getMessage());
        assertTrue(foreign.closed(), "the registers are closed again");
        BridgeStandIn older = new BridgeStandIn(manifest).with("VERSION", Layout.VERSION - 1);
        e = assertThrows(BoardDeviceException.class, () -> open(older));
        assertEquals(BoardDeviceException.Reason.OTHER_LAYOUT_VERSION, e.reason());
        assertTrue(e.getMessage().contains("layout version " + (Layout.VERSION - 1)), e.getMessage());
    }

    @Test
    void aMissingBinaryPlatformOrKernelIsNamed() {
        Path none = tmp.resolve("missing.aocx");
        BoardDeviceException e = assertThrows(BoardDeviceException.class, () -> BoardDevice.open(manifest,
                new BridgeStandIn(manifest), IssuingBinary.POCL, none, FPGA_BYTES, Fabric.BITSTREAM));
        assertEquals(BoardDeviceException.Reason.NO_BINARY, e.reason());
        assertTrue(e.getMessage().contains("no kernel binary at " + none), e.getMessage());
        e = assertThrows(BoardDeviceException.class, () -> BoardDevice.open(manifest, new BridgeStandIn(manifest),
                "no such platform", binary, FPGA_BYTES, Fabric.BITSTREAM));
        assertEquals(BoardDeviceException.Reason.NO_PLATFORM, e.reason());
        assertTrue(e.getMessage().contains("no OpenCL platform 'no such platform'"), e.getMessage());
        BridgeStandIn bridge = new BridgeStandIn(manifest);
        try (BoardDevice d = open(bridge)) {
            e = assertThrows(BoardDeviceException.class, () -> d.launch(List.of(new KernelCall.Named("vadd", List.of()))));
            assertEquals(BoardDeviceException.Reason.NO_KERNEL, e.reason());
            assertTrue(e.getMessage().contains("has no kernel vadd") && e.getMessage().contains("it holds " + KernelCall.Issue.KERNEL),
                    e.getMessage());
        }
    }

    /**
     * The manifest says where the CSR is ({@code board.csr}, as the overlay writes it for a board
     * whose controller direkt replaces); without it, or without the importer module, opening says so.
     */
    @Test
    void withoutTheManifestsCsrOrTheImporterModuleOpeningSaysWhatIsMissing() throws Exception {
        BoardDevice.Config config = new BoardDevice.Config(PciAddress.parse("0000:3b:00.0"), tmp.resolve("direkt_importer"),
                IssuingBinary.POCL, binary, FPGA_BYTES);
        BoardDeviceException e = assertThrows(BoardDeviceException.class, () -> BoardDevice.open(manifest, config));
        assertEquals(BoardDeviceException.Reason.NO_CSR_IN_MANIFEST, e.reason());
        assertTrue(e.getMessage().contains("has no board.csr section"), e.getMessage());

        Path board = Files.createDirectories(tmp.resolve("board-overlay"));
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = (ObjectNode) json.readTree(overlay.resolve(OverlayManifest.FILE).toFile());
        m.putObject("board").putObject("csr").put("bar", 4).put("offset", "0x20000").put("bytes", 512).put("host", "board");
        json.writeValue(board.resolve(OverlayManifest.FILE).toFile(), m);
        OverlayManifest withCsr = OverlayManifest.read(board);
        assertEquals(new OverlayManifest.BoardCsr(4, 0x20000, 512), withCsr.boardCsr().orElseThrow());
        CsrWindowException noModule = assertThrows(CsrWindowException.class, () -> BoardDevice.open(withCsr, config));
        assertEquals(CsrWindowException.Reason.NO_MODULE, noModule.reason());
        assertTrue(noModule.getMessage().contains("the importer kernel module is not loaded"), noModule.getMessage());
    }

    /**
     * GPU-master copies on a board need the overlay's aperture, a CUDA GPU, and the aperture opened
     * through the importer module: without the manifest's section, on registers given (no module to
     * ask), or without a GPU, each is named; AUTO then copies FPGA-master.
     */
    @Test
    void anApertureNeedsTheManifestsSectionTheModuleAndAGpu() throws Exception {
        try (BoardDevice d = open(new BridgeStandIn(manifest))) {
            BoardDeviceException e = assertThrows(BoardDeviceException.class, d::openAperture);
            assertEquals(BoardDeviceException.Reason.NO_APERTURE_IN_MANIFEST, e.reason());
            assertTrue(e.getMessage().startsWith(manifest.file() + " declares no aperture"), e.getMessage());
        }
        Path dir = Files.createDirectories(tmp.resolve("aperture-overlay"));
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = (ObjectNode) json.readTree(overlay.resolve(OverlayManifest.FILE).toFile());
        m.putObject("aperture").put("bar", 2).put("bar_bytes", 1 << 20).put("fpga_base", 0).put("outstanding_reads", 8)
                .put("max_read_bytes", 256);
        json.writeValue(dir.resolve(OverlayManifest.FILE).toFile(), m);
        OverlayManifest withAperture = OverlayManifest.read(dir);
        try (BoardDevice d = BoardDevice.open(withAperture, new BridgeStandIn(withAperture), IssuingBinary.POCL, binary, FPGA_BYTES,
                Fabric.BITSTREAM)) {
            BoardDeviceException e = assertThrows(BoardDeviceException.class, d::openAperture);
            assertEquals(BoardDeviceException.Reason.NO_APERTURE, e.reason());
            assertTrue(e.getMessage().contains("was opened on registers given, not through the importer module"), e.getMessage());
        }
        try (Session s = Session.open(dir, BusAddressImporter.none("no importer here"), Session.Gpu.NONE, x -> {
            BridgeStandIn bridge = new BridgeStandIn(x);
            return BoardDevice.open(x, bridge, IssuingBinary.POCL, binary, FPGA_BYTES, bridge);
        })) {
            String why = s.masters().unavailableReason().orElseThrow();
            assertTrue(why.startsWith("GPU-master copies need a CUDA GPU whose copy engine reaches the aperture, and the session's"
                    + " GPU memory is none"), why);
            Session.GpuBuffer g = s.allocateGpu(65_536);
            Session.Copy c = s.masters().copy(g, 0, s.fpgaBuffer(0, 4096), 0, 4096);
            assertEquals(org.direkt.runtime.Master.FPGA_MASTER, c.master(), "AUTO copies FPGA-master where the GPU cannot");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> s.masters().use(MasterCopies.Policy.GPU).copy(g, 0, s.fpgaBuffer(0, 4096), 0, 4096));
            assertEquals(why, e.getMessage());
        }
    }
}
