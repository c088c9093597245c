// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.direkt.contract.Layout;

/**
 * The SystemRDL export of the CSR map: every register at 4 x its word offset, in order, with the
 * fields, resets and accesses a register of its kind has. (make rdl-check compiles it with
 * systemrdl-compiler and compares it with the manifest; these tests need no Python.)
 */
class CsrRdlTest {
    private static final Pattern REG = Pattern.compile("\\n    reg \\{\\n(.*?)\\n    \\} (\\S+) @ 0x([0-9A-F]+);", Pattern.DOTALL);
    private static final Pattern FIELD = Pattern.compile("field \\{\\n(.*?)\\n        \\} (\\S+)\\[(\\d+):(\\d+)\\](?: = 0x([0-9A-F]+))?;",
            Pattern.DOTALL);

    /** A field; {@code reset} null when the RDL gives it none. */
    record Field(String name, int msb, int lsb, Long reset, String body) {
    }

    /** name -> (address, fields) in file order. */
    private static Map<String, Map.Entry<Long, List<Field>>> parse(String rdl) {
        Map<String, Map.Entry<Long, List<Field>>> regs = new java.util.LinkedHashMap<>();
        Matcher m = REG.matcher(rdl);
        while (m.find()) {
            List<Field> fields = new ArrayList<>();
            Matcher f = FIELD.matcher(m.group(1));
            while (f.find()) {
                fields.add(new Field(f.group(2), Integer.parseInt(f.group(3)), Integer.parseInt(f.group(4)),
                        f.group(5) == null ? null : Long.parseLong(f.group(5), 16), f.group(1)));
            }
            regs.put(m.group(2), Map.entry(Long.parseLong(m.group(3), 16), fields));
        }
        return regs;
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "paper", "lean"})
    void everyRegisterAtItsByteAddressWithItsFieldsAndResets(String preset) {
        Bridge.Params p = BridgeParam.preset(preset).build();
        var regs = parse(CsrRdl.rdl(p));
        List<Layout.CsrReg> map = Layout.csrMap(p.windowEntries(), p.counters(), p.bringup());
        assertEquals(map.stream().map(r -> CsrRdl.id(r.name())).toList(), List.copyOf(regs.keySet()), "registers, in order");
        for (Layout.CsrReg r : map) {
            var reg = regs.get(r.name());
            assertEquals(4L * r.offset(), reg.getKey(), r.name() + " byte address");
            Long reset = BridgeCsr.resetValue(r, p);
            List<Field> fields = reg.getValue();
            assertEquals(r.fields().size(), fields.size(), r.name() + " fields");
            long rebuilt = 0;
            for (int i = 0; i < fields.size(); i++) {
                Layout.Field want = r.fields().get(i);
                Field got = fields.get(i);
                assertEquals(CsrRdl.id(want.name()), got.name());
                assertEquals(want.msb(), got.msb(), r.name() + "." + want.name());
                assertEquals(want.lsb(), got.lsb(), r.name() + "." + want.name());
                assertEquals(reset == null, got.reset() == null, r.name() + "." + want.name() + ": a reset value exactly when the register has one");
                rebuilt |= got.reset() == null ? 0 : got.reset() << got.lsb();
            }
            if (reset != null) {
                assertEquals(reset, rebuilt, r.name() + ": the fields' resets make the register's");
            }
        }
    }

    @Test
    void resetsAreWhatTheBridgeReportsAfterReset() {
        Bridge.Params p = Bridge.Params.paper();
        var regs = parse(CsrRdl.rdl(p));
        assertEquals(Layout.CSR_MAGIC, regs.get("MAGIC").getValue().get(0).reset());
        Map<String, Long> cfg = BridgeCsr.configFields(p);
        for (Field f : regs.get("CONFIG").getValue()) {
            assertEquals(f.name().equals("reserved") ? 0L : cfg.get(f.name()), f.reset(), "CONFIG." + f.name());
        }
        assertEquals(1L, cfg.get("paper_ids"));
        assertEquals(p.fpgaMemBytes() & 0xFFFF_FFFFL, regs.get("FPGA_MEM_LO").getValue().get(0).reset());
        Field log2 = regs.get("WIN0_SIZE").getValue().get(0);
        assertEquals("log2", log2.name());
        assertEquals(Layout.WINDOW_MIN_LOG2, log2.reset(), "a window is 1 MB after reset");
        Bridge.Params d = Bridge.Params.defaults();
        var withBringup = parse(CsrRdl.rdl(d));
        assertEquals(null, withBringup.get("RD_LAST_MOVER_STATUS").getValue().get(0).reset(), "a reset keeps the bring-up registers");
        assertEquals(null, withBringup.get("WR_LAST_DESC_7").getValue().get(0).reset(), "a reset keeps the bring-up registers");
        assertEquals(0L, withBringup.get("RD_OUTSTANDING").getValue().get(0).reset());
    }

    @Test
    void accessFollowsTheRegistersKind() {
        var regs = parse(CsrRdl.rdl(Bridge.Params.defaults()));
        Field code = regs.get("LAST_ERROR").getValue().get(0);
        assertTrue(code.body().contains("sw = rw;") && code.body().contains("onwrite = wclr;"), "any write clears LAST_ERROR: " + code);
        Field clear = regs.get("CONTROL").getValue().get(0);
        assertTrue(clear.body().contains("sw = w;") && clear.body().contains("singlepulse;"), "CONTROL acts once per write: " + clear);
        assertTrue(regs.get("MAGIC").getValue().get(0).body().contains("hw = na;"), "a constant");
        assertTrue(regs.get("RD_COMPLETED").getValue().get(0).body().contains("hw = w;"), "a counter the logic writes");
        Field enable = regs.get("WIN0_CTRL").getValue().get(0);
        assertTrue(enable.body().contains("sw = rw;") && enable.body().contains("hw = r;"), enable.toString());
        for (var reg : regs.values()) {
            for (Field f : reg.getValue()) {
                if (f.name().equals("reserved") || f.name().equals("ignored")) {
                    assertTrue(f.body().contains("sw = r;") && f.body().contains("hw = na;") && Long.valueOf(0).equals(f.reset()),
                            f.toString());
                }
            }
        }
    }

    @Test
    void reservedWordsAreEscapedAndStringsQuoted() {
        String rdl = CsrRdl.rdl(Bridge.Params.defaults());
        assertTrue(rdl.contains("} \\wr[4:4] = 0x0;"), "LAST_ERROR.wr is a SystemRDL keyword: escaped");
        assertEquals("\"a \\\"b\\\" \\\\c\"", CsrRdl.quote("a \"b\" \\c"));
        assertEquals("count", CsrRdl.id("count"));
        assertTrue(rdl.startsWith("// SPDX-License-Identifier: 0BSD\n"), "generated output carries its licence");
        assertEquals(rdl, CsrRdl.rdl(Bridge.Params.defaults()), "deterministic");
    }
}
