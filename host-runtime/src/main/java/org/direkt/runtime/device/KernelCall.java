// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.device;

import java.util.List;
import java.util.Objects;

/**
 * One launch of a kernel: its name in the device's program and its arguments by index, as
 * {@code clSetKernelArg} sets them. The runtime's own issuing kernels
 * ({@code org/direkt/runtime/opencl/direkt_issue.cl}, which a bitstream built for direkt's
 * runtime holds beside the user's kernels) have calls of their own, {@link Issue} and
 * {@link IssueRegion}: one descriptor or region request each, its status written to
 * {@code status_out[0]}.
 */
public sealed interface KernelCall permits KernelCall.Issue, KernelCall.IssueRegion, KernelCall.Named {

    /** The kernel's name in the device's program. */
    String kernel();

    /** Its arguments, argument 0 first. */
    List<Arg> args();

    /** A kernel argument. */
    sealed interface Arg permits ULong, UInt, Statuses {
    }

    /** A {@code ulong} argument. */
    record ULong(long value) implements Arg {
    }

    /** A {@code uint} argument: 0 .. 2^32 - 1. */
    record UInt(long value) implements Arg {
        public UInt {
            if (value < 0 || value > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("uint argument " + value + ": must lie in 0 .. 2^32 - 1");
            }
        }
    }

    /** A {@code __global ulong *} of {@code count} entries the kernel writes its statuses into; the launch returns them. */
    record Statuses(int count) implements Arg {
        public Statuses {
            if (count < 1) {
                throw new IllegalArgumentException("a statuses argument of " + count + " entries: at least 1");
            }
        }
    }

    /**
     * {@code direkt_issue}: one descriptor of {@code bytes} between PCIe bus address
     * {@code gpuBus} and FPGA address {@code fpgaAddress}, GPU -> FPGA when {@code toFpga}, tagged
     * {@code tag}, with descriptor ID 0 (managed IDs).
     */
    record Issue(boolean toFpga, long gpuBus, long fpgaAddress, int bytes, long tag) implements KernelCall {
        public static final String KERNEL = "direkt_issue";

        @Override
        public String kernel() {
            return KERNEL;
        }

        @Override
        public List<Arg> args() {
            return List.of(new ULong(gpuBus), new ULong(fpgaAddress), new UInt(Integer.toUnsignedLong(bytes)), new UInt(tag),
                    new UInt(0), new UInt(toFpga ? 1 : 0), new Statuses(1));
        }
    }

    /**
     * {@code direkt_issue_region}: one region request of {@code bytes} between byte {@code offset}
     * of region {@code region} and FPGA address {@code fpgaAddress}, tagged {@code tag}.
     */
    record IssueRegion(boolean toFpga, int region, long offset, long fpgaAddress, long bytes, long tag) implements KernelCall {
        public static final String KERNEL = "direkt_issue_region";

        @Override
        public String kernel() {
            return KERNEL;
        }

        @Override
        public List<Arg> args() {
            return List.of(new UInt(region), new UInt(offset), new ULong(fpgaAddress), new UInt(bytes), new UInt(tag),
                    new UInt(toFpga ? 1 : 0), new Statuses(1));
        }
    }

    /** Any other kernel of the device's program. */
    record Named(String kernel, List<Arg> args) implements KernelCall {
        public Named {
            Objects.requireNonNull(kernel, "kernel name");
            args = List.copyOf(args);
        }
    }
}
