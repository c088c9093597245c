// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.List;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * The address windows, beside {@link DescChecks} in stage A. A window is an aligned block of 2^k
 * bytes (k >= 20): the first PCIe byte must equal its base in every bit the mask keeps (XOR and AND
 * per bit, an AND-reduce, no carry chain: {@code away}), and the range must not run out of the
 * block, which happens only when it crosses a 1 MB boundary with the first byte's bits [k-1:20]
 * all ones ({@code ones}). Both are registered per window from the crossing word; in stage B a
 * window hits when it allows the direction, the byte is not away, and the range does not both
 * cross and meet all ones. Bits from 48 up are always compared, so a range that wraps past 2^64
 * is outside.
 * The base and mask are read when a descriptor enters stage A, the allow bits one cycle later.
 */
public final class WindowCheck extends Unit<WindowCheck.Params, WindowCheck.Io> {

    public record Params(DescChecks.Params checks, int windows) {
        public Params {
            require(checks != null, "WindowCheck", "checks", checks, "must be given");
            require(windows >= 1 && windows <= 32, "WindowCheck", "windows", windows, "must be in 1..32");
        }
    }

    /**
     * The PCIe address bits [63:20] in; the windows (base and mask bits [63:20] each, allow bit each);
     * stage A's crossing flag; the hits, and whether any window hits.
     */
    public record Io(Signal pcie, Signal winBase, Signal winMask, Signal winAllow, Signal cross, Signal hits, Signal anyHit) {
    }

    /** Address bits compared per window (from WINDOW_MIN_LOG2 up). */
    static final int BITS = 64 - Layout.WINDOW_MIN_LOG2;
    /** Of those, the bits a window's mask covers (below WINDOW_MAX_LOG2); the ones above are always compared. */
    static final int MASK_BITS = Layout.WINDOW_MAX_LOG2 - Layout.WINDOW_MIN_LOG2;

    /** The word the admission stage reads: the payload, the cheap error, a hit bit per window, the FPGA range. */
    public static Layout.Word checkedWord(Params p) {
        List<Layout.Field> f = new ArrayList<>(DescChecks.payload(p.checks().idMode(), p.checks().tagged()));
        int next = f.getLast().msb() + 1;
        f.add(new Layout.Field("cheap_error", next, 4, "first failing check of RESERVED..UNALIGNED, or OK"));
        f.add(new Layout.Field("hits", next + 4, p.windows(), "window i holds the whole PCIe range and allows the direction"));
        f.add(new Layout.Field("fpga_ok", next + 4 + p.windows(), 1, "the FPGA range lies in the configured memory"));
        f.add(new Layout.Field("pass", next + 5 + p.windows(), 1, "every check passed (cheap_error OK, a hit, fpga_ok)"));
        return new Layout.Word("checked", next + 6 + p.windows(), f);
    }

    @Override
    public String moduleName(Params p) {
        DescChecks.Params c = p.checks();
        return "direkt_bridge_windows_" + c.direction().tag() + "_e" + p.windows()
                + (c.idMode() == BridgeModes.IdMode.PAPER ? "_pid" : "") + (c.tagged() ? "" : "_cyc") + c.fetchTag();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int e = p.windows();
        return new Io(at.in("pcie_first", BITS, cd), at.in("win_base", BITS * e, cd),
                at.in("win_mask", MASK_BITS * e, cd), at.in("win_allow", e, cd), at.in("crosses_1m", 1, cd), at.out("hits", e, cd),
                at.out("any_hit", 1, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Address windows of a kernel descriptor: " + p.windows()
                + " aligned power-of-two windows, XOR/AND compares registered in stage A, no carry chain.");
        ClockDomain cd = Domains.MAIN;
        Signal first = io.pcie();
        List<Expr> hits = new ArrayList<>();
        // Whether any window hits, as a choice by the crossing flag between two ORs: of the windows that
        // allow the direction and hold the first byte, and of those whose bits [k-1:20] are not all ones
        // besides. Each term has four inputs, so the ORs and the choice are a shallow tree.
        List<Expr> holds = new ArrayList<>();
        List<Expr> holdsCrossing = new ArrayList<>();
        for (int i = p.windows() - 1; i >= 0; i--) {
            Expr base = io.winBase().bits(BITS * i + BITS - 1, BITS * i);
            Expr mask = io.winMask().bits(MASK_BITS * i + MASK_BITS - 1, MASK_BITS * i);
            Expr differ = first.xor(base);
            // Away in two registered halves (the bits always compared, the bits under the mask), each
            // a shallower tree; stage B ORs them.
            Reg awayHigh = m.reg("away_high_" + i, 1, cd).init(1);
            Reg awayMasked = m.reg("away_masked_" + i, 1, cd).init(1);
            Reg ones = m.reg("ones_" + i, 1, cd).init(0);
            awayHigh.set(differ.bits(BITS - 1, MASK_BITS).orR());
            awayMasked.set(differ.bits(MASK_BITS - 1, 0).and(mask).orR());
            ones.set(first.bits(MASK_BITS - 1, 0).or(mask).andR());
            hits.add(io.winAllow().bit(i).and(awayHigh.or(awayMasked).or(io.cross().and(ones)).not()));
            Expr held = io.winAllow().bit(i).and(awayHigh.not()).and(awayMasked.not());
            holds.add(held);
            holdsCrossing.add(held.and(ones.not()));
        }
        io.hits().set(hits.size() == 1 ? hits.getFirst() : Expr.cat(hits.toArray(Expr[]::new)));
        io.anyHit().set(Expr.mux(io.cross(), holdsCrossing.stream().reduce(Expr::or).orElseThrow(),
                holds.stream().reduce(Expr::or).orElseThrow()));
    }
}
