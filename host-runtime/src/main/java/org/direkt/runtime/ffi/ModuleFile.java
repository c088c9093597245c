// SPDX-License-Identifier: Apache-2.0
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
import java.nio.file.Path;

/**
 * One open file of direkt's kernel module node, through FFM: {@code open(2)} read-write and
 * close-on-exec, the variadic {@code ioctl(2)} with {@code errno} captured (a call the kernel
 * interrupts, {@code EINTR}, is made again), {@code close(2)}. What each request means is the
 * business of {@link ImporterDevice} and {@link CsrDevice}, which share this.
 */
final class ModuleFile implements AutoCloseable {
    static final int EINTR = 4;
    /** The module's ioctl type ({@code DIREKT_IOC_MAGIC}). */
    private static final int IOC_MAGIC = 0xD7;
    static final int WRITE = 1;
    static final int READ = 2;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;

    private static final MethodHandle OPEN = NativeSupport.libcDowncall("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, NativeSupport.POINTER, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    private static final MethodHandle IOCTL = NativeSupport.libcDowncall("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, NativeSupport.POINTER),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));

    /** A request number as the kernel's _IOR/_IOW/_IOWR encode it: direction, argument size, type, number. */
    static long ioc(int dir, int nr, MemoryLayout arg) {
        return ((long) dir << 30) | (arg.byteSize() << 16) | ((long) IOC_MAGIC << 8) | nr;
    }

    /** Each struct's size and each field's offset, by its C expression, for the tests that compare them with the C header. */
    static void putStructs(java.util.Map<String, Long> m, java.util.Map<String, StructLayout> structs) {
        structs.forEach((name, l) -> {
            m.put("sizeof(struct " + name + ")", l.byteSize());
            for (MemoryLayout f : l.memberLayouts()) {
                String field = f.name().orElseThrow();
                m.put("offsetof(struct " + name + ", " + field + ")", l.byteOffset(MemoryLayout.PathElement.groupElement(field)));
            }
        });
    }

    private final Path path;
    private final int fd;
    private volatile boolean closed;

    private ModuleFile(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** Opens {@code path}; a failure is the errno of {@code open(2)} in an {@link ImporterDevice.ImporterException}. */
    static ModuleFile open(Path path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            MemorySegment name = arena.allocateFrom(path.toString());
            while (true) {
                int rc;
                try {
                    rc = (int) OPEN.invokeExact(state, name, O_RDWR | O_CLOEXEC, 0);
                } catch (Throwable t) {
                    throw NativeSupport.rethrow("open", t);
                }
                if (rc >= 0) {
                    return new ModuleFile(path, rc);
                }
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != EINTR) {
                    throw new ImporterDevice.ImporterException("open(" + path + ")", errno);
                }
            }
        }
    }

    Path path() {
        return path;
    }

    /** The request on this file: 0, or its errno. */
    int ioctl(long request, MemorySegment arg, Arena arena) {
        if (closed) {
            throw new IllegalStateException(path + " is closed");
        }
        MemorySegment state = arena.allocate(CAPTURE);
        while (true) {
            int rc;
            try {
                rc = (int) IOCTL.invokeExact(state, fd, request, arg);
            } catch (Throwable t) {
                throw NativeSupport.rethrow("ioctl", t);
            }
            int errno = rc == 0 ? 0 : (int) ERRNO.get(state, 0L);
            if (errno != EINTR) {
                return errno;
            }
        }
    }

    /** The request, or an {@link ImporterDevice.ImporterException} naming {@code what} with its errno. */
    void ioctlOrThrow(String what, long request, MemorySegment arg, Arena arena) {
        int errno = ioctl(request, arg, arena);
        if (errno != 0) {
            throw new ImporterDevice.ImporterException(what, errno);
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Libc.close(fd);
        }
    }
}
