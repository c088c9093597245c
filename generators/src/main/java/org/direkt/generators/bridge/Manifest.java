// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Json;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.DirektVersion;

/**
 * The overlay manifest {@code direkt-overlay.json}: the {@link Layout} and the bridge's
 * configuration, for everything that is not Java (test benches, OpenCL header, host tools).
 * {@code format_version} changes whenever the file's structure changes; {@code layout.version}
 * whenever a bit moves.
 */
public final class Manifest {
    private Manifest() {
    }

    public static final String FILE_NAME = "direkt-overlay.json";
    public static final int FORMAT_VERSION = 1;

    public static String json(Bridge.Params p) {
        return Json.write(tree(p));
    }

    public static Map<String, Object> tree(Bridge.Params p) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", "direkt-overlay");
        root.put("format_version", FORMAT_VERSION);
        root.put("direkt_version", DirektVersion.get());
        root.put("layout", layout(p));
        root.put("bridge", bridge(p));
        return root;
    }

    static Map<String, Object> layout(Bridge.Params p) {
        int windowEntries = p.windowEntries();
        boolean counters = p.counters();
        boolean bringup = p.bringup();
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("version", Layout.VERSION);
        Map<String, Object> words = new LinkedHashMap<>();
        for (Layout.Word w : Layout.words()) {
            words.put(w.name(), word(w));
        }
        for (Layout.Word w : Layout.csrWords()) {
            words.put(w.name(), word(w));
        }
        l.put("words", words);
        l.put("cldesc_words", Layout.CLDESC_WORDS);
        l.put("max_dwords", Layout.MAX_DWORDS);
        l.put("mover_status_confirmed", Layout.MOVER_STATUS_CONFIRMED);
        l.put("errors", errors());
        // With table-fetch IDs kept, the kernel range ends below them and "table_fetch" names them.
        Map<String, Object> ids = ordered("host", List.of(Layout.HOST_ID_FIRST, Layout.HOST_ID_LAST),
                "kernel", List.of(Layout.KERNEL_ID_FIRST, p.tableFetchFirst() - 1));
        if (p.tableFetchIds() > 0) {
            ids.put("table_fetch", List.of(p.tableFetchFirst(), Layout.KERNEL_ID_LAST));
        }
        l.put("ids", ids);
        Map<String, Object> csr = new LinkedHashMap<>();
        csr.put("data_bits", 32);
        csr.put("addressing", "word");
        csr.put("address_bits", BridgeCsr.addressWidth(p));
        csr.put("read_latency", Layout.CSR_READ_LATENCY);
        csr.put("magic", Layout.CSR_MAGIC);
        csr.put("counters_offset", Layout.CSR_COUNTERS_OFFSET);
        csr.put("counters_stride", Layout.CSR_COUNTERS_STRIDE);
        csr.put("events", counters ? Layout.CSR_EVENTS : List.of());
        csr.put("outstanding_index", Layout.CSR_OUTSTANDING_INDEX);
        csr.put("host_buffered_index", Layout.CSR_HOST_BUFFERED_INDEX);
        csr.put("bringup", bringup);
        csr.put("window_offset", Layout.CSR_WINDOW_OFFSET);
        csr.put("window_stride", Layout.CSR_WINDOW_STRIDE);
        csr.put("window_regs", Layout.CSR_WINDOW_REGS);
        csr.put("window_min_log2", Layout.WINDOW_MIN_LOG2);
        csr.put("window_max_log2", Layout.WINDOW_MAX_LOG2);
        List<Object> regs = new ArrayList<>();
        for (Layout.CsrReg r : BridgeCsr.map(p)) {
            Map<String, Object> reg = new LinkedHashMap<>();
            reg.put("name", r.name());
            reg.put("offset", r.offset());
            reg.put("access", r.access());
            reg.put("doc", r.doc());
            if (r.word() != null) {
                reg.put("word", r.word().name()); // its fields: layout.words
            }
            reg.put("reset", BridgeCsr.resetValue(r, p));
            regs.add(reg);
        }
        csr.put("registers", regs);
        l.put("csr", csr);
        return l;
    }

    /** Every error code by name: its code and meaning. */
    static Map<String, Object> errors() {
        Map<String, Object> errors = new LinkedHashMap<>();
        for (Layout.Error e : Layout.Error.values()) {
            errors.put(e.name(), ordered("code", e.code(), "meaning", e.meaning));
        }
        return errors;
    }

    static Map<String, Object> word(Layout.Word w) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("bits", w.bits());
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Layout.Field f : w.fields()) {
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("lsb", f.lsb());
            fm.put("width", f.width());
            fm.put("doc", f.doc());
            fields.put(f.name(), fm);
        }
        out.put("fields", fields);
        return out;
    }

    /** A map that keeps the order given (Map.of does not, so its JSON would differ from run to run). */
    static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static Map<String, Object> bridge(Bridge.Params p) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("top", new Bridge().moduleName(p));
        for (BridgeParam<?> d : BridgeParam.ALL) {
            if (d.manifestKey() != null) {
                b.put(d.manifestKey(), d.json(p));
            }
        }
        Map<String, Object> clocks = new LinkedHashMap<>();
        clocks.put("kernel", ordered("clock", ChannelPort.KERNEL.clock(), "reset", ChannelPort.KERNEL.reset(), "reset_active_low", true));
        clocks.put("dma", ordered("clock", p.dmaDomain().clock(), "reset", p.dmaDomain().reset(),
                "reset_active_low", p.dmaResetPolarity() == org.direkt.hdl.ClockDomain.ResetPolarity.ACTIVE_LOW));
        b.put("generator_params", BridgeParam.overDefault(p));
        b.put("clocks", clocks);
        List<Object> channels = new ArrayList<>();
        // port 0's four channels first, then each further port's
        for (int k = 0; k < p.ports(); k++) {
            for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
                for (boolean desc : new boolean[] {true, false}) {
                    ChannelPort.Channel c = p.channel(d, desc, k);
                    Map<String, Object> cm = new LinkedHashMap<>();
                    cm.put("direction", d.tag());
                    cm.put("role", desc ? "desc" : "status");
                    if (p.ports() > 1) {
                        cm.put("kernel_port", k);
                    }
                    cm.put("instance", c.instance());
                    cm.put("port", c.port());
                    cm.put("board_port", p.boardPort(c));
                    cm.put("type", c.type().xmlName());
                    cm.put("width", c.width());
                    cm.put("chan_id", c.chanId());
                    channels.add(cm);
                }
            }
        }
        b.put("channels", channels);
        return b;
    }
}
