// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.lib;

import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;

/**
 * A full-throughput Avalon-ST register slice: every output (m_data, m_valid and s_ready) comes
 * straight from a flop, so it cuts both the forward and the ready timing paths, and a second
 * ("skid") register catches the word that arrives in the cycle the sink stalls. Capacity 2 words,
 * 1 word per cycle with no bubbles.
 */
public final class SkidBuffer extends Generator<SkidBuffer.Params> {

    /** Data width and the reset polarity of the clock domain it sits in. */
    public record Params(int width, ClockDomain.ResetPolarity resetPolarity) {
        public Params {
            if (width < 1) {
                throw new IllegalArgumentException("SkidBuffer width = " + width + ": must be >= 1");
            }
            if (resetPolarity == null) {
                throw new IllegalArgumentException("SkidBuffer resetPolarity = null: must be ACTIVE_HIGH or ACTIVE_LOW");
            }
        }

        /** Active-high reset {@code rst}. */
        public Params(int width) {
            this(width, ClockDomain.ResetPolarity.ACTIVE_HIGH);
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_skid_buffer_w" + p.width() + (p.resetPolarity() == ClockDomain.ResetPolarity.ACTIVE_LOW ? "_rn" : "");
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        boolean low = p.resetPolarity() == ClockDomain.ResetPolarity.ACTIVE_LOW;
        ClockDomain cd = m.domain(new ClockDomain("main", "clk", low ? "rst_n" : "rst",
                p.resetPolarity(), ClockDomain.ResetKind.SYNC));
        AvalonSt out = AvalonSt.source(p.width());
        Stream s = m.stream("s", out.flip(), cd);
        Stream mo = m.stream("m", out, cd);

        Reg outValid = m.reg("out_valid", 1, cd).init(0);
        Reg outData = m.reg("out_data", p.width(), cd);
        Reg skidValid = m.reg("skid_valid", 1, cd).init(0);
        Reg skidData = m.reg("skid_data", p.width(), cd);

        // The output register can take a word when it is empty or its word leaves this cycle.
        Signal advance = m.wire("advance", 1);
        advance.set(mo.ready().or(outValid.not()));

        s.ready().set(skidValid.not());
        mo.valid().set(outValid);
        mo.data().set(outData);

        m.when(advance, () -> {
            m.when(skidValid, () -> {
                outValid.set(1);
                outData.set(skidData);
                skidValid.set(0);
            }).otherwise(() -> {
                outValid.set(s.valid());
                outData.set(s.data());
            });
        }).otherwise(() -> {
            m.when(s.fire(), () -> {
                skidValid.set(1);
                skidData.set(s.data());
            });
        });
    }
}
