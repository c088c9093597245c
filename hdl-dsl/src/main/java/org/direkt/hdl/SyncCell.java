// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The synchroniser module: a chain of at least two flip-flops in the destination domain, each
 * marked {@code ASYNC_REG} (Yosys, Xilinx) and with Intel's synchroniser identification, reset to
 * zero. Its data input is the only port in the library without a clock domain. Use it through
 * {@link Sync#bits}.
 */
public final class SyncCell extends Generator<SyncCell.Params> {

    /** Width, number of flops, and the reset style of the destination domain. */
    public record Params(int width, int stages, ClockDomain.ResetPolarity polarity, ClockDomain.ResetKind kind) {
        public Params {
            if (width < 1) {
                throw new IllegalArgumentException("synchroniser width " + width + ": must be >= 1");
            }
            if (stages < 2) {
                throw new IllegalArgumentException("synchroniser stages " + stages
                        + ": must be >= 2 (one flop does not give metastability time to settle)");
            }
        }
    }

    private static final String INTEL_SYNC = "-name SYNCHRONIZER_IDENTIFICATION FORCED_IF_ASYNCHRONOUS";

    @Override
    public String moduleName(Params p) {
        String reset = (p.polarity() == ClockDomain.ResetPolarity.ACTIVE_LOW ? "n" : "")
                + (p.kind() == ClockDomain.ResetKind.ASYNC ? "a" : "");
        return "direkt_sync_w" + p.width() + "_s" + p.stages() + (reset.isEmpty() ? "" : "_r" + reset);
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain dst = m.domain(new ClockDomain("dst", "clk",
                p.polarity() == ClockDomain.ResetPolarity.ACTIVE_LOW ? "rst_n" : "rst", p.polarity(), p.kind()));
        chain(m, dst, p.width(), p.stages(), r -> r.init(0));
    }

    /**
     * The chain itself, shared with {@link ResetlessSyncCell}: input {@code d} (no domain), output
     * {@code q} in {@code dst}, {@code stages} marked flops, each given its start value by {@code start}.
     */
    static void chain(ModuleBuilder m, ClockDomain dst, int width, int stages, UnaryOperator<Reg> start) {
        Signal d = m.asyncInput("d", width);
        Signal q = m.output("q", width, dst);
        List<Reg> regs = new ArrayList<>();
        for (int i = 0; i < stages; i++) {
            regs.add(start.apply(m.reg("stage" + i, width, dst))
                    .attribute("ASYNC_REG", "TRUE")
                    .attribute("altera_attribute", INTEL_SYNC));
        }
        regs.getFirst().set(d);
        for (int i = 1; i < stages; i++) {
            regs.get(i).set(regs.get(i - 1));
        }
        q.set(regs.getLast());
    }

}
