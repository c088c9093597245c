// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;

/** A device buffer ({@link ClContext#buffer}); closing it releases it. */
public final class ClBuffer implements AutoCloseable {
    private final ClContext owner;
    private final MemorySegment handle;
    private final long size;
    private boolean closed;

    ClBuffer(ClContext owner, MemorySegment handle, long size) {
        this.owner = owner;
        this.handle = handle;
        this.size = size;
    }

    /** The {@code cl_mem}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The size in bytes. */
    public long size() {
        return size;
    }

    /** Blocking write of the whole array to the start of the buffer. */
    public void write(byte[] data) {
        owner.write(this, data);
    }

    /** Blocking read of the buffer's first {@code data.length} bytes. */
    public void read(byte[] data) {
        owner.read(this, data);
    }

    /** Releases the buffer (once). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            owner.openCl().releaseMemObject(handle);
        }
    }
}
