// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.Locale;
import java.util.Objects;

import org.direkt.runtime.pcie.Bytes;

/**
 * Which master moves a copy of a given size, per direction: below a direction's crossover size one
 * master, from it on the other ({@link MasterCopies} follows it under {@link MasterCopies.Policy#AUTO}).
 * {@link #MEASURED} is derived from the figures below, each a fixed cost per copy as the host sees it
 * plus bytes over a rate ({@link Cost}); the crossover is the size where the two masters' times meet.
 *
 * <table>
 * <caption>The figures of {@link #MEASURED}</caption>
 * <tr><th>master, direction</th><th>fixed</th><th>rate</th><th>from</th></tr>
 * <tr><td>FPGA, GPU -> FPGA</td><td>{@value #HOST_LAUNCH_MICROS} + 1.08 us</td><td>4.1 GB/s</td><td>the host launches the
 *     issuing kernel and waits for it (assumed, see {@link #HOST_LAUNCH_MICROS}); then the published direct path (Kobayashi
 *     et al. 2018, P100 + Arria 10, Gen3 x8: 4 B in 1.08 us, up to 4.1 GB/s)</td></tr>
 * <tr><td>FPGA, FPGA -> GPU</td><td>{@value #HOST_LAUNCH_MICROS} + 0.24 us</td><td>6.9 GB/s</td><td>likewise (0.24 us, up
 *     to 6.9 GB/s)</td></tr>
 * <tr><td>GPU, GPU -> FPGA</td><td>{@value #GPU_COPY_MICROS} us</td><td>2.36 GB/s</td><td>one stream copy queued and
 *     waited for from Java, measured on an H100 ({@link #GPU_COPY_MICROS}: the copy engine to pinned host memory, the
 *     aperture's upper bound); the rate is published for a GPU writing a PCIe peer's BAR (an NVMe device's on an Alveo
 *     card), GPU writes being posted</td></tr>
 * <tr><td>GPU, FPGA -> GPU</td><td>{@value #GPU_COPY_MICROS} us</td><td>1.04 GB/s</td><td>the same copy; the GPU reading
 *     the same BAR, reads being non-posted (about outstanding reads x bytes per read / round trip: the manifest's
 *     {@code aperture.outstanding_reads} and {@code max_read_bytes} bound it)</td></tr>
 * </table>
 *
 * <p>So the GPU master wins small copies, where a kernel launch costs more than a CUDA copy, and
 * the FPGA master large ones, where its movers are faster than the GPU's accesses to a BAR: GPU ->
 * FPGA below {@link #MEASURED}'s {@link #gpuToFpga()} crossover, FPGA -> GPU below its
 * {@link #fpgaToGpu()} one. A board's own figures give its own table ({@link #of}), or the caller
 * names the crossovers ({@link #crossovers}).
 *
 * @param gpuToFpga the crossover of GPU -> FPGA copies
 * @param fpgaToGpu the crossover of FPGA -> GPU copies
 */
public record MasterTable(Crossover gpuToFpga, Crossover fpgaToGpu) {
    /**
     * The host's cost of one FPGA-master copy before the FPGA issues anything: launching the issuing
     * kernel through the board's OpenCL runtime and waiting for it to finish, in microseconds. Not
     * measured on an Intel board here: the lower end of the 30 to 60 us a vendor documents for
     * dispatching an OpenCL kernel to its FPGA cards (Xilinx SDAccel) stands in until a board's
     * bring-up measures it.
     */
    public static final double HOST_LAUNCH_MICROS = 30;

    /**
     * The host's cost of one GPU-master copy of a few KB, in microseconds: {@code cuMemcpy*Async} on a
     * stream and {@code cuStreamSynchronize}, timed from Java. Measured on an H100 (driver 580.159.04)
     * to pinned host memory, 4 KiB: 8.92 us out of the GPU, 9.65 us into it (medians of 300;
     * {@code aperture-gpu-nvidia-h100-80gb-hbm3.json}, ApertureRateGpuTest); their mean.
     */
    public static final double GPU_COPY_MICROS = 9.3;

    /** A copy's direction. */
    public enum Direction {
        GPU_TO_FPGA("GPU -> FPGA"),
        FPGA_TO_GPU("FPGA -> GPU");

        private final String text;

        Direction(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** One master's time for a copy: {@code fixedMicros} plus the bytes at {@code gbPerSecond} (10^9 bytes a second). */
    public record Cost(double fixedMicros, double gbPerSecond) {
        public Cost {
            if (!(fixedMicros >= 0) || !(gbPerSecond > 0) || Double.isInfinite(fixedMicros) || Double.isInfinite(gbPerSecond)) {
                throw new IllegalArgumentException("a copy's cost of " + fixedMicros + " us + bytes at " + gbPerSecond
                        + " GB/s: the fixed part must be finite and not negative, the rate finite and positive");
            }
        }

        /** Microseconds for {@code bytes}. */
        public double micros(long bytes) {
            return fixedMicros + bytes / (gbPerSecond * 1e3);
        }
    }

    /** Copies of fewer than {@code bytes} bytes go to {@code below}, the rest to the other master. */
    public record Crossover(long bytes, Master below) {
        public Crossover {
            Objects.requireNonNull(below, "the master below the crossover");
            if (bytes < 0) {
                throw new IllegalArgumentException("crossover at " + bytes + " bytes: must not be negative");
            }
        }

        /** The master of a copy of {@code size} bytes. */
        public Master at(long size) {
            return size < bytes ? below : other(below);
        }

        /**
         * Where two masters' times meet: below it the one faster for small copies, from it on the
         * other; a master faster at every size takes them all.
         */
        public static Crossover between(Cost fpgaMaster, Cost gpuMaster) {
            Master small = gpuMaster.fixedMicros() < fpgaMaster.fixedMicros() ? Master.GPU_MASTER : Master.FPGA_MASTER;
            Cost s = small == Master.GPU_MASTER ? gpuMaster : fpgaMaster;
            Cost l = small == Master.GPU_MASTER ? fpgaMaster : gpuMaster;
            if (s.gbPerSecond() >= l.gbPerSecond()) {
                return new Crossover(Long.MAX_VALUE, small);  // faster at every size
            }
            double perByte = 1 / (s.gbPerSecond() * 1e3) - 1 / (l.gbPerSecond() * 1e3);  // us a byte more on the small one's side
            double meet = (l.fixedMicros() - s.fixedMicros()) / perByte;
            return new Crossover(meet >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(meet), small);
        }

        @Override
        public String toString() {
            if (bytes == Long.MAX_VALUE) {
                return words(below) + " at every size";
            }
            return words(below) + " below " + Bytes.size(bytes) + ", " + words(other(below)) + " from there on";
        }
    }

    /** The table of the figures above. */
    public static final MasterTable MEASURED = of(
            new Cost(HOST_LAUNCH_MICROS + 1.08, 4.1), new Cost(GPU_COPY_MICROS, 2.36),
            new Cost(HOST_LAUNCH_MICROS + 0.24, 6.9), new Cost(GPU_COPY_MICROS, 1.04));

    public MasterTable {
        Objects.requireNonNull(gpuToFpga, "the GPU -> FPGA crossover");
        Objects.requireNonNull(fpgaToGpu, "the FPGA -> GPU crossover");
    }

    /** The table of each direction's two costs (FPGA master, GPU master). */
    public static MasterTable of(Cost fpgaMasterToFpga, Cost gpuMasterToFpga, Cost fpgaMasterToGpu, Cost gpuMasterToGpu) {
        return new MasterTable(Crossover.between(fpgaMasterToFpga, gpuMasterToFpga),
                Crossover.between(fpgaMasterToGpu, gpuMasterToGpu));
    }

    /** The GPU master below {@code gpuToFpgaBytes} (GPU -> FPGA) and {@code fpgaToGpuBytes} (FPGA -> GPU), the FPGA master from there on. */
    public static MasterTable crossovers(long gpuToFpgaBytes, long fpgaToGpuBytes) {
        return new MasterTable(new Crossover(gpuToFpgaBytes, Master.GPU_MASTER), new Crossover(fpgaToGpuBytes, Master.GPU_MASTER));
    }

    public Crossover crossover(Direction d) {
        return d == Direction.GPU_TO_FPGA ? gpuToFpga : fpgaToGpu;
    }

    /** The master of a copy of {@code bytes} in direction {@code d}. */
    public Master choose(Direction d, long bytes) {
        return crossover(d).at(bytes);
    }

    static Master other(Master m) {
        return m == Master.GPU_MASTER ? Master.FPGA_MASTER : Master.GPU_MASTER;
    }

    static String words(Master m) {
        return m == Master.GPU_MASTER ? "the GPU master" : "the FPGA master";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "GPU -> FPGA: %s; FPGA -> GPU: %s", gpuToFpga, fpgaToGpu);
    }
}
