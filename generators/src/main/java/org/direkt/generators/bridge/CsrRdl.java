// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.direkt.contract.Layout;
import org.direkt.hdl.DirektVersion;
import org.direkt.hdl.GeneratedLicence;

/**
 * The bridge's register map in SystemRDL 2.0 ({@code direkt_bridge_csr.rdl}), written from the same
 * {@link Layout#csrMap} and {@link BridgeCsr#resetValue} as the Verilog and the manifest: every
 * register at its byte address (the Avalon-MM agent is word addressed: word offset x 4), every field
 * with its bits, software and hardware access, reset value (none for the bring-up registers, which
 * a reset leaves as they are) and description. It is an export for the
 * tools register maps usually go through (PeakRDL renders the HTML reference and the C header from
 * it); the CSR logic itself comes from {@link BridgeCsr}.
 *
 * <p>Access, by the register's kind in {@link Layout.CsrReg#access}:
 * <ul>
 * <li>{@code ro} constants (MAGIC, VERSION, CONFIG, FPGA_MEM_*): {@code sw = r; hw = na}, the value
 *     as reset; other {@code ro} registers (counters, levels, bring-up): {@code sw = r; hw = w}.</li>
 * <li>{@code wc} (any write clears it): {@code sw = rw; onwrite = wclr; hw = w}.</li>
 * <li>{@code w1} (CONTROL: a write of 1 acts once): {@code sw = w; singlepulse; hw = r}.</li>
 * <li>{@code rw} (the windows): {@code sw = rw; hw = r}.</li>
 * <li>{@code wo} (the region staging registers: written, read as 0): {@code sw = w; hw = r}.</li>
 * <li>fields named {@code reserved} or {@code ignored} read 0 in every register: {@code sw = r; hw = na}.</li>
 * </ul>
 */
public final class CsrRdl {
    private CsrRdl() {
    }

    public static final String FILE_NAME = "direkt_bridge_csr.rdl";
    /** The addrmap's type name: the name PeakRDL gives the C header's and the HTML's top. */
    public static final String ADDRMAP = "direkt_bridge_csr";

    private static final Set<String> CONSTANTS = Set.of("MAGIC", "VERSION", "CONFIG", "FPGA_MEM_LO", "FPGA_MEM_HI");
    private static final Set<String> READS_ZERO = Set.of("reserved", "ignored");

    /** SystemRDL 2.0's reserved words: a name that is one is written escaped ({@code \wr}). */
    private static final Set<String> KEYWORDS = Set.of("abstract", "accesstype", "addressingtype", "addrmap", "alias", "all",
            "bit", "boolean", "bothedge", "compact", "component", "componentwidth", "constraint", "default", "encode", "enum",
            "external", "false", "field", "fullalign", "hw", "inside", "internal", "level", "longint", "mem", "na", "negedge",
            "nonsticky", "number", "onreadtype", "onwritetype", "posedge", "property", "r", "rclr", "ref", "reg", "regalign",
            "regfile", "rset", "ruser", "rw", "rw1", "signal", "sticky", "string", "struct", "sw", "this", "true", "type",
            "unsigned", "w", "w1", "wclr", "woclr", "woset", "wot", "wr", "wset", "wuser", "wzc", "wzs", "wzt");

    /** The RDL text of {@code p}'s register map. */
    public static String rdl(Bridge.Params p) {
        StringBuilder s = new StringBuilder();
        s.append("// ").append(GeneratedLicence.SPDX_LINE).append('\n');
        s.append("// ").append(GeneratedLicence.NOTE).append('\n');
        s.append("// Written by direkt ").append(DirektVersion.get()).append(" from its Layout (version ").append(Layout.VERSION)
                .append("), as the bridge's Verilog and ").append(Manifest.FILE_NAME).append(" are.\n\n");
        s.append("addrmap ").append(ADDRMAP).append(" {\n");
        s.append("    name = \"direkt bridge CSR\";\n");
        s.append("    desc = ").append(quote("The bridge's control and status registers (" + p.windowEntries() + " address windows"
                + (p.counters() ? ", event counters" : "") + (p.bringup() ? ", bring-up registers" : "")
                + "). The Avalon-MM agent is 32 bits wide and word addressed: a register's word address is its byte address"
                + " here divided by 4. Reads take " + Layout.CSR_READ_LATENCY + " cycles.")).append(";\n");
        s.append("    default regwidth = 32;\n");
        s.append("    default accesswidth = 32;\n");
        for (Layout.CsrReg r : BridgeCsr.map(p)) {
            Long reset = BridgeCsr.resetValue(r, p); // null: a reset keeps the value (no reset in RDL)
            s.append('\n');
            s.append("    reg {\n");
            s.append("        name = ").append(quote(r.name())).append(";\n");
            s.append("        desc = ").append(quote(r.doc())).append(";\n");
            List<Layout.Field> fields = r.fields();
            for (Layout.Field f : fields) {
                Long value = reset == null ? null : (reset >>> f.lsb()) & (f.width() == 64 ? -1L : (1L << f.width()) - 1);
                s.append("        field {\n");
                s.append("            desc = ").append(quote(f.doc())).append(";\n");
                for (String property : access(r, f)) {
                    s.append("            ").append(property).append(";\n");
                }
                s.append("        } ").append(id(f.name())).append('[').append(f.msb()).append(':').append(f.lsb()).append(']')
                        .append(value == null ? "" : " = " + hex(value)).append(";\n");
            }
            s.append("    } ").append(id(r.name())).append(" @ ").append(hex(4L * r.offset())).append(";\n");
        }
        s.append("};\n");
        return s.toString();
    }

    /** The SystemRDL access properties of field {@code f} of register {@code r} (see the class comment). */
    static List<String> access(Layout.CsrReg r, Layout.Field f) {
        if (READS_ZERO.contains(f.name())) {
            return List.of("sw = r", "hw = na");
        }
        return switch (r.access()) {
            case "ro" -> CONSTANTS.contains(r.name()) ? List.of("sw = r", "hw = na") : List.of("sw = r", "hw = w");
            case "wc" -> List.of("sw = rw", "onwrite = wclr", "hw = w");
            case "w1" -> List.of("sw = w", "singlepulse", "hw = r");
            case "rw" -> List.of("sw = rw", "hw = r");
            case "wo" -> List.of("sw = w", "hw = r");
            default -> throw new IllegalStateException(r.name() + ": access '" + r.access() + "' has no SystemRDL form");
        };
    }

    /** An instance name as SystemRDL reads it: escaped when it is a reserved word. */
    static String id(String name) {
        return KEYWORDS.contains(name) ? "\\" + name : name;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v).toUpperCase(Locale.ROOT);
    }

    /** A SystemRDL string literal: quotes and backslashes escaped. */
    static String quote(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
