// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.examples;

import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Stream;
import org.direkt.hdl.lib.SkidBuffer;

/**
 * A pipeline of register slices joined stream to stream: shows kept hierarchy, instance names,
 * and one module definition shared by every stage with the same parameters.
 */
public final class SkidChain extends Generator<SkidChain.Params> {

    public record Params(int width, int stages) {
        public Params {
            if (width < 1) {
                throw new IllegalArgumentException("SkidChain width " + width + ": must be >= 1");
            }
            if (stages < 1 || stages > 64) {
                throw new IllegalArgumentException("SkidChain stages " + stages + ": must be in 1..64");
            }
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_skid_chain_w" + p.width() + "_n" + p.stages();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain cd = m.domain(new ClockDomain("main", "clk", "rst",
                ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        AvalonSt type = AvalonSt.source(p.width());
        Stream upstream = m.stream("s", type.flip(), cd);
        Stream downstream = m.stream("m", type, cd);
        Stream from = upstream;
        for (int i = 0; i < p.stages(); i++) {
            Instance slice = m.instance("u_slice" + i, new SkidBuffer(), new SkidBuffer.Params(p.width())).clock(cd);
            m.connect(from, slice.stream("s"));
            from = slice.stream("m");
        }
        m.connect(from, downstream);
    }
}
