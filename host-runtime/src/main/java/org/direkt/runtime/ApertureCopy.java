// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.Objects;
import java.util.function.Supplier;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.pcie.Bytes;

/**
 * A GPU-master copy: the GPU's copy engine writes (GPU -> FPGA) or reads (FPGA -> GPU) the FPGA
 * memory the overlay's aperture exposes, through the session's {@link ApertureEngine}; no
 * descriptor, and no FPGA data mover, is involved. Any GPU buffer of the session may be copied,
 * whatever its path; the FPGA range must lie inside the aperture
 * ({@code [aperture.fpga_base, aperture.fpga_base + aperture.bar_bytes)}). Offsets and length are
 * whole 32-bit words, as every copy of a session moves.
 */
public final class ApertureCopy extends PlannedCopy implements Session.Copy {
    private final ApertureEngine engine;
    private final long apertureOffset;

    private ApertureCopy(SessionState s, boolean toFpga, BufferMemory g, long gOff, long fpga, long bytes, ApertureEngine engine,
            long apertureOffset) {
        super(s, toFpga, g, gOff, bytes, fpga);
        this.engine = engine;
        this.apertureOffset = apertureOffset;
    }

    /**
     * A GPU-master copy of {@code bytes} between byte {@code gOff} of {@code g} and byte {@code fOff}
     * of {@code f}, through the engine {@code engine} gives (opened once, on the first such copy).
     *
     * @throws IllegalArgumentException a range outside its buffer or outside the aperture, or an offset or length not whole words
     * @throws IllegalStateException    the overlay has no aperture, or it cannot be opened here (the reason named)
     */
    static ApertureCopy plan(SessionState s, boolean toFpga, Session.GpuBuffer g, long gOff, Session.FpgaBuffer f, long fOff,
            long bytes, Supplier<ApertureEngine> engine) {
        s.checkOpen();
        Objects.requireNonNull(g, "GPU buffer");
        Objects.requireNonNull(f, "FPGA buffer");
        BufferMemory m = s.owned(g);
        m.check(gOff, bytes);
        f.checkRange(fOff, bytes);
        if (bytes <= 0 || (bytes & 3) != 0 || (gOff & 3) != 0 || (fOff & 3) != 0) {
            throw new IllegalArgumentException("GPU-master copy of " + bytes + " bytes from GPU buffer offset " + gOff + " and FPGA"
                    + " buffer offset " + fOff + ": the length must be positive and it and both offsets multiples of 4 (whole"
                    + " 32-bit words)");
        }
        OverlayManifest.Aperture a = s.manifest.aperture().orElseThrow(() -> new IllegalStateException(noAperture(s)));
        long fpga = f.address() + fOff;
        if (!a.holds(fpga, bytes)) {
            throw new IllegalArgumentException(outside(a, fpga, bytes));
        }
        return new ApertureCopy(s, toFpga, m, gOff, fpga, bytes, engine.get(), fpga - a.fpgaBase());
    }

    /** Why a session has no GPU-master copies: its overlay declares no aperture. */
    static String noAperture(SessionState s) {
        return s.manifest.file() + " declares no aperture (no \"aperture\" section): the overlay was made without a flat"
                + " FPGA-memory BAR for the GPU to read and write, so no copy can be GPU-master; copy FPGA-master"
                + " (MasterCopies.Policy.FPGA, or Session.copy), or make the overlay with an aperture";
    }

    /** Why a range cannot be a GPU-master copy's: it is not all inside the aperture. */
    static String outside(OverlayManifest.Aperture a, long fpga, long bytes) {
        return "FPGA range [" + Bytes.hex(fpga) + ", +" + Bytes.size(bytes) + ") is not inside the aperture: BAR " + a.bar()
                + " exposes FPGA memory [" + Bytes.hex(a.fpgaBase()) + ", " + Bytes.hex(a.fpgaEnd()) + ") to the GPU"
                + " (aperture.fpga_base and aperture.bar_bytes), nothing else; copy FPGA-master, or use an FPGA buffer inside it";
    }

    @Override
    public DataPath path() {
        return DataPath.APERTURE;
    }

    @Override
    public Master master() {
        return Master.GPU_MASTER;
    }

    /** None: the GPU's copy engine moves it. */
    @Override
    public int descriptorCount() {
        return 0;
    }

    /** Runs the copy on the GPU's copy engine (a stream of its direction) and waits until it is done. */
    @Override
    public void await() {
        checkRunnable();
        if (toFpga) {
            engine.toFpga(gpu.memory, gpuOffset, apertureOffset, bytes);
        } else {
            engine.fromFpga(apertureOffset, gpu.memory, gpuOffset, bytes);
        }
        ran(-1);
    }

    /**
     * @throws IllegalStateException always, once it ran: the GPU's copy engine moved it, and the
     *     FPGA's data movers, whose dma_clk cycles a device counts, took no part
     */
    @Override
    public long dmaCycles() {
        super.checkRan();
        throw new IllegalStateException("a GPU-master copy is moved by the GPU's copy engine, not the FPGA's data movers:"
                + " there are no dma_clk cycles to count");
    }

    @Override
    String what() {
        return super.what() + " through " + engine.describe();
    }
}
