// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.board.Aperture;
import org.direkt.runtime.board.BoardDevice;
import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.CudaIo;
import org.direkt.runtime.ffi.DeviceMemory;
import org.direkt.runtime.ffi.IoMemoryRefusedException;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.sim.SimulatedFpga;

/**
 * What moves a GPU-master copy ({@link ApertureCopy}) between GPU memory and the FPGA memory the
 * overlay's aperture exposes, by offset into the aperture: on a board ({@link Board}) the GPU's
 * copy engine through the aperture's mapping, registered with CUDA once; on the simulated FPGA
 * ({@link Simulated}) the simulated FPGA's memory from {@code aperture.fpga_base} on. One per
 * session, opened on its first GPU-master copy and closed with the session.
 */
sealed interface ApertureEngine extends AutoCloseable permits ApertureEngine.Board, ApertureEngine.Simulated {

    /** {@code bytes} of GPU memory from byte {@code gpuOffset} of {@code gpu} to byte {@code apertureOffset} of the aperture; on return they are in FPGA memory. */
    void toFpga(GpuMemory.Allocation gpu, long gpuOffset, long apertureOffset, long bytes);

    /** {@code bytes} from byte {@code apertureOffset} of the aperture to byte {@code gpuOffset} of {@code gpu}. */
    void fromFpga(long apertureOffset, GpuMemory.Allocation gpu, long gpuOffset, long bytes);

    /** The aperture's first byte as the GPU's kernels address it (a board's registration), else empty. */
    OptionalLong devicePointer();

    /** What reaches the aperture, for messages. */
    String describe();

    @Override
    void close();

    /**
     * The session's engine for {@code aperture}: the simulated FPGA's memory, or on a board its
     * aperture mapped through the importer module and registered with the session's CUDA GPU.
     *
     * @throws IllegalStateException why GPU-master copies are not possible here: no CUDA GPU beside a board, the
     *     module's refusal ({@link org.direkt.runtime.board.ApertureException}), CUDA's
     *     ({@link IoMemoryRefusedException}), or a device that has no aperture
     */
    static ApertureEngine open(SessionState s, OverlayManifest.Aperture aperture) {
        if (s.fpga instanceof SimulatedFpga) {
            return new Simulated(s, aperture);
        }
        if (s.fpga instanceof BoardDevice board) {
            if (!(s.gpu instanceof GpuMemory.OnCuda gpu)) {
                throw new IllegalStateException("GPU-master copies need a CUDA GPU whose copy engine reaches the aperture, and"
                        + " the session's GPU memory is " + s.gpu.description());
            }
            return Board.open(board.openAperture(), gpu.cuda());
        }
        throw new IllegalStateException(s.fpga.describe() + " has no aperture to map: GPU-master copies run on a board"
                + " (BoardDevice) or the simulated FPGA");
    }

    /**
     * A board's aperture: its mapping registered with CUDA as I/O memory, one stream per direction,
     * and a word of GPU memory for the read that follows every write.
     */
    final class Board implements ApertureEngine {
        private final Aperture aperture;
        private final CudaIo io;
        private final CudaIo.Registered registered;
        private final CudaIo.Stream toFpga;
        private final CudaIo.Stream fromFpga;
        private final DeviceMemory flushWord;

        private Board(Aperture aperture, CudaIo io, CudaIo.Registered registered, CudaIo.Stream toFpga, CudaIo.Stream fromFpga,
                DeviceMemory flushWord) {
            this.aperture = aperture;
            this.io = io;
            this.registered = registered;
            this.toFpga = toFpga;
            this.fromFpga = fromFpga;
            this.flushWord = flushWord;
        }

        /** Registers {@code aperture} and makes the streams; on failure closes what it made and the aperture. */
        static Board open(Aperture aperture, Cuda cuda) {
            AutoCloseable[] made = new AutoCloseable[4];
            try {
                CudaIo io = CudaIo.load();
                CudaIo.Registered r = io.registerIoMemory(aperture.segment());
                made[0] = r;
                CudaIo.Stream in = io.createStream();
                made[1] = in;
                CudaIo.Stream out = io.createStream();
                made[2] = out;
                DeviceMemory word = cuda.allocate(4);
                made[3] = word;
                return new Board(aperture, io, r, in, out, word);
            } catch (RuntimeException e) {
                for (int i = made.length - 1; i >= 0; i--) {
                    closeQuietly(made[i], e);
                }
                closeQuietly(aperture, e);
                throw e;
            }
        }

        private static void closeQuietly(AutoCloseable c, RuntimeException into) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    into.addSuppressed(e);
                }
            }
        }

        private MemorySegment slice(long offset, long bytes) {
            return aperture.segment().asSlice(offset, bytes);
        }

        /**
         * The copy engine writes the aperture; then reads back its last word on the same stream: a
         * read does not pass the posted writes before it on the path from the GPU to the FPGA, so
         * once it completes the writes have reached FPGA memory.
         */
        @Override
        public void toFpga(GpuMemory.Allocation gpu, long gpuOffset, long apertureOffset, long bytes) {
            try {
                io.memcpyDtoHAsync(slice(apertureOffset, bytes), gpu.address() + gpuOffset, toFpga);
                io.memcpyHtoDAsync(flushWord.pointer(), slice(apertureOffset + bytes - 4, 4), toFpga);
                toFpga.synchronize();
            } catch (CudaException e) {
                throw failed("GPU -> FPGA", apertureOffset, bytes, e);
            }
        }

        @Override
        public void fromFpga(long apertureOffset, GpuMemory.Allocation gpu, long gpuOffset, long bytes) {
            try {
                io.memcpyHtoDAsync(gpu.address() + gpuOffset, slice(apertureOffset, bytes), fromFpga);
                fromFpga.synchronize();
            } catch (CudaException e) {
                throw failed("FPGA -> GPU", apertureOffset, bytes, e);
            }
        }

        private IllegalStateException failed(String direction, long offset, long bytes, CudaException e) {
            return new IllegalStateException(direction + " copy of " + bytes + " bytes through " + describe() + " at offset "
                    + Bytes.hex(offset) + " failed: " + e.getMessage() + "; " + IoMemoryRefusedException.PEER_PATH, e);
        }

        @Override
        public OptionalLong devicePointer() {
            return OptionalLong.of(registered.devicePointer());
        }

        @Override
        public String describe() {
            return "the aperture " + aperture;
        }

        /** Destroys the streams, frees the word, unregisters the aperture, then unmaps and closes it. */
        @Override
        public void close() {
            try {
                try {
                    toFpga.close();
                    fromFpga.close();
                    flushWord.close();
                } finally {
                    registered.close();
                }
            } finally {
                aperture.close();
            }
        }
    }

    /**
     * The simulated FPGA's memory {@code [fpga_base, fpga_base + bar_bytes)} standing in for the
     * aperture: a copy goes through a pinned buffer of its own, which the simulated FPGA's host DMA
     * moves to or from FPGA memory (so the bytes are exact, not the timing).
     */
    final class Simulated implements ApertureEngine {
        private final SessionState s;
        private final OverlayManifest.Aperture aperture;

        Simulated(SessionState s, OverlayManifest.Aperture aperture) {
            this.s = s;
            this.aperture = aperture;
        }

        @Override
        public void toFpga(GpuMemory.Allocation gpu, long gpuOffset, long apertureOffset, long bytes) {
            move(true, gpu, gpuOffset, apertureOffset, bytes);
        }

        @Override
        public void fromFpga(long apertureOffset, GpuMemory.Allocation gpu, long gpuOffset, long bytes) {
            move(false, gpu, gpuOffset, apertureOffset, bytes);
        }

        private void move(boolean toFpga, GpuMemory.Allocation gpu, long gpuOffset, long apertureOffset, long bytes) {
            GpuMemory.Pinned pinned = s.gpu.allocatePinned(Math.ceilDiv(bytes, Session.PAGE) * Session.PAGE);
            boolean mapped = false;
            try {
                MemorySegment stage = pinned.segment().asSlice(0, bytes);
                s.fpga.mapPinned(pinned.segment(), "the GPU's side of a GPU-master copy (simulated aperture)");
                mapped = true;
                long fpga = aperture.fpgaBase() + apertureOffset;
                if (toFpga) {
                    gpu.read(stage, gpuOffset, bytes);
                    s.fpga.toFpga(stage, fpga);
                } else {
                    s.fpga.fromFpga(fpga, stage);
                    gpu.write(gpuOffset, stage, bytes);
                }
            } finally {
                try {
                    if (mapped) {
                        s.fpga.unmapPinned(pinned.segment());
                    }
                } finally {
                    pinned.free();
                }
            }
        }

        @Override
        public OptionalLong devicePointer() {
            return OptionalLong.empty();
        }

        @Override
        public String describe() {
            return "the simulated FPGA's memory [" + Bytes.hex(aperture.fpgaBase()) + ", " + Bytes.hex(aperture.fpgaEnd())
                    + "), standing in for BAR " + aperture.bar();
        }

        @Override
        public void close() {
        }
    }
}
