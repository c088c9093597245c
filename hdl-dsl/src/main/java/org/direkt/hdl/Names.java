// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.Set;
import java.util.regex.Pattern;

/** Verilog identifier rules for the names designers choose. */
final class Names {
    private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Verilog-2001 and SystemVerilog keywords: a name from either list would break one of the three tools. */
    private static final Set<String> KEYWORDS = Set.of(
            "always", "and", "assign", "automatic", "begin", "buf", "bufif0", "bufif1", "case", "casex", "casez",
            "cell", "cmos", "config", "deassign", "default", "defparam", "design", "disable", "edge", "else",
            "end", "endcase", "endconfig", "endfunction", "endgenerate", "endmodule", "endprimitive",
            "endspecify", "endtable", "endtask", "event", "for", "force", "forever", "fork", "function",
            "generate", "genvar", "highz0", "highz1", "if", "ifnone", "incdir", "include", "initial", "inout",
            "input", "instance", "integer", "join", "large", "liblist", "library", "localparam", "macromodule",
            "medium", "module", "nand", "negedge", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1",
            "or", "output", "parameter", "pmos", "posedge", "primitive", "pull0", "pull1", "pulldown", "pullup",
            "pulsestyle_ondetect", "pulsestyle_onevent", "rcmos", "real", "realtime", "reg", "release",
            "repeat", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "scalared", "showcancelled", "signed",
            "small", "specify", "specparam", "strong0", "strong1", "supply0", "supply1", "table", "task",
            "time", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior", "trireg", "unsigned",
            "use", "vectored", "wait", "wand", "weak0", "weak1", "while", "wire", "wor", "xnor", "xor",
            "logic", "bit", "byte", "int", "shortint", "longint", "struct", "union", "enum", "typedef",
            "interface", "endinterface", "package", "endpackage", "import", "export", "class", "endclass",
            "property", "sequence", "assert", "assume", "cover", "restrict", "program", "clocking", "modport",
            "final", "unique", "priority", "do", "break", "continue", "return", "void", "type", "var", "const",
            "static", "string", "chandle", "context", "extends", "virtual", "new", "null", "this", "super",
            "local", "protected", "rand", "randc", "constraint", "inside", "dist", "bind", "always_comb",
            "always_ff", "always_latch", "iff", "ref", "alias", "wildcard", "ignore_bins", "bins", "covergroup",
            "endgroup", "coverpoint", "cross", "matches", "tagged", "expect", "first_match", "throughout",
            "within", "intersect", "foreach", "randcase", "randsequence", "solve", "before", "with", "extern",
            "forkjoin", "join_any", "join_none", "pure", "shortreal", "timeprecision", "timeunit");

    private Names() {
    }

    static boolean isIdentifier(String s) {
        return s != null && IDENT.matcher(s).matches() && !KEYWORDS.contains(s);
    }

    static void requireIdentifier(String s, String what) {
        if (!isIdentifier(s)) {
            throw new IllegalArgumentException(what + " '" + s + "' is not a legal Verilog identifier"
                    + " (letters, digits and '_', not starting with a digit, not a keyword)");
        }
    }
}
