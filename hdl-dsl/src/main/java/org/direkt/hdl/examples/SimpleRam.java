// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.examples;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Signal;

/**
 * A simple dual-port RAM: one write port, one registered read port (block-RAM shape) and one
 * asynchronous read port (MLAB shape). Checks that the emitted memory is one Yosys infers.
 */
public final class SimpleRam extends Generator<SimpleRam.Params> {

    public record Params(int width, int depth) {
        public Params {
            if (width < 1) {
                throw new IllegalArgumentException("SimpleRam width " + width + ": must be >= 1");
            }
            if (depth < 2 || Integer.bitCount(depth) != 1) {
                throw new IllegalArgumentException("SimpleRam depth " + depth + ": must be a power of two >= 2");
            }
        }
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_simple_ram_w" + p.width() + "_d" + p.depth();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain cd = m.domain(new ClockDomain("main", "clk", "rst",
                ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        Memory ram = m.memory("ram", p.width(), p.depth(), cd);
        int aw = ram.addrWidth();
        Signal we = m.input("wr_en", 1, cd);
        Signal waddr = m.input("wr_addr", aw, cd);
        Signal wdata = m.input("wr_data", p.width(), cd);
        Signal re = m.input("rd_en", 1, cd);
        Signal raddr = m.input("rd_addr", aw, cd);
        Signal peekAddr = m.input("peek_addr", aw, cd);
        ram.write(waddr, wdata, we);
        Signal rdata = ram.readSync("rd_data_q", raddr, re, cd);
        m.output("rd_data", p.width(), cd).set(rdata);
        m.output("peek_data", p.width(), cd).set(ram.readAsync(peekAddr));
        // The read enable is registered so the read port shows when its data is fresh.
        var valid = m.reg("rd_valid_q", 1, cd).init(0);
        valid.set(re);
        m.output("rd_valid", 1, cd).set(valid);
    }
}
