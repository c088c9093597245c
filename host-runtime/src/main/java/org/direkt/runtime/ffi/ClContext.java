// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * One OpenCL device with its context and an in-order command queue: the runtime's handle on
 * OpenCL. Programs, kernels and buffers made from it are {@link AutoCloseable} too; close them
 * before the context. Transfers are blocking; {@link #run} waits for the kernel to finish.
 *
 * <pre>{@code
 * try (ClContext cl = ClContext.open("Intel(R) FPGA");
 *      ClProgram p = cl.build(source, "");
 *      ClKernel k = p.kernel("vadd");
 *      ClBuffer a = cl.buffer(1024)) {
 *     cl.write(a, bytes);
 *     k.argBuffer(0, a).argUInt(1, 256);
 *     cl.run(k, 256);
 * }
 * }</pre>
 */
public final class ClContext implements AutoCloseable {
    private final OpenCl cl;
    private final OpenCl.Platform platform;
    private final OpenCl.Device device;
    private final MemorySegment context;
    private final MemorySegment queue;
    private boolean closed;

    private ClContext(OpenCl cl, OpenCl.Platform platform, OpenCl.Device device) {
        this.cl = cl;
        this.platform = platform;
        this.device = device;
        this.context = cl.createContext(platform.id(), device.id());
        MemorySegment q;
        try {
            q = cl.createCommandQueue(context, device.id());
        } catch (RuntimeException e) {
            cl.releaseContext(context);
            throw e;
        }
        this.queue = q;
    }

    /**
     * Opens the first device of the first platform whose name or vendor contains
     * {@code preferPlatform} (case-insensitive); when none matches, or {@code preferPlatform} is
     * null or empty, the first platform that has a device.
     *
     * @throws OpenClException CL_PLATFORM_NOT_FOUND_KHR / CL_DEVICE_NOT_FOUND when there is nothing to open
     */
    public static ClContext open(String preferPlatform) {
        OpenCl cl = OpenCl.load();
        List<OpenCl.Platform> platforms = cl.platforms();
        if (preferPlatform != null && !preferPlatform.isEmpty()) {
            for (OpenCl.Platform p : platforms) {
                if (matches(p, preferPlatform)) {
                    List<OpenCl.Device> devices = cl.devices(p.id(), OpenCl.CL_DEVICE_TYPE_ALL);
                    if (!devices.isEmpty()) {
                        return new ClContext(cl, p, devices.getFirst());
                    }
                }
            }
        }
        for (OpenCl.Platform p : platforms) {
            List<OpenCl.Device> devices = cl.devices(p.id(), OpenCl.CL_DEVICE_TYPE_ALL);
            if (!devices.isEmpty()) {
                return new ClContext(cl, p, devices.getFirst());
            }
        }
        throw new OpenClException("ClContext.open(\"" + preferPlatform + "\"): " + platforms.size()
                + " platform(s), no device", platforms.isEmpty() ? OpenClException.CL_PLATFORM_NOT_FOUND_KHR : OpenCl.CL_DEVICE_NOT_FOUND);
    }

    /**
     * Like {@link #open} but without fallback: the platform's name or vendor must contain
     * {@code platformSubstring} (case-insensitive) and it must have a device.
     */
    public static ClContext openRequired(String platformSubstring) {
        OpenCl cl = OpenCl.load();
        List<OpenCl.Platform> platforms = cl.platforms();
        for (OpenCl.Platform p : platforms) {
            if (matches(p, platformSubstring)) {
                List<OpenCl.Device> devices = cl.devices(p.id(), OpenCl.CL_DEVICE_TYPE_ALL);
                if (!devices.isEmpty()) {
                    return new ClContext(cl, p, devices.getFirst());
                }
            }
        }
        throw new OpenClException("ClContext.openRequired(\"" + platformSubstring + "\"): no device on a matching"
                + " platform among " + platforms.stream().map(OpenCl.Platform::name).toList(),
                OpenClException.CL_PLATFORM_NOT_FOUND_KHR);
    }

    private static boolean matches(OpenCl.Platform p, String substring) {
        String s = substring.toLowerCase(Locale.ROOT);
        return p.name().toLowerCase(Locale.ROOT).contains(s) || p.vendor().toLowerCase(Locale.ROOT).contains(s);
    }

    /** The bindings. */
    public OpenCl openCl() {
        return cl;
    }

    /** The platform opened. */
    public OpenCl.Platform platform() {
        return platform;
    }

    /** The device opened. */
    public OpenCl.Device device() {
        return device;
    }

    /** The {@code cl_context}. */
    public MemorySegment context() {
        return context;
    }

    /** The {@code cl_command_queue}. */
    public MemorySegment queue() {
        return queue;
    }

    /** Creates a program from OpenCL C source and builds it; a failed build throws with the build log. */
    public ClProgram build(String source, String options) {
        MemorySegment program = cl.createProgramWithSource(context, source);
        return buildOrRelease(program, options);
    }

    /** Creates a program from a device binary (e.g. {@link ClProgram#binary()} or an FPGA .aocx) and builds it. */
    public ClProgram buildFromBinary(byte[] binary, String options) {
        MemorySegment program = cl.createProgramWithBinary(context, device.id(), binary);
        return buildOrRelease(program, options);
    }

    private ClProgram buildOrRelease(MemorySegment program, String options) {
        try {
            cl.buildProgram(program, device.id(), options);
        } catch (RuntimeException e) {
            cl.releaseProgram(program);
            throw e;
        }
        return new ClProgram(this, program);
    }

    /** A read-write device buffer of {@code bytes}. */
    public ClBuffer buffer(long bytes) {
        return buffer(bytes, OpenCl.CL_MEM_READ_WRITE);
    }

    /** A device buffer of {@code bytes} with {@code CL_MEM_*} flags. */
    public ClBuffer buffer(long bytes, long flags) {
        return new ClBuffer(this, cl.createBuffer(context, flags, bytes), bytes);
    }

    /** Blocking write of the whole array to the start of the buffer. */
    public void write(ClBuffer buffer, byte[] data) {
        write(buffer, MemorySegment.ofArray(data));
    }

    /** Blocking write of the whole segment to the start of the buffer. */
    public void write(ClBuffer buffer, MemorySegment data) {
        write(buffer, 0, data);
    }

    /** Blocking write of the whole segment to byte {@code offset} of the buffer. */
    public void write(ClBuffer buffer, long offset, MemorySegment data) {
        cl.enqueueWriteBuffer(queue, buffer.handle(), offset, data, data.byteSize());
    }

    /** Blocking read of {@code data.length} bytes from the start of the buffer. */
    public void read(ClBuffer buffer, byte[] data) {
        read(buffer, MemorySegment.ofArray(data));
    }

    /** Blocking read of {@code data.byteSize()} bytes from the start of the buffer. */
    public void read(ClBuffer buffer, MemorySegment data) {
        read(buffer, 0, data);
    }

    /** Blocking read of {@code data.byteSize()} bytes from byte {@code offset} of the buffer. */
    public void read(ClBuffer buffer, long offset, MemorySegment data) {
        cl.enqueueReadBuffer(queue, buffer.handle(), offset, data, data.byteSize());
    }

    /** Runs the kernel over a 1-D range of {@code globalSize} work items and waits for it. */
    public void run(ClKernel kernel, long globalSize) {
        run(kernel, new long[] {globalSize}, null);
    }

    /** Runs the kernel over an N-D range ({@code local} may be null) and waits for it. */
    public void run(ClKernel kernel, long[] global, long[] local) {
        cl.enqueueNDRangeKernel(queue, kernel.handle(), global, local);
        cl.finish(queue);
    }

    /** Waits for everything enqueued ({@code clFinish}). */
    public void finish() {
        cl.finish(queue);
    }

    /** Releases the queue and the context (once). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                cl.releaseCommandQueue(queue);
            } finally {
                cl.releaseContext(context);
            }
        }
    }

    @Override
    public String toString() {
        return "ClContext[" + platform.name() + " / " + device.name() + " (" + device.typeName() + ")]";
    }
}
