// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Stream;

import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.ffi.ClBuffer;
import org.direkt.runtime.ffi.ClContext;
import org.direkt.runtime.ffi.ClKernel;
import org.direkt.runtime.ffi.ClProgram;
import org.direkt.runtime.ffi.OpenClException;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.PciAddress;

/**
 * A board as an {@link FpgaDevice}: the bridge's registers through a {@link CsrAccess} (on a
 * board, a {@link CsrWindow} of the importer module on the range the manifest's {@code board.csr}
 * names), and everything else through the board's OpenCL platform: the user's kernels from their
 * compiled binary ({@code clCreateProgramWithBinary}, arguments by {@code clSetKernelArg}, one
 * work-item launched and waited for), and host DMA as the platform's buffer transfers
 * ({@code clEnqueueWriteBuffer}, {@code clEnqueueReadBuffer}: its driver pins the host memory and
 * the BSP's descriptor controller moves it).
 *
 * <p>FPGA memory is one buffer the device allocates when it opens, of the size given; FPGA address
 * {@code a} is byte {@code a} of it. That holds where the platform places the device's first
 * buffer at the bottom of its global memory, as kernels see it ({@code direkt_fpga_addr}): a
 * board's bring-up is what confirms it. The copies of a {@code Session} launch the runtime's issuing
 * kernels ({@link KernelCall.Issue}, {@link KernelCall.IssueRegion}), which the binary must hold:
 * build {@code org/direkt/runtime/opencl/direkt_issue.cl} into the bitstream beside the user's
 * kernels.
 *
 * <p>When it opens it reads the bridge's MAGIC and VERSION through the CSR: a range that does not
 * answer as direkt's bridge of the overlay's layout version is refused, naming what it read.
 */
public final class BoardDevice implements FpgaDevice {

    /**
     * Where a board's parts are: the FPGA's PCI function, the importer module's node, the OpenCL
     * platform (a part of its name or vendor: {@code Intel(R) FPGA}), the kernel binary
     * ({@code aoc}'s {@code .aocx}) and the bytes of FPGA memory the device holds as one buffer.
     */
    public record Config(PciAddress fpga, Path node, String platform, Path binary, long fpgaMemoryBytes) {
        public Config {
            if (fpgaMemoryBytes <= 0 || fpgaMemoryBytes % 4 != 0) {
                throw new IllegalArgumentException("FPGA memory of " + fpgaMemoryBytes + " bytes: must be a positive multiple of 4");
            }
        }
    }

    private final OverlayManifest manifest;
    private final CsrAccess csr;
    private final ClContext cl;
    private final ClProgram program;
    private final ClBuffer fpgaMemory;
    private final Fabric fabric;
    private final String platform;
    private final Path binary;
    private final Map<String, ClKernel> kernels = new HashMap<>();
    private final Map<Integer, ClBuffer> statusBuffers = new HashMap<>();
    /** Opens the overlay's aperture on the board (through the module that holds the CSR window); null on registers given. */
    private final Function<OverlayManifest.Aperture, Aperture> apertures;
    private boolean closed;

    private BoardDevice(OverlayManifest manifest, CsrAccess csr, ClContext cl, ClProgram program, Path binary,
            ClBuffer fpgaMemory, Fabric fabric, Function<OverlayManifest.Aperture, Aperture> apertures) {
        this.manifest = manifest;
        this.apertures = apertures;
        this.csr = csr;
        this.cl = cl;
        this.program = program;
        this.binary = binary;
        this.fpgaMemory = fpgaMemory;
        this.fabric = fabric;
        this.platform = cl.platform().name();
    }

    /**
     * Opens the board {@code config} names for {@code manifest}'s overlay: the CSR window on the
     * manifest's {@code board.csr} range of the FPGA (the importer module checks MAGIC and VERSION
     * before it maps anything), then the OpenCL platform and the kernel binary.
     *
     * @throws IllegalArgumentException the manifest has no {@code board.csr} section
     * @throws CsrWindowException       no importer module, no FPGA at that address, a bitstream without
     *                                  direkt's bridge there (the module's refusal, named)
     * @throws BoardDeviceException     no such platform, no binary, a binary the platform refuses
     */
    public static BoardDevice open(OverlayManifest manifest, Config config) {
        OverlayManifest.BoardCsr where = manifest.boardCsr().orElseThrow(() -> new BoardDeviceException(
                BoardDeviceException.Reason.NO_CSR_IN_MANIFEST, manifest.file() + " has no board.csr section, so the runtime does"
                + " not know where direkt's bridge's registers sit on the board: it is written for a board whose descriptor"
                + " controller direkt replaces (direkt overlay --bsp on such a board's BSP)"));
        CsrRange range = new CsrRange(config.fpga(), where.bar(), where.offset(), where.bytes());
        CsrWindow window = CsrWindow.open(config.node(), range, Layout.VERSION);
        return open(manifest, CsrAccess.of(window), config.platform(), config.binary(), config.fpgaMemoryBytes(),
                Fabric.BITSTREAM, a -> Aperture.open(config.node(), range, a, Layout.VERSION));
    }

    /**
     * Opens a board device on the parts given: the registers {@code csr}, the OpenCL platform whose
     * name or vendor holds {@code platform}, the kernel binary {@code binary}, {@code fpgaMemoryBytes}
     * of FPGA memory and the {@code fabric} between them. On failure {@code csr} is closed.
     *
     * @throws BoardDeviceException the registers are not direkt's bridge of this layout version, or
     *     the platform, the binary or its loading is missing (the message says which)
     */
    public static BoardDevice open(OverlayManifest manifest, CsrAccess csr, String platform, Path binary, long fpgaMemoryBytes,
            Fabric fabric) {
        return open(manifest, csr, platform, binary, fpgaMemoryBytes, fabric, null);
    }

    private static BoardDevice open(OverlayManifest manifest, CsrAccess csr, String platform, Path binary, long fpgaMemoryBytes,
            Fabric fabric, Function<OverlayManifest.Aperture, Aperture> apertures) {
        Deque<AutoCloseable> opened = new ArrayDeque<>(List.of(csr));  // the last opened first
        try {
            identify(manifest, csr);
            byte[] bytes = binary(binary);
            ClContext cl = context(platform);
            opened.push(cl);
            ClProgram program;
            try {
                program = cl.buildFromBinary(bytes, "");
            } catch (OpenClException e) {
                throw new BoardDeviceException(BoardDeviceException.Reason.BINARY_REFUSED, binary + " does not load on "
                        + cl.platform().name() + " (" + e.errorName() + "): is it built by this platform's compiler for this"
                        + " board (aoc -board=...)?", e);
            }
            opened.push(program);
            ClBuffer memory = cl.buffer(fpgaMemoryBytes);
            opened.push(memory);
            fabric.attach(cl, memory);
            return new BoardDevice(manifest, csr, cl, program, binary, memory, fabric, apertures);
        } catch (RuntimeException e) {
            for (AutoCloseable c : opened) {
                try {
                    c.close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** MAGIC and VERSION as the manifest says direkt's bridge of its layout reads them. */
    private static void identify(OverlayManifest manifest, CsrAccess csr) {
        long magic = Integer.toUnsignedLong(csr.read32(manifest.byteOffset("MAGIC")));
        if (magic != Layout.CSR_MAGIC) {
            throw new BoardDeviceException(BoardDeviceException.Reason.NOT_A_DIREKT_BRIDGE, "a bitstream without direkt's bridge: at "
                    + csr.where() + " the CSR's MAGIC register reads " + String.format("0x%08x", magic) + ", direkt's bridge reads "
                    + String.format("0x%08x", Layout.CSR_MAGIC) + " (\"DRKT\"); program the bitstream built from "
                    + manifest.file().getParent() + ", or check board.csr in " + manifest.file().getFileName());
        }
        long version = Integer.toUnsignedLong(csr.read32(manifest.byteOffset("VERSION")));
        if (version != Layout.VERSION) {
            throw new BoardDeviceException(BoardDeviceException.Reason.OTHER_LAYOUT_VERSION, "the bitstream's direkt bridge at "
                    + csr.where() + " has layout version " + version + ", the overlay's manifest " + Layout.VERSION
                    + ": program the bitstream built from this overlay, or use the overlay the bitstream was built from");
        }
    }

    private static byte[] binary(Path binary) {
        try {
            return Files.readAllBytes(binary);
        } catch (NoSuchFileException e) {
            throw new BoardDeviceException(BoardDeviceException.Reason.NO_BINARY, "no kernel binary at " + binary
                    + ": give the .aocx aoc built for this board from the user's kernels and direkt_issue.cl", e);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the kernel binary " + binary, e);
        }
    }

    private static ClContext context(String platform) {
        try {
            return ClContext.openRequired(platform);
        } catch (OpenClException e) {
            throw new BoardDeviceException(BoardDeviceException.Reason.NO_PLATFORM, "no OpenCL platform '" + platform
                    + "' with a device (" + e.getMessage() + "): is the board's ICD listed in /etc/OpenCL/vendors, its BSP's"
                    + " driver loaded and the board found (aocl diagnose)?", e);
        }
    }

    @Override
    public String describe() {
        return "board " + csr.where() + " on " + platform;
    }

    /** The bytes of FPGA memory the device holds, from FPGA address 0. */
    public long fpgaMemoryBytes() {
        return fpgaMemory.size();
    }

    /** What stands in for the board's own parts (its registers, channels, data movers), one line each; empty on a board. */
    public List<String> standIns() {
        return Stream.of(csr.standIn(), fabric.standIn()).flatMap(Optional::stream).distinct().toList();
    }

    @Override
    public boolean usable() {
        return !closed;
    }

    /**
     * Maps the FPGA memory the overlay's aperture exposes (its manifest's {@code aperture}) through
     * the importer module, for the GPU's copy engine (GPU-master copies); the caller closes it,
     * before this device.
     *
     * @throws BoardDeviceException the manifest declares no aperture, or the device was opened on registers given
     * @throws ApertureException    the module refused the aperture or its mapping (what is missing named)
     */
    public Aperture openAperture() {
        checkOpen();
        OverlayManifest.Aperture a = manifest.aperture().orElseThrow(() -> new BoardDeviceException(
                BoardDeviceException.Reason.NO_APERTURE_IN_MANIFEST, manifest.file() + " declares no aperture (no \"aperture\""
                + " section): the overlay was made without a flat FPGA-memory BAR, so the GPU cannot be bus master; copy"
                + " FPGA-master, or make the overlay with an aperture"));
        if (apertures == null) {
            throw new BoardDeviceException(BoardDeviceException.Reason.NO_APERTURE, "the board device " + describe()
                    + " was opened on registers given, not through the importer module: it has no FPGA function to map an"
                    + " aperture of");
        }
        return apertures.apply(a);
    }

    @Override
    public long csrRead(String name) {
        checkOpen();
        return Integer.toUnsignedLong(csr.read32(manifest.byteOffset(name)));
    }

    @Override
    public void csrWrite(String name, long value) {
        checkOpen();
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("CSR register " + name + " = " + value + ": the registers hold 32 bits");
        }
        csr.write32(manifest.byteOffset(name), (int) value);
    }

    @Override
    public void map(List<BusRange> ranges) {
        checkOpen();
        fabric.map(ranges);
    }

    @Override
    public void unmap(List<BusRange> ranges) {
        if (!closed) {
            fabric.unmap(ranges);
        }
    }

    @Override
    public OptionalLong mapPinned(MemorySegment pinned, String what) {
        return OptionalLong.empty();
    }

    @Override
    public void unmapPinned(MemorySegment pinned) {
    }

    @Override
    public long toFpga(MemorySegment from, long fpgaAddress) {
        checkFpga(fpgaAddress, from.byteSize());
        cl.write(fpgaMemory, fpgaAddress, from);
        return -1;
    }

    @Override
    public long fromFpga(long fpgaAddress, MemorySegment into) {
        checkFpga(fpgaAddress, into.byteSize());
        cl.read(fpgaMemory, fpgaAddress, into);
        return -1;
    }

    private void checkFpga(long address, long bytes) {
        checkOpen();
        if (address < 0 || bytes < 0 || address + bytes > fpgaMemory.size()) {
            throw new BoardDeviceException(BoardDeviceException.Reason.OUTSIDE_FPGA_MEMORY, "FPGA range [" + Bytes.hex(address)
                    + ", +" + bytes + ") is outside the " + Bytes.human(fpgaMemory.size()) + " of FPGA memory this board device"
                    + " holds");
        }
    }

    @Override
    public Launched launch(List<KernelCall> calls) {
        checkOpen();
        List<long[]> statuses = new ArrayList<>();
        for (KernelCall call : calls) {
            ClKernel k = kernel(call.kernel());
            ClBuffer out = null;
            int i = 0;
            for (KernelCall.Arg a : call.args()) {
                switch (a) {
                    case KernelCall.ULong u -> k.argULong(i, u.value());
                    case KernelCall.UInt u -> k.argUInt(i, u.value());
                    case KernelCall.Statuses s -> {
                        out = statusBuffers.computeIfAbsent(s.count(), n -> cl.buffer(8L * n));
                        k.argBuffer(i, out);
                    }
                }
                i++;
            }
            for (ClBuffer b : fabric.channelArgs(call)) {
                k.argBuffer(i++, b);
            }
            cl.run(k, 1);
            long[] written = new long[0];
            if (out != null) {
                MemorySegment s = MemorySegment.ofArray(new long[(int) (out.size() / 8)]);
                cl.read(out, s);
                written = s.toArray(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN));
            }
            statuses.add(fabric.statuses(call, written));
        }
        return new Launched(statuses, -1);
    }

    private ClKernel kernel(String name) {
        ClKernel k = kernels.get(name);
        if (k == null) {
            try {
                k = program.kernel(name);
            } catch (OpenClException e) {
                throw new BoardDeviceException(BoardDeviceException.Reason.NO_KERNEL, "the kernel binary " + binary + " has no kernel "
                        + name + " (" + e.errorName() + "); it holds " + String.join(", ", program.kernelNames())
                        + (name.startsWith("direkt_issue") ? ": build the runtime's issuing kernels"
                        + " (org/direkt/runtime/opencl/direkt_issue.cl) into it beside the user's kernels" : ""), e);
            }
            kernels.put(name, k);
        }
        return k;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the board device " + describe() + " is closed");
        }
    }

    /** Releases the kernels, FPGA memory, the program and the context, then closes the registers; later calls do nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            kernels.values().forEach(ClKernel::close);
            statusBuffers.values().forEach(ClBuffer::close);
            fabric.close();
            fpgaMemory.close();
            program.close();
            cl.close();
        } finally {
            csr.close();
        }
    }

    @Override
    public String toString() {
        return "BoardDevice[" + describe() + (closed ? ", closed" : "") + "]";
    }
}
