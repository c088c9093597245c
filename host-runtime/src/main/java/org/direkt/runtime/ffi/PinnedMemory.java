// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;

/**
 * Page-locked host memory from {@link Cuda#allocatePinned(long)}; closing it frees the memory
 * ({@code cuMemFreeHost}) once. The GPU's copy engines read and write it directly, so a copy
 * between it and device memory needs no staging through the driver's own buffers.
 */
public final class PinnedMemory implements AutoCloseable {
    private final Cuda cuda;
    private final MemorySegment segment;
    private boolean freed;

    PinnedMemory(Cuda cuda, MemorySegment segment) {
        this.cuda = cuda;
        this.segment = segment;
    }

    /** The memory (a native segment of {@link #size()} bytes); not to be used after {@link #close()}. */
    public MemorySegment segment() {
        return segment;
    }

    public long size() {
        return segment.byteSize();
    }

    /** Frees the memory; later calls do nothing. */
    @Override
    public synchronized void close() {
        if (!freed) {
            freed = true;
            cuda.memFreeHost(segment);
        }
    }

    @Override
    public String toString() {
        return "PinnedMemory[" + Cuda.hex(segment.address()) + ", " + segment.byteSize() + " bytes]";
    }
}
