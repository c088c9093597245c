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

/**
 * The few C library functions the runtime needs: closing the dma-buf file descriptors CUDA exports,
 * mapping memory (an aperture's file, or anonymous pages), and pinning a thread to a CPU
 * (benchmarks that compare two programs run both on one CPU).
 */
public final class Libc {
    /** {@code mmap(2)}'s protections and flags (Linux x86-64 and AArch64 share them). */
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_PRIVATE = 2;
    public static final int MAP_ANONYMOUS = 0x20;
    private static final int SC_PAGESIZE = 30;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle CLOSE = NativeSupport.libcDowncall("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private static final MethodHandle SCHED_SETAFFINITY = NativeSupport.libcDowncall("sched_setaffinity",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle SCHED_GETCPU = NativeSupport.libcDowncall("sched_getcpu",
            FunctionDescriptor.of(ValueLayout.JAVA_INT));
    private static final MethodHandle MMAP = NativeSupport.libcDowncall("mmap",
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, NativeSupport.SIZE_T, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle MUNMAP = NativeSupport.libcDowncall("munmap",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, NativeSupport.SIZE_T),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle SYSCONF = NativeSupport.libcDowncall("sysconf",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    /** Bytes of the CPU mask passed to sched_setaffinity: glibc's cpu_set_t, 1024 CPUs. */
    private static final int CPU_MASK_BYTES = 128;

    private Libc() {}

    /** A C library call that failed, with its {@code errno}. */
    public static final class ErrnoException extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        ErrnoException(String call, int errno) {
            super(call + " failed: " + CsrDevice.errnoName(errno));
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    /** The kernel's page size ({@code sysconf(_SC_PAGESIZE)}). */
    public static long pageSize() {
        try {
            return (long) SYSCONF.invokeExact(SC_PAGESIZE);
        } catch (Throwable t) {
            throw NativeSupport.rethrow("sysconf", t);
        }
    }

    /**
     * {@code mmap(NULL, length, prot, flags, fd, offset)}: the new mapping as a native segment of
     * {@code length} bytes, valid until {@link #munmap} (nothing frees it on its own).
     *
     * @throws ErrnoException with the errno the kernel answered
     */
    @SuppressWarnings("restricted")  // the kernel's mapping, sized by the length it was asked for
    public static MemorySegment mmap(long length, int prot, int flags, int fd, long offset) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            MemorySegment p;
            try {
                p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, prot, flags, fd, offset);
            } catch (Throwable t) {
                throw NativeSupport.rethrow("mmap", t);
            }
            if (p.address() == -1L) {  // MAP_FAILED
                throw new ErrnoException("mmap(" + length + " bytes, prot " + prot + ", flags 0x" + Integer.toHexString(flags)
                        + ", fd " + fd + ", offset " + offset + ")", (int) ERRNO.get(state, 0L));
            }
            return p.reinterpret(length);
        }
    }

    /**
     * {@code munmap(2)} of a whole mapping {@link #mmap} returned.
     *
     * @throws ErrnoException with the errno the kernel answered
     */
    public static void munmap(MemorySegment mapping) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int rc;
            try {
                rc = (int) MUNMAP.invokeExact(state, mapping, mapping.byteSize());
            } catch (Throwable t) {
                throw NativeSupport.rethrow("munmap", t);
            }
            if (rc != 0) {
                throw new ErrnoException("munmap(0x" + Long.toHexString(mapping.address()) + ", " + mapping.byteSize() + " bytes)",
                        (int) ERRNO.get(state, 0L));
            }
        }
    }

    /**
     * Pins the calling thread to one CPU ({@code sched_setaffinity(2)} on thread 0, the caller);
     * threads it starts afterwards inherit the pin.
     *
     * @throws IllegalArgumentException when {@code cpu} is outside 0..1023
     * @throws IllegalStateException when the kernel refuses (22 = EINVAL: the CPU is not online or
     *     not in this process's cpuset)
     */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= CPU_MASK_BYTES * 8) {
            throw new IllegalArgumentException("CPU " + cpu + " is outside 0.." + (CPU_MASK_BYTES * 8 - 1));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            MemorySegment mask = arena.allocate(CPU_MASK_BYTES, 8);
            mask.set(ValueLayout.JAVA_LONG, 8L * (cpu / 64), 1L << (cpu % 64));
            int rc;
            try {
                rc = (int) SCHED_SETAFFINITY.invokeExact(state, 0, (long) CPU_MASK_BYTES, mask);
            } catch (Throwable t) {
                throw NativeSupport.rethrow("sched_setaffinity", t);
            }
            if (rc != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalStateException("sched_setaffinity(CPU " + cpu + ") failed: errno " + errno
                        + (errno == 22 ? " (EINVAL: CPU " + cpu + " is not online or not allowed to this process)" : ""));
            }
        }
    }

    /** The CPU the calling thread runs on now ({@code sched_getcpu(3)}). */
    public static int currentCpu() {
        try {
            return (int) SCHED_GETCPU.invokeExact();
        } catch (Throwable t) {
            throw NativeSupport.rethrow("sched_getcpu", t);
        }
    }

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
