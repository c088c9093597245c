// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.pcie.Bytes;

/**
 * A session's copies by either master ({@link Session#masters()}): GPU-master copies through the
 * overlay's aperture ({@link ApertureCopy}: the GPU's copy engine reads and writes FPGA memory
 * through a flat BAR that CUDA registered as I/O memory) or FPGA-master copies (the FPGA's data
 * movers, as {@link Session#copy(Session.GpuBuffer, long, Session.FpgaBuffer, long, int)} makes
 * them), chosen per copy by the {@link Policy}: {@link Policy#AUTO} (the default) follows the
 * {@link MasterTable} by direction and size, and takes the FPGA master where the GPU master cannot
 * move the copy, saying why ({@link #choose}). Every copy says which master moved it
 * ({@link Session.Copy#master()}).
 *
 * <pre>
 * Session.Copy c = s.masters().copy(g, 0, f, 0, 4096);
 * c.await();
 * c.master();   // GPU_MASTER below the table's crossover, where the overlay has an aperture
 * </pre>
 *
 * The aperture is opened, mapped and registered with CUDA on the first GPU-master copy (or
 * {@link #unavailableReason()}), once per session, and unregistered, unmapped and closed with the
 * session. On the simulated FPGA the aperture is the simulated FPGA's memory from
 * {@code aperture.fpga_base} on, and GPU memory the session's: copies are byte-exact, not timed.
 */
public final class MasterCopies {
    /** Who picks a copy's master. */
    public enum Policy {
        /** The table ({@link MasterTable}) by direction and size; the FPGA master where the GPU master is not possible. */
        AUTO,
        /** Every copy GPU-master; one the aperture cannot move is refused with the reason. */
        GPU,
        /** Every copy FPGA-master, as {@link Session#copy(Session.GpuBuffer, long, Session.FpgaBuffer, long, int)}. */
        FPGA
    }

    /** A copy's master and why. */
    public record Choice(Master master, String reason) {
    }

    private final SessionState s;
    private Policy policy = Policy.AUTO;
    private MasterTable table = MasterTable.MEASURED;
    private ApertureEngine engine;
    private RuntimeException refusal;

    MasterCopies(SessionState s) {
        this.s = s;
    }

    /** The overlay's aperture, as its manifest declares it; empty when the overlay has none. */
    public Optional<OverlayManifest.Aperture> aperture() {
        return s.manifest.aperture();
    }

    public Policy policy() {
        return policy;
    }

    public MasterTable table() {
        return table;
    }

    /** Who picks the master of the copies planned from now on. */
    public MasterCopies use(Policy p) {
        policy = Objects.requireNonNull(p, "policy");
        return this;
    }

    /** The table {@link Policy#AUTO} follows from now on ({@link MasterTable#MEASURED} unless set). */
    public MasterCopies use(MasterTable t) {
        table = Objects.requireNonNull(t, "master table");
        return this;
    }

    /**
     * Why no copy of this session can be GPU-master (the overlay declares no aperture; no CUDA GPU
     * beside a board; the importer module's or CUDA's refusal, named), or empty when they can.
     * Opens the aperture when it is not yet open.
     */
    public Optional<String> unavailableReason() {
        s.checkOpen();
        if (aperture().isEmpty()) {
            return Optional.of(ApertureCopy.noAperture(s));
        }
        try {
            engine();
            return Optional.empty();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The aperture's first byte as the GPU's kernels address it (on a board, once it is open), else empty. */
    public OptionalLong devicePointer() {
        return engine == null ? OptionalLong.empty() : engine.devicePointer();
    }

    /** The session's engine, opened on first use; a refusal is kept and thrown again. */
    ApertureEngine engine() {
        s.checkOpen();
        if (refusal != null) {
            throw refusal;
        }
        if (engine == null) {
            OverlayManifest.Aperture a = aperture().orElseThrow(() -> new IllegalStateException(ApertureCopy.noAperture(s)));
            try {
                engine = ApertureEngine.open(s, a);
            } catch (RuntimeException e) {
                refusal = e instanceof IllegalStateException i ? i
                        : new IllegalStateException("the aperture could not be opened: " + e.getMessage(), e);
                throw refusal;
            }
        }
        return engine;
    }

    /**
     * The master of a copy of {@code bytes} in direction {@code d} to or from byte {@code fOff} of
     * {@code f}, under the policy, and why. Under {@link Policy#AUTO}: the table's; but the FPGA
     * master where the overlay has no aperture, the range is not inside it, or the aperture cannot be
     * opened here (opening it, the first time the table says GPU master).
     */
    public Choice choose(MasterTable.Direction d, Session.FpgaBuffer f, long fOff, long bytes) {
        Objects.requireNonNull(d, "direction");
        Objects.requireNonNull(f, "FPGA buffer");
        String copy = d + " copy of " + Bytes.size(bytes);
        switch (policy) {
            case GPU -> {
                return new Choice(Master.GPU_MASTER, copy + ": GPU master, as the policy says (Policy.GPU)");
            }
            case FPGA -> {
                return new Choice(Master.FPGA_MASTER, copy + ": FPGA master, as the policy says (Policy.FPGA)");
            }
            default -> {
            }
        }
        MasterTable.Crossover c = table.crossover(d);
        String rule = "the table has " + c;
        Master m = c.at(bytes);
        if (m == Master.FPGA_MASTER) {
            return new Choice(m, copy + ": FPGA master: " + rule);
        }
        Optional<OverlayManifest.Aperture> a = aperture();
        if (a.isEmpty()) {
            return new Choice(Master.FPGA_MASTER, copy + ": FPGA master, though " + rule + ": " + ApertureCopy.noAperture(s));
        }
        if (!a.get().holds(f.address() + fOff, bytes)) {
            return new Choice(Master.FPGA_MASTER, copy + ": FPGA master, though " + rule + ": "
                    + ApertureCopy.outside(a.get(), f.address() + fOff, bytes));
        }
        try {
            engine();
        } catch (IllegalStateException e) {
            return new Choice(Master.FPGA_MASTER, copy + ": FPGA master, though " + rule + ": GPU-master copies are not"
                    + " possible here: " + e.getMessage());
        }
        return new Choice(Master.GPU_MASTER, copy + ": GPU master: " + rule);
    }

    /**
     * GPU -> FPGA by the master {@link #choose} picks: {@code bytes} from byte {@code srcOffset} of
     * {@code src} to byte {@code dstOffset} of {@code dst}. GPU-master: through the aperture
     * ({@link ApertureCopy}); FPGA-master: as {@link Session#copy(Session.GpuBuffer, long, Session.FpgaBuffer, long, int)}.
     *
     * @throws IllegalArgumentException a range outside its buffer (or, GPU-master, outside the aperture), or offsets or length not whole words
     * @throws IllegalStateException    GPU-master (Policy.GPU) where it is not possible, with the reason
     */
    public Session.Copy copy(Session.GpuBuffer src, long srcOffset, Session.FpgaBuffer dst, long dstOffset, long bytes) {
        return plan(true, src, srcOffset, dst, dstOffset, bytes);
    }

    /** FPGA -> GPU by the master {@link #choose} picks, as {@link #copy(Session.GpuBuffer, long, Session.FpgaBuffer, long, long)}. */
    public Session.Copy copy(Session.FpgaBuffer src, long srcOffset, Session.GpuBuffer dst, long dstOffset, long bytes) {
        return plan(false, dst, dstOffset, src, srcOffset, bytes);
    }

    private Session.Copy plan(boolean toFpga, Session.GpuBuffer g, long gOff, Session.FpgaBuffer f, long fOff, long bytes) {
        s.checkOpen();
        Choice c = choose(toFpga ? MasterTable.Direction.GPU_TO_FPGA : MasterTable.Direction.FPGA_TO_GPU, f, fOff, bytes);
        if (c.master() == Master.GPU_MASTER) {
            return ApertureCopy.plan(s, toFpga, g, gOff, f, fOff, bytes, this::engine);
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(c.reason() + "; an FPGA-master copy moves at most " + Integer.MAX_VALUE
                    + " bytes: split it");
        }
        return PlannedCopy.byBus(s, toFpga, g, gOff, f, fOff, (int) bytes);
    }

    /** Closes the aperture's engine (unregisters, unmaps and closes the aperture); later calls do nothing. */
    void close() {
        ApertureEngine e = engine;
        engine = null;
        refusal = new IllegalStateException("the session on " + s.overlay() + " is closed");
        if (e != null) {
            e.close();
        }
    }
}
