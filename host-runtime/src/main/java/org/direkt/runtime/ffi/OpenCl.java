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
import java.util.Arrays;
import java.util.List;

/**
 * OpenCL through the ICD loader ({@code libOpenCL.so.1}), bound through FFM.
 *
 * <p>{@link #load()} opens the loader once per JVM and binds each function once. Object handles
 * ({@code cl_platform_id}, {@code cl_context}, {@code cl_mem}, ...) are {@link MemorySegment}
 * pointers; every method checks the returned {@code cl_int} (or {@code errcode_ret}) and throws
 * {@link OpenClException} naming the call, the code and its CL_ name. Enqueued reads and writes
 * are blocking. For everyday use prefer the wrapper {@link ClContext}.
 */
public final class OpenCl {
    /** The ICD loader's soname. */
    public static final String LIBRARY = "libOpenCL.so.1";

    /** CL_SUCCESS. */
    public static final int CL_SUCCESS = 0;
    /** CL_DEVICE_NOT_FOUND: the platform has no device of the type asked for. */
    public static final int CL_DEVICE_NOT_FOUND = -1;
    /** cl_bool CL_TRUE. */
    public static final int CL_TRUE = 1;

    /** cl_platform_info CL_PLATFORM_PROFILE. */
    public static final int CL_PLATFORM_PROFILE = 0x0900;
    /** cl_platform_info CL_PLATFORM_VERSION. */
    public static final int CL_PLATFORM_VERSION = 0x0901;
    /** cl_platform_info CL_PLATFORM_NAME. */
    public static final int CL_PLATFORM_NAME = 0x0902;
    /** cl_platform_info CL_PLATFORM_VENDOR. */
    public static final int CL_PLATFORM_VENDOR = 0x0903;

    /** cl_device_type CL_DEVICE_TYPE_DEFAULT. */
    public static final long CL_DEVICE_TYPE_DEFAULT = 1;
    /** cl_device_type CL_DEVICE_TYPE_CPU. */
    public static final long CL_DEVICE_TYPE_CPU = 1 << 1;
    /** cl_device_type CL_DEVICE_TYPE_GPU. */
    public static final long CL_DEVICE_TYPE_GPU = 1 << 2;
    /** cl_device_type CL_DEVICE_TYPE_ACCELERATOR (FPGA boards report this). */
    public static final long CL_DEVICE_TYPE_ACCELERATOR = 1 << 3;
    /** cl_device_type CL_DEVICE_TYPE_ALL. */
    public static final long CL_DEVICE_TYPE_ALL = 0xFFFFFFFFL;

    /** cl_device_info CL_DEVICE_TYPE (cl_device_type). */
    public static final int CL_DEVICE_TYPE = 0x1000;
    /** cl_device_info CL_DEVICE_GLOBAL_MEM_SIZE (cl_ulong). */
    public static final int CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F;
    /** cl_device_info CL_DEVICE_NAME (string). */
    public static final int CL_DEVICE_NAME = 0x102B;
    /** cl_device_info CL_DEVICE_VENDOR (string). */
    public static final int CL_DEVICE_VENDOR = 0x102C;
    /** cl_device_info CL_DEVICE_VERSION (string). */
    public static final int CL_DEVICE_VERSION = 0x102F;

    /** cl_context_properties CL_CONTEXT_PLATFORM. */
    public static final long CL_CONTEXT_PLATFORM = 0x1084;

    /** cl_mem_flags CL_MEM_READ_WRITE. */
    public static final long CL_MEM_READ_WRITE = 1;
    /** cl_mem_flags CL_MEM_WRITE_ONLY. */
    public static final long CL_MEM_WRITE_ONLY = 1 << 1;
    /** cl_mem_flags CL_MEM_READ_ONLY. */
    public static final long CL_MEM_READ_ONLY = 1 << 2;

    /** cl_program_info CL_PROGRAM_NUM_DEVICES (cl_uint). */
    public static final int CL_PROGRAM_NUM_DEVICES = 0x1162;
    /** cl_program_info CL_PROGRAM_BINARY_SIZES (size_t[]). */
    public static final int CL_PROGRAM_BINARY_SIZES = 0x1165;
    /** cl_program_info CL_PROGRAM_BINARIES (unsigned char*[]). */
    public static final int CL_PROGRAM_BINARIES = 0x1166;
    /** cl_program_info CL_PROGRAM_KERNEL_NAMES (char[]: names separated by semicolons; OpenCL 1.2). */
    public static final int CL_PROGRAM_KERNEL_NAMES = 0x1168;
    /** cl_program_build_info CL_PROGRAM_BUILD_LOG (string). */
    public static final int CL_PROGRAM_BUILD_LOG = 0x1183;

    private static volatile OpenCl instance;

    private final MethodHandle clGetPlatformIDs;
    private final MethodHandle clGetPlatformInfo;
    private final MethodHandle clGetDeviceIDs;
    private final MethodHandle clGetDeviceInfo;
    private final MethodHandle clCreateContext;
    private final MethodHandle clCreateCommandQueueWithProperties;  // OpenCL 2.0; may be null
    private final MethodHandle clCreateCommandQueue;                // deprecated in 2.0; may be null
    private final MethodHandle clCreateProgramWithSource;
    private final MethodHandle clCreateProgramWithBinary;
    private final MethodHandle clBuildProgram;
    private final MethodHandle clGetProgramBuildInfo;
    private final MethodHandle clGetProgramInfo;
    private final MethodHandle clCreateKernel;
    private final MethodHandle clSetKernelArg;
    private final MethodHandle clCreateBuffer;
    private final MethodHandle clEnqueueWriteBuffer;
    private final MethodHandle clEnqueueReadBuffer;
    private final MethodHandle clEnqueueNDRangeKernel;
    private final MethodHandle clFinish;
    private final MethodHandle clReleaseMemObject;
    private final MethodHandle clReleaseKernel;
    private final MethodHandle clReleaseProgram;
    private final MethodHandle clReleaseCommandQueue;
    private final MethodHandle clReleaseContext;

    private OpenCl(SymbolLookup lib) {
        FunctionDescriptor getInfo = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, SIZE_T, ADDRESS, ADDRESS);
        FunctionDescriptor release = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        clGetPlatformIDs = bind(lib, "clGetPlatformIDs", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        clGetPlatformInfo = bind(lib, "clGetPlatformInfo", getInfo);
        clGetDeviceIDs = bind(lib, "clGetDeviceIDs",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
        clGetDeviceInfo = bind(lib, "clGetDeviceInfo", getInfo);
        clCreateContext = bind(lib, "clCreateContext",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        clCreateCommandQueueWithProperties = NativeSupport.optionalDowncall(lib, "clCreateCommandQueueWithProperties",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS)).orElse(null);
        clCreateCommandQueue = NativeSupport.optionalDowncall(lib, "clCreateCommandQueue",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS)).orElse(null);
        if (clCreateCommandQueueWithProperties == null && clCreateCommandQueue == null) {
            throw new NativeLibraryException(LIBRARY + " exports neither clCreateCommandQueueWithProperties"
                    + " nor clCreateCommandQueue");
        }
        clCreateProgramWithSource = bind(lib, "clCreateProgramWithSource",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        clCreateProgramWithBinary = bind(lib, "clCreateProgramWithBinary",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        clBuildProgram = bind(lib, "clBuildProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        clGetProgramBuildInfo = bind(lib, "clGetProgramBuildInfo",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, SIZE_T, ADDRESS, ADDRESS));
        clGetProgramInfo = bind(lib, "clGetProgramInfo", getInfo);
        clCreateKernel = bind(lib, "clCreateKernel", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        clSetKernelArg = bind(lib, "clSetKernelArg", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, SIZE_T, ADDRESS));
        clCreateBuffer = bind(lib, "clCreateBuffer",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, SIZE_T, ADDRESS, ADDRESS));
        FunctionDescriptor transfer = FunctionDescriptor.of(JAVA_INT,
                ADDRESS, ADDRESS, JAVA_INT, SIZE_T, SIZE_T, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
        clEnqueueWriteBuffer = bind(lib, "clEnqueueWriteBuffer", transfer);
        clEnqueueReadBuffer = bind(lib, "clEnqueueReadBuffer", transfer);
        clEnqueueNDRangeKernel = bind(lib, "clEnqueueNDRangeKernel", FunctionDescriptor.of(JAVA_INT,
                ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        clFinish = bind(lib, "clFinish", release);
        clReleaseMemObject = bind(lib, "clReleaseMemObject", release);
        clReleaseKernel = bind(lib, "clReleaseKernel", release);
        clReleaseProgram = bind(lib, "clReleaseProgram", release);
        clReleaseCommandQueue = bind(lib, "clReleaseCommandQueue", release);
        clReleaseContext = bind(lib, "clReleaseContext", release);
    }

    private static MethodHandle bind(SymbolLookup lib, String symbol, FunctionDescriptor fd) {
        return NativeSupport.downcall(lib, LIBRARY, symbol, fd);
    }

    /**
     * Opens {@code libOpenCL.so.1} (once per JVM) and binds the functions.
     *
     * @throws NativeLibraryException naming the library, what was tried and what to install
     */
    public static OpenCl load() {
        OpenCl c = instance;
        if (c == null) {
            synchronized (OpenCl.class) {
                c = instance;
                if (c == null) {
                    SymbolLookup lib = NativeSupport.openLibrary("The OpenCL ICD loader",
                            List.of(LIBRARY, "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "/usr/lib64/libOpenCL.so.1"),
                            "Install an ICD loader (Debian/Ubuntu: ocl-icd-libopencl1) and a platform: pocl-opencl-icd"
                                    + " for the CPU, the GPU or FPGA vendor's ICD otherwise (/etc/OpenCL/vendors/*.icd).");
                    c = new OpenCl(lib);
                    instance = c;
                }
            }
        }
        return c;
    }

    /** Whether {@link #load()} succeeds (the loader opens; it may still find no platform). */
    public static boolean isAvailable() {
        try {
            load();
            return true;
        } catch (NativeLibraryException e) {
            return false;
        }
    }

    /** A platform and the strings that identify it. */
    public record Platform(MemorySegment id, String name, String vendor, String version) {}

    /** A device and what identifies it. */
    public record Device(MemorySegment id, String name, long type) {
        /** The device type as a word ("GPU", "CPU", "ACCELERATOR", ...). */
        public String typeName() {
            if ((type & CL_DEVICE_TYPE_GPU) != 0) {
                return "GPU";
            }
            if ((type & CL_DEVICE_TYPE_ACCELERATOR) != 0) {
                return "ACCELERATOR";
            }
            if ((type & CL_DEVICE_TYPE_CPU) != 0) {
                return "CPU";
            }
            return "0x" + Long.toHexString(type);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Platforms and devices

    /** {@code clGetPlatformIDs}: every platform the ICD loader finds (empty when it finds none). */
    public List<MemorySegment> platformIds() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            int rc = call(() -> (int) clGetPlatformIDs.invokeExact(0, MemorySegment.NULL, count));
            if (rc == OpenClException.CL_PLATFORM_NOT_FOUND_KHR) {
                return List.of();
            }
            check("clGetPlatformIDs", rc);
            int n = count.get(JAVA_INT, 0);
            if (n == 0) {
                return List.of();
            }
            MemorySegment ids = arena.allocate(ADDRESS, n);
            check("clGetPlatformIDs(" + n + ")", call(() -> (int) clGetPlatformIDs.invokeExact(n, ids, MemorySegment.NULL)));
            return addresses(ids, n);
        }
    }

    /** Every platform with its name, vendor and version. */
    public List<Platform> platforms() {
        List<Platform> list = new ArrayList<>();
        for (MemorySegment id : platformIds()) {
            list.add(new Platform(id, platformInfo(id, CL_PLATFORM_NAME), platformInfo(id, CL_PLATFORM_VENDOR),
                    platformInfo(id, CL_PLATFORM_VERSION)));
        }
        return List.copyOf(list);
    }

    /** {@code clGetPlatformInfo} for a string parameter (CL_PLATFORM_NAME, _VENDOR, _VERSION, _PROFILE). */
    public String platformInfo(MemorySegment platform, int param) {
        return infoString("clGetPlatformInfo(0x" + Integer.toHexString(param) + ")", clGetPlatformInfo, platform, param);
    }

    /** {@code clGetDeviceIDs}: the platform's devices of {@code type} (empty on CL_DEVICE_NOT_FOUND). */
    public List<MemorySegment> deviceIds(MemorySegment platform, long type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            int rc = call(() -> (int) clGetDeviceIDs.invokeExact(platform, type, 0, MemorySegment.NULL, count));
            if (rc == CL_DEVICE_NOT_FOUND) {
                return List.of();
            }
            check("clGetDeviceIDs(type 0x" + Long.toHexString(type) + ")", rc);
            int n = count.get(JAVA_INT, 0);
            MemorySegment ids = arena.allocate(ADDRESS, Math.max(n, 1));
            check("clGetDeviceIDs(type 0x" + Long.toHexString(type) + ", " + n + ")",
                    call(() -> (int) clGetDeviceIDs.invokeExact(platform, type, n, ids, MemorySegment.NULL)));
            return addresses(ids, n);
        }
    }

    /** The platform's devices of {@code type} with their names and types. */
    public List<Device> devices(MemorySegment platform, long type) {
        List<Device> list = new ArrayList<>();
        for (MemorySegment id : deviceIds(platform, type)) {
            list.add(new Device(id, deviceInfoString(id, CL_DEVICE_NAME), deviceInfoLong(id, CL_DEVICE_TYPE)));
        }
        return List.copyOf(list);
    }

    /** {@code clGetDeviceInfo} for a string parameter (CL_DEVICE_NAME, _VENDOR, _VERSION). */
    public String deviceInfoString(MemorySegment device, int param) {
        return infoString("clGetDeviceInfo(0x" + Integer.toHexString(param) + ")", clGetDeviceInfo, device, param);
    }

    /** {@code clGetDeviceInfo} for a 64-bit parameter (CL_DEVICE_TYPE, CL_DEVICE_GLOBAL_MEM_SIZE). */
    public long deviceInfoLong(MemorySegment device, int param) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check("clGetDeviceInfo(0x" + Integer.toHexString(param) + ")", call(() -> (int) clGetDeviceInfo.invokeExact(
                    device, param, JAVA_LONG.byteSize(), out, MemorySegment.NULL)));
            return out.get(JAVA_LONG, 0);
        }
    }

    private String infoString(String what, MethodHandle fn, MemorySegment object, int param) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(SIZE_T);
            check(what, call(() -> (int) fn.invokeExact(object, param, 0L, MemorySegment.NULL, size)));
            long n = size.get(SIZE_T, 0);
            MemorySegment buf = arena.allocate(Math.max(n, 1));
            check(what, call(() -> (int) fn.invokeExact(object, param, n, buf, MemorySegment.NULL)));
            return NativeSupport.cString(buf, n).strip();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Context and queue

    /** {@code clCreateContext} for one device of {@code platform}. */
    public MemorySegment createContext(MemorySegment platform, MemorySegment device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment props = arena.allocate(JAVA_LONG, 3);  // cl_context_properties is intptr_t
            props.setAtIndex(JAVA_LONG, 0, CL_CONTEXT_PLATFORM);
            props.setAtIndex(JAVA_LONG, 1, platform.address());
            props.setAtIndex(JAVA_LONG, 2, 0);
            MemorySegment devices = arena.allocate(ADDRESS);
            devices.set(ADDRESS, 0, device);
            MemorySegment err = arena.allocate(JAVA_INT);
            MemorySegment ctx = callPtr(() -> (MemorySegment) clCreateContext.invokeExact(
                    props, 1, devices, MemorySegment.NULL, MemorySegment.NULL, err));
            check("clCreateContext", err.get(JAVA_INT, 0));
            return ctx;
        }
    }

    /**
     * An in-order command queue without properties: {@code clCreateCommandQueueWithProperties}
     * (OpenCL 2.0), falling back to {@code clCreateCommandQueue} when the loader lacks the former or
     * the platform refuses it (a 1.x platform).
     */
    public MemorySegment createCommandQueue(MemorySegment context, MemorySegment device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(JAVA_INT);
            OpenClException first = null;
            if (clCreateCommandQueueWithProperties != null) {
                MemorySegment q = callPtr(() -> (MemorySegment) clCreateCommandQueueWithProperties.invokeExact(
                        context, device, MemorySegment.NULL, err));
                int rc = err.get(JAVA_INT, 0);
                if (rc == CL_SUCCESS) {
                    return q;
                }
                first = new OpenClException("clCreateCommandQueueWithProperties", rc);
                if (clCreateCommandQueue == null) {
                    throw first;
                }
            }
            MemorySegment q = callPtr(() -> (MemorySegment) clCreateCommandQueue.invokeExact(context, device, 0L, err));
            int rc = err.get(JAVA_INT, 0);
            if (rc != CL_SUCCESS) {
                OpenClException e = new OpenClException("clCreateCommandQueue", rc);
                if (first != null) {
                    e.addSuppressed(first);
                }
                throw e;
            }
            return q;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Programs and kernels

    /** {@code clCreateProgramWithSource} for one source string. */
    public MemorySegment createProgramWithSource(MemorySegment context, String source) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocateFrom(source);
            MemorySegment strings = arena.allocate(ADDRESS);
            strings.set(ADDRESS, 0, text);
            MemorySegment err = arena.allocate(JAVA_INT);
            // lengths = NULL: the string is NUL-terminated
            MemorySegment program = callPtr(() -> (MemorySegment) clCreateProgramWithSource.invokeExact(
                    context, 1, strings, MemorySegment.NULL, err));
            check("clCreateProgramWithSource(" + source.length() + " chars)", err.get(JAVA_INT, 0));
            return program;
        }
    }

    /** {@code clCreateProgramWithBinary} for one device (the binary still needs {@link #buildProgram}). */
    public MemorySegment createProgramWithBinary(MemorySegment context, MemorySegment device, byte[] binary) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment devices = arena.allocate(ADDRESS);
            devices.set(ADDRESS, 0, device);
            MemorySegment lengths = arena.allocate(SIZE_T);
            lengths.set(SIZE_T, 0, binary.length);
            MemorySegment bytes = arena.allocate(Math.max(binary.length, 1));
            MemorySegment.copy(binary, 0, bytes, JAVA_BYTE, 0, binary.length);
            MemorySegment binaries = arena.allocate(ADDRESS);
            binaries.set(ADDRESS, 0, bytes);
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment err = arena.allocate(JAVA_INT);
            MemorySegment program = callPtr(() -> (MemorySegment) clCreateProgramWithBinary.invokeExact(
                    context, 1, devices, lengths, binaries, status, err));
            int rc = err.get(JAVA_INT, 0);
            if (rc != CL_SUCCESS) {
                throw new OpenClException("clCreateProgramWithBinary(" + binary.length + " bytes, binary status "
                        + OpenClException.errorName(status.get(JAVA_INT, 0)) + ")", rc);
            }
            return program;
        }
    }

    /**
     * {@code clBuildProgram} for one device. On failure the exception carries the device's build
     * log ({@code clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)}) in its message.
     */
    public void buildProgram(MemorySegment program, MemorySegment device, String options) {
        String opts = options == null ? "" : options;
        int rc;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment devices = arena.allocate(ADDRESS);
            devices.set(ADDRESS, 0, device);
            MemorySegment optString = arena.allocateFrom(opts);
            rc = call(() -> (int) clBuildProgram.invokeExact(
                    program, 1, devices, optString, MemorySegment.NULL, MemorySegment.NULL));
        }
        if (rc != CL_SUCCESS) {
            String log;
            try {
                log = programBuildLog(program, device);
            } catch (OpenClException e) {
                log = "(no build log: " + e.getMessage() + ")";
            }
            throw new OpenClException("clBuildProgram(options \"" + opts + "\")", rc, log);
        }
    }

    /** {@code clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)}: the compiler's messages for {@code device}. */
    public String programBuildLog(MemorySegment program, MemorySegment device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(SIZE_T);
            String what = "clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)";
            check(what, call(() -> (int) clGetProgramBuildInfo.invokeExact(
                    program, device, CL_PROGRAM_BUILD_LOG, 0L, MemorySegment.NULL, size)));
            long n = size.get(SIZE_T, 0);
            MemorySegment buf = arena.allocate(Math.max(n, 1));
            check(what, call(() -> (int) clGetProgramBuildInfo.invokeExact(
                    program, device, CL_PROGRAM_BUILD_LOG, n, buf, MemorySegment.NULL)));
            return NativeSupport.cString(buf, n);
        }
    }

    /**
     * The built program's binary for its first device ({@code clGetProgramInfo} with
     * CL_PROGRAM_BINARY_SIZES and CL_PROGRAM_BINARIES), to be cached and reloaded with
     * {@link #createProgramWithBinary}.
     */
    public byte[] programBinary(MemorySegment program) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment num = arena.allocate(JAVA_INT);
            check("clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)", call(() -> (int) clGetProgramInfo.invokeExact(
                    program, CL_PROGRAM_NUM_DEVICES, JAVA_INT.byteSize(), num, MemorySegment.NULL)));
            int n = num.get(JAVA_INT, 0);
            MemorySegment sizes = arena.allocate(SIZE_T, n);
            check("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", call(() -> (int) clGetProgramInfo.invokeExact(
                    program, CL_PROGRAM_BINARY_SIZES, SIZE_T.byteSize() * n, sizes, MemorySegment.NULL)));
            MemorySegment pointers = arena.allocate(ADDRESS, n);
            MemorySegment[] buffers = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                buffers[i] = arena.allocate(Math.max(sizes.getAtIndex(SIZE_T, i), 1));
                pointers.setAtIndex(ADDRESS, i, buffers[i]);
            }
            check("clGetProgramInfo(CL_PROGRAM_BINARIES)", call(() -> (int) clGetProgramInfo.invokeExact(
                    program, CL_PROGRAM_BINARIES, ADDRESS.byteSize() * n, pointers, MemorySegment.NULL)));
            return buffers[0].asSlice(0, sizes.getAtIndex(SIZE_T, 0)).toArray(JAVA_BYTE);
        }
    }

    /** The kernels of a built program ({@code clGetProgramInfo} with CL_PROGRAM_KERNEL_NAMES), in the order it lists them. */
    public List<String> programKernelNames(MemorySegment program) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(SIZE_T);
            check("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES) size", call(() -> (int) clGetProgramInfo.invokeExact(
                    program, CL_PROGRAM_KERNEL_NAMES, 0L, MemorySegment.NULL, size)));
            long n = size.get(SIZE_T, 0);
            MemorySegment names = arena.allocate(Math.max(n, 1));
            check("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)", call(() -> (int) clGetProgramInfo.invokeExact(
                    program, CL_PROGRAM_KERNEL_NAMES, n, names, MemorySegment.NULL)));
            String text = names.getString(0);
            return text.isEmpty() ? List.of() : List.of(text.split(";"));
        }
    }

    /** {@code clCreateKernel}: the kernel {@code name} of a built program. */
    public MemorySegment createKernel(MemorySegment program, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name);
            MemorySegment err = arena.allocate(JAVA_INT);
            MemorySegment kernel = callPtr(() -> (MemorySegment) clCreateKernel.invokeExact(program, cname, err));
            check("clCreateKernel(\"" + name + "\")", err.get(JAVA_INT, 0));
            return kernel;
        }
    }

    /** {@code clSetKernelArg} with {@code size} bytes at {@code value} (a native segment). */
    public void setKernelArg(MemorySegment kernel, int index, long size, MemorySegment value) {
        check("clSetKernelArg(" + index + ", " + size + " bytes)",
                call(() -> (int) clSetKernelArg.invokeExact(kernel, index, size, value)));
    }

    /** Sets a {@code long}/{@code ulong} argument. */
    public void setKernelArgLong(MemorySegment kernel, int index, long value) {
        try (Arena arena = Arena.ofConfined()) {
            setKernelArg(kernel, index, JAVA_LONG.byteSize(), arena.allocateFrom(JAVA_LONG, value));
        }
    }

    /** Sets an {@code int}/{@code uint} argument. */
    public void setKernelArgInt(MemorySegment kernel, int index, int value) {
        try (Arena arena = Arena.ofConfined()) {
            setKernelArg(kernel, index, JAVA_INT.byteSize(), arena.allocateFrom(JAVA_INT, value));
        }
    }

    /** Sets a {@code __global} buffer argument to a {@code cl_mem}. */
    public void setKernelArgMem(MemorySegment kernel, int index, MemorySegment mem) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cell = arena.allocate(ADDRESS);
            cell.set(ADDRESS, 0, mem);
            setKernelArg(kernel, index, ADDRESS.byteSize(), cell);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Buffers, transfers, execution

    /** {@code clCreateBuffer} without a host pointer. */
    public MemorySegment createBuffer(MemorySegment context, long flags, long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(JAVA_INT);
            MemorySegment mem = callPtr(() -> (MemorySegment) clCreateBuffer.invokeExact(
                    context, flags, size, MemorySegment.NULL, err));
            check("clCreateBuffer(flags 0x" + Long.toHexString(flags) + ", " + size + " bytes)", err.get(JAVA_INT, 0));
            return mem;
        }
    }

    /** Blocking {@code clEnqueueWriteBuffer} of {@code bytes} from host memory (a heap segment is staged). */
    public void enqueueWriteBuffer(MemorySegment queue, MemorySegment mem, long offset, MemorySegment source, long bytes) {
        checkRange("clEnqueueWriteBuffer", source, bytes);
        String what = "clEnqueueWriteBuffer(offset " + offset + ", " + bytes + " bytes)";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = source.isNative() ? source : arena.allocate(Math.max(bytes, 1), 64);
            if (!source.isNative()) {
                src.asSlice(0, bytes).copyFrom(source.asSlice(0, bytes));
            }
            check(what, call(() -> (int) clEnqueueWriteBuffer.invokeExact(queue, mem, CL_TRUE, offset, bytes, src,
                    0, MemorySegment.NULL, MemorySegment.NULL)));
        }
    }

    /** Blocking {@code clEnqueueReadBuffer} of {@code bytes} into host memory (a heap segment is staged). */
    public void enqueueReadBuffer(MemorySegment queue, MemorySegment mem, long offset, MemorySegment target, long bytes) {
        checkRange("clEnqueueReadBuffer", target, bytes);
        String what = "clEnqueueReadBuffer(offset " + offset + ", " + bytes + " bytes)";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = target.isNative() ? target : arena.allocate(Math.max(bytes, 1), 64);
            check(what, call(() -> (int) clEnqueueReadBuffer.invokeExact(queue, mem, CL_TRUE, offset, bytes, dst,
                    0, MemorySegment.NULL, MemorySegment.NULL)));
            if (!target.isNative()) {
                target.asSlice(0, bytes).copyFrom(dst.asSlice(0, bytes));
            }
        }
    }

    /**
     * {@code clEnqueueNDRangeKernel} with {@code global.length} dimensions; {@code local} may be
     * null (the implementation chooses).
     */
    public void enqueueNDRangeKernel(MemorySegment queue, MemorySegment kernel, long[] global, long[] local) {
        if (global.length < 1 || global.length > 3 || (local != null && local.length != global.length)) {
            throw new IllegalArgumentException("work sizes: 1 to 3 dimensions, local like global");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment g = arena.allocateFrom(SIZE_T, global);
            MemorySegment l = local == null ? MemorySegment.NULL : arena.allocateFrom(SIZE_T, local);
            int dims = global.length;
            check("clEnqueueNDRangeKernel(global " + Arrays.toString(global)
                            + (local == null ? "" : ", local " + Arrays.toString(local)) + ")",
                    call(() -> (int) clEnqueueNDRangeKernel.invokeExact(queue, kernel, dims, MemorySegment.NULL, g, l,
                            0, MemorySegment.NULL, MemorySegment.NULL)));
        }
    }

    /** {@code clFinish}: waits for everything enqueued. */
    public void finish(MemorySegment queue) {
        check("clFinish", call(() -> (int) clFinish.invokeExact(queue)));
    }

    /** {@code clReleaseMemObject}. */
    public void releaseMemObject(MemorySegment mem) {
        release("clReleaseMemObject", clReleaseMemObject, mem);
    }

    /** {@code clReleaseKernel}. */
    public void releaseKernel(MemorySegment kernel) {
        release("clReleaseKernel", clReleaseKernel, kernel);
    }

    /** {@code clReleaseProgram}. */
    public void releaseProgram(MemorySegment program) {
        release("clReleaseProgram", clReleaseProgram, program);
    }

    /** {@code clReleaseCommandQueue}. */
    public void releaseCommandQueue(MemorySegment queue) {
        release("clReleaseCommandQueue", clReleaseCommandQueue, queue);
    }

    /** {@code clReleaseContext}. */
    public void releaseContext(MemorySegment context) {
        release("clReleaseContext", clReleaseContext, context);
    }

    private void release(String what, MethodHandle fn, MemorySegment object) {
        check(what, call(() -> (int) fn.invokeExact(object)));
    }

    // ---------------------------------------------------------------------------------------------
    // Plumbing

    private static void check(String call, int rc) {
        if (rc != CL_SUCCESS) {
            throw new OpenClException(call, rc);
        }
    }

    private static void checkRange(String call, MemorySegment host, long bytes) {
        if (bytes < 0 || bytes > host.byteSize()) {
            throw new IllegalArgumentException(call + ": " + bytes + " bytes do not fit the host segment of "
                    + host.byteSize() + " bytes");
        }
    }

    private static List<MemorySegment> addresses(MemorySegment array, int n) {
        List<MemorySegment> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(array.getAtIndex(ADDRESS, i));
        }
        return List.copyOf(list);
    }

    @FunctionalInterface
    private interface IntDowncall {
        int run() throws Throwable;
    }

    @FunctionalInterface
    private interface PointerDowncall {
        MemorySegment run() throws Throwable;
    }

    private static int call(IntDowncall downcall) {
        try {
            return downcall.run();
        } catch (Throwable t) {
            throw NativeSupport.rethrow("OpenCL downcall", t);
        }
    }

    private static MemorySegment callPtr(PointerDowncall downcall) {
        try {
            return downcall.run();
        } catch (Throwable t) {
            throw NativeSupport.rethrow("OpenCL downcall", t);
        }
    }
}
