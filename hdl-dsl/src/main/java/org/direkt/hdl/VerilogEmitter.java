// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes elaborated modules as Verilog-2001 that Verilator, Icarus and Yosys accept: one file per
 * module, the designer's names, a {@code // @[File.java:N]} locator on every declaration and
 * always block, and byte-identical output for identical input (no timestamps, no hash order).
 */
public final class VerilogEmitter {

    private VerilogEmitter() {
    }

    /** Every module of the hierarchy under {@code top}, children before parents, keyed by module name. */
    public static Map<String, String> emit(Module top) {
        Map<String, Module> order = new LinkedHashMap<>();
        collect(top, order);
        Map<String, String> out = new LinkedHashMap<>();
        for (Module m : order.values()) {
            out.put(m.name(), new ModuleWriter(m).write());
        }
        return out;
    }

    private static void collect(Module m, Map<String, Module> order) {
        if (order.containsKey(m.name())) {
            return;
        }
        for (Instance i : m.instances()) {
            collect(i.child(), order);
        }
        order.put(m.name(), m);
    }

    /**
     * Writes {@code <module>.v} for every module under {@code top} into {@code dir}; each file is
     * written beside its final name and moved into place, so a reader never sees half a file.
     */
    public static List<Path> writeTo(Module top, Path dir) {
        try {
            Files.createDirectories(dir);
            List<Path> written = new ArrayList<>();
            for (Map.Entry<String, String> e : emit(top).entrySet()) {
                Path target = dir.resolve(e.getKey() + ".v");
                Path tmp = Files.createTempFile(dir, "." + e.getKey(), ".tmp");
                Files.writeString(tmp, e.getValue(), StandardCharsets.UTF_8);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                written.add(target);
            }
            return written;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write Verilog into " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Verilog text of one constant. */
    static String literal(BigInteger v, int width) {
        if (width == 1) {
            return "1'b" + v;
        }
        return v.bitLength() <= 16 ? width + "'d" + v : width + "'h" + v.toString(16);
    }

    /** The synthesis attributes of a memory: RAM style (Yosys, Vivado, Quartus) and collision freedom. */
    private static String memoryAttributes(Memory mem) {
        List<String> yosys = new ArrayList<>();
        List<String> quartus = new ArrayList<>();
        if (mem.isDistributed()) {
            yosys.add("ram_style = \"distributed\"");
            quartus.add("MLAB");
        }
        if (mem.isNoReadWriteCheck()) {
            yosys.add("no_rw_check");
            quartus.add("no_rw_check");
        }
        if (yosys.isEmpty()) {
            return "";
        }
        yosys.add("ramstyle = \"" + String.join(", ", quartus) + "\"");
        return "(* " + String.join(", ", yosys) + " *) ";
    }

    private static String range(int width) {
        return width == 1 ? "" : "[" + (width - 1) + ":0]";
    }

    /** Writes one module. */
    private static final class ModuleWriter {
        private final Module m;
        private final Map<Signal, List<Stmt>> drivers = new LinkedHashMap<>();
        private final StringBuilder logic = new StringBuilder();
        private final List<String[]> temps = new ArrayList<>();
        private int tempCount;

        ModuleWriter(Module m) {
            this.m = m;
            for (Signal p : m.ports()) {
                if (p.kind() == Signal.Kind.OUTPUT) {
                    drivers.put(p, Drivers.project(m.body(), p));
                }
            }
            for (Signal s : m.signals()) {
                if (s.kind() == Signal.Kind.WIRE || s.kind() == Signal.Kind.REG || s.kind() == Signal.Kind.INST_IN) {
                    drivers.put(s, Drivers.project(m.body(), s));
                }
            }
        }

        String write() {
            for (Signal s : m.signals()) {
                emitDriver(s);
            }
            for (Signal p : m.ports()) {
                emitDriver(p);
            }
            for (Memory mem : m.memories()) {
                emitMemory(mem);
            }
            for (Instance inst : m.instances()) {
                emitInstance(inst);
            }

            StringBuilder sb = new StringBuilder();
            sb.append("// ").append(GeneratedLicence.SPDX_LINE).append('\n');
            sb.append("// Generated by direkt hdl-dsl. Do not edit: change the generator and regenerate.\n");
            sb.append("// ").append(GeneratedLicence.NOTE).append('\n');
            sb.append("// module:    ").append(m.name()).append('\n');
            sb.append("// generator: ").append(m.generatorClass()).append('\n');
            sb.append("// params:    ").append(m.params()).append('\n');
            if (!m.doc().isEmpty()) {
                sb.append("//\n");
                for (String line : m.doc()) {
                    sb.append(line.isBlank() ? "//" : "// " + line.stripTrailing()).append('\n');
                }
            }
            sb.append("`timescale 1ns / 1ps\n");
            sb.append("`default_nettype none\n\n");
            sb.append("module ").append(m.name()).append(" (\n");
            List<String[]> portLines = new ArrayList<>();
            for (Signal p : m.ports()) {
                String dir = p.kind() == Signal.Kind.OUTPUT ? "output" : "input ";
                String type = p.kind() == Signal.Kind.OUTPUT && !isContinuous(p) ? "reg " : "wire";
                portLines.add(new String[] {dir + " " + type, range(p.width()), p.name(), p.loc().locator()});
            }
            appendAligned(sb, portLines, true);
            sb.append(");\n");

            List<String[]> decls = new ArrayList<>();
            for (Signal s : m.signals()) {
                String kw = switch (s.kind()) {
                    case REG, MEM_READ -> "reg ";
                    case INST_OUT -> "wire";
                    case WIRE -> isContinuous(s) ? "wire" : "reg ";
                    case INST_IN -> inlined(s) != null ? null : isContinuous(s) ? "wire" : "reg ";
                    default -> throw new IllegalStateException(s.kind().name());
                };
                if (kw == null) {
                    continue;
                }
                String attrs = "";
                String powerUp = "";
                if (s instanceof Reg r) {
                    if (!r.attributes().isEmpty()) {
                        List<String> parts = new ArrayList<>();
                        r.attributes().forEach((k, v) -> parts.add(k + " = \"" + v + "\""));
                        attrs = "(* " + String.join(", ", parts) + " *) ";
                    }
                    // The declaration initialiser: loaded at configuration by the FPGA tools, the init
                    // attribute (and the proofs' initial state) in Yosys.
                    if (r.powerUpValue() != null) {
                        powerUp = " = " + literal(r.powerUpValue(), r.width());
                    }
                }
                decls.add(new String[] {attrs + kw, range(s.width()), s.name() + powerUp + ";", s.loc().locator()});
            }
            for (Memory mem : m.memories()) {
                String attrs = memoryAttributes(mem);
                decls.add(new String[] {attrs + "reg ", range(mem.width()), mem.name() + " [0:" + (mem.depth() - 1) + "];", mem.loc().locator()});
            }
            for (String[] t : temps) {
                decls.add(new String[] {"wire", t[1], t[0] + ";", t[2]});
            }
            if (!decls.isEmpty()) {
                sb.append('\n');
                appendAligned(sb, decls, false);
            }
            sb.append(logic);
            sb.append("\nendmodule\n\n`default_nettype wire\n");
            return sb.toString();
        }

        /** Lines of {kind, range, name, locator}, columns aligned; port lines get commas. */
        private static void appendAligned(StringBuilder sb, List<String[]> lines, boolean ports) {
            int k = 0;
            int r = 0;
            int n = 0;
            for (int i = 0; i < lines.size(); i++) {
                String[] l = lines.get(i);
                k = Math.max(k, l[0].length());
                r = Math.max(r, l[1].length());
                n = Math.max(n, l[2].length() + (ports && i < lines.size() - 1 ? 1 : 0));
            }
            for (int i = 0; i < lines.size(); i++) {
                String[] l = lines.get(i);
                String name = l[2] + (ports && i < lines.size() - 1 ? "," : "");
                String line = "  " + pad(l[0], k) + " " + (r == 0 ? "" : pad(l[1], r) + " ") + pad(name, n) + " " + l[3];
                sb.append(line).append('\n');
            }
        }

        private static String pad(String s, int w) {
            return s.length() >= w ? s : s + " ".repeat(w - s.length());
        }

        private boolean isContinuous(Signal s) {
            return Drivers.single(drivers.getOrDefault(s, List.of())) != null;
        }

        /** The signal an instance input pin connects to directly, or null when it needs its own net. */
        private Signal inlined(Signal pin) {
            Stmt.Assign a = Drivers.single(drivers.getOrDefault(pin, List.of()));
            return a != null && a.value() instanceof Signal src ? src : null;
        }

        // ------------------------------------------------------------ logic

        private void emitDriver(Signal s) {
            List<Stmt> d = drivers.get(s);
            if (d == null || d.isEmpty()) {
                return;
            }
            if (s instanceof Reg r) {
                emitRegister(r, d);
                return;
            }
            if (s.kind() == Signal.Kind.INST_IN && inlined(s) != null) {
                return;
            }
            Stmt.Assign single = Drivers.single(d);
            if (single != null) {
                String rhs = expr(single.value());
                logic.append("\n  assign ").append(s.name()).append(" = ").append(rhs).append("; ")
                        .append(single.loc().locator()).append('\n');
                return;
            }
            StringBuilder body = new StringBuilder();
            statements(body, d, "    ", " = ");
            logic.append('\n').append("  ").append(Drivers.first(d).loc().locator()).append('\n');
            logic.append("  always @(*) begin\n").append(body).append("  end\n");
        }

        private void emitRegister(Reg r, List<Stmt> d) {
            Signal clk = m.clockOf(r.domain());
            Signal rst = m.resetOf(r.domain());
            ClockDomain cd = r.domain();
            boolean async = cd.kind() == ClockDomain.ResetKind.ASYNC && r.resetValue() != null;
            String sens = "posedge " + clk.name() + (async ? " or " + (cd.activeLow() ? "negedge " : "posedge ") + rst.name() : "");
            String enable = r.enable() == null ? null : expr(r.enable());
            StringBuilder body = new StringBuilder();
            if (r.resetValue() != null) {
                body.append("    if (").append(cd.activeLow() ? "!" : "").append(rst.name()).append(") begin\n");
                body.append("      ").append(r.name()).append(" <= ").append(literal(r.resetValue(), r.width())).append(";\n");
                body.append("    end else ").append(enable == null ? "begin\n" : "if (" + enable + ") begin\n");
                statements(body, d, "      ", " <= ");
                body.append("    end\n");
            } else if (enable != null) {
                body.append("    if (").append(enable).append(") begin\n");
                statements(body, d, "      ", " <= ");
                body.append("    end\n");
            } else {
                statements(body, d, "    ", " <= ");
            }
            logic.append('\n').append("  ").append(Drivers.first(d).loc().locator()).append('\n');
            logic.append("  always @(").append(sens).append(") begin\n").append(body).append("  end\n");
        }

        private void statements(StringBuilder sb, List<Stmt> stmts, String indent, String op) {
            for (Stmt st : stmts) {
                if (st instanceof Stmt.Assign a) {
                    sb.append(indent).append(a.target().name()).append(op).append(expr(a.value())).append(";\n");
                } else if (st instanceof Stmt.When w) {
                    whenChain(sb, w, indent, op, false);
                }
            }
        }

        private void whenChain(StringBuilder sb, Stmt.When w, String indent, String op, boolean elseIf) {
            boolean negate = w.then().isEmpty();
            String cond = negate ? "!" + operand(w.cond()) : expr(w.cond());
            sb.append(elseIf ? " else if (" : indent + "if (").append(cond).append(") begin\n");
            statements(sb, negate ? w.otherwise() : w.then(), indent + "  ", op);
            sb.append(indent).append("end");
            if (!negate && !w.otherwise().isEmpty()) {
                if (w.otherwise().size() == 1 && w.otherwise().getFirst() instanceof Stmt.When next) {
                    whenChain(sb, next, indent, op, true);
                    return;
                }
                sb.append(" else begin\n");
                statements(sb, w.otherwise(), indent + "  ", op);
                sb.append(indent).append("end");
            }
            sb.append('\n');
        }

        private void emitMemory(Memory mem) {
            Memory.WritePort w = mem.writePort;
            logic.append('\n').append("  ").append(w.loc().locator()).append('\n');
            logic.append("  always @(posedge ").append(m.clockOf(mem.writeDomain()).name()).append(") begin\n");
            logic.append("    if (").append(expr(w.enable())).append(") begin\n");
            logic.append("      ").append(mem.name()).append('[').append(expr(w.addr())).append("] <= ")
                    .append(expr(w.data())).append(";\n");
            logic.append("    end\n  end\n");
            for (Memory.SyncRead r : mem.syncReads()) {
                logic.append('\n').append("  ").append(r.loc().locator()).append('\n');
                logic.append("  always @(posedge ").append(m.clockOf(r.domain()).name()).append(") begin\n");
                logic.append("    if (").append(expr(r.enable())).append(") begin\n");
                logic.append("      ").append(r.data().name()).append(" <= ").append(mem.name()).append('[')
                        .append(expr(r.addr())).append("];\n");
                logic.append("    end\n  end\n");
            }
        }

        private void emitInstance(Instance inst) {
            List<String[]> conns = new ArrayList<>();
            Module child = inst.child();
            for (Signal p : child.ports()) {
                String net = switch (p.kind()) {
                    case CLOCK -> m.clockOf(inst.bindings.get(p.domain().name())).name();
                    case RESET -> {
                        Reg own = inst.resetOverrides.get(p.domain().name());
                        if (own != null) {
                            yield p.domain().activeLow() ? "~" + own.name() : own.name();
                        }
                        ClockDomain parent = inst.bindings.get(p.domain().name());
                        String rst = m.resetOf(parent).name();
                        yield parent.polarity() == p.domain().polarity() ? rst : "~" + rst;
                    }
                    default -> {
                        Signal pin = inst.pin(p.name());
                        Signal direct = pin.kind() == Signal.Kind.INST_IN ? inlined(pin) : null;
                        yield direct != null ? direct.name() : pin.name();
                    }
                };
                conns.add(new String[] {p.name(), net});
            }
            int w = conns.stream().mapToInt(c -> c[0].length()).max().orElse(0);
            logic.append('\n').append("  ").append(inst.loc().locator()).append('\n');
            logic.append("  ").append(child.name()).append(' ').append(inst.name()).append(" (\n");
            for (int i = 0; i < conns.size(); i++) {
                logic.append("    .").append(pad(conns.get(i)[0], w)).append(" (").append(conns.get(i)[1]).append(')')
                        .append(i < conns.size() - 1 ? "," : "").append('\n');
            }
            logic.append("  );\n");
        }

        // ------------------------------------------------------------ expressions

        /** An expression wrapped in parentheses unless it is a name, a constant or a braced form. */
        private String operand(Expr e) {
            String s = expr(e);
            return atomic(e) ? s : "(" + s + ")";
        }

        /**
         * Whether the Verilog text of {@code e} binds tighter than any operator around it. A slice
         * is emitted in its pushed-down form (a slice of {@code a ^ b} as {@code a[..] ^ b[..]}),
         * so it is atomic only when that form is.
         */
        private static boolean atomic(Expr e) {
            if (!(e instanceof Expr.Op op)) {
                return true;
            }
            return switch (op.kind) {
                case SLICE -> {
                    Expr pushed = Slices.push(op.args.getFirst(), op.a, op.b);
                    yield pushed instanceof Expr.Op p && p.kind == Expr.OpKind.SLICE || atomic(pushed);
                }
                case ZEXT, SEXT, REPEAT, CAT, NOT, REDUCE_AND, REDUCE_OR, REDUCE_XOR -> true;
                default -> false;
            };
        }

        private static boolean unary(Expr e) {
            return e instanceof Expr.Op op && switch (op.kind) {
                case NOT, REDUCE_AND, REDUCE_OR, REDUCE_XOR -> true;
                default -> false;
            };
        }

        /** A name that can take a bit select: the signal itself, or a temporary holding the expression. */
        private String selectable(Expr e) {
            if (e instanceof Signal s) {
                return s.name();
            }
            String name = "_t" + tempCount++;
            temps.add(new String[] {name, range(e.width()), e.loc().locator()});
            logic.append("\n  assign ").append(name).append(" = ").append(expr(e)).append("; ").append(e.loc().locator()).append('\n');
            return name;
        }

        private String expr(Expr e) {
            if (e instanceof Expr.Lit l) {
                return literal(l.value(), l.width());
            }
            if (e instanceof Signal s) {
                return s.name();
            }
            if (e instanceof Memory.AsyncRead r) {
                return r.memory.name() + "[" + expr(r.addr) + "]";
            }
            Expr.Op op = (Expr.Op) e;
            List<Expr> a = op.args;
            return switch (op.kind) {
                case ADD, SUB, MUL, AND, OR, XOR, EQ, NE, LT, LE, GT, GE ->
                        operand(a.get(0)) + " " + op.kind.symbol + " " + operand(a.get(1));
                case SHL, SHR -> operand(a.get(0)) + " " + op.kind.symbol + " "
                        + (a.size() > 1 ? operand(a.get(1)) : Integer.toString(op.a));
                // (a unary operand in parentheses: "~~x" and "&&x" are not Verilog, "~&x" is another operator)
                case NOT, REDUCE_AND, REDUCE_OR, REDUCE_XOR -> op.kind.symbol
                        + (unary(a.get(0)) ? "(" + expr(a.get(0)) + ")" : operand(a.get(0)));
                case SLICE -> slice(a.get(0), op.a, op.b);
                case ZEXT -> "{" + literal(BigInteger.ZERO, op.width() - a.get(0).width()) + ", " + expr(a.get(0)) + "}";
                case SEXT -> {
                    Expr x = a.get(0);
                    String base = selectable(x);
                    String top = x.width() == 1 ? base : base + "[" + (x.width() - 1) + "]";
                    yield "{{" + (op.width() - x.width()) + "{" + top + "}}, " + base + "}";
                }
                case REPEAT -> "{" + op.a + "{" + expr(a.get(0)) + "}}";
                case CAT -> {
                    List<String> parts = new ArrayList<>();
                    for (Expr x : a) {
                        parts.add(expr(x));
                    }
                    yield "{" + String.join(", ", parts) + "}";
                }
                case MUX -> operand(a.get(0)) + " ? " + operand(a.get(1)) + " : " + operand(a.get(2));
            };
        }

        private String slice(Expr x, int hi, int lo) {
            Expr pushed = Slices.push(x, hi, lo);
            if (!(pushed instanceof Expr.Op op) || op.kind != Expr.OpKind.SLICE) {
                return expr(pushed);
            }
            Expr base = op.args.getFirst();
            String name = base instanceof Memory.AsyncRead r ? expr(r) : selectable(base);
            if (base.width() == 1) {
                return name;
            }
            return op.a == op.b ? name + "[" + op.a + "]" : name + "[" + op.a + ":" + op.b + "]";
        }
    }
}
