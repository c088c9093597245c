// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.WindowBlock;

/**
 * What a {@link Session}'s parts share: the overlay's manifest, the importer, the FPGA device, the
 * GPU memory, the window or region tables the bridge has, the session's path and why, the buffers
 * still open, the next descriptor tag, and whether the session is closed.
 */
final class SessionState {
    final OverlayManifest manifest;
    final BusAddressImporter importer;
    final FpgaDevice fpga;
    final GpuMemory gpu;
    /** The window table (raw addressing); null with regions addressing, which has none. */
    private final Windows windows;
    /** The page and region tables (regions addressing); null with raw addressing. */
    final Regions regions;
    final DataPath path;
    final String pathReason;
    private final List<BufferMemory> buffers = new ArrayList<>();
    /** The session's copies by either master; made on first use. */
    private MasterCopies masters;
    private long nextTag = 1;
    private boolean closed;

    /**
     * The session's path: bounce when the importer is unavailable or the GPU's memory cannot be
     * exported as a dma-buf (the first reason is the session's), else direct.
     */
    SessionState(OverlayManifest manifest, BusAddressImporter importer, FpgaDevice fpga, GpuMemory gpu) {
        this.manifest = manifest;
        this.importer = importer;
        this.fpga = fpga;
        this.gpu = gpu;
        this.windows = manifest.windows().map(t -> new Windows(t, fpga)).orElse(null);
        this.regions = manifest.bridge().regionsAddressing() ? new Regions(manifest.bridge(), fpga, Session.REGION_BUSY_LIMIT)
                : null;
        Optional<String> why = importer.unavailableReason().or(gpu::exportRefusal);
        this.path = why.isPresent() ? DataPath.BOUNCE : DataPath.DIRECT;
        this.pathReason = why.orElse("peer-to-peer is possible: " + gpu.name() + " exports its memory as dma-bufs and the"
                + " importer (" + importer.getClass().getSimpleName() + ") maps them for the FPGA");
    }

    /**
     * Reads the overlay's manifest (a bridge with managed IDs and tagged status), takes the GPU
     * memory chosen and opens the device; on failure closes what it opened.
     */
    static SessionState open(Path overlayDir, BusAddressImporter importer, Session.Gpu gpuChoice,
            Function<OverlayManifest, ? extends FpgaDevice> device) throws IOException {
        Objects.requireNonNull(importer, "importer: pass BusAddressImporter.none(reason) where there is none");
        Objects.requireNonNull(gpuChoice, "gpu: one of " + Arrays.toString(Session.Gpu.values()));
        OverlayManifest m = OverlayManifest.read(overlayDir);
        if (m.bridge().idMode() != BridgeModes.IdMode.MANAGED || m.bridge().statusMode() != BridgeModes.StatusMode.TAGGED) {
            throw new IllegalArgumentException(m.file() + ": this runtime drives bridges with managed IDs and tagged status (the"
                    + " default and regions presets)");
        }
        GpuMemory gpu = GpuMemory.of(gpuChoice);
        FpgaDevice d = null;
        try {
            d = device.apply(m);
            return new SessionState(m, importer, d, gpu);
        } catch (RuntimeException e) {
            try {
                if (d != null) {
                    d.close();
                }
            } finally {
                gpu.close();
            }
            throw e;
        }
    }

    Path overlay() {
        return manifest.file().getParent();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the session on " + overlay() + " is closed");
        }
    }

    /** The next descriptor tag: 1 .. 2^32 - 1, then round again (a status carries 32 bits of it). */
    long nextTag() {
        long t = nextTag;
        nextTag = t == 0xFFFF_FFFFL ? 1 : t + 1;
        return t;
    }

    /** {@code g} as this session's buffer. */
    BufferMemory owned(Session.GpuBuffer g) {
        BufferMemory m = (BufferMemory) g;
        if (m.session != this) {
            throw new IllegalArgumentException(g + " belongs to another session");
        }
        return m;
    }

    /** A buffer allocated: the session closes it unless it is closed first. */
    void hold(BufferMemory g) {
        buffers.add(g);
    }

    /** A buffer closed: the session no longer closes it. */
    void forget(BufferMemory g) {
        buffers.remove(g);
    }

    /** The window table, to open {@code [base, last]} in. */
    Windows windows(long base, long last) {
        if (windows == null) {
            throw new IllegalStateException("cannot open window [" + Bytes.hex(base) + ", " + Bytes.hex(last) + "]: the bridge of "
                    + overlay() + " has regions addressing (addressing=regions), so it has no windows and kernels name regions, "
                    + "not bus addresses; open a region over a GPU buffer instead (openRegion)");
        }
        return windows;
    }

    /** The windows opened so far. */
    List<WindowBlock> openWindows() {
        return windows == null ? List.of() : windows.opened();
    }

    /** The region tables, to open a region over {@code g} in. */
    Regions regions(Session.GpuBuffer g) {
        if (regions == null) {
            throw new IllegalStateException("cannot open a region over " + g + ": the bridge of " + overlay() + " has raw addressing "
                    + "(kernels name bus addresses inside windows: openWindow) and no region table; regions need an overlay made "
                    + "with `direkt overlay --preset regions` (addressing=regions)");
        }
        return regions;
    }

    /** The session's copies by either master. */
    MasterCopies masters() {
        if (masters == null) {
            masters = new MasterCopies(this);
        }
        return masters;
    }

    /**
     * Closes the aperture (GPU-master copies), frees every buffer still open, closes the FPGA device
     * and releases the GPU; later calls do nothing.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (masters != null) {
                masters.close();
            }
        } finally {
            closeBuffersDeviceAndGpu();
        }
    }

    private void closeBuffersDeviceAndGpu() {
        try {
            for (BufferMemory g : new ArrayList<>(buffers)) {
                g.close();
            }
        } finally {
            try {
                fpga.close();
            } finally {
                gpu.close();
            }
        }
    }
}
