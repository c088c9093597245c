// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.DeviceMemory;
import org.direkt.runtime.ffi.GpuDevice;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.ffi.NativeLibraryException;
import org.direkt.runtime.ffi.PinnedMemory;
import org.direkt.runtime.pcie.AddressTable;

/**
 * Where a {@link Session}'s GPU memory lives: CUDA device memory of the first GPU, or host memory
 * standing in for it. It allocates GPU memory, pinned host memory for the bounce path, and says
 * whether GPU memory can be exported as a dma-buf (the first condition of peer-to-peer).
 */
abstract sealed class GpuMemory implements AutoCloseable permits GpuMemory.OnCuda, GpuMemory.StandIn {

    /** What the memory is, for people ("NVIDIA H100 80GB HBM3 (0000:1b:00.0), CUDA device memory"). */
    abstract String description();

    /** The GPU, as a sentence names it ("the GPU NVIDIA H100 80GB HBM3 (0000:1b:00.0)", "the simulated GPU"). */
    abstract String name();

    /** Why no GPU memory can be exported as a dma-buf, or empty when it can. */
    abstract Optional<String> exportRefusal();

    /** True for real CUDA device memory. */
    abstract boolean real();

    /** {@code length} bytes of GPU memory, zeroed; {@code length} is a multiple of 64 KB. */
    abstract Allocation allocate(long length);

    /** {@code length} bytes of pinned host memory (the bounce path's staging buffer). */
    abstract Pinned allocatePinned(long length);

    @Override
    public abstract void close();

    /** One allocation of GPU memory. */
    interface Allocation {
        /** The GPU address (a CUdeviceptr, or the stand-in's made-up address), 64 KB aligned. */
        long address();

        /** Host -> GPU: {@code bytes} from {@code source} to {@code offset} bytes into the allocation. */
        void write(long offset, MemorySegment source, long bytes);

        /** GPU -> host: {@code bytes} from {@code offset} bytes into the allocation into {@code target}. */
        void read(MemorySegment target, long offset, long bytes);

        /**
         * Exports the whole allocation as a dma-buf and returns its file descriptor.
         *
         * @throws CudaException the driver refuses to export it
         */
        int exportDmaBuf();

        /** Closes a file descriptor {@link #exportDmaBuf} returned. */
        void closeExport(int fd);

        void free();
    }

    /** Pinned host memory; {@link #segment()} is valid until {@link #free()}. */
    interface Pinned {
        MemorySegment segment();

        void free();
    }

    /**
     * The first CUDA device when there is one. Without one, host memory that cannot be exported
     * stands in, and the reason says what is missing.
     *
     * @throws NativeLibraryException libcuda.so.1 is there but the JVM may not call native code
     */
    static GpuMemory firstGpuOrNone() {
        Cuda cuda;
        try {
            cuda = Cuda.load();
        } catch (NativeLibraryException e) {
            if (e.getCause() instanceof IllegalCallerException) {
                throw e;
            }
            return StandIn.none("no GPU: " + Cuda.LIBRARY + " cannot be loaded (no NVIDIA driver on this machine), so there"
                    + " is no GPU memory to export for peer-to-peer; host memory stands in for GPU memory");
        }
        int count;
        try {
            cuda.init();
            count = cuda.deviceCount();
        } catch (CudaException e) {
            return StandIn.none("no GPU: the CUDA driver is installed but " + e.getMessage()
                    + "; host memory stands in for GPU memory");
        }
        if (count == 0) {
            return StandIn.none("no GPU: the CUDA driver reports no device; host memory stands in for GPU memory");
        }
        return new OnCuda(cuda, 0);
    }

    /** The GPU memory a session opened with {@code choice} uses. */
    static GpuMemory of(Session.Gpu choice) {
        return switch (choice) {
            case AUTO -> firstGpuOrNone();
            case SIMULATED -> StandIn.simulated();
            case NONE -> StandIn.none("no GPU (the session was opened with Gpu.NONE), so there is no GPU memory to export for"
                    + " peer-to-peer; host memory stands in for GPU memory");
        };
    }

    /** Whether {@link #firstGpuOrNone()} would find a GPU (loads and initialises the driver when present). */
    static boolean gpuPresent() {
        try {
            Cuda cuda = Cuda.load();
            cuda.init();
            return cuda.deviceCount() > 0;
        } catch (NativeLibraryException | CudaException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------- CUDA

    static final class OnCuda extends GpuMemory {
        private final Cuda cuda;
        private final int device;
        private final GpuDevice info;
        private final Optional<String> refusal;
        private boolean released;

        OnCuda(Cuda cuda, int ordinal) {
            this.cuda = cuda;
            this.device = cuda.device(ordinal);
            cuda.setCurrentContext(cuda.primaryContextRetain(device));
            this.info = GpuDevice.query(cuda, ordinal);
            if (!cuda.hasDmaBufExport()) {
                refusal = Optional.of("the CUDA driver (" + Cuda.formatVersion(cuda.driverVersion()) + ") has no"
                        + " cuMemGetHandleForAddressRange (CUDA 11.7 or later), so GPU memory cannot be exported as a dma-buf");
            } else if (!info.dmaBufSupported()) {
                refusal = Optional.of("the GPU " + info.name() + " (" + info.pciBusId() + ") cannot export its memory as a"
                        + " dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0)");
            } else {
                refusal = Optional.empty();
            }
        }

        /** The driver, for calls beyond allocations (the aperture's registration). */
        Cuda cuda() {
            return cuda;
        }

        @Override
        String description() {
            return info.name() + " (" + info.pciBusId() + "), CUDA device memory";
        }

        @Override
        String name() {
            return "the GPU " + info.name() + " (" + info.pciBusId() + ")";
        }

        @Override
        Optional<String> exportRefusal() {
            return refusal;
        }

        @Override
        boolean real() {
            return true;
        }

        @Override
        Allocation allocate(long length) {
            DeviceMemory mem = cuda.allocate(length);
            try {
                cuda.setSyncMemops(mem.pointer(), true);  // a peer (the FPGA) reads and writes it
                cuda.memsetD8(mem.pointer(), (byte) 0, length);
            } catch (RuntimeException e) {
                mem.close();
                throw e;
            }
            return new Allocation() {
                @Override
                public long address() {
                    return mem.pointer();
                }

                @Override
                public void write(long offset, MemorySegment source, long bytes) {
                    cuda.memcpyHtoD(mem.pointer() + offset, source, bytes);
                }

                @Override
                public void read(MemorySegment target, long offset, long bytes) {
                    cuda.memcpyDtoH(target, mem.pointer() + offset, bytes);
                }

                @Override
                public int exportDmaBuf() {
                    return cuda.exportDmaBuf(mem.pointer(), length, Cuda.CU_MEM_RANGE_FLAG_NONE);
                }

                @Override
                public void closeExport(int fd) {
                    Libc.close(fd);
                }

                @Override
                public void free() {
                    mem.close();
                }
            };
        }

        @Override
        Pinned allocatePinned(long length) {
            PinnedMemory p = cuda.allocatePinned(length);
            return new Pinned() {
                @Override
                public MemorySegment segment() {
                    return p.segment();
                }

                @Override
                public void free() {
                    p.close();
                }
            };
        }

        @Override
        public synchronized void close() {
            if (!released) {
                released = true;
                cuda.primaryContextRelease(device);
            }
        }
    }

    // ------------------------------------------------------------------------------------ stand-in

    /**
     * Host memory standing in for GPU memory, at made-up 64 KB-aligned GPU addresses. It exports
     * dma-bufs (simulated: file descriptor 0, for an importer that does not look at it) or, without
     * a GPU, refuses to with the reason given.
     */
    static final class StandIn extends GpuMemory {
        private final Optional<String> refusal;
        private final String description;
        private final String name;
        private long nextAddress = 0x7f00_0000_0000L;

        private StandIn(Optional<String> refusal, String description, String name) {
            this.refusal = refusal;
            this.description = description;
            this.name = name;
        }

        /** A simulated GPU: host memory that exports simulated dma-bufs. */
        static StandIn simulated() {
            return new StandIn(Optional.empty(), "a simulated GPU (host memory standing in for GPU memory, exported as"
                    + " simulated dma-bufs)", "the simulated GPU");
        }

        /** No GPU: host memory that cannot be exported, for {@code reason}. */
        static StandIn none(String reason) {
            return new StandIn(Optional.of(reason), "none (host memory stands in for GPU memory)", "no GPU");
        }

        @Override
        String description() {
            return description;
        }

        @Override
        String name() {
            return name;
        }

        @Override
        Optional<String> exportRefusal() {
            return refusal;
        }

        @Override
        boolean real() {
            return false;
        }

        @Override
        synchronized Allocation allocate(long length) {
            long address = nextAddress;
            nextAddress += length + AddressTable.PAGE_SIZE;  // a gap: two buffers never touch
            Arena arena = Arena.ofShared();
            MemorySegment mem = arena.allocate(length, 64);  // zeroed
            return new Allocation() {
                @Override
                public long address() {
                    return address;
                }

                @Override
                public void write(long offset, MemorySegment source, long bytes) {
                    mem.asSlice(offset, bytes).copyFrom(source.asSlice(0, bytes));
                }

                @Override
                public void read(MemorySegment target, long offset, long bytes) {
                    target.asSlice(0, bytes).copyFrom(mem.asSlice(offset, bytes));
                }

                @Override
                public int exportDmaBuf() {
                    if (refusal.isPresent()) {
                        throw new IllegalStateException(refusal.get());
                    }
                    return 0;
                }

                @Override
                public void closeExport(int fd) {
                }

                @Override
                public void free() {
                    arena.close();
                }
            };
        }

        @Override
        Pinned allocatePinned(long length) {
            Arena arena = Arena.ofShared();
            MemorySegment mem = arena.allocate(length, 64);
            return new Pinned() {
                @Override
                public MemorySegment segment() {
                    return mem;
                }

                @Override
                public void free() {
                    arena.close();
                }
            };
        }

        @Override
        public void close() {
        }
    }
}
