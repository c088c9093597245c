package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.WhenChain;

/**
 * The bridge's Avalon-MM agent (32-bit data, word addresses, read latency 1, no wait states): the
 * address-window table, per-direction counters, the last error and the configuration, at the
 * offsets of {@link Layout#csrMap}. Every window is closed after reset.
 */
public final class BridgeCsr extends Generator<BridgeCsr.Params> {

    public record Params(Bridge.Params bridge) {
    }

    /** Address bits: enough for the last window register. */
    public static int addressWidth(int windowEntries) {
        return Check.indexWidth(Layout.CSR_WINDOW_OFFSET + Layout.CSR_WINDOW_STRIDE * windowEntries);
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_bridge_csr_e" + p.bridge().windowEntries();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        Bridge.Params b = p.bridge();
        int e = b.windowEntries();
        m.doc("Bridge CSR: " + e + " address windows (closed after reset), counters, last error. "
                + "Avalon-MM agent, 32-bit, word addresses, read latency 1.");
        ClockDomain cd = m.domain(Domains.MAIN);
        int aw = addressWidth(e);
        Signal address = m.input("csr_address", aw, cd);
        Signal read = m.input("csr_read", 1, cd);
        Signal write = m.input("csr_write", 1, cd);
        Signal writedata = m.input("csr_writedata", 32, cd);
        Signal readdata = m.output("csr_readdata", 32, cd);
        Signal readdatavalid = m.output("csr_readdatavalid", 1, cd);

        // ---- windows
        List<Reg> baseLo = new ArrayList<>(), baseHi = new ArrayList<>(), lastLo = new ArrayList<>(), lastHi = new ArrayList<>();
        List<Reg> ctrl = new ArrayList<>();
        for (int w = 0; w < e; w++) {
            baseLo.add(m.reg("win" + w + "_base_lo", 32, cd).init(0));
            baseHi.add(m.reg("win" + w + "_base_hi", 32, cd).init(0));
            lastLo.add(m.reg("win" + w + "_last_lo", 32, cd).init(0));
            lastHi.add(m.reg("win" + w + "_last_hi", 32, cd).init(0));
            ctrl.add(m.reg("win" + w + "_ctrl", 3, cd).init(0));
        }
        List<Expr> bases = new ArrayList<>(), lasts = new ArrayList<>(), allowRd = new ArrayList<>(), allowWr = new ArrayList<>();
        Layout.Word wc = Layout.CSR_WINDOW_CTRL;
        for (int w = e - 1; w >= 0; w--) {
            bases.add(Expr.cat(baseHi.get(w), baseLo.get(w)));
            lasts.add(Expr.cat(lastHi.get(w), lastLo.get(w)));
            Expr en = ctrl.get(w).bit(wc.field("enable").lsb());
            allowRd.add(en.and(ctrl.get(w).bit(wc.field("allow_rd").lsb())));
            allowWr.add(en.and(ctrl.get(w).bit(wc.field("allow_wr").lsb())));
        }
        m.output("win_base", 64 * e, cd).set(cat(bases));
        m.output("win_last", 64 * e, cd).set(cat(lasts));
        m.output("win_allow_rd", e, cd).set(cat(allowRd));
        m.output("win_allow_wr", e, cd).set(cat(allowWr));

        // ---- counters
        Signal clear = m.wire("clear_counters", 1);
        clear.set(write.and(address.eq(Layout.CSR_CONTROL_OFFSET)).and(writedata.bit(0)));
        Map<Integer, Expr> readable = new java.util.LinkedHashMap<>();
        Reg lastError = m.reg("last_error", 32, cd).init(0);
        List<Signal> rejected = new ArrayList<>();
        List<Signal> errors = new ArrayList<>();
        for (int d = 0; d < 2; d++) {
            String t = d == 0 ? "rd" : "wr";
            int base = Layout.CSR_COUNTERS_OFFSET + Layout.CSR_COUNTERS_STRIDE * d;
            for (int i = 0; i < Layout.CSR_EVENTS.size(); i++) {
                String ev = Layout.CSR_EVENTS.get(i);
                Signal pulse = m.input(t + "_ev_" + ev, 1, cd);
                Reg count = m.reg(t + "_" + ev + "_count", 32, cd).init(0);
                m.when(clear, () -> count.set(0)).elseWhen(pulse, () -> count.set(count.plus(1)));
                readable.put(base + i, count);
                if (ev.equals("rejected")) {
                    rejected.add(pulse);
                }
            }
            errors.add(m.input(t + "_ev_error", 4, cd));
            Signal outstanding = m.input(t + "_outstanding", Check.indexWidth(b.inflight() + 1), cd);
            readable.put(base + Layout.CSR_OUTSTANDING_INDEX, outstanding.zext(32));
            Signal hostBuffered = m.input(t + "_host_buffered", 3, cd);
            readable.put(base + Layout.CSR_HOST_BUFFERED_INDEX, hostBuffered.zext(32));
        }
        Layout.Word le = Layout.CSR_LAST_ERROR;
        m.when(write.and(address.eq(Layout.CSR_LAST_ERROR_OFFSET)), () -> lastError.set(0))
                .elseWhen(rejected.get(1), () -> lastError.set(HdlWords.pack(m, le,
                        Map.of("code", errors.get(1), "wr", m.lit(1, 1), "valid", m.lit(1, 1)))))
                .elseWhen(rejected.get(0), () -> lastError.set(HdlWords.pack(m, le,
                        Map.of("code", errors.get(0), "wr", m.lit(0, 1), "valid", m.lit(1, 1)))));

        // ---- window writes
        for (int w = 0; w < e; w++) {
            int base = Layout.CSR_WINDOW_OFFSET + Layout.CSR_WINDOW_STRIDE * w;
            List<Reg> regs = List.of(baseLo.get(w), baseHi.get(w), lastLo.get(w), lastHi.get(w));
            for (int r = 0; r < 4; r++) {
                Reg reg = regs.get(r);
                m.when(write.and(address.eq(base + r)), () -> reg.set(writedata));
                readable.put(base + r, reg);
            }
            Reg c = ctrl.get(w);
            m.when(write.and(address.eq(base + 4)), () -> c.set(writedata.bits(2, 0)));
            readable.put(base + 4, c.zext(32));
        }

        // ---- constants
        Layout.Word cfg = Layout.CSR_CONFIG;
        Map<String, Expr> cfgFields = new java.util.LinkedHashMap<>();
        cfgFields.put("window_entries", m.lit(e, 8));
        cfgFields.put("inflight", m.lit(b.inflight(), 8));
        cfgFields.put("paper_ids", m.lit(b.idMode() == Bridge.IdMode.PAPER ? 1 : 0, 1));
        cfgFields.put("cycles_status", m.lit(b.statusMode() == Bridge.StatusMode.CYCLES ? 1 : 0, 1));
        cfgFields.put("x0_high", m.lit(b.wordOrder() == Bridge.WordOrder.X0_HIGH ? 1 : 0, 1));
        cfgFields.put("sync_stages", m.lit(b.syncStages(), 4));
        readable.put(Layout.CSR_MAGIC_OFFSET, m.lit(Layout.CSR_MAGIC, 32));
        readable.put(Layout.CSR_VERSION_OFFSET, m.lit(Layout.VERSION, 32));
        readable.put(Layout.CSR_CONFIG_OFFSET, HdlWords.pack(m, cfg, cfgFields));
        readable.put(Layout.CSR_FPGA_MEM_LO_OFFSET, m.lit(b.fpgaMemBytes() & 0xFFFF_FFFFL, 32));
        readable.put(Layout.CSR_FPGA_MEM_HI_OFFSET, m.lit(b.fpgaMemBytes() >>> 32, 32));
        readable.put(Layout.CSR_LAST_ERROR_OFFSET, lastError);

        // ---- read port: registered data, valid one cycle after csr_read
        Reg rdata = m.reg("readdata_q", 32, cd).init(0);
        Reg rvalid = m.reg("readdatavalid_q", 1, cd).init(0);
        rvalid.set(read);
        m.when(read, () -> {
            WhenChain chain = null;
            for (Map.Entry<Integer, Expr> r : new java.util.TreeMap<>(readable).entrySet()) {
                Runnable body = () -> rdata.set(r.getValue());
                chain = chain == null ? m.when(address.eq(r.getKey()), body) : chain.elseWhen(address.eq(r.getKey()), body);
            }
            chain.otherwise(() -> rdata.set(0));
        });
        readdata.set(rdata);
        readdatavalid.set(rvalid);
    }

    private static Expr cat(List<Expr> parts) {
        return parts.size() == 1 ? parts.getFirst() : Expr.cat(parts.toArray(Expr[]::new));
    }
}
