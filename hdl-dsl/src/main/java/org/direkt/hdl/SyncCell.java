package org.direkt.hdl;

import java.util.ArrayList;
import java.util.List;

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
        Signal d = m.asyncInput("d", p.width());
        Signal q = m.output("q", p.width(), dst);
        List<Reg> stages = new ArrayList<>();
        for (int i = 0; i < p.stages(); i++) {
            stages.add(m.reg("stage" + i, p.width(), dst).init(0)
                    .attribute("ASYNC_REG", "TRUE")
                    .attribute("altera_attribute", INTEL_SYNC));
        }
        stages.getFirst().set(d);
        for (int i = 1; i < p.stages(); i++) {
            stages.get(i).set(stages.get(i - 1));
        }
        q.set(stages.getLast());
    }

}
