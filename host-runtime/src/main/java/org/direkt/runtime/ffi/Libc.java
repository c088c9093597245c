package org.direkt.runtime.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** The few C library functions the runtime needs (closing the dma-buf file descriptors CUDA exports). */
public final class Libc {
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle CLOSE = NativeSupport.libcDowncall("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private Libc() {}

    /**
     * Closes a file descriptor ({@code close(2)}).
     *
     * @throws IllegalStateException when close fails, with its errno (9 = EBADF: not an open descriptor)
     */
    public static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int rc;
            try {
                rc = (int) CLOSE.invokeExact(state, fd);
            } catch (Throwable t) {
                throw NativeSupport.rethrow("close", t);
            }
            if (rc != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalStateException("close(" + fd + ") failed: errno " + errno
                        + (errno == 9 ? " (EBADF: not an open file descriptor)" : ""));
            }
        }
    }
}
