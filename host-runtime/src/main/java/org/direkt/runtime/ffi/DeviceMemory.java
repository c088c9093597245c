// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;

/**
 * One allocation of device memory ({@link Cuda#allocate(long)}); closing it frees the memory
 * ({@code cuMemFree_v2}) once. The context it was allocated in must be current when it is used
 * and closed.
 */
public final class DeviceMemory implements AutoCloseable {
    private final Cuda cuda;
    private final long pointer;
    private final long size;
    private boolean freed;

    DeviceMemory(Cuda cuda, long pointer, long size) {
        this.cuda = cuda;
        this.pointer = pointer;
        this.size = size;
    }

    /** The device address (CUdeviceptr). */
    public long pointer() {
        return pointer;
    }

    /** The size in bytes. */
    public long size() {
        return size;
    }

    /** Copies {@code bytes} from host memory to the start of this allocation. */
    public void write(MemorySegment source, long bytes) {
        checkSize(bytes);
        cuda.memcpyHtoD(pointer, source, bytes);
    }

    /** Copies {@code bytes} from the start of this allocation into host memory. */
    public void read(MemorySegment target, long bytes) {
        checkSize(bytes);
        cuda.memcpyDtoH(target, pointer, bytes);
    }

    /** Exports the whole allocation as a dma-buf fd (see {@link Cuda#exportDmaBuf}); the caller closes it. */
    public int exportDmaBuf(long flags) {
        return cuda.exportDmaBuf(pointer, size, flags);
    }

    private void checkSize(long bytes) {
        if (bytes < 0 || bytes > size) {
            throw new IllegalArgumentException(bytes + " bytes do not fit the allocation of " + size + " bytes");
        }
    }

    /** Frees the memory; later calls do nothing. */
    @Override
    public synchronized void close() {
        if (!freed) {
            freed = true;
            cuda.memFree(pointer);
        }
    }

    @Override
    public String toString() {
        return "DeviceMemory[" + Cuda.hex(pointer) + ", " + size + " bytes]";
    }
}
