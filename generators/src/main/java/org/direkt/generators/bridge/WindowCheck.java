package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.generators.Domains;
import org.direkt.generators.bridge.Bridge.Direction;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * The address check of a stage-A word, combinational: for each window, whether it holds the whole
 * PCIe range, and whether the FPGA range lies in the configured memory. A window is an aligned
 * block of 2^k bytes (k >= 20): the first byte must equal its base in every bit the mask keeps (XOR
 * and AND per bit, an AND-reduce, no carry chain), and the range must not run out of the block,
 * which happens only when it crosses a 1 MB boundary and the first byte's bits [k-1:20] are all
 * ones. Every mask keeps bit 63, so a range that wraps past 2^64 is outside.
 */
public final class WindowCheck extends Unit<WindowCheck.Params, WindowCheck.Io> {

    public record Params(DescChecks.Params checks, int windows) {
        public Params {
            require(checks != null, "WindowCheck", "checks", checks, "must be given");
            require(windows >= 1 && windows <= 32, "WindowCheck", "windows", windows, "must be in 1..32");
        }
    }

    /** Stage-A word in, the windows (base and mask bits [63:12] each, allow bit each), the checked word out. */
    public record Io(Signal in, Signal winBase, Signal winMask, Signal winAllow, Signal out) {
    }

    /** Bits compared per window. */
    static final int BITS = 64 - Layout.WINDOW_MIN_LOG2;

    /** The word the admission stage reads: the payload, the cheap error, a hit bit per window, the FPGA range. */
    public static Layout.Word checkedWord(Params p) {
        List<Layout.Field> f = new ArrayList<>(DescChecks.payload(p.checks().idMode(), p.checks().tagged()));
        int next = f.getLast().msb() + 1;
        f.add(new Layout.Field("cheap_error", next, 4, "first failing check of RESERVED..UNALIGNED, or OK"));
        f.add(new Layout.Field("hits", next + 4, p.windows(), "window i holds the whole PCIe range and allows the direction"));
        f.add(new Layout.Field("fpga_ok", next + 4 + p.windows(), 1, "the FPGA range lies in the configured memory"));
        return new Layout.Word("checked", next + 5 + p.windows(), f);
    }

    @Override
    public String moduleName(Params p) {
        DescChecks.Params c = p.checks();
        return "direkt_bridge_window_check_" + c.direction().tag() + "_e" + p.windows()
                + (c.idMode() == Bridge.IdMode.PAPER ? "_pid" : "") + (c.tagged() ? "" : "_cyc") + "_m" + c.fpgaBits();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.passThrough(Domains.MAIN);
        int e = p.windows();
        return new Io(at.in("in_data", DescChecks.checkedWord(p.checks()).bits(), cd), at.in("win_base", BITS * e, cd),
                at.in("win_mask", BITS * e, cd), at.in("win_allow", e, cd), at.out("out_data", checkedWord(p).bits(), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("Address windows and FPGA range of a kernel descriptor: " + p.windows()
                + " aligned power-of-two windows, XOR/AND compares, no carry chain.");
        Layout.Word a = DescChecks.checkedWord(p.checks());
        Expr in = io.in();
        Expr src = HdlWords.get(in, a, "src");
        Expr dst = HdlWords.get(in, a, "dst");
        Signal first = m.wire("pcie_first", BITS);
        first.set((p.checks().direction() == Direction.RD ? src : dst).bits(63, Layout.WINDOW_MIN_LOG2));
        Expr cross = HdlWords.get(in, a, "cross_1m");
        List<Expr> hits = new ArrayList<>();
        for (int i = p.windows() - 1; i >= 0; i--) {
            Expr base = io.winBase().bits(BITS * i + BITS - 1, BITS * i);
            Expr mask = io.winMask().bits(BITS * i + BITS - 1, BITS * i);
            Expr away = first.xor(base).and(mask).orR();
            Expr runsOut = cross.and(first.or(mask).andR());
            hits.add(io.winAllow().bit(i).and(away.or(runsOut).not()));
        }
        Signal hit = m.wire("hits", p.windows());
        hit.set(hits.size() == 1 ? hits.getFirst() : Expr.cat(hits.toArray(Expr[]::new)));

        Layout.Word out = checkedWord(p);
        Map<String, Expr> fields = new LinkedHashMap<>();
        for (Layout.Field f : DescChecks.payload(p.checks().idMode(), p.checks().tagged())) {
            fields.put(f.name(), HdlWords.get(in, a, f.name()));
        }
        fields.put("cheap_error", HdlWords.get(in, a, "cheap_error"));
        fields.put("hits", hit);
        fields.put("fpga_ok", DescChecks.fpgaInRange(p.checks(), in));
        io.out().set(HdlWords.pack(m, out, fields));
    }
}
