// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * Bus addresses for a dma-buf: maps part of a GPU memory dma-buf for the FPGA and returns the bus
 * address of each 64 KB page, as the FPGA's data movers must use it. The real implementation is
 * an ioctl of the FPGA driver, whose contract is written in {@code docs/importer-contract.md};
 * {@link SimulatedImporter} stands in for it in tests, and {@link #none()} is what a runtime
 * without a driver gets.
 *
 * <p>Implementations are thread-safe.
 */
public interface BusAddressImporter {
    /**
     * Maps {@code length} bytes starting {@code offset} bytes into the dma-buf {@code fd} for the
     * FPGA. The caller keeps ownership of {@code fd}: it may close it as soon as this returns.
     *
     * @throws IllegalArgumentException if offset or length are not whole 64 KB pages or fd is negative
     * @throws ApertureExhaustedException if the GPU's BAR aperture (BAR1) has no room for the range
     * @throws ImportRefusedException if the exporter refuses to map the memory for the FPGA (no peer-to-peer path)
     * @throws IllegalStateException if no importer is available ({@link #none()})
     */
    ImportedRange importDmaBuf(int fd, long offset, long length);

    /**
     * Unmaps a range this importer returned, revoked or not. Each range is released exactly once.
     *
     * @throws IllegalArgumentException if the range is not one of this importer's live imports
     *     (released already, or imported elsewhere)
     */
    void release(ImportedRange range);

    /** Registers a listener told of every revocation from now on. */
    void addRevocationListener(RevocationListener listener);

    void removeRevocationListener(RevocationListener listener);

    /**
     * Why this importer cannot import anything (no driver, no device node, ...), or empty when it
     * can. A runtime that gets a reason takes the host-memory path instead of peer-to-peer.
     */
    default java.util.Optional<String> unavailableReason() {
        return java.util.Optional.empty();
    }

    /** The importer of a runtime that has none: every import fails, saying what is missing. */
    static BusAddressImporter none() {
        return NoImporter.INSTANCE;
    }

    /** The importer of a runtime that has none, for the reason given (what is missing, what to do). */
    static BusAddressImporter none(String reason) {
        return new NoImporter(reason);
    }
}
