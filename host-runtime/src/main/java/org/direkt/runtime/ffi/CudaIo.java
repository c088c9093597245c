// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.direkt.runtime.ffi.NativeSupport.SIZE_T;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The CUDA driver calls that let the GPU's copy engine reach memory outside the GPU, beside
 * {@link Cuda}: host ranges registered for the GPU ({@code cuMemHostRegister_v2}, with
 * {@link #CU_MEMHOSTREGISTER_IOMEMORY} a peer device's BAR), their device addresses
 * ({@code cuMemHostGetDevicePointer_v2}), streams, and copies queued on a stream
 * ({@code cuMemcpyHtoDAsync_v2}, {@code cuMemcpyDtoHAsync_v2}, {@code cuMemcpyDtoDAsync_v2}).
 * Bound once per JVM from the library {@link Cuda#load()} opened; each call needs a current
 * context on its thread, and throws {@link CudaException} when it does not return
 * {@code CUDA_SUCCESS} (the registration: {@link IoMemoryRefusedException}, naming why).
 */
public final class CudaIo {
    /** cuMemHostRegister flags. */
    public static final int CU_MEMHOSTREGISTER_PORTABLE = 0x1;
    public static final int CU_MEMHOSTREGISTER_DEVICEMAP = 0x2;
    public static final int CU_MEMHOSTREGISTER_IOMEMORY = 0x4;
    /** cuStreamCreate flag CU_STREAM_NON_BLOCKING: no implicit synchronisation with the NULL stream. */
    public static final int CU_STREAM_NON_BLOCKING = 0x1;

    private static volatile CudaIo instance;

    private final Cuda cuda;
    private final MethodHandle cuMemHostRegister;
    private final MethodHandle cuMemHostGetDevicePointer;
    private final MethodHandle cuMemHostUnregister;
    private final MethodHandle cuStreamCreate;
    private final MethodHandle cuStreamDestroy;
    private final MethodHandle cuStreamSynchronize;
    private final MethodHandle cuMemcpyHtoDAsync;
    private final MethodHandle cuMemcpyDtoHAsync;
    private final MethodHandle cuMemcpyDtoDAsync;

    private CudaIo(Cuda cuda) {
        this.cuda = cuda;
        SymbolLookup lib = cuda.library();
        cuMemHostRegister = bind(lib, "cuMemHostRegister_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T, JAVA_INT));
        cuMemHostGetDevicePointer = bind(lib, "cuMemHostGetDevicePointer_v2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        cuMemHostUnregister = bind(lib, "cuMemHostUnregister", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuStreamCreate = bind(lib, "cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuStreamDestroy = bind(lib, "cuStreamDestroy_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuStreamSynchronize = bind(lib, "cuStreamSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuMemcpyHtoDAsync = bind(lib, "cuMemcpyHtoDAsync_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, SIZE_T, ADDRESS));
        cuMemcpyDtoHAsync = bind(lib, "cuMemcpyDtoHAsync_v2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, SIZE_T, ADDRESS));
        cuMemcpyDtoDAsync = bind(lib, "cuMemcpyDtoDAsync_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, SIZE_T, ADDRESS));
    }

    private static MethodHandle bind(SymbolLookup lib, String symbol, FunctionDescriptor fd) {
        return NativeSupport.downcall(lib, Cuda.LIBRARY, symbol, fd);
    }

    /**
     * The calls, bound from the driver {@link Cuda#load()} opens (once per JVM).
     *
     * @throws NativeLibraryException no driver library, or one without these calls
     */
    public static CudaIo load() {
        CudaIo c = instance;
        if (c == null) {
            synchronized (CudaIo.class) {
                c = instance;
                if (c == null) {
                    c = new CudaIo(Cuda.load());
                    instance = c;
                }
            }
        }
        return c;
    }

    /** A stream of the current context ({@link #createStream}); closing destroys it once. */
    public static final class Stream implements AutoCloseable {
        private final CudaIo io;
        private final MemorySegment handle;
        private boolean destroyed;

        private Stream(CudaIo io, MemorySegment handle) {
            this.io = io;
            this.handle = handle;
        }

        /** The CUstream. */
        public MemorySegment handle() {
            return handle;
        }

        /** {@code cuStreamSynchronize}: waits until every copy queued on it has finished. */
        public void synchronize() {
            io.cuda.check("cuStreamSynchronize(" + Cuda.hex(handle.address()) + ")",
                    call(() -> (int) io.cuStreamSynchronize.invokeExact(handle)));
        }

        /** {@code cuStreamDestroy_v2}; later calls do nothing. */
        @Override
        public synchronized void close() {
            if (!destroyed) {
                destroyed = true;
                io.cuda.check("cuStreamDestroy_v2(" + Cuda.hex(handle.address()) + ")",
                        call(() -> (int) io.cuStreamDestroy.invokeExact(handle)));
            }
        }
    }

    /**
     * A host range registered for the GPU ({@link #registerIoMemory}): its host segment and the
     * address the GPU's kernels and copies name it by. Closing unregisters it once.
     */
    public static final class Registered implements AutoCloseable {
        private final CudaIo io;
        private final MemorySegment host;
        private final long device;
        private boolean unregistered;

        private Registered(CudaIo io, MemorySegment host, long device) {
            this.io = io;
            this.host = host;
            this.device = device;
        }

        public MemorySegment host() {
            return host;
        }

        /** The CUdeviceptr of the range's first byte ({@code cuMemHostGetDevicePointer_v2}). */
        public long devicePointer() {
            return device;
        }

        /** {@code cuMemHostUnregister}; later calls do nothing. */
        @Override
        public synchronized void close() {
            if (!unregistered) {
                unregistered = true;
                io.memHostUnregister(host);
            }
        }
    }

    /**
     * {@code cuMemHostRegister_v2(range, size, flags)}.
     *
     * @throws CudaException the driver refused (see {@link IoMemoryRefusedException#of} for what the codes mean with I/O memory)
     */
    public void memHostRegister(MemorySegment range, int flags) {
        long bytes = range.byteSize();
        cuda.check("cuMemHostRegister_v2(" + Cuda.hex(range.address()) + ", " + bytes + " bytes, flags 0x"
                + Integer.toHexString(flags) + ")", call(() -> (int) cuMemHostRegister.invokeExact(range, bytes, flags)));
    }

    /** {@code cuMemHostUnregister}: ends a registration of the range that starts at {@code range}. */
    public void memHostUnregister(MemorySegment range) {
        cuda.check("cuMemHostUnregister(" + Cuda.hex(range.address()) + ")",
                call(() -> (int) cuMemHostUnregister.invokeExact(range)));
    }

    /** {@code cuMemHostGetDevicePointer_v2}: the device address of registered or page-locked host memory. */
    public long memHostGetDevicePointer(MemorySegment host) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            cuda.check("cuMemHostGetDevicePointer_v2(" + Cuda.hex(host.address()) + ")",
                    call(() -> (int) cuMemHostGetDevicePointer.invokeExact(out, host, 0)));
            return out.get(JAVA_LONG, 0);
        }
    }

    /**
     * Registers {@code range} (one mapping of a peer device's BAR) as I/O memory the GPU maps
     * ({@link #CU_MEMHOSTREGISTER_IOMEMORY} | {@link #CU_MEMHOSTREGISTER_DEVICEMAP}) and gets its
     * device address.
     *
     * @throws IoMemoryRefusedException the driver refused, with what the refusal means and what to do
     */
    public Registered registerIoMemory(MemorySegment range) {
        try {
            memHostRegister(range, CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_DEVICEMAP);
        } catch (CudaException e) {
            throw IoMemoryRefusedException.of(e, range.address(), range.byteSize(), Libc.pageSize());
        }
        try {
            return new Registered(this, range, memHostGetDevicePointer(range));
        } catch (RuntimeException e) {
            memHostUnregister(range);
            throw e;
        }
    }

    /** {@code cuStreamCreate(CU_STREAM_NON_BLOCKING)}: a stream of the current context. */
    public Stream createStream() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            cuda.check("cuStreamCreate", call(() -> (int) cuStreamCreate.invokeExact(out, CU_STREAM_NON_BLOCKING)));
            return new Stream(this, out.get(ADDRESS, 0));
        }
    }

    /**
     * {@code cuMemcpyHtoDAsync_v2}: queues a copy of all of {@code source} (native: page-locked or
     * registered host memory, for the copy engine to read it directly) to {@code devicePointer}.
     */
    public void memcpyHtoDAsync(long devicePointer, MemorySegment source, Stream stream) {
        requireNative("cuMemcpyHtoDAsync_v2", source);
        long bytes = source.byteSize();
        MemorySegment s = stream.handle;
        cuda.check("cuMemcpyHtoDAsync_v2(" + Cuda.hex(devicePointer) + ", " + Cuda.hex(source.address()) + ", " + bytes
                + " bytes)", call(() -> (int) cuMemcpyHtoDAsync.invokeExact(devicePointer, source, bytes, s)));
    }

    /** {@code cuMemcpyDtoHAsync_v2}: queues a copy from {@code devicePointer} into all of {@code target} (native). */
    public void memcpyDtoHAsync(MemorySegment target, long devicePointer, Stream stream) {
        requireNative("cuMemcpyDtoHAsync_v2", target);
        long bytes = target.byteSize();
        MemorySegment s = stream.handle;
        cuda.check("cuMemcpyDtoHAsync_v2(" + Cuda.hex(target.address()) + ", " + Cuda.hex(devicePointer) + ", " + bytes
                + " bytes)", call(() -> (int) cuMemcpyDtoHAsync.invokeExact(target, devicePointer, bytes, s)));
    }

    /** {@code cuMemcpyDtoDAsync_v2}: queues a copy of {@code bytes} between two device addresses. */
    public void memcpyDtoDAsync(long target, long source, long bytes, Stream stream) {
        MemorySegment s = stream.handle;
        cuda.check("cuMemcpyDtoDAsync_v2(" + Cuda.hex(target) + ", " + Cuda.hex(source) + ", " + bytes + " bytes)",
                call(() -> (int) cuMemcpyDtoDAsync.invokeExact(target, source, bytes, s)));
    }

    private static void requireNative(String call, MemorySegment host) {
        if (!host.isNative()) {
            throw new IllegalArgumentException(call + ": the host memory must be native (page-locked or registered), not a"
                    + " Java array");
        }
    }

    @FunctionalInterface
    private interface Downcall {
        int run() throws Throwable;
    }

    private static int call(Downcall downcall) {
        try {
            return downcall.run();
        } catch (Throwable t) {
            throw NativeSupport.rethrow("CUDA downcall", t);
        }
    }
}
