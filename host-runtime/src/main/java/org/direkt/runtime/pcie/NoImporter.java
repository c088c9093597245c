// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * The importer of a runtime without an FPGA driver that imports dma-bufs. Imports fail with a
 * message that says what is missing; listeners are accepted (nothing will ever be revoked).
 */
public final class NoImporter implements BusAddressImporter {
    /** The one instance; also {@link BusAddressImporter#none()}. */
    public static final NoImporter INSTANCE = new NoImporter("no bus-address importer is configured");

    private final String reason;

    NoImporter(String reason) {
        this.reason = reason;
    }

    @Override
    public java.util.Optional<String> unavailableReason() {
        return java.util.Optional.of(reason);
    }

    @Override
    public ImportedRange importDmaBuf(int fd, long offset, long length) {
        throw new IllegalStateException(reason + ": the FPGA driver must import the dma-buf (fd " + fd
                + ", " + Bytes.size(length) + " at offset " + Bytes.hex(offset) + ") and return the bus address of each "
                + "64 KB page (see docs/importer-contract.md); use SimulatedImporter for testing");
    }

    @Override
    public void release(ImportedRange range) {
        throw new IllegalArgumentException(reason + ", so " + range
                + " cannot have been imported by it");
    }

    @Override
    public void addRevocationListener(RevocationListener listener) {
    }

    @Override
    public void removeRevocationListener(RevocationListener listener) {
    }

    @Override
    public String toString() {
        return "NoImporter(" + reason + ")";
    }
}
