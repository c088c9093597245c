// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Parser;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.IntervalSet;

/**
 * Lexer and parser set-up shared by the file parser and the re-evaluation of stored expressions:
 * errors throw {@link VerilogSyntaxException} with readable messages instead of being printed, and
 * unterminated comments and strings are rejected before parsing.
 */
final class VerilogParsing {

    /** Expected-token sets larger than this are not spelled out in messages. */
    private static final int MAX_EXPECTED = 6;

    private final String sourceName;
    private final CommonTokenStream tokens;
    private final VerilogHeaderParser parser;

    /**
     * Lexes all of {@code text} and prepares a parser over it.
     *
     * @throws VerilogSyntaxException for an unterminated block comment or string
     */
    VerilogParsing(String text, String sourceName) {
        this.sourceName = sourceName;
        VerilogHeaderLexer lexer = new VerilogHeaderLexer(CharStreams.fromString(text, sourceName));
        lexer.removeErrorListeners();
        lexer.addErrorListener(new Listener());
        tokens = new CommonTokenStream(lexer);
        tokens.fill();
        for (Token t : tokens.getTokens()) {
            if (t.getType() == VerilogHeaderLexer.BLOCK_COMMENT
                    && (t.getText().length() < 4 || !t.getText().endsWith("*/"))) {
                throw error(t, "unterminated block comment");
            }
            if (t.getType() == VerilogHeaderLexer.UNTERMINATED_STRING) {
                throw error(t, "unterminated string literal");
            }
        }
        parser = new VerilogHeaderParser(tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(new Listener());
    }

    VerilogHeaderParser parser() {
        return parser;
    }

    /**
     * The {@code `define} macros of the lexed text, name to body (the last definition of a name
     * wins). Macros with arguments are recorded with a {@code null} body: they cannot be evaluated.
     */
    Map<String, String> defines() {
        Map<String, String> defines = new LinkedHashMap<>();
        for (Token t : tokens.getTokens()) {
            if (t.getType() != VerilogHeaderLexer.DEFINE) {
                continue;
            }
            String rest = t.getText().substring("`define".length()).replaceAll("\\\\\\r?\\n", " ");
            String trimmed = rest.stripLeading();
            int end = 0;
            while (end < trimmed.length()
                    && (Character.isLetterOrDigit(trimmed.charAt(end)) || trimmed.charAt(end) == '_'
                        || trimmed.charAt(end) == '$')) {
                end++;
            }
            if (end == 0) {
                throw error(t, "`define without a macro name");
            }
            String name = trimmed.substring(0, end);
            String body = trimmed.substring(end);
            defines.put(name, body.startsWith("(") ? null : body.strip());
        }
        return defines;
    }

    /** An exception at the start of {@code t}. */
    VerilogSyntaxException error(Token t, String message) {
        return new VerilogSyntaxException(sourceName, t.getLine(), t.getCharPositionInLine() + 1,
                message);
    }

    /** Source-like description of a token for messages: {@code 'text'} or {@code end of file}. */
    static String describe(Token t) {
        if (t == null) {
            return "input";
        }
        if (t.getType() == Token.EOF) {
            return "end of file";
        }
        return "'" + t.getText() + "'";
    }

    /** What a rule is, for "in ..." in messages. */
    private static String ruleDescription(int ruleIndex) {
        return switch (ruleIndex) {
            case VerilogHeaderParser.RULE_sourceText, VerilogHeaderParser.RULE_topItem -> "file";
            case VerilogHeaderParser.RULE_moduleDecl -> "module header";
            case VerilogHeaderParser.RULE_parameterPortList,
                 VerilogHeaderParser.RULE_parameterPortDecl -> "parameter port list";
            case VerilogHeaderParser.RULE_paramType, VerilogHeaderParser.RULE_paramAssignment,
                 VerilogHeaderParser.RULE_parameterDeclaration -> "parameter declaration";
            case VerilogHeaderParser.RULE_portList, VerilogHeaderParser.RULE_portItem,
                 VerilogHeaderParser.RULE_ansiPortDecl -> "port list";
            case VerilogHeaderParser.RULE_portHead, VerilogHeaderParser.RULE_direction,
                 VerilogHeaderParser.RULE_dataKind, VerilogHeaderParser.RULE_portDeclaration ->
                    "port declaration";
            case VerilogHeaderParser.RULE_range, VerilogHeaderParser.RULE_rangeOnly -> "range";
            case VerilogHeaderParser.RULE_moduleBody, VerilogHeaderParser.RULE_moduleItem,
                 VerilogHeaderParser.RULE_otherToken -> "module body (missing 'endmodule'?)";
            case VerilogHeaderParser.RULE_skippedBlock -> "function, task or generate block";
            case VerilogHeaderParser.RULE_primitiveDecl -> "primitive";
            default -> "expression";
        };
    }

    /** Readable name of an expected token type. */
    private static String tokenName(Recognizer<?, ?> recognizer, int type) {
        return switch (type) {
            case Token.EOF -> "end of file";
            case VerilogHeaderLexer.ID, VerilogHeaderLexer.ESCAPED_ID -> "identifier";
            case VerilogHeaderLexer.DECIMAL, VerilogHeaderLexer.BASED_VALUE,
                 VerilogHeaderLexer.REAL_NUMBER -> "number";
            case VerilogHeaderLexer.STRING -> "string";
            case VerilogHeaderLexer.NET_TYPE -> "net type";
            case VerilogHeaderLexer.MACRO_REF -> "`macro";
            case VerilogHeaderLexer.SYSTEM_ID -> "system function";
            case VerilogHeaderLexer.REAL -> "'real'";
            case VerilogHeaderLexer.MODULE -> "'module'";
            default -> recognizer.getVocabulary().getDisplayName(type);
        };
    }

    /** Turns ANTLR's reports into {@link VerilogSyntaxException}s. */
    private final class Listener extends BaseErrorListener {
        @Override
        public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line,
                                int charPositionInLine, String msg, RecognitionException e) {
            if (!(recognizer instanceof Parser p) || !(offendingSymbol instanceof Token token)) {
                throw new VerilogSyntaxException(sourceName, line, charPositionInLine + 1, msg);
            }
            IntervalSet expected = e != null ? e.getExpectedTokens() : p.getExpectedTokens();
            StringBuilder message = new StringBuilder("unexpected ").append(describe(token))
                    .append(" in ").append(ruleDescription(p.getContext().getRuleIndex()));
            Set<String> names = new TreeSet<>();
            if (expected != null) {
                for (int type : expected.toList()) {
                    names.add(tokenName(recognizer, type));
                }
            }
            if (!names.isEmpty() && names.size() <= MAX_EXPECTED) {
                List<String> list = new ArrayList<>(names);
                message.append(", expecting ").append(list.size() == 1
                        ? list.getFirst()
                        : String.join(", ", list.subList(0, list.size() - 1)) + " or " + list.getLast());
            }
            throw new VerilogSyntaxException(sourceName, line, charPositionInLine + 1,
                    message.toString());
        }
    }
}
