// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * One piece of a transfer that a data mover accepts as a single descriptor: {@code bytes} bytes at
 * the PCIe bus address {@code busAddress}, which is {@code gpuOffset} bytes into the mapped GPU
 * range. Produced by {@link AddressTable#split}; always dword-aligned, {@code 0 < bytes <=}
 * {@link AddressTable#MAX_TRANSFER_BYTES}, and inside one bus-contiguous segment.
 */
public record Transfer(long busAddress, long gpuOffset, int bytes) {
    /** The length as the mover's descriptor carries it. */
    public int dwords() {
        return bytes >>> 2;
    }
}
