// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * The channels of an OpenCL C kernel file: what it declares and where it reads and writes them.
 * Everything else in the file is skipped without being parsed, so any C the offline compiler
 * accepts can be read; macros are not expanded.
 *
 * @param sourceName   the file name used in messages
 * @param declarations channel declarations in source order (one per declarator)
 * @param uses         channel calls in source order
 */
public record KernelChannels(String sourceName, List<ChannelDecl> declarations, List<ChannelUse> uses) {

    /** Expected-token sets larger than this are not spelled out in messages. */
    private static final int MAX_EXPECTED = 6;

    /** Copies the lists. */
    public KernelChannels {
        Objects.requireNonNull(sourceName, "sourceName");
        declarations = List.copyOf(declarations);
        uses = List.copyOf(uses);
    }

    /**
     * Finds the channel declarations and channel calls of a kernel source.
     *
     * @param text       OpenCL C source
     * @param sourceName the file name used in messages
     * @throws KernelSyntaxException for a malformed channel declaration or call, an {@code io}
     *         attribute without a string literal, or an unterminated comment, string or character
     */
    public static KernelChannels parse(String text, String sourceName) {
        OpenClChannelsLexer lexer = new OpenClChannelsLexer(CharStreams.fromString(text, sourceName));
        lexer.removeErrorListeners();
        lexer.addErrorListener(new Listener(sourceName));
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        for (Token t : tokens.getTokens()) {
            switch (t.getType()) {
                case OpenClChannelsLexer.BLOCK_COMMENT -> {
                    if (t.getText().length() < 4 || !t.getText().endsWith("*/")) {
                        throw error(sourceName, t, "unterminated comment");
                    }
                }
                case OpenClChannelsLexer.UNTERMINATED_STRING ->
                        throw error(sourceName, t, "unterminated string literal");
                case OpenClChannelsLexer.UNTERMINATED_CHAR ->
                        throw error(sourceName, t, "unterminated character literal");
                default -> { }
            }
        }
        OpenClChannelsParser parser = new OpenClChannelsParser(tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(new Listener(sourceName));
        OpenClChannelsParser.TranslationUnitContext unit = parser.translationUnit();

        List<ChannelDecl> declarations = new ArrayList<>();
        List<ChannelUse> uses = new ArrayList<>();
        for (OpenClChannelsParser.ItemContext item : unit.item()) {
            if (item.channelDecl() != null) {
                OpenClChannelsParser.ChannelDeclContext d = item.channelDecl();
                String type = typeText(d.channelType());
                for (OpenClChannelsParser.DeclaratorContext declarator : d.declarator()) {
                    Token name = declarator.ID().getSymbol();
                    declarations.add(new ChannelDecl(type, name.getText(),
                            ioId(sourceName, declarator.attribute()), name.getLine(),
                            name.getCharPositionInLine() + 1));
                }
            } else if (item.channelCall() != null) {
                OpenClChannelsParser.ChannelCallContext call = item.channelCall();
                Token fn = call.getStart();
                ChannelUse.Kind kind = call instanceof OpenClChannelsParser.ReadCallContext
                        ? ChannelUse.Kind.READ : ChannelUse.Kind.WRITE;
                OpenClChannelsParser.ChannelRefContext ref = call instanceof
                        OpenClChannelsParser.ReadCallContext r ? r.channelRef()
                        : ((OpenClChannelsParser.WriteCallContext) call).channelRef();
                uses.add(new ChannelUse(ref.ID().getText(), kind, fn.getLine(),
                        fn.getCharPositionInLine() + 1));
            }
        }
        return new KernelChannels(sourceName, declarations, uses);
    }

    /**
     * Reads and parses a file (UTF-8); the file name in messages is {@code file.toString()}.
     *
     * @throws IOException           if the file cannot be read
     * @throws KernelSyntaxException for malformed input
     */
    public static KernelChannels parseFile(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** The declaration of channel {@code name}, or {@code null}. */
    public ChannelDecl declaration(String name) {
        return declarations.stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
    }

    /** The uses of channel {@code name}. */
    public List<ChannelUse> usesOf(String name) {
        return uses.stream().filter(u -> u.channel().equals(name)).toList();
    }

    private static String typeText(OpenClChannelsParser.ChannelTypeContext type) {
        if (type instanceof OpenClChannelsParser.TaggedTypeContext tagged) {
            return tagged.tag.getText() + " " + tagged.ID().getText();
        }
        OpenClChannelsParser.NamedTypeContext named = (OpenClChannelsParser.NamedTypeContext) type;
        return named.sign == null ? named.ID().getText() : named.sign.getText() + " " + named.ID().getText();
    }

    /** The string of the declarator's {@code io("...")} attribute item, or {@code null}. */
    private static String ioId(String sourceName, List<OpenClChannelsParser.AttributeContext> attributes) {
        String id = null;
        Token first = null;
        for (OpenClChannelsParser.AttributeContext attribute : attributes) {
            for (OpenClChannelsParser.AttributeItemContext item : attribute.attributeItem()) {
                Token name = item.ID().getSymbol();
                if (!name.getText().equals("io")) {
                    continue;
                }
                if (first != null) {
                    throw error(sourceName, name, "second io attribute (the first is at "
                            + first.getLine() + ":" + (first.getCharPositionInLine() + 1) + ")");
                }
                first = name;
                OpenClChannelsParser.BalancedContext args = item.balanced();
                if (args == null || args.getChildCount() != 1
                        || args.getStart().getType() != OpenClChannelsLexer.STRING) {
                    throw error(sourceName, name, "io attribute takes one string literal, as in io(\"chan_id\")");
                }
                id = unquote(args.getStart().getText());
            }
        }
        return id;
    }

    /** The content of a C string literal, with simple escapes resolved. */
    private static String unquote(String literal) {
        String body = literal.substring(1, literal.length() - 1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length()) {
                char e = body.charAt(++i);
                out.append(switch (e) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case '0' -> '\0';
                    default -> e;
                });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static KernelSyntaxException error(String sourceName, Token t, String message) {
        return new KernelSyntaxException(sourceName, t.getLine(), t.getCharPositionInLine() + 1, message);
    }

    /** Turns ANTLR's reports into {@link KernelSyntaxException}s. */
    private static final class Listener extends BaseErrorListener {

        private final String sourceName;

        Listener(String sourceName) {
            this.sourceName = sourceName;
        }

        @Override
        public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line,
                                int charPositionInLine, String msg, RecognitionException e) {
            if (!(recognizer instanceof Parser p) || !(offendingSymbol instanceof Token token)) {
                throw new KernelSyntaxException(sourceName, line, charPositionInLine + 1, msg);
            }
            String where = switch (p.getContext().getRuleIndex()) {
                case OpenClChannelsParser.RULE_channelDecl, OpenClChannelsParser.RULE_channelType,
                     OpenClChannelsParser.RULE_declarator -> "channel declaration";
                case OpenClChannelsParser.RULE_attribute, OpenClChannelsParser.RULE_attributeItem ->
                        "__attribute__";
                case OpenClChannelsParser.RULE_channelCall, OpenClChannelsParser.RULE_channelRef ->
                        "channel call";
                default -> "channel declaration or call";
            };
            String found = token.getType() == Token.EOF ? "end of file" : "'" + token.getText() + "'";
            StringBuilder message = new StringBuilder("unexpected ").append(found).append(" in ")
                    .append(where);
            IntervalSet expected = e != null ? e.getExpectedTokens() : p.getExpectedTokens();
            Set<String> names = new TreeSet<>();
            if (expected != null) {
                for (int type : expected.toList()) {
                    names.add(switch (type) {
                        case Token.EOF -> "end of file";
                        case OpenClChannelsLexer.ID -> "identifier";
                        case OpenClChannelsLexer.STRING -> "string";
                        case OpenClChannelsLexer.NUMBER -> "number";
                        default -> recognizer.getVocabulary().getDisplayName(type);
                    });
                }
            }
            if (!names.isEmpty() && names.size() <= MAX_EXPECTED) {
                List<String> list = new ArrayList<>(names);
                message.append(", expecting ").append(list.size() == 1 ? list.getFirst()
                        : String.join(", ", list.subList(0, list.size() - 1)) + " or " + list.getLast());
            }
            throw new KernelSyntaxException(sourceName, line, charPositionInLine + 1, message.toString());
        }
    }
}
