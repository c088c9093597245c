// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.direkt.runtime.ffi.NativeSupport.SIZE_T;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The NVIDIA CUDA driver API ({@code libcuda.so.1}), bound through FFM.
 *
 * <p>{@link #load()} opens the library once per JVM and binds every function below as a downcall
 * handle; the instance is immutable and its methods may be called from any thread. Each method maps
 * one driver call and throws {@link CudaException} (call, code, CUresult name and meaning) when it
 * does not return {@code CUDA_SUCCESS}.
 *
 * <p>Types: a {@code CUdevice} is an {@code int} ordinal handle, a {@code CUdeviceptr} a {@code long}
 * (an unsigned 64-bit device address), a {@code CUcontext} a {@link MemorySegment} pointer. Contexts
 * are current per thread: call {@link #setCurrentContext} (or {@link PrimaryContext#makeCurrent()})
 * on each thread that allocates or copies.
 *
 * <p>Typical use:
 * <pre>{@code
 * Cuda cuda = Cuda.load();
 * cuda.init();
 * try (PrimaryContext ctx = cuda.retainPrimaryContext(cuda.device(0))) {
 *     ctx.makeCurrent();
 *     try (DeviceMemory mem = cuda.allocate(64 << 20)) {
 *         int fd = cuda.exportDmaBuf(mem.pointer(), mem.size(), 0);
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class Cuda {
    /** The library's soname. */
    public static final String LIBRARY = "libcuda.so.1";

    /** System property naming an explicit path to libcuda.so.1, tried first. */
    public static final String LIBRARY_PROPERTY = "direkt.libcuda";

    /** CUDA_SUCCESS. */
    public static final int CUDA_SUCCESS = 0;

    /** CUpointer_attribute CU_POINTER_ATTRIBUTE_MEMORY_TYPE (a CUmemorytype, unsigned int). */
    public static final int CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
    /**
     * CUpointer_attribute CU_POINTER_ATTRIBUTE_SYNC_MEMOPS (boolean): synchronous memory operations
     * on the allocation, required for memory that a third-party device (the FPGA) reads or writes.
     */
    public static final int CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6;
    /** CUpointer_attribute CU_POINTER_ATTRIBUTE_BUFFER_ID (unsigned long long): unique id of the allocation. */
    public static final int CU_POINTER_ATTRIBUTE_BUFFER_ID = 7;
    /** CUpointer_attribute CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL (int). */
    public static final int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

    /** cuMemHostAlloc flags: none (page-locked memory usable by the context that allocated it). */
    public static final int CU_MEMHOSTALLOC_NONE = 0;
    /** cuMemHostAlloc flag CU_MEMHOSTALLOC_PORTABLE: page-locked for every CUDA context, not only the allocating one. */
    public static final int CU_MEMHOSTALLOC_PORTABLE = 1;

    /** CUmemorytype CU_MEMORYTYPE_DEVICE. */
    public static final int CU_MEMORYTYPE_DEVICE = 2;

    /** CUmemRangeHandleType CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD: export a range as a dma-buf file descriptor. */
    public static final int CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1;
    /** CUmemRangeFlags: no flags (the driver's default mapping). */
    public static final long CU_MEM_RANGE_FLAG_NONE = 0;
    /**
     * CUmemRangeFlags CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE: the importer maps the dma-buf
     * through the PCIe BAR (what a peer PCIe device such as the FPGA needs). Newer drivers only.
     */
    public static final long CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 1;

    private static final String INSTALL = "Install the NVIDIA driver's user-space compute library, which"
            + " provides libcuda.so.1 (Debian/Ubuntu: libnvidia-compute-580 or the nvidia-driver-580 package;"
            + " RHEL/Fedora: nvidia-driver-cuda-libs); the CUDA toolkit alone ships only a link stub. In a"
            + " container, start it with the NVIDIA container toolkit (--gpus all). Or point -D"
            + LIBRARY_PROPERTY + "=/path/to/libcuda.so.1 at the library.";

    private static final List<String> WELL_KNOWN_PATHS = List.of(
            "/usr/local/nvidia/lib64/libcuda.so.1",
            "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
            "/usr/lib64/libcuda.so.1",
            "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
            "/usr/lib/wsl/lib/libcuda.so.1");

    private static volatile Cuda instance;

    private final SymbolLookup lib;

    private final MethodHandle cuInit;
    private final MethodHandle cuDriverGetVersion;
    private final MethodHandle cuDeviceGetCount;
    private final MethodHandle cuDeviceGet;
    private final MethodHandle cuDeviceGetName;
    private final MethodHandle cuDeviceGetAttribute;
    private final MethodHandle cuDeviceGetPCIBusId;
    private final MethodHandle cuDeviceTotalMem;
    private final MethodHandle cuDevicePrimaryCtxRetain;
    private final MethodHandle cuDevicePrimaryCtxRelease;
    private final MethodHandle cuCtxSetCurrent;
    private final MethodHandle cuCtxSynchronize;
    private final MethodHandle cuMemAlloc;
    private final MethodHandle cuMemFree;
    private final MethodHandle cuMemsetD8;
    private final MethodHandle cuPointerSetAttribute;
    private final MethodHandle cuPointerGetAttribute;
    private final MethodHandle cuMemGetHandleForAddressRange;
    private final MethodHandle cuMemcpyHtoD;
    private final MethodHandle cuMemcpyDtoH;
    private final MethodHandle cuMemHostAlloc;
    private final MethodHandle cuMemFreeHost;
    private final MethodHandle cuGetErrorName;
    private final MethodHandle cuGetErrorString;

    private Cuda(SymbolLookup lib) {
        this.lib = lib;
        cuInit = bind(lib, "cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        cuDriverGetVersion = bind(lib, "cuDriverGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuDeviceGetCount = bind(lib, "cuDeviceGetCount", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuDeviceGet = bind(lib, "cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuDeviceGetName = bind(lib, "cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        cuDeviceGetAttribute = bind(lib, "cuDeviceGetAttribute",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        cuDeviceGetPCIBusId = bind(lib, "cuDeviceGetPCIBusId",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        cuDeviceTotalMem = bind(lib, "cuDeviceTotalMem_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuDevicePrimaryCtxRetain = bind(lib, "cuDevicePrimaryCtxRetain",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        // cuda.h maps cuDevicePrimaryCtxRelease to the _v2 symbol since CUDA 11; older drivers have only the first.
        FunctionDescriptor release = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        cuDevicePrimaryCtxRelease = NativeSupport.optionalDowncall(lib, "cuDevicePrimaryCtxRelease_v2", release)
                .orElseGet(() -> bind(lib, "cuDevicePrimaryCtxRelease", release));
        cuCtxSetCurrent = bind(lib, "cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuCtxSynchronize = bind(lib, "cuCtxSynchronize", FunctionDescriptor.of(JAVA_INT));
        cuMemAlloc = bind(lib, "cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T));
        cuMemFree = bind(lib, "cuMemFree_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        cuMemsetD8 = bind(lib, "cuMemsetD8_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, SIZE_T));
        cuPointerSetAttribute = bind(lib, "cuPointerSetAttribute",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        cuPointerGetAttribute = bind(lib, "cuPointerGetAttribute",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        // Present from CUDA 11.7 on; a null handle makes exportDmaBuf fail with a clear message.
        cuMemGetHandleForAddressRange = NativeSupport.optionalDowncall(lib, "cuMemGetHandleForAddressRange",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, SIZE_T, JAVA_INT, JAVA_LONG)).orElse(null);
        cuMemcpyHtoD = bind(lib, "cuMemcpyHtoD_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, SIZE_T));
        cuMemcpyDtoH = bind(lib, "cuMemcpyDtoH_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, SIZE_T));
        cuMemHostAlloc = bind(lib, "cuMemHostAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, SIZE_T, JAVA_INT));
        cuMemFreeHost = bind(lib, "cuMemFreeHost", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        cuGetErrorName = bind(lib, "cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        cuGetErrorString = bind(lib, "cuGetErrorString", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    /**
     * This thread's 8-byte out-parameter cell for the calls made once per buffer (allocate, set and
     * get attributes, export): reused, so those calls allocate and free no native memory of their
     * own. Each call reads its result before anything else on the thread can use the cell again; the
     * cell goes with its thread (an automatic arena frees it once the thread is gone).
     */
    private static final ThreadLocal<MemorySegment> CELL = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(JAVA_LONG));

    private static MemorySegment cell() {
        return CELL.get();
    }

    /** The library, for bindings of further calls ({@link CudaIo}). */
    SymbolLookup library() {
        return lib;
    }

    private static MethodHandle bind(SymbolLookup lib, String symbol, FunctionDescriptor fd) {
        return NativeSupport.downcall(lib, LIBRARY, symbol, fd);
    }

    // ---------------------------------------------------------------------------------------------
    // Loading

    /**
     * Opens {@code libcuda.so.1} and binds the driver API (once per JVM; later calls return the same
     * instance). Tries {@code -Ddirekt.libcuda} when set, then the soname through the system loader,
     * then the driver's usual install paths. Does not call {@code cuInit}: see {@link #init()}.
     *
     * @throws NativeLibraryException naming the library, every attempt and what to install
     */
    public static Cuda load() {
        Cuda c = instance;
        if (c == null) {
            synchronized (Cuda.class) {
                c = instance;
                if (c == null) {
                    List<String> candidates = new ArrayList<>();
                    String explicit = System.getProperty(LIBRARY_PROPERTY);
                    if (explicit != null && !explicit.isBlank()) {
                        candidates.add(explicit);
                    }
                    candidates.add(LIBRARY);
                    candidates.addAll(WELL_KNOWN_PATHS);
                    SymbolLookup lib = NativeSupport.openLibrary("The NVIDIA CUDA driver library", candidates, INSTALL);
                    c = new Cuda(lib);
                    instance = c;
                }
            }
        }
        return c;
    }

    /** Whether {@link #load()} succeeds on this machine (the library opens; says nothing of GPUs). */
    public static boolean isAvailable() {
        try {
            load();
            return true;
        } catch (NativeLibraryException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Initialisation and devices

    /** {@code cuInit(0)}: initialises the driver; harmless to repeat. */
    public void init() {
        check("cuInit(0)", call(() -> (int) cuInit.invokeExact(0)));
    }

    /** {@code cuDriverGetVersion}: the driver's CUDA version as 1000 * major + 10 * minor (13000 = 13.0). */
    public int driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("cuDriverGetVersion", call(() -> (int) cuDriverGetVersion.invokeExact(out)));
            return out.get(JAVA_INT, 0);
        }
    }

    /** Formats a {@link #driverVersion()} value as {@code "major.minor"}. */
    public static String formatVersion(int version) {
        return (version / 1000) + "." + (version % 1000) / 10;
    }

    /** {@code cuDeviceGetCount}: number of CUDA devices (after {@link #init()}). */
    public int deviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("cuDeviceGetCount", call(() -> (int) cuDeviceGetCount.invokeExact(out)));
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@code cuDeviceGet}: the CUdevice handle of the device with this ordinal. */
    public int device(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("cuDeviceGet(ordinal " + ordinal + ")", call(() -> (int) cuDeviceGet.invokeExact(out, ordinal)));
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@code cuDeviceGetName}: the device's marketing name, e.g. "NVIDIA H100 80GB HBM3". */
    public String deviceName(int device) {
        final int len = 256;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(len);
            check("cuDeviceGetName(device " + device + ")",
                    call(() -> (int) cuDeviceGetName.invokeExact(buf, len, device)));
            return NativeSupport.cString(buf, len);
        }
    }

    /** {@code cuDeviceGetAttribute} for one of the named attributes. */
    public int deviceAttribute(int device, CuDeviceAttribute attribute) {
        return deviceAttribute(device, attribute.code(), attribute.name());
    }

    /** {@code cuDeviceGetAttribute} for a raw {@code CUdevice_attribute} number. */
    public int deviceAttribute(int device, int attribute) {
        return deviceAttribute(device, attribute, Integer.toString(attribute));
    }

    private int deviceAttribute(int device, int attribute, String label) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("cuDeviceGetAttribute(" + label + ", device " + device + ")",
                    call(() -> (int) cuDeviceGetAttribute.invokeExact(out, attribute, device)));
            return out.get(JAVA_INT, 0);
        }
    }

    /** {@code cuDeviceGetPCIBusId}: the device's PCI address as {@code "dddd:bb:dd.f"} (e.g. "0000:1b:00.0"). */
    public String pciBusId(int device) {
        final int len = 32;  // the documented format needs 13 bytes with the NUL
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(len);
            check("cuDeviceGetPCIBusId(device " + device + ")",
                    call(() -> (int) cuDeviceGetPCIBusId.invokeExact(buf, len, device)));
            return NativeSupport.cString(buf, len);
        }
    }

    /** {@code cuDeviceTotalMem_v2}: the device's memory in bytes. */
    public long deviceTotalMemory(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(SIZE_T);
            check("cuDeviceTotalMem_v2(device " + device + ")",
                    call(() -> (int) cuDeviceTotalMem.invokeExact(out, device)));
            return out.get(SIZE_T, 0);
        }
    }

    /** All devices, queried with {@link GpuDevice#query}; calls {@link #init()} first. */
    public List<GpuDevice> devices() {
        init();
        int n = deviceCount();
        List<GpuDevice> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(GpuDevice.query(this, i));
        }
        return List.copyOf(list);
    }

    // ---------------------------------------------------------------------------------------------
    // Contexts

    /** {@code cuDevicePrimaryCtxRetain}: the device's primary context handle (retained once more). */
    public MemorySegment primaryContextRetain(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check("cuDevicePrimaryCtxRetain(device " + device + ")",
                    call(() -> (int) cuDevicePrimaryCtxRetain.invokeExact(out, device)));
            return out.get(ADDRESS, 0);
        }
    }

    /** {@code cuDevicePrimaryCtxRelease(_v2)}: drops one retain of the device's primary context. */
    public void primaryContextRelease(int device) {
        check("cuDevicePrimaryCtxRelease(device " + device + ")",
                call(() -> (int) cuDevicePrimaryCtxRelease.invokeExact(device)));
    }

    /** Retains the device's primary context as an {@link AutoCloseable} that releases it. */
    public PrimaryContext retainPrimaryContext(int device) {
        return new PrimaryContext(this, device, primaryContextRetain(device));
    }

    /** {@code cuCtxSetCurrent}: binds the context to the calling thread ({@link MemorySegment#NULL} unbinds). */
    public void setCurrentContext(MemorySegment context) {
        check("cuCtxSetCurrent(" + hex(context.address()) + ")",
                call(() -> (int) cuCtxSetCurrent.invokeExact(context)));
    }

    /** {@code cuCtxSynchronize}: waits for all work of the current context. */
    public void synchronize() {
        check("cuCtxSynchronize", call(() -> (int) cuCtxSynchronize.invokeExact()));
    }

    // ---------------------------------------------------------------------------------------------
    // Memory

    /** {@code cuMemAlloc_v2}: allocates device memory in the current context; returns its device address. */
    public long memAlloc(long bytes) {
        MemorySegment out = cell();
        int rc = call(() -> (int) cuMemAlloc.invokeExact(out, bytes));
        if (rc != CUDA_SUCCESS) {
            check("cuMemAlloc_v2(" + bytes + " bytes)", rc); // the message is built only when it fails
        }
        return out.get(JAVA_LONG, 0);
    }

    /** Allocates device memory as an {@link AutoCloseable} that frees it. */
    public DeviceMemory allocate(long bytes) {
        return new DeviceMemory(this, memAlloc(bytes), bytes);
    }

    /** {@code cuMemFree_v2}: frees device memory from {@link #memAlloc}. */
    public void memFree(long devicePointer) {
        int rc = call(() -> (int) cuMemFree.invokeExact(devicePointer));
        if (rc != CUDA_SUCCESS) {
            check("cuMemFree_v2(" + hex(devicePointer) + ")", rc);
        }
    }

    /** {@code cuMemsetD8_v2}: sets {@code count} bytes at {@code devicePointer} to {@code value} (asynchronous to the host for device memory). */
    public void memsetD8(long devicePointer, byte value, long count) {
        check("cuMemsetD8_v2(" + hex(devicePointer) + ", " + (value & 0xff) + ", " + count + " bytes)",
                call(() -> (int) cuMemsetD8.invokeExact(devicePointer, value, count)));
    }

    /**
     * {@code cuMemcpyHtoD_v2}: copies {@code bytes} from host memory to the device. A native
     * {@code source} is passed as it is; a heap segment is first copied to a native one.
     */
    public void memcpyHtoD(long devicePointer, MemorySegment source, long bytes) {
        checkRange("cuMemcpyHtoD_v2", source, bytes);
        String what = "cuMemcpyHtoD_v2(" + hex(devicePointer) + ", " + bytes + " bytes)";
        if (source.isNative()) {
            check(what, call(() -> (int) cuMemcpyHtoD.invokeExact(devicePointer, source, bytes)));
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(bytes, 64);
            staging.copyFrom(source.asSlice(0, bytes));
            check(what, call(() -> (int) cuMemcpyHtoD.invokeExact(devicePointer, staging, bytes)));
        }
    }

    /** Copies a whole byte array to the device. */
    public void memcpyHtoD(long devicePointer, byte[] source) {
        memcpyHtoD(devicePointer, MemorySegment.ofArray(source), source.length);
    }

    /**
     * {@code cuMemcpyDtoH_v2}: copies {@code bytes} from the device into host memory. A native
     * {@code target} receives the data directly; a heap segment through a native staging buffer.
     */
    public void memcpyDtoH(MemorySegment target, long devicePointer, long bytes) {
        checkRange("cuMemcpyDtoH_v2", target, bytes);
        String what = "cuMemcpyDtoH_v2(" + hex(devicePointer) + ", " + bytes + " bytes)";
        if (target.isNative()) {
            check(what, call(() -> (int) cuMemcpyDtoH.invokeExact(target, devicePointer, bytes)));
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(bytes, 64);
            check(what, call(() -> (int) cuMemcpyDtoH.invokeExact(staging, devicePointer, bytes)));
            target.asSlice(0, bytes).copyFrom(staging);
        }
    }

    /** Copies {@code bytes} bytes from the device into a new array. */
    public byte[] memcpyDtoH(long devicePointer, int bytes) {
        byte[] out = new byte[bytes];
        memcpyDtoH(MemorySegment.ofArray(out), devicePointer, bytes);
        return out;
    }

    /**
     * {@code cuMemHostAlloc}: {@code bytes} of page-locked (pinned) host memory, which the GPU's copy
     * engines reach directly (a copy from or to pageable memory goes through a staging buffer of the
     * driver's). Returns the memory as a native segment of {@code bytes}; free it with
     * {@link #memFreeHost}, or use {@link #allocatePinned}.
     *
     * @param flags {@link #CU_MEMHOSTALLOC_NONE} or {@link #CU_MEMHOSTALLOC_PORTABLE}
     */
    @SuppressWarnings("restricted")  // the driver's pointer, sized by the allocation it just made
    public MemorySegment memHostAlloc(long bytes, int flags) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("cuMemHostAlloc of " + bytes + " bytes: the size must be positive");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check("cuMemHostAlloc(" + bytes + " bytes, flags 0x" + Integer.toHexString(flags) + ")",
                    call(() -> (int) cuMemHostAlloc.invokeExact(out, bytes, flags)));
            return out.get(ADDRESS, 0).reinterpret(bytes);
        }
    }

    /** {@code cuMemFreeHost}: frees page-locked memory from {@link #memHostAlloc}. */
    public void memFreeHost(MemorySegment hostMemory) {
        check("cuMemFreeHost(" + hex(hostMemory.address()) + ")", call(() -> (int) cuMemFreeHost.invokeExact(hostMemory)));
    }

    /** Page-locked host memory as an {@link AutoCloseable} that frees it ({@link #memHostAlloc}, no flags). */
    public PinnedMemory allocatePinned(long bytes) {
        return new PinnedMemory(this, memHostAlloc(bytes, CU_MEMHOSTALLOC_NONE));
    }

    private static void checkRange(String call, MemorySegment host, long bytes) {
        if (bytes < 0 || bytes > host.byteSize()) {
            throw new IllegalArgumentException(call + ": " + bytes + " bytes do not fit the host segment of "
                    + host.byteSize() + " bytes");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Pointer attributes

    /**
     * {@code cuPointerSetAttribute} with an {@code unsigned int} value (the type of
     * {@link #CU_POINTER_ATTRIBUTE_SYNC_MEMOPS}, the one attribute the driver lets callers set).
     */
    public void pointerSetAttribute(long devicePointer, int attribute, int value) {
        MemorySegment in = cell();
        in.set(JAVA_INT, 0, value);
        int rc = call(() -> (int) cuPointerSetAttribute.invokeExact(in, attribute, devicePointer));
        if (rc != CUDA_SUCCESS) {
            check("cuPointerSetAttribute(" + pointerAttributeName(attribute) + "=" + value + ", " + hex(devicePointer) + ")", rc);
        }
    }

    /**
     * {@code cuPointerGetAttribute} into a zeroed 8-byte cell, returned as a {@code long}: right for
     * the 32-bit attributes (booleans, CUmemorytype, ordinals) as for the 64-bit ones
     * ({@link #CU_POINTER_ATTRIBUTE_BUFFER_ID}) on this little-endian platform. Pointer- and
     * array-valued attributes (P2P tokens, ranges) are not for this method.
     */
    public long pointerGetAttribute(long devicePointer, int attribute) {
        MemorySegment out = cell();
        out.set(JAVA_LONG, 0, 0L); // a 32-bit attribute leaves the upper half as it is
        int rc = call(() -> (int) cuPointerGetAttribute.invokeExact(out, attribute, devicePointer));
        if (rc != CUDA_SUCCESS) {
            check("cuPointerGetAttribute(" + pointerAttributeName(attribute) + ", " + hex(devicePointer) + ")", rc);
        }
        return out.get(JAVA_LONG, 0);
    }

    /** Sets {@link #CU_POINTER_ATTRIBUTE_SYNC_MEMOPS} on the allocation that holds {@code devicePointer}. */
    public void setSyncMemops(long devicePointer, boolean enabled) {
        pointerSetAttribute(devicePointer, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, enabled ? 1 : 0);
    }

    /** Reads {@link #CU_POINTER_ATTRIBUTE_SYNC_MEMOPS}. */
    public boolean syncMemops(long devicePointer) {
        return (pointerGetAttribute(devicePointer, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) & 0xff) != 0;
    }

    /** Reads {@link #CU_POINTER_ATTRIBUTE_BUFFER_ID}, the allocation's unique id (unsigned 64 bits). */
    public long bufferId(long devicePointer) {
        return pointerGetAttribute(devicePointer, CU_POINTER_ATTRIBUTE_BUFFER_ID);
    }

    private static String pointerAttributeName(int attribute) {
        return switch (attribute) {
            case CU_POINTER_ATTRIBUTE_MEMORY_TYPE -> "CU_POINTER_ATTRIBUTE_MEMORY_TYPE";
            case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS -> "CU_POINTER_ATTRIBUTE_SYNC_MEMOPS";
            case CU_POINTER_ATTRIBUTE_BUFFER_ID -> "CU_POINTER_ATTRIBUTE_BUFFER_ID";
            case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL -> "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL";
            default -> "attribute " + attribute;
        };
    }

    // ---------------------------------------------------------------------------------------------
    // dma-buf export

    /**
     * {@code cuMemGetHandleForAddressRange}: exports {@code [devicePointer, devicePointer + size)}
     * as a handle of {@code handleType}; for {@link #CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD} the handle
     * is a file descriptor, returned here. Start and size must be aligned to the host page size and
     * lie in one allocation; the device must report {@link CuDeviceAttribute#DMA_BUF_SUPPORTED}.
     *
     * @param flags {@link #CU_MEM_RANGE_FLAG_NONE} or {@link #CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE}
     * @return the handle as an int (the caller owns the fd: close it with {@link Libc#close(int)})
     */
    public int memGetHandleForAddressRange(long devicePointer, long size, int handleType, long flags) {
        if (cuMemGetHandleForAddressRange == null) {
            throw new NativeLibraryException(handleCall(devicePointer, size, handleType, flags) + ": " + LIBRARY
                    + " does not export cuMemGetHandleForAddressRange (needs a driver of CUDA 11.7 or later)");
        }
        MemorySegment out = cell();
        out.set(JAVA_LONG, 0, -1L);
        int rc = call(() -> (int) cuMemGetHandleForAddressRange.invokeExact(out, devicePointer, size, handleType, flags));
        if (rc != CUDA_SUCCESS) {
            check(handleCall(devicePointer, size, handleType, flags), rc);
        }
        return out.get(JAVA_INT, 0);
    }

    private static String handleCall(long devicePointer, long size, int handleType, long flags) {
        return "cuMemGetHandleForAddressRange(" + hex(devicePointer) + ", " + size + " bytes, handle type " + handleType
                + ", flags 0x" + Long.toHexString(flags) + ")";
    }

    /**
     * Whether this driver has {@code cuMemGetHandleForAddressRange} (CUDA 11.7 and later), without
     * which no memory can be exported as a dma-buf. Whether a device can is its
     * {@link CuDeviceAttribute#DMA_BUF_SUPPORTED}.
     */
    public boolean hasDmaBufExport() {
        return cuMemGetHandleForAddressRange != null;
    }

    /** Exports a device memory range as a dma-buf file descriptor (see {@link #memGetHandleForAddressRange}). */
    public int exportDmaBuf(long devicePointer, long size, long flags) {
        return memGetHandleForAddressRange(devicePointer, size, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, flags);
    }

    // ---------------------------------------------------------------------------------------------
    // Errors

    /** {@code cuGetErrorName}: e.g. "CUDA_ERROR_OUT_OF_MEMORY"; a fallback when the driver does not know the code. */
    public String errorName(int code) {
        String name = errorText(cuGetErrorName, code);
        return name != null ? name : CudaErrors.name(code);
    }

    /** {@code cuGetErrorString}: e.g. "out of memory"; a fallback when the driver does not know the code. */
    public String errorString(int code) {
        String text = errorText(cuGetErrorString, code);
        return text != null ? text : "unrecognized error code";
    }

    private static String errorText(MethodHandle fn, int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = call(() -> (int) fn.invokeExact(code, out));
            return rc == CUDA_SUCCESS ? NativeSupport.cString(out.get(ADDRESS, 0)) : null;
        }
    }

    /** Throws {@link CudaException} for a CUresult other than CUDA_SUCCESS. */
    void check(String call, int result) {
        if (result != CUDA_SUCCESS) {
            throw new CudaException(call, result, errorName(result), errorString(result));
        }
    }

    /** A downcall body; {@code invokeExact} declares Throwable. */
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

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /** CUresult names for codes cuGetErrorName does not know (a newer code from an older driver). */
    static final class CudaErrors {
        private static final Map<Integer, String> NAMES = Map.ofEntries(
                Map.entry(0, "CUDA_SUCCESS"),
                Map.entry(1, "CUDA_ERROR_INVALID_VALUE"),
                Map.entry(2, "CUDA_ERROR_OUT_OF_MEMORY"),
                Map.entry(3, "CUDA_ERROR_NOT_INITIALIZED"),
                Map.entry(4, "CUDA_ERROR_DEINITIALIZED"),
                Map.entry(34, "CUDA_ERROR_STUB_LIBRARY"),
                Map.entry(100, "CUDA_ERROR_NO_DEVICE"),
                Map.entry(101, "CUDA_ERROR_INVALID_DEVICE"),
                Map.entry(201, "CUDA_ERROR_INVALID_CONTEXT"),
                Map.entry(400, "CUDA_ERROR_INVALID_HANDLE"),
                Map.entry(500, "CUDA_ERROR_NOT_FOUND"),
                Map.entry(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"),
                Map.entry(713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"),
                Map.entry(800, "CUDA_ERROR_NOT_PERMITTED"),
                Map.entry(801, "CUDA_ERROR_NOT_SUPPORTED"),
                Map.entry(999, "CUDA_ERROR_UNKNOWN"));

        private CudaErrors() {}

        static String name(int code) {
            return NAMES.getOrDefault(code, "CUDA_ERROR_UNRECOGNIZED_" + code);
        }
    }
}
