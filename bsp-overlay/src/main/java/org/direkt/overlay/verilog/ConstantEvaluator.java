// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.antlr.v4.runtime.Token;

/**
 * Evaluates constant expressions (parameter defaults, port ranges) to 64-bit signed integers.
 * Identifiers are looked up in the parameter values, {@code `MACRO} references in the
 * {@code `define}s of the file. This is integer arithmetic on {@code long}, not Verilog's sized
 * arithmetic: it is exact for the widths and sizes that headers compute.
 */
final class ConstantEvaluator extends VerilogHeaderBaseVisitor<Long> {

    /** An expression without an integer value; {@code token} is where the problem is. */
    static final class EvalException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final transient Token token;

        EvalException(Token token, String message) {
            super(message);
            this.token = token;
        }

        Token token() {
            return token;
        }
    }

    private final Map<String, Long> params;
    private final Map<String, String> macros;
    private final Set<String> expanding;

    /**
     * @param params parameter values; a present name with a {@code null} value is a parameter
     *               without an integer value
     * @param macros {@code `define} bodies ({@code null} for macros with arguments)
     */
    ConstantEvaluator(Map<String, Long> params, Map<String, String> macros) {
        this(params, macros, new HashSet<>());
    }

    private ConstantEvaluator(Map<String, Long> params, Map<String, String> macros,
                              Set<String> expanding) {
        this.params = params;
        this.macros = macros;
        this.expanding = expanding;
    }

    /** The width of a range, {@code |msb - lsb| + 1}. */
    int width(VerilogHeaderParser.RangeContext range) {
        long msb = visit(range.msb);
        long lsb = visit(range.lsb);
        long width = Math.abs(msb - lsb) + 1;
        if (width > Integer.MAX_VALUE || width < 1) {
            throw new EvalException(range.getStart(), "range [" + msb + ":" + lsb + "] is too wide");
        }
        return (int) width;
    }

    @Override
    public Long visitPrimaryExpr(VerilogHeaderParser.PrimaryExprContext ctx) {
        return visit(ctx.primary());
    }

    @Override
    public Long visitUnaryExpr(VerilogHeaderParser.UnaryExprContext ctx) {
        long v = visit(ctx.expression());
        return switch (ctx.op.getType()) {
            case VerilogHeaderLexer.PLUS -> v;
            case VerilogHeaderLexer.MINUS -> negate(ctx.op, v);
            case VerilogHeaderLexer.BANG -> v == 0 ? 1L : 0L;
            default -> ~v;
        };
    }

    @Override
    public Long visitBinaryExpr(VerilogHeaderParser.BinaryExprContext ctx) {
        long a = visit(ctx.expression(0));
        long b = visit(ctx.expression(1));
        Token op = ctx.op;
        try {
            return switch (op.getType()) {
                case VerilogHeaderLexer.POW -> power(op, a, b);
                case VerilogHeaderLexer.STAR -> Math.multiplyExact(a, b);
                case VerilogHeaderLexer.SLASH -> a / nonZero(op, b);
                case VerilogHeaderLexer.PERCENT -> a % nonZero(op, b);
                case VerilogHeaderLexer.PLUS -> Math.addExact(a, b);
                case VerilogHeaderLexer.MINUS -> Math.subtractExact(a, b);
                case VerilogHeaderLexer.SHL, VerilogHeaderLexer.ASHL ->
                        shiftAmount(op, b) >= 64 ? 0L : a << b;
                case VerilogHeaderLexer.SHR -> shiftAmount(op, b) >= 64 ? 0L : a >>> b;
                case VerilogHeaderLexer.ASHR -> a >> Math.min(shiftAmount(op, b), 63);
                case VerilogHeaderLexer.LT -> bool(a < b);
                case VerilogHeaderLexer.LE -> bool(a <= b);
                case VerilogHeaderLexer.GT -> bool(a > b);
                case VerilogHeaderLexer.GE -> bool(a >= b);
                case VerilogHeaderLexer.EQ, VerilogHeaderLexer.CEQ -> bool(a == b);
                case VerilogHeaderLexer.NE, VerilogHeaderLexer.CNE -> bool(a != b);
                case VerilogHeaderLexer.AMP -> a & b;
                case VerilogHeaderLexer.CARET -> a ^ b;
                case VerilogHeaderLexer.PIPE -> a | b;
                case VerilogHeaderLexer.ANDAND -> bool(a != 0 && b != 0);
                case VerilogHeaderLexer.OROR -> bool(a != 0 || b != 0);
                default -> throw new EvalException(op, "unsupported operator '" + op.getText() + "'");
            };
        } catch (ArithmeticException overflow) {
            throw new EvalException(op, "integer overflow in '" + op.getText() + "'");
        }
    }

    @Override
    public Long visitConditionalExpr(VerilogHeaderParser.ConditionalExprContext ctx) {
        return visit(ctx.expression(0)) != 0 ? visit(ctx.expression(1)) : visit(ctx.expression(2));
    }

    @Override
    public Long visitNumberPrimary(VerilogHeaderParser.NumberPrimaryContext ctx) {
        return number(ctx.number());
    }

    @Override
    public Long visitIdentifierPrimary(VerilogHeaderParser.IdentifierPrimaryContext ctx) {
        String name = VerilogHeaders.identifierName(ctx.identifier());
        Token at = ctx.getStart();
        if (!params.containsKey(name)) {
            throw new EvalException(at, "unknown parameter '" + name + "'");
        }
        Long value = params.get(name);
        if (value == null) {
            throw new EvalException(at, "parameter '" + name + "' has no integer value");
        }
        return value;
    }

    @Override
    public Long visitMacroPrimary(VerilogHeaderParser.MacroPrimaryContext ctx) {
        Token at = ctx.MACRO_REF().getSymbol();
        String name = at.getText().substring(1);
        if (!macros.containsKey(name)) {
            throw new EvalException(at, "undefined macro `" + name);
        }
        String body = macros.get(name);
        if (body == null) {
            throw new EvalException(at, "macro `" + name + " takes arguments; not supported here");
        }
        if (!expanding.add(name)) {
            throw new EvalException(at, "macro `" + name + " expands to itself");
        }
        try {
            VerilogHeaderParser.ExpressionOnlyContext expr =
                    new VerilogParsing(body, "`" + name).parser().expressionOnly();
            return new ConstantEvaluator(params, macros, expanding).visit(expr.expression());
        } catch (VerilogSyntaxException | EvalException e) {
            String why = e instanceof VerilogSyntaxException v ? v.detail() : e.getMessage();
            throw new EvalException(at, "in macro `" + name + " (" + body + "): " + why);
        } finally {
            expanding.remove(name);
        }
    }

    @Override
    public Long visitSystemCallPrimary(VerilogHeaderParser.SystemCallPrimaryContext ctx) {
        Token at = ctx.SYSTEM_ID().getSymbol();
        List<VerilogHeaderParser.ExpressionContext> args = ctx.expression();
        if (!at.getText().equals("$clog2")) {
            throw new EvalException(at, "unsupported system function " + at.getText());
        }
        if (args.size() != 1) {
            throw new EvalException(at, "$clog2 takes one argument");
        }
        long v = visit(args.getFirst());
        if (v < 0) {
            throw new EvalException(at, "$clog2 of a negative value (" + v + ")");
        }
        return v <= 1 ? 0L : 64L - Long.numberOfLeadingZeros(v - 1);
    }

    @Override
    public Long visitParenPrimary(VerilogHeaderParser.ParenPrimaryContext ctx) {
        return visit(ctx.expression());
    }

    @Override
    public Long visitStringPrimary(VerilogHeaderParser.StringPrimaryContext ctx) {
        throw new EvalException(ctx.getStart(), "a string is not an integer constant");
    }

    @Override
    public Long visitRealPrimary(VerilogHeaderParser.RealPrimaryContext ctx) {
        throw new EvalException(ctx.getStart(), "a real number is not an integer constant");
    }

    /** A decimal or based number; sized based numbers are truncated and sign-extended. */
    private static long number(VerilogHeaderParser.NumberContext ctx) {
        if (ctx.BASED_VALUE() == null) {
            return toLong(ctx.DECIMAL().getSymbol(), new BigInteger(digits(ctx.DECIMAL().getText())));
        }
        Token based = ctx.BASED_VALUE().getSymbol();
        String text = based.getText().substring(1);
        boolean signed = text.charAt(0) == 's' || text.charAt(0) == 'S';
        if (signed) {
            text = text.substring(1);
        }
        int radix = switch (Character.toLowerCase(text.charAt(0))) {
            case 'b' -> 2;
            case 'o' -> 8;
            case 'd' -> 10;
            default -> 16;
        };
        String digits = digits(text.substring(1).strip());
        if (digits.chars().anyMatch(c -> "xXzZ?".indexOf(c) >= 0)) {
            throw new EvalException(based, "x/z digits in " + based.getText() + " have no integer value");
        }
        BigInteger value;
        try {
            value = new BigInteger(digits, radix);
        } catch (NumberFormatException e) {
            throw new EvalException(based, "invalid digit in " + based.getText());
        }
        if (ctx.size == null) {
            return toLong(based, value);
        }
        BigInteger size = new BigInteger(digits(ctx.size.getText()));
        if (size.signum() == 0 || size.compareTo(BigInteger.valueOf(64)) > 0) {
            throw new EvalException(ctx.size, "size " + size + " of a number must be 1 to 64");
        }
        int bits = size.intValue();
        value = value.and(BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE));
        if (signed && value.testBit(bits - 1)) {
            value = value.subtract(BigInteger.ONE.shiftLeft(bits));
        }
        return value.longValue();
    }

    private static String digits(String text) {
        return text.replace("_", "");
    }

    private static long toLong(Token at, BigInteger value) {
        if (value.bitLength() > 63) {
            throw new EvalException(at, at.getText() + " does not fit in 64 bits");
        }
        return value.longValue();
    }

    private static long negate(Token op, long v) {
        if (v == Long.MIN_VALUE) {
            throw new EvalException(op, "integer overflow in unary '-'");
        }
        return -v;
    }

    private static long nonZero(Token op, long divisor) {
        if (divisor == 0) {
            throw new EvalException(op, "division by zero");
        }
        return divisor;
    }

    private static long shiftAmount(Token op, long amount) {
        if (amount < 0) {
            throw new EvalException(op, "negative shift amount " + amount);
        }
        return amount;
    }

    private static long power(Token op, long base, long exp) {
        if (exp < 0) {
            throw new EvalException(op, "negative exponent " + exp);
        }
        if (base == 0 || base == 1) {
            return exp == 0 ? 1L : base;
        }
        if (base == -1) {
            return exp % 2 == 0 ? 1L : -1L;
        }
        long result = 1;
        for (long i = 0; i < exp; i++) {
            result = Math.multiplyExact(result, base);
        }
        return result;
    }

    private static long bool(boolean b) {
        return b ? 1L : 0L;
    }
}
