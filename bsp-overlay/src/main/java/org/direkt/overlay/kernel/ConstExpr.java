// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.List;
import java.util.Optional;

/**
 * Integer constant expressions after preprocessing, as array lengths, {@code aligned(N)},
 * {@code depth(N)} and enum values write them: numbers, character constants, enum constants,
 * {@code sizeof(type)}, casts to a type, and C's operators with C's precedence. An identifier that is
 * none of these is what a missing {@code -D} leaves behind, and the failure says so.
 */
final class ConstExpr {

    /** Why an expression has no value. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String reason) {
            super(reason, null, false, false);
        }
    }

    /** What the expression may refer to. */
    interface Scope {
        /** An enum constant's value, if {@code name} is one. */
        Optional<Long> constant(String name);

        /** True when {@code t} starts a type name (a built-in type word, a typedef name, a tag keyword). */
        boolean startsType(PpToken t);

        /** The size of the type written by {@code tokens}. */
        long sizeOf(List<PpToken> tokens) throws Failure;
    }

    private final List<PpToken> t;
    private final Scope scope;
    private int i;

    private ConstExpr(List<PpToken> tokens, Scope scope) {
        this.t = tokens;
        this.scope = scope;
    }

    /**
     * The value of {@code tokens}, which must be one whole expression.
     *
     * @throws Failure naming the undefined macro, or what is not constant
     */
    static long eval(List<PpToken> tokens, Scope scope) throws Failure {
        if (tokens.isEmpty()) {
            throw new Failure("empty expression");
        }
        ConstExpr e = new ConstExpr(tokens, scope);
        long v = e.conditional();
        if (e.i < tokens.size()) {
            throw new Failure("unexpected '" + tokens.get(e.i).text() + "' in a constant expression");
        }
        return v;
    }

    /** The failure for an identifier with no value: the macro a {@code -D} would define. */
    static Failure undefined(String name) {
        return new Failure("'" + name + "' is not a defined macro (nor an enum constant); pass -D " + name
                + "=<value>, as aoc is given it");
    }

    private boolean at(String s) {
        return i < t.size() && t.get(i).is(s);
    }

    private PpToken next() throws Failure {
        if (i >= t.size()) {
            throw new Failure("the constant expression ends too early");
        }
        return t.get(i++);
    }

    private void expect(String s) throws Failure {
        PpToken n = next();
        if (!n.is(s)) {
            throw new Failure("expected '" + s + "' in a constant expression, found '" + n.text() + "'");
        }
    }

    private long conditional() throws Failure {
        long c = binary(0);
        if (at("?")) {
            i++;
            long a = conditional();
            expect(":");
            long b = conditional();
            return c != 0 ? a : b;
        }
        return c;
    }

    private static final List<List<String>> LEVELS = List.of(
            List.of("||"), List.of("&&"), List.of("|"), List.of("^"), List.of("&"), List.of("==", "!="),
            List.of("<", ">", "<=", ">="), List.of("<<", ">>"), List.of("+", "-"), List.of("*", "/", "%"));

    private long binary(int level) throws Failure {
        if (level == LEVELS.size()) {
            return unary();
        }
        long v = binary(level + 1);
        while (i < t.size() && LEVELS.get(level).contains(t.get(i).text()) && t.get(i).kind() == PpToken.Kind.PUNCT) {
            String op = t.get(i++).text();
            long r = binary(level + 1);
            v = switch (op) {
                case "||" -> (v != 0 || r != 0) ? 1 : 0;
                case "&&" -> (v != 0 && r != 0) ? 1 : 0;
                case "|" -> v | r;
                case "^" -> v ^ r;
                case "&" -> v & r;
                case "==" -> v == r ? 1 : 0;
                case "!=" -> v != r ? 1 : 0;
                case "<" -> v < r ? 1 : 0;
                case ">" -> v > r ? 1 : 0;
                case "<=" -> v <= r ? 1 : 0;
                case ">=" -> v >= r ? 1 : 0;
                case "<<" -> v << r;
                case ">>" -> v >> r;
                case "+" -> v + r;
                case "-" -> v - r;
                case "*" -> v * r;
                default -> {
                    if (r == 0) {
                        throw new Failure("division by zero in a constant expression");
                    }
                    yield op.equals("/") ? v / r : v % r;
                }
            };
        }
        return v;
    }

    private long unary() throws Failure {
        PpToken n = next();
        if (n.kind() == PpToken.Kind.PUNCT) {
            switch (n.text()) {
                case "+" -> {
                    return unary();
                }
                case "-" -> {
                    return -unary();
                }
                case "~" -> {
                    return ~unary();
                }
                case "!" -> {
                    return unary() == 0 ? 1 : 0;
                }
                case "(" -> {
                    if (i < t.size() && scope.startsType(t.get(i))) {
                        closing();
                        return unary();
                    }
                    long v = conditional();
                    expect(")");
                    return v;
                }
                default -> throw new Failure("unexpected '" + n.text() + "' in a constant expression");
            }
        }
        return switch (n.kind()) {
            case NUMBER -> number(n.text());
            case CHAR -> character(n.text());
            case IDENT -> {
                if (n.text().equals("sizeof")) {
                    expect("(");
                    int from = i;
                    int to = closing();
                    yield scope.sizeOf(t.subList(from, to));
                }
                yield scope.constant(n.text()).orElseThrow(() -> undefined(n.text()));
            }
            default -> throw new Failure("unexpected " + n.describe() + " in a constant expression");
        };
    }

    /** Skips to just past the ')' that closes the '(' before {@code i}; returns the index of that ')'. */
    private int closing() throws Failure {
        int depth = 1;
        while (i < t.size()) {
            PpToken n = t.get(i++);
            if (n.is("(")) {
                depth++;
            } else if (n.is(")") && --depth == 0) {
                return i - 1;
            }
        }
        throw new Failure("unbalanced '(' in a constant expression");
    }

    /** A C integer constant: decimal, octal, hex or binary, with any u/l suffix. */
    static long number(String text) throws Failure {
        String s = text.replaceAll("[uUlL]+$", "");
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            if (s.startsWith("0b") || s.startsWith("0B")) {
                return Long.parseUnsignedLong(s.substring(2), 2);
            }
            if (s.length() > 1 && s.startsWith("0")) {
                return Long.parseUnsignedLong(s.substring(1), 8);
            }
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw new Failure("'" + text + "' is not an integer constant");
        }
    }

    private static long character(String text) throws Failure {
        String body = text.substring(1, text.length() - 1);
        if (body.length() == 1) {
            return body.charAt(0);
        }
        if (body.startsWith("\\")) {
            String e = body.substring(1);
            switch (e) {
                case "n": return '\n';
                case "t": return '\t';
                case "r": return '\r';
                case "0": return 0;
                case "\\": return '\\';
                case "'": return '\'';
                default:
                    if (e.startsWith("x")) {
                        return Long.parseLong(e.substring(1), 16);
                    }
                    if (e.matches("[0-7]{1,3}")) {
                        return Long.parseLong(e, 8);
                    }
            }
        }
        throw new Failure("character constant " + text + " is not understood here");
    }
}
