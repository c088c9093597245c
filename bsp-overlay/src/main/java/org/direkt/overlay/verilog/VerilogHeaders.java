// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.Interval;

/**
 * Reads the module headers of Verilog-2001 files: module names, parameters and ports with their
 * widths. Module bodies are skipped except for non-ANSI port declarations and
 * parameter/localparam declarations; functions, tasks and generate regions are skipped whole.
 *
 * <p>Limits: conditional compilation ({@code `ifdef}) is not evaluated, so every branch is read;
 * {@code `define}s are known file-wide (the last definition wins) and only argument-less macros
 * can be evaluated; expressions are evaluated on 64-bit signed integers; non-ANSI port lists must
 * be plain names (no {@code .name(expr)} or part-selects).
 */
public final class VerilogHeaders {

    private VerilogHeaders() {
    }

    /**
     * Parses the modules of a Verilog source text.
     *
     * @param text       the source
     * @param sourceName the file name used in messages
     * @return the modules in source order
     * @throws VerilogSyntaxException for malformed input, with {@code source:line:col: message}
     */
    public static List<ImportedModule> parse(String text, String sourceName) {
        VerilogParsing parsing = new VerilogParsing(text, sourceName);
        VerilogHeaderParser.SourceTextContext tree = parsing.parser().sourceText();
        Map<String, String> macros = parsing.defines();
        List<ImportedModule> modules = new ArrayList<>();
        Map<String, Token> seen = new HashMap<>();
        for (VerilogHeaderParser.TopItemContext item : tree.topItem()) {
            if (item.moduleDecl() == null) {
                continue;
            }
            ImportedModule module = new ModuleReader(parsing, sourceName, macros).read(item.moduleDecl());
            Token nameToken = item.moduleDecl().identifier().getStart();
            Token previous = seen.putIfAbsent(module.name(), nameToken);
            if (previous != null) {
                throw parsing.error(nameToken, "module '" + module.name() + "' is already defined at "
                        + previous.getLine() + ":" + (previous.getCharPositionInLine() + 1));
            }
            modules.add(module);
        }
        return modules;
    }

    /**
     * Reads and parses a file (UTF-8); the file name in messages is {@code file.toString()}.
     *
     * @throws IOException            if the file cannot be read
     * @throws VerilogSyntaxException for malformed input
     */
    public static List<ImportedModule> parseFile(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** The name an identifier denotes: an escaped identifier loses its backslash. */
    static String identifierName(VerilogHeaderParser.IdentifierContext id) {
        String text = id.getText();
        return id.ESCAPED_ID() != null ? text.substring(1) : text;
    }

    /** The source text of a parse-tree node, comments included. */
    static String sourceText(ParserRuleContext ctx) {
        return ctx.getStart().getInputStream().getText(
                Interval.of(ctx.getStart().getStartIndex(), ctx.getStop().getStopIndex()));
    }

    /** Builds one {@link ImportedModule} from its parse tree. */
    private static final class ModuleReader {

        private final VerilogParsing parsing;
        private final String sourceName;
        private final Map<String, String> macros;
        private final List<String> paramNames = new ArrayList<>();
        private final List<VerilogHeaderParser.ExpressionContext> paramExprs = new ArrayList<>();
        private final List<Boolean> paramLocal = new ArrayList<>();
        private final Map<String, Token> paramTokens = new HashMap<>();
        private Map<String, Long> values = Map.of();

        ModuleReader(VerilogParsing parsing, String sourceName, Map<String, String> macros) {
            this.parsing = parsing;
            this.sourceName = sourceName;
            this.macros = macros;
        }

        ImportedModule read(VerilogHeaderParser.ModuleDeclContext ctx) {
            String name = identifierName(ctx.identifier());
            boolean hasParameterPortList = ctx.parameterPortList() != null;
            if (hasParameterPortList) {
                boolean local = false;
                for (VerilogHeaderParser.ParameterPortDeclContext p
                        : ctx.parameterPortList().parameterPortDecl()) {
                    if (p.PARAMETER() != null || p.LOCALPARAM() != null) {
                        local = p.LOCALPARAM() != null;
                    }
                    addParam(p.paramAssignment(), local);
                }
            }
            List<VerilogHeaderParser.PortDeclarationContext> bodyPorts = new ArrayList<>();
            for (VerilogHeaderParser.ModuleItemContext item : ctx.moduleBody().moduleItem()) {
                if (item.parameterDeclaration() != null) {
                    VerilogHeaderParser.ParameterDeclarationContext d = item.parameterDeclaration();
                    boolean local = d.LOCALPARAM() != null || hasParameterPortList;
                    for (VerilogHeaderParser.ParamAssignmentContext a : d.paramAssignment()) {
                        addParam(a, local);
                    }
                } else if (item.portDeclaration() != null) {
                    bodyPorts.add(item.portDeclaration());
                }
            }
            values = ImportedModule.evaluateParams(paramNames, paramExprs, Map.of(), macros);
            List<Param> params = new ArrayList<>();
            for (int i = 0; i < paramNames.size(); i++) {
                params.add(new Param(paramNames.get(i), sourceText(paramExprs.get(i)),
                        values.get(paramNames.get(i)), paramLocal.get(i)));
            }
            List<Port> ports = ports(name, ctx.portList(), bodyPorts);
            return new ImportedModule(sourceName, name, params, ports, macros);
        }

        private void addParam(VerilogHeaderParser.ParamAssignmentContext a, boolean local) {
            String n = identifierName(a.identifier());
            Token at = a.identifier().getStart();
            Token previous = paramTokens.putIfAbsent(n, at);
            if (previous != null) {
                throw parsing.error(at, "parameter '" + n + "' is already declared at "
                        + previous.getLine() + ":" + (previous.getCharPositionInLine() + 1));
            }
            paramNames.add(n);
            paramExprs.add(a.expression());
            paramLocal.add(local);
        }

        private List<Port> ports(String module, VerilogHeaderParser.PortListContext list,
                                 List<VerilogHeaderParser.PortDeclarationContext> bodyPorts) {
            List<VerilogHeaderParser.PortItemContext> items =
                    list == null ? List.of() : list.portItem();
            if (items.isEmpty() || items.getFirst().ansiPortDecl() == null) {
                return nonAnsiPorts(module, items, bodyPorts);
            }
            if (!bodyPorts.isEmpty()) {
                throw parsing.error(bodyPorts.getFirst().getStart(), "port declaration in the body of"
                        + " module '" + module + "', which has an ANSI port list");
            }
            List<Port> ports = new ArrayList<>();
            Set<String> names = new LinkedHashSet<>();
            VerilogHeaderParser.PortHeadContext head = null;
            for (VerilogHeaderParser.PortItemContext item : items) {
                VerilogHeaderParser.IdentifierContext id;
                if (item.ansiPortDecl() != null) {
                    head = item.ansiPortDecl().portHead();
                    id = item.ansiPortDecl().identifier();
                } else {
                    id = item.identifier();
                }
                ports.add(port(head, id, names));
            }
            return ports;
        }

        private List<Port> nonAnsiPorts(String module, List<VerilogHeaderParser.PortItemContext> items,
                                        List<VerilogHeaderParser.PortDeclarationContext> bodyPorts) {
            Map<String, Token> listed = new LinkedHashMap<>();
            for (VerilogHeaderParser.PortItemContext item : items) {
                if (item.ansiPortDecl() != null) {
                    throw parsing.error(item.getStart(),
                            "ANSI port declaration in a non-ANSI port list (the first port is a bare name)");
                }
                Token at = item.identifier().getStart();
                if (listed.putIfAbsent(identifierName(item.identifier()), at) != null) {
                    throw parsing.error(at, "port '" + identifierName(item.identifier())
                            + "' appears twice in the port list");
                }
            }
            Map<String, Port> declared = new HashMap<>();
            Set<String> names = new LinkedHashSet<>();
            for (VerilogHeaderParser.PortDeclarationContext d : bodyPorts) {
                for (VerilogHeaderParser.IdentifierContext id : d.identifier()) {
                    String n = identifierName(id);
                    if (!listed.containsKey(n)) {
                        throw parsing.error(id.getStart(), d.portHead().direction().getText() + " '" + n
                                + "' is not in the port list of module '" + module + "'");
                    }
                    declared.put(n, port(d.portHead(), id, names));
                }
            }
            List<Port> ports = new ArrayList<>();
            for (Map.Entry<String, Token> e : listed.entrySet()) {
                Port p = declared.get(e.getKey());
                if (p == null) {
                    throw parsing.error(e.getValue(), "port '" + e.getKey()
                            + "' has no input, output or inout declaration");
                }
                ports.add(p);
            }
            return ports;
        }

        /** One port: direction, signedness and width from the declaration head. */
        private Port port(VerilogHeaderParser.PortHeadContext head,
                          VerilogHeaderParser.IdentifierContext id, Set<String> names) {
            String n = identifierName(id);
            Token at = id.getStart();
            if (!names.add(n)) {
                throw parsing.error(at, "port '" + n + "' is declared twice");
            }
            Direction direction = switch (head.direction().getStart().getType()) {
                case VerilogHeaderLexer.INPUT -> Direction.IN;
                case VerilogHeaderLexer.OUTPUT -> Direction.OUT;
                default -> Direction.INOUT;
            };
            boolean signed = head.SIGNED() != null;
            int width = 1;
            String rangeText = "";
            Token kind = head.dataKind() == null ? null : head.dataKind().getStart();
            boolean variable = kind != null && (kind.getType() == VerilogHeaderLexer.INTEGER
                    || kind.getType() == VerilogHeaderLexer.TIME);
            if (variable) {
                if (head.range() != null || head.SIGNED() != null) {
                    throw parsing.error(kind, kind.getText() + " ports take no range and no signed");
                }
                signed = kind.getType() == VerilogHeaderLexer.INTEGER;
                width = kind.getType() == VerilogHeaderLexer.INTEGER ? 32 : 64;
            } else if (head.range() != null) {
                rangeText = sourceText(head.range());
                try {
                    width = new ConstantEvaluator(values, macros).width(head.range());
                } catch (ConstantEvaluator.EvalException e) {
                    throw parsing.error(e.token(), "port '" + n + "' range " + rangeText + ": "
                            + e.getMessage());
                }
            }
            return new Port(n, direction, width, rangeText, signed, at.getLine(),
                    at.getCharPositionInLine() + 1);
        }
    }
}
