// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;

/**
 * One OpenCL kernel ({@link ClProgram#kernel}); closing it releases it. Argument setters return
 * {@code this} for chaining. Like {@code clSetKernelArg} itself, a kernel must not have its
 * arguments set from two threads at once.
 */
public final class ClKernel implements AutoCloseable {
    private final OpenCl cl;
    private final MemorySegment handle;
    private final String name;
    private boolean closed;

    ClKernel(OpenCl cl, MemorySegment handle, String name) {
        this.cl = cl;
        this.handle = handle;
        this.name = name;
    }

    /** The {@code cl_kernel}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The kernel's name. */
    public String name() {
        return name;
    }

    /** Sets a {@code ulong} (or {@code long}) argument. */
    public ClKernel argULong(int index, long value) {
        cl.setKernelArgLong(handle, index, value);
        return this;
    }

    /** Sets a {@code uint} argument; {@code value} must lie in 0 .. 2^32-1. */
    public ClKernel argUInt(int index, long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("uint argument " + index + " of " + name + " out of range: " + value);
        }
        cl.setKernelArgInt(handle, index, (int) value);
        return this;
    }

    /** Sets an {@code int} argument. */
    public ClKernel argInt(int index, int value) {
        cl.setKernelArgInt(handle, index, value);
        return this;
    }

    /** Sets a {@code __global} pointer argument to a buffer. */
    public ClKernel argBuffer(int index, ClBuffer buffer) {
        cl.setKernelArgMem(handle, index, buffer.handle());
        return this;
    }

    /** Releases the kernel (once). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            cl.releaseKernel(handle);
        }
    }
}
