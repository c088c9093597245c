// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.opencl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.direkt.contract.Layout;
import org.direkt.runtime.ffi.ClBuffer;
import org.direkt.runtime.ffi.ClContext;
import org.direkt.runtime.ffi.ClKernel;
import org.direkt.runtime.ffi.ClProgram;

/**
 * The OpenCL back end's issuing path: builds the overlay's {@code direkt_dma.h} with the runtime's
 * issuing kernel, sets the PCIe address, FPGA address, size, tag and direction with
 * {@code clSetKernelArg} and launches it. On a board the kernel writes the descriptor into the
 * bridge's channel; in the header's emulation mode (any OpenCL implementation, e.g. PoCL) the
 * channel is a buffer, and {@link #issue} returns the 8 words the kernel built so they can be
 * checked against the Java {@link Layout}.
 */
public final class OpenClIssuer implements AutoCloseable {

    /** One descriptor request, as the host hands it to the kernel. */
    public record Request(boolean toFpga, long gpuPaddr, long fpgaAddr, int bytes, int tag, int id) {
    }

    /** What the kernel built and the status it read back (in emulation: the status the host supplied). */
    public record Issued(Request request, long[] words, long status) {
        /** The descriptor as one 256-bit value (x0 in the low bits). */
        public BigInteger value() {
            BigInteger v = BigInteger.ZERO;
            for (int i = Layout.CLDESC_WORDS - 1; i >= 0; i--) {
                v = v.shiftLeft(32).or(BigInteger.valueOf(words[i]));
            }
            return v;
        }
    }

    private static final int DESC_BYTES = Layout.CLDESC.bits() / 8;

    private final ClContext cl;
    private final ClProgram program;
    private final ClKernel kernel;
    private final boolean emulation;
    private final ClBuffer statusOut;
    private final ClBuffer[] emu = new ClBuffer[4];

    /**
     * Builds the issuing kernel against the header in {@code includeDir} (an overlay's
     * {@code include/}); {@code emulation} builds it with {@code DIREKT_EMULATION}.
     */
    public OpenClIssuer(ClContext cl, Path includeDir, boolean emulation) {
        if (!Files.isRegularFile(includeDir.resolve("direkt_dma.h"))) {
            throw new IllegalArgumentException(includeDir + ": no direkt_dma.h (give the overlay's include directory)");
        }
        this.cl = cl;
        this.emulation = emulation;
        String options = "-I " + includeDir.toAbsolutePath() + (emulation ? " -DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=1U" : "");
        this.program = cl.build(kernelSource(), options);
        this.kernel = program.kernel("direkt_issue");
        this.statusOut = cl.buffer(8);
        kernel.argBuffer(6, statusOut);
        if (emulation) {
            // rd desc, rd status, wr desc, wr status: one slot each for the single work-item.
            emu[0] = cl.buffer(DESC_BYTES);
            emu[1] = cl.buffer(8);
            emu[2] = cl.buffer(DESC_BYTES);
            emu[3] = cl.buffer(8);
            for (int i = 0; i < 4; i++) {
                kernel.argBuffer(7 + i, emu[i]);
            }
        }
    }

    static String kernelSource() {
        try (InputStream in = OpenClIssuer.class.getResourceAsStream("direkt_issue.cl")) {
            if (in == null) {
                throw new IllegalStateException("direkt_issue.cl is missing from the runtime's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Launches the kernel once per request. In emulation, {@code statusToReturn} is what the
     * "bridge" answers; the descriptors the kernel wrote are returned.
     */
    public List<Issued> issue(List<Request> requests, long statusToReturn) {
        if (!emulation) {
            throw new IllegalStateException("reading descriptors back needs the header's emulation mode");
        }
        List<Issued> out = new ArrayList<>(requests.size());
        byte[] status = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(statusToReturn).array();
        byte[] zero = new byte[DESC_BYTES];
        for (Request r : requests) {
            int desc = r.toFpga() ? 0 : 2;
            cl.write(emu[desc], zero);
            cl.write(emu[desc + 1], status);
            kernel.argULong(0, r.gpuPaddr()).argULong(1, r.fpgaAddr()).argUInt(2, Integer.toUnsignedLong(r.bytes()))
                    .argUInt(3, Integer.toUnsignedLong(r.tag())).argUInt(4, r.id()).argUInt(5, r.toFpga() ? 1 : 0);
            cl.run(kernel, 1);
            byte[] d = new byte[DESC_BYTES];
            cl.read(emu[desc], d);
            byte[] s = new byte[8];
            cl.read(statusOut, s);
            ByteBuffer bb = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
            long[] words = new long[Layout.CLDESC_WORDS];
            for (int i = 0; i < words.length; i++) {
                words[i] = Integer.toUnsignedLong(bb.getInt());
            }
            out.add(new Issued(r, words, ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN).getLong()));
        }
        return out;
    }

    @Override
    public void close() {
        for (ClBuffer b : emu) {
            if (b != null) {
                b.close();
            }
        }
        statusOut.close();
        kernel.close();
        program.close();
    }
}
