// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.lang.foreign.MemorySegment;

import org.direkt.runtime.pcie.Bytes;

/**
 * What a session's GPU buffers of either path share: their GPU memory of whole 64 KB pages, its
 * reads and writes from the host, and their closing, once, after which the session forgets them.
 */
abstract sealed class BufferMemory permits DirectBuffer, BouncedBuffer {
    final SessionState session;
    final GpuMemory.Allocation memory;
    final long length;
    private final String pathReason;
    private boolean closed;

    BufferMemory(SessionState session, GpuMemory.Allocation memory, long length, String pathReason) {
        this.session = session;
        this.memory = memory;
        this.length = length;
        this.pathReason = pathReason;
    }

    /**
     * {@code bytes} of GPU memory (rounded up to 64 KB pages, zeroed), mapped for the FPGA on the
     * session's path: on the direct path exported and imported, unless the driver or the exporter
     * refuses this buffer; on the bounce path with a pinned host buffer of its size.
     */
    static Session.GpuBuffer allocate(SessionState s, long bytes) {
        s.checkOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException("GPU allocation of " + bytes + " bytes: must be positive");
        }
        long length = Math.ceilDiv(bytes, Session.PAGE) * Session.PAGE;
        GpuMemory.Allocation memory = s.gpu.allocate(length);
        BufferMemory g;
        try {
            g = s.path == DataPath.DIRECT ? DirectBuffer.exportOrBounce(s, memory, length)
                    : BouncedBuffer.of(s, memory, length, s.pathReason);
        } catch (RuntimeException e) {
            memory.free();
            throw e;
        }
        s.hold(g);
        try {
            return g.attach();
        } catch (RuntimeException e) {
            g.close();
            throw e;
        }
    }

    public long length() {
        return length;
    }

    public abstract DataPath path();

    public String pathReason() {
        return pathReason;
    }

    public void write(long offset, byte[] data) {
        check(offset, data.length);
        memory.write(offset, MemorySegment.ofArray(data), data.length);
    }

    public byte[] read(long offset, int bytes) {
        check(offset, bytes);
        byte[] out = new byte[bytes];
        memory.read(MemorySegment.ofArray(out), offset, bytes);
        return out;
    }

    /** Throws unless the buffer is open and [offset, offset + bytes) lies inside it. */
    final void check(long offset, long bytes) {
        if (closed) {
            throw new IllegalStateException("this " + length + "-byte GPU buffer is closed");
        }
        if (offset < 0 || bytes < 0 || offset + bytes > length) {
            throw new IllegalArgumentException("[" + offset + ", +" + bytes + ") is outside this " + length + "-byte GPU buffer");
        }
    }

    final boolean isClosed() {
        return closed;
    }

    /** Maps the buffer for the FPGA, once the session holds it; returns it as the API's type. */
    abstract Session.GpuBuffer attach();

    /** Gives back what the buffer holds (mappings, exports, memory). */
    abstract void release();

    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        session.forget(this);
        release();
    }

    @Override
    public String toString() {
        return "GpuBuffer[" + Bytes.human(length) + ", " + path() + "]";
    }
}
