// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes.Direction;
import org.direkt.contract.BridgeModes.IdMode;
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
 * First dma_clk stage of a kernel descriptor: the checks that need no host state (reserved bits,
 * length, ID range, alignment, in {@link Layout.Error} order) and the flags the address checks
 * need from the two short sums. Its output is a register; it never stalls (the {@link CheckPipeline}
 * admits a descriptor only with room for it). The sums themselves are formed on the kernel side,
 * before the crossing ({@link #crossSums}), where the clock has time to spare: here only their
 * bits are tested.
 *
 * <p>No 64-bit "last byte" is formed. A transfer of {@code 4 * dwords} bytes (under 1 MB) from a
 * dword-aligned PCIe address crosses a 1 MB boundary exactly when
 * {@code addr[19:2] + dwords > 2^18} ({@code cross_1m}); a window of 2^k bytes (k >= 20) then holds
 * the whole transfer unless it crosses and the address bits [k-1:20] are all ones. The FPGA range
 * is {@code fpga[fb-1:2] + dwords <= mem / 4} with the bits above {@code fb} zero.
 */
public final class DescChecks extends Unit<DescChecks.Params, DescChecks.Io> {

    /** {@code fetchIds}: paper IDs {@code 256 - fetchIds .. 255} are kept for table fetches and refused ({@link Layout.Error#BAD_ID}). */
    public record Params(Direction direction, IdMode idMode, boolean tagged, long fpgaMemBytes, int fetchIds) {
        public Params {
            require(direction != null && idMode != null, "DescChecks", "direction/idMode", direction, "must be given");
            require(fpgaMemBytes >= 4096 && fpgaMemBytes % 4 == 0, "DescChecks", "fpgaMemBytes", fpgaMemBytes,
                    "must be a multiple of 4, at least 4096");
            require(fetchIds >= 0 && fetchIds <= Bridge.Params.MAX_TABLE_FETCH_IDS, "DescChecks", "fetchIds", fetchIds,
                    "must be in 0.." + Bridge.Params.MAX_TABLE_FETCH_IDS);
            require(fetchIds == 0 || idMode == IdMode.PAPER, "DescChecks", "fetchIds", fetchIds,
                    "must be 0 with managed IDs (the pool never hands out a table-fetch ID)");
        }

        public Params(Direction direction, IdMode idMode, boolean tagged, long fpgaMemBytes) {
            this(direction, idMode, tagged, fpgaMemBytes, 0);
        }

        /** The kept IDs as module names carry them ({@code _f2}; nothing without), so the checks' modules differ. */
        public String fetchTag() {
            return fetchIds == 0 ? "" : "_f" + fetchIds;
        }

        /** The memory size as module names carry it (hex bytes), so two sizes never share a module. */
        public String memTag() {
            return "_mem" + Long.toHexString(fpgaMemBytes);
        }

        /** Address bits of the FPGA memory: {@code fpgaMemBytes - 1} fits in them. */
        public int fpgaBits() {
            return Math.max(1, 64 - Long.numberOfLeadingZeros(fpgaMemBytes - 1));
        }

        /**
         * A power-of-two memory of at least 1 MB is checked like a window: the range stays inside
         * unless it crosses a 1 MB boundary with the address bits [fb-1:20] all ones.
         */
        public boolean fpgaAligned() {
            return Long.bitCount(fpgaMemBytes) == 1 && fpgaMemBytes >= 1L << 20;
        }

        /** Width of the FPGA end sum {@code fpga[fb-1:2] + dwords}: the wider operand plus a carry. */
        public int fpgaSumBits() {
            return Math.max(fpgaBits() - 2, 18) + 1;
        }
    }

    /** Valid in, word in (the crossing word); valid out, word out (the {@link #checkedWord}). */
    public record Io(Signal inValid, Signal inData, Signal outValid, Signal outData) {
    }

    /**
     * What crosses from kernel_clk to dma_clk for one descriptor: the cldesc less what is checked
     * there, and the sums of {@link #crossSums}.
     */
    public static Layout.Word crossWord(Params p) {
        List<Layout.Field> f = new ArrayList<>(payload(p.idMode(), p.tagged()));
        int next = f.getLast().msb() + 1;
        f.add(new Layout.Field("too_long", next, 1, "x4 bits above the length (and, managed, the ID) not zero"));
        f.add(new Layout.Field("reserved_set", next + 1, 1, "x6 or x7 (cycles status: x5 too) not zero"));
        next += 2;
        f.add(new Layout.Field("zero_length", next, 1, "dwords is 0"));
        f.add(new Layout.Field("fpga_high_zero", next + 1, 1, "FPGA address bits above the memory's are zero"));
        next += 2;
        f.add(new Layout.Field("pcie_end_1m", next, 19, "pcie[19:2] + dwords"));
        next += 19;
        if (p.fpgaAligned()) {
            f.add(new Layout.Field("fpga_ones", next, 1, "FPGA address bits [fb-1:20] all ones"));
            f.add(new Layout.Field("fpga_end_1m", next + 1, 19, "fpga[19:2] + dwords"));
            next += 20;
        } else {
            f.add(new Layout.Field("fpga_end", next, p.fpgaSumBits(), "fpga[fb-1:2] + dwords: the end of the FPGA range in dwords"));
            next += p.fpgaSumBits();
        }
        return new Layout.Word("cross", next, f);
    }

    /**
     * The sums and wide tests of the crossing word from the descriptor's addresses and length, formed
     * in the kernel domain: {@code zero_length}, {@code fpga_high_zero}, {@code pcie_end_1m}, and
     * {@code fpga_ones} with {@code fpga_end_1m} (a power-of-two memory of 1 MB or more) or
     * {@code fpga_end}.
     */
    public static Map<String, Expr> crossSums(Params p, Expr src, Expr dst, Expr dwords) {
        boolean rd = p.direction() == Direction.RD;
        Expr pcie = rd ? src : dst;
        Expr fpga = rd ? dst : src;
        int fb = p.fpgaBits();
        Map<String, Expr> sums = new LinkedHashMap<>();
        sums.put("zero_length", dwords.eq(0));
        sums.put("fpga_high_zero", fb >= 64 ? Expr.lit(1, 1) : fpga.bits(63, fb).orR().not());
        sums.put("pcie_end_1m", pcie.bits(19, 2).zext(19).plus(dwords.zext(19)));
        if (p.fpgaAligned()) {
            sums.put("fpga_ones", fb > 20 ? fpga.bits(fb - 1, 20).andR() : Expr.lit(1, 1));
            sums.put("fpga_end_1m", fpga.bits(19, 2).zext(19).plus(dwords.zext(19)));
        } else {
            int w = p.fpgaSumBits();
            sums.put("fpga_end", fpga.bits(p.fpgaBits() - 1, 2).zext(w).plus(dwords.zext(w)));
        }
        return sums;
    }

    /** The descriptor fields that travel through every stage. */
    static List<Layout.Field> payload(IdMode idMode, boolean tagged) {
        List<Layout.Field> f = new ArrayList<>(List.of(
                new Layout.Field("src", 0, 64, "source address"),
                new Layout.Field("dst", 64, 64, "destination address"),
                new Layout.Field("dwords", 128, 18, "length in dwords")));
        int next = 146;
        if (idMode == IdMode.PAPER) {
            f.add(new Layout.Field("id", next, 8, "the kernel's ID"));
            next += 8;
        }
        if (tagged) {
            f.add(new Layout.Field("tag", next, 32, "the kernel's tag"));
        }
        return f;
    }

    /** Stage A's register: the payload, the first failing cheap check, the 1 MB crossing and the FPGA end sum. */
    public static Layout.Word checkedWord(Params p) {
        List<Layout.Field> f = new ArrayList<>(payload(p.idMode(), p.tagged()));
        int next = f.getLast().msb() + 1;
        f.add(new Layout.Field("cheap_error", next, 4, "first failing check of RESERVED..UNALIGNED, or OK"));
        f.add(new Layout.Field("cross_1m", next + 4, 1, "the PCIe range crosses a 1 MB boundary"));
        f.add(new Layout.Field("fpga_high_zero", next + 5, 1, "FPGA address bits above the memory's are zero"));
        if (p.fpgaAligned()) {
            f.add(new Layout.Field("fpga_runs_out", next + 6, 1, "the FPGA range runs past the end of the memory"));
            return new Layout.Word("checked_a", next + 7, f);
        }
        f.add(new Layout.Field("fpga_end", next + 6, p.fpgaSumBits(), "fpga[fb-1:2] + dwords: the end of the FPGA range in dwords"));
        return new Layout.Word("checked_a", next + 6 + p.fpgaSumBits(), f);
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_checks_" + p.direction().tag() + (p.idMode() == IdMode.PAPER ? "_pid" : "")
                + (p.tagged() ? "" : "_cyc") + p.memTag() + p.fetchTag();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        return new Io(at.in("in_valid", 1, cd), at.in("in_data", crossWord(p).bits(), cd),
                at.out("out_valid", 1, cd), at.out("out_data", checkedWord(p).bits(), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc("""
                Kernel descriptor checks that need no host state, in error-code order, and the address checks'
                flags from the sums formed before the crossing. One register stage; never stalls.""");
        ClockDomain cd = Domains.MAIN;
        Layout.Word cross = crossWord(p);
        Layout.Word out = checkedWord(p);
        Expr in = io.inData();
        Signal src = m.wire("src", 64);
        Signal dst = m.wire("dst", 64);
        Signal dwords = m.wire("dwords", 18);
        src.set(HdlWords.get(in, cross, "src"));
        dst.set(HdlWords.get(in, cross, "dst"));
        dwords.set(HdlWords.get(in, cross, "dwords"));

        Expr err = m.lit(Layout.Error.OK.code(), 4);
        // Applied last-to-first so the first failing check in Layout.Error order wins.
        err = Expr.mux(src.bits(1, 0).or(dst.bits(1, 0)).orR(), m.lit(Layout.Error.UNALIGNED.code(), 4), err);
        if (p.idMode() == IdMode.PAPER) {
            Expr id = HdlWords.get(in, cross, "id");
            Expr bad = HdlWords.get(id, Layout.DESC_ID, "kernel").not();
            if (p.fetchIds() > 0) {
                // the top IDs are a descriptor controller's: a mover status naming one is routed to it
                bad = bad.or(id.ge(Layout.KERNEL_ID_LAST + 1 - p.fetchIds()));
            }
            err = Expr.mux(bad, m.lit(Layout.Error.BAD_ID.code(), 4), err);
        }
        err = Expr.mux(HdlWords.get(in, cross, "zero_length"), m.lit(Layout.Error.ZERO_LENGTH.code(), 4), err);
        err = Expr.mux(HdlWords.get(in, cross, "too_long"), m.lit(Layout.Error.TOO_LONG.code(), 4), err);
        err = Expr.mux(HdlWords.get(in, cross, "reserved_set"), m.lit(Layout.Error.RESERVED.code(), 4), err);

        Map<String, Expr> fields = new LinkedHashMap<>();
        for (Layout.Field f : payload(p.idMode(), p.tagged())) {
            fields.put(f.name(), HdlWords.get(in, cross, f.name()));
        }
        fields.put("src", src);
        fields.put("dst", dst);
        fields.put("dwords", dwords);
        fields.put("cheap_error", err);
        fields.put("cross_1m", crosses1m(HdlWords.get(in, cross, "pcie_end_1m")));
        fields.put("fpga_high_zero", HdlWords.get(in, cross, "fpga_high_zero"));
        if (p.fpgaAligned()) {
            fields.put("fpga_runs_out", crosses1m(HdlWords.get(in, cross, "fpga_end_1m")).and(HdlWords.get(in, cross, "fpga_ones")));
        } else {
            fields.put("fpga_end", HdlWords.get(in, cross, "fpga_end"));
        }

        Reg valid = m.reg("a_valid", 1, cd).init(0);
        Reg word = m.reg("a_word", out.bits(), cd);
        valid.set(io.inValid());
        m.when(io.inValid(), () -> word.set(HdlWords.pack(m, out, fields)));
        io.outValid().set(valid);
        io.outData().set(word);
    }

    /** {@code end = addr[19:2] + dwords > 2^18}: the range crosses a 1 MB boundary (the top bit and some bit below). */
    private static Expr crosses1m(Expr end) {
        return end.bit(18).and(end.bits(17, 0).orR());
    }

    /** The FPGA range check on a stage-A word: {@code fpga_end <= mem / 4}, the bits above the memory zero. */
    static Expr fpgaInRange(Params p, Expr aWord) {
        Layout.Word w = checkedWord(p);
        if (p.fpgaAligned()) {
            return HdlWords.get(aWord, w, "fpga_high_zero").and(HdlWords.get(aWord, w, "fpga_runs_out").not());
        }
        Expr end = HdlWords.get(aWord, w, "fpga_end");
        long limit = p.fpgaMemBytes() / 4;
        int width = p.fpgaSumBits();
        Expr inside;
        if (Long.bitCount(limit) == 1) {
            // end <= 2^q: nothing at or above bit q, or exactly 2^q; no comparator chain.
            int q = Long.numberOfTrailingZeros(limit);
            Expr above = end.bits(width - 1, q);
            inside = above.eq(0).or(above.eq(1).and(end.bits(q - 1, 0).eq(0)));
        } else {
            inside = end.le(Expr.lit(BigInteger.valueOf(limit), width));
        }
        return HdlWords.get(aWord, w, "fpga_high_zero").and(inside);
    }
}
