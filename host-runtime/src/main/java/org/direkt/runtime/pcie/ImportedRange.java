// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * A part of a dma-buf that a {@link BusAddressImporter} has mapped for the FPGA: {@code length}
 * bytes starting {@code offset} bytes into the dma-buf, with the bus address of each of its 64 KB
 * pages as the FPGA must use it. It stays valid until it is released or the importer reports it
 * revoked.
 *
 * <p>Equality is identity: two imports of the same bytes are two mappings, each released on its own.
 */
public final class ImportedRange {
    private final long handle;
    private final int fd;
    private final long offset;
    private final long length;
    private final long[] pageBusAddresses;

    /**
     * @param handle the importer's name for this mapping (the driver's import handle)
     * @param pageBusAddresses one bus address per 64 KB page, in offset order (copied)
     * @throws IllegalArgumentException if offset or length are not whole 64 KB pages, or the number
     *     of addresses does not match the length
     */
    public ImportedRange(long handle, int fd, long offset, long length, long[] pageBusAddresses) {
        checkDmaBufRange(fd, offset, length);
        if (pageBusAddresses.length != length / AddressTable.PAGE_SIZE) {
            throw new IllegalArgumentException("dma-buf fd " + fd + " range of " + Bytes.size(length) + " has "
                    + length / AddressTable.PAGE_SIZE + " pages but " + pageBusAddresses.length + " bus addresses");
        }
        this.handle = handle;
        this.fd = fd;
        this.offset = offset;
        this.length = length;
        this.pageBusAddresses = pageBusAddresses.clone();
    }

    /**
     * The argument checks every importer makes before asking its driver: a valid fd and a range
     * of whole 64 KB pages.
     */
    public static void checkDmaBufRange(int fd, long offset, long length) {
        if (fd < 0) {
            throw new IllegalArgumentException("dma-buf fd " + fd + " is not a file descriptor (must be >= 0)");
        }
        if (offset < 0 || offset % AddressTable.PAGE_SIZE != 0) {
            throw new IllegalArgumentException("dma-buf fd " + fd + ": offset " + offset + " (" + Bytes.hex(offset)
                    + ") must be >= 0 and 64 KB aligned (GPU memory is mapped for a peer in 64 KB pages)");
        }
        if (length <= 0 || length % AddressTable.PAGE_SIZE != 0) {
            throw new IllegalArgumentException("dma-buf fd " + fd + ": length " + Bytes.size(length)
                    + " must be > 0 and a multiple of 64 KB (GPU memory is mapped for a peer in 64 KB pages)");
        }
        if (offset + length < 0) {
            throw new IllegalArgumentException("dma-buf fd " + fd + ": offset " + offset + " + length " + length
                    + " overflows a signed 64-bit offset");
        }
    }

    public long handle() {
        return handle;
    }

    /** The dma-buf's file descriptor as it was passed to the import (the caller still owns it). */
    public int fd() {
        return fd;
    }

    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    public int pageCount() {
        return pageBusAddresses.length;
    }

    public long pageBusAddress(int page) {
        return pageBusAddresses[page];
    }

    /** A copy of the per-page bus addresses. */
    public long[] pageBusAddresses() {
        return pageBusAddresses.clone();
    }

    /** The address table of this mapping, for the GPU virtual range starting at {@code gpuBase}. */
    public AddressTable addressTable(long gpuBase) {
        return AddressTable.of(gpuBase, length, pageBusAddresses);
    }

    @Override
    public String toString() {
        return "dma-buf fd " + fd + " [" + Bytes.hex(offset) + ", +" + Bytes.human(length) + ") import #" + handle;
    }
}
