// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a preprocessed kernel for what lint-kernel checks: channel declarations (every form the
 * offline compiler accepts: {@code __attribute__} and {@code __attribute}, attributes before or after
 * the name, {@code extern} declarations, channel arrays), the channel builtins ({@code _intel} and
 * {@code _altera}, blocking and {@code _nb}), and the typedefs, structs, unions and enums that give a
 * channel type its width. Everything else is skipped token by token, so any C the compiler accepts
 * can be read.
 *
 * <p>Channel declarations and calls are read strictly: a malformed one is an error naming what was
 * expected, and reading goes on after it. A type declaration the reader does not understand (a
 * function pointer, say) is skipped; a channel of that type then reports why its width is unknown.
 */
final class KernelParser {

    /** What was read. */
    record Parsed(List<ChannelDecl> declarations, List<ChannelUse> uses, KernelTypes types, List<LintMessage> problems) {
    }

    private static final Set<String> READS = Set.of("read_channel_intel", "read_channel_altera",
            "read_channel_nb_intel", "read_channel_nb_altera");
    private static final Set<String> WRITES = Set.of("write_channel_intel", "write_channel_altera",
            "write_channel_nb_intel", "write_channel_nb_altera");
    /** Words that may stand before or after a type without changing its layout. */
    private static final Set<String> QUALIFIERS = Set.of("const", "volatile", "restrict", "static", "extern",
            "__global", "global", "__constant", "constant", "__private", "__local", "local", "inline", "__inline");
    /** The C type words that combine: unsigned long int, short int, signed char. */
    private static final Set<String> TYPE_WORDS = Set.of("signed", "unsigned", "char", "short", "int", "long");
    private static final Set<String> NOT_TYPES = Set.of("__attribute__", "__attribute", "channel", "typedef",
            "struct", "union", "enum", "sizeof", "return", "if", "else", "for", "while", "do", "switch");

    /** A syntax error in a channel declaration or call (or a type declaration, where it is dropped). */
    private static final class Syntax extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient LintMessage message;

        Syntax(LintMessage message) {
            super(message.format(), null, false, false);
            this.message = message;
        }
    }

    /** One attribute item: {@code io("x")}, {@code depth(4)}, {@code packed}; args null without parentheses. */
    private record Attr(PpToken name, String id, List<PpToken> args) {
    }

    /** A type specifier: its text as written and the type it names. */
    private record Spec(String text, KernelTypes.TypeExpr type) {
    }

    /** A declarator of a typedef or member. */
    private record Declarator(PpToken name, KernelTypes.TypeExpr type, List<Attr> attrs, boolean bitfield) {
    }

    private final List<PpToken> t;
    private int i;
    private final KernelTypes types = new KernelTypes();
    private final List<ChannelDecl> declarations = new ArrayList<>();
    private final List<ChannelUse> uses = new ArrayList<>();
    private final List<LintMessage> problems = new ArrayList<>();
    private final Map<String, Integer> byName = new HashMap<>();
    private final Set<String> externOnly = new HashSet<>();

    private KernelParser(List<PpToken> tokens) {
        this.t = tokens;
    }

    /** Reads preprocessed tokens (ending with an EOF token). */
    static Parsed parse(List<PpToken> tokens) {
        KernelParser p = new KernelParser(tokens);
        p.unit();
        return new Parsed(p.declarations, p.uses, p.types, p.problems);
    }

    // ---------------------------------------------------------------------------------- the file

    private void unit() {
        int parens = 0;
        int braces = 0;
        boolean extern = false;
        while (peek().kind() != PpToken.Kind.EOF) {
            PpToken p = peek();
            boolean fileScope = parens == 0 && braces == 0;
            if (fileScope && p.is("typedef")) {
                typedef();
                extern = false;
            } else if (fileScope && p.is("channel")) {
                channel(extern);
                extern = false;
            } else if (p.is("struct") || p.is("union") || p.is("enum")) {
                int at = i;
                try {
                    recordSpecifier();
                } catch (Syntax e) {
                    i = at + 1;
                }
            } else if (p.kind() == PpToken.Kind.IDENT && (READS.contains(p.text()) || WRITES.contains(p.text()))) {
                call();
            } else {
                i++;
                switch (p.text()) {
                    case "extern" -> extern = p.kind() == PpToken.Kind.IDENT;
                    case "(" -> parens++;
                    case ")" -> parens = Math.max(0, parens - 1);
                    case "{" -> braces++;
                    case "}" -> {
                        braces = Math.max(0, braces - 1);
                        extern = false;
                    }
                    case ";" -> extern = false;
                    default -> {
                        // any other token of the C the lint does not model
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------- channels

    private void channel(boolean extern) {
        next();
        try {
            List<Attr> common = new ArrayList<>();
            qualifiersAndAttributes(common);
            Spec spec = typeSpecifier("channel declaration");
            qualifiers();
            do {
                List<Attr> attrs = new ArrayList<>(common);
                attrs.addAll(attributes());
                PpToken name = identifier("channel declaration");
                List<Long> dims = new ArrayList<>();
                while (accept("[")) {
                    List<PpToken> size = until("]", "channel declaration");
                    try {
                        dims.add(ConstExpr.eval(size, scope()));
                    } catch (ConstExpr.Failure f) {
                        problem(name, "channel '" + name.text() + "': array size: " + f.getMessage());
                    }
                }
                attrs.addAll(attributes());
                String io = io(attrs);
                depth(attrs);
                if (io != null && !dims.isEmpty()) {
                    problem(name, "channel '" + name.text() + "' is an array of channels with io(\"" + io + "\"): not"
                            + " supported, because how the offline compiler binds the elements of a channel array to board"
                            + " channels is not documented; declare one channel per board channel, each with its own io(\"...\")");
                }
                declare(new ChannelDecl(spec.text(), name.text(), io, name.line(), name.col(), name.source()), extern);
            } while (accept(","));
            expect(";", "channel declaration", "','", "';'");
        } catch (Syntax e) {
            problems.add(e.message);
            skipStatement();
        }
    }

    /**
     * Adds a declaration; an {@code extern} declaration and the definition of the same channel (in
     * either order) are one channel, with the io attribute of whichever names it.
     */
    private void declare(ChannelDecl d, boolean extern) {
        Integer at = byName.get(d.name());
        if (at != null && (extern || externOnly.contains(d.name()))) {
            ChannelDecl p = declarations.get(at);
            if (!KernelTypes.sameType(p.type(), d.type())) {
                problems.add(new LintMessage(d.source(), d.line(), d.col(), "channel '" + d.name() + "' is declared with type "
                        + d.type() + " here but " + p.type() + " at " + where(p.source(), p.line(), p.col(), d.source())));
            }
            if (p.ioId() != null && d.ioId() != null && !p.ioId().equals(d.ioId())) {
                problems.add(new LintMessage(d.source(), d.line(), d.col(), "channel '" + d.name() + "' has io(\"" + d.ioId()
                        + "\") here but io(\"" + p.ioId() + "\") at " + where(p.source(), p.line(), p.col(), d.source())));
            }
            String io = d.ioId() != null ? d.ioId() : p.ioId();
            ChannelDecl kept = extern ? p : d;
            declarations.set(at, new ChannelDecl(kept.type(), kept.name(), io, kept.line(), kept.col(), kept.source()));
            if (!extern) {
                externOnly.remove(d.name());
            }
            return;
        }
        byName.put(d.name(), declarations.size());
        declarations.add(d);
        if (extern) {
            externOnly.add(d.name());
        }
    }

    /** The {@code io("...")} string (adjacent literals joined), or null; a second io is an error. */
    private String io(List<Attr> attrs) {
        String id = null;
        PpToken first = null;
        for (Attr a : attrs) {
            if (!a.id().equals("io")) {
                continue;
            }
            if (first != null) {
                problem(a.name(), "second io attribute (the first is at " + where(first.source(), first.line(), first.col(),
                        a.name().source()) + ")");
                continue;
            }
            first = a.name();
            if (a.args() == null || a.args().isEmpty() || a.args().stream().anyMatch(x -> x.kind() != PpToken.Kind.STRING)) {
                problem(a.name(), "io attribute takes one string literal, as in io(\"chan_id\")");
                continue;
            }
            StringBuilder b = new StringBuilder();
            a.args().forEach(s -> b.append(s.value()));
            id = b.toString();
        }
        return id;
    }

    /** A {@code depth(N)} whose N has no value (a macro never defined) stops the compiler. */
    private void depth(List<Attr> attrs) {
        for (Attr a : attrs) {
            if (a.id().equals("depth") && a.args() != null) {
                try {
                    ConstExpr.eval(a.args(), scope());
                } catch (ConstExpr.Failure f) {
                    problem(a.name(), "depth(...): " + f.getMessage());
                }
            }
        }
    }

    private void call() {
        PpToken fn = next();
        ChannelUse.Kind kind = READS.contains(fn.text()) ? ChannelUse.Kind.READ : ChannelUse.Kind.WRITE;
        try {
            expect("(", "channel call", "'('");
            PpToken ref = identifier("channel call");
            while (accept("[")) {
                until("]", "channel call");
            }
            boolean more = kind == ChannelUse.Kind.READ ? accept(",") : true;
            if (kind == ChannelUse.Kind.READ && !more) {
                expect(")", "channel call", "','", "')'", "'['");
            } else if (kind == ChannelUse.Kind.WRITE) {
                expect(",", "channel call", "','");
            }
            uses.add(new ChannelUse(ref.text(), kind, fn.line(), fn.col(), fn.source()));
            if (more) {
                argumentsWithCalls();
            }
        } catch (Syntax e) {
            problems.add(e.message);
        }
    }

    /** The rest of a call's arguments, through its ')': a call inside (write(c, read(d))) is a use too. */
    private void argumentsWithCalls() {
        int depth = 0;
        while (true) {
            PpToken p = peek();
            if (p.kind() == PpToken.Kind.EOF) {
                throw unexpected(p, "channel call", "')'");
            }
            if (p.kind() == PpToken.Kind.IDENT && (READS.contains(p.text()) || WRITES.contains(p.text()))) {
                call();
                continue;
            }
            next();
            if (p.is("(") || p.is("[") || p.is("{")) {
                depth++;
            } else if (p.is(")") || p.is("]") || p.is("}")) {
                if (depth-- == 0) {
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------- types

    private void typedef() {
        next();
        try {
            List<Attr> common = new ArrayList<>();
            qualifiersAndAttributes(common);
            Spec spec = typeSpecifier("typedef");
            qualifiersAndAttributes(common);
            do {
                Declarator d = declarator(spec, common, "typedef");
                KernelTypes.TypeExpr e = d.type();
                types.typedef(d.name().text(), new KernelTypes.TypeExpr(e.base(), e.pointers(), e.dims(), e.dimProblem(),
                        aligned(d.attrs())));
            } while (accept(","));
            expect(";", "typedef", "','", "';'");
        } catch (Syntax e) {
            // A typedef the reader does not model (a function pointer type, say): a channel of it reports an unknown type.
            skipStatement();
        }
    }

    /** struct/union/enum, with or without a body; a body is registered under the tag (or a made-up one). */
    private Spec recordSpecifier() {
        PpToken kw = next();
        List<Attr> attrs = new ArrayList<>(attributes());
        PpToken tag = peek().kind() == PpToken.Kind.IDENT && !NOT_TYPES.contains(peek().text()) ? next() : null;
        attrs.addAll(attributes());
        String key = kw.text() + " " + (tag != null ? tag.text() : "<unnamed at " + kw.source() + ":" + kw.at() + ">");
        if (peek().is("{")) {
            if (kw.is("enum")) {
                enumBody();
                types.enumTag(key);
            } else {
                List<KernelTypes.Member> members = recordBody();
                attrs.addAll(attributes());
                types.record(new KernelTypes.Record(key, kw.is("union"), has(attrs, "packed"), aligned(attrs), members));
            }
        } else if (tag == null) {
            throw unexpected(peek(), kw.text() + " specifier", "identifier", "'{'");
        }
        return new Spec(key, KernelTypes.TypeExpr.of(key));
    }

    private List<KernelTypes.Member> recordBody() {
        expect("{", "struct", "'{'");
        List<KernelTypes.Member> members = new ArrayList<>();
        while (!peek().is("}") && peek().kind() != PpToken.Kind.EOF) {
            int at = i;
            try {
                member(members);
            } catch (Syntax e) {
                PpToken first = t.get(at);
                i = at;
                skipMember();
                members.add(new KernelTypes.Member(null, first.source() + ":" + first.at(), KernelTypes.TypeExpr.of("int"),
                        OptionalLong.empty(), false, "a member declaration lint-kernel does not understand"));
            }
        }
        expect("}", "struct", "'}'");
        return members;
    }

    private void member(List<KernelTypes.Member> members) {
        List<Attr> common = new ArrayList<>();
        qualifiersAndAttributes(common);
        PpToken first = peek();
        Spec spec = typeSpecifier("struct member");
        qualifiersAndAttributes(common);
        if (accept(";")) {
            members.add(new KernelTypes.Member(null, first.source() + ":" + first.at(), spec.type(), aligned(common),
                    has(common, "packed"), null));
            return;
        }
        do {
            Declarator d = declarator(spec, common, "struct member");
            members.add(new KernelTypes.Member(d.name().text(), d.name().source() + ":" + d.name().at(), d.type(),
                    aligned(d.attrs()), has(d.attrs(), "packed"),
                    d.bitfield() ? "a bit-field, which OpenCL C does not have" : null));
        } while (accept(","));
        expect(";", "struct member", "','", "';'");
    }

    private void enumBody() {
        expect("{", "enum", "'{'");
        long next = 0;
        while (!peek().is("}")) {
            PpToken name = identifier("enum");
            if (accept("=")) {
                List<PpToken> value = new ArrayList<>();
                while (!peek().is(",") && !peek().is("}") && peek().kind() != PpToken.Kind.EOF) {
                    value.add(next());
                }
                try {
                    next = ConstExpr.eval(value, scope());
                } catch (ConstExpr.Failure f) {
                    next = Long.MIN_VALUE;
                }
            }
            if (next != Long.MIN_VALUE) {
                types.enumConstant(name.text(), next);
                next++;
            }
            if (!accept(",")) {
                break;
            }
        }
        expect("}", "enum", "'}'");
    }

    /** {@code uint}, {@code unsigned long int}, {@code cldesc_t}, {@code struct x}, a struct with its body. */
    private Spec typeSpecifier(String where) {
        PpToken p = peek();
        if (p.is("struct") || p.is("union") || p.is("enum")) {
            return recordSpecifier();
        }
        if (p.kind() == PpToken.Kind.IDENT && TYPE_WORDS.contains(p.text())) {
            List<String> words = new ArrayList<>();
            while (peek().kind() == PpToken.Kind.IDENT && TYPE_WORDS.contains(peek().text())) {
                words.add(next().text());
            }
            String text = String.join(" ", words);
            return new Spec(text, KernelTypes.TypeExpr.of(text));
        }
        if (p.kind() == PpToken.Kind.IDENT && !NOT_TYPES.contains(p.text())) {
            next();
            return new Spec(p.text(), KernelTypes.TypeExpr.of(p.text()));
        }
        throw unexpected(p, where, "identifier");
    }

    /** {@code attrs * name [N] : bits attrs} after a specifier. */
    private Declarator declarator(Spec spec, List<Attr> common, String where) {
        List<Attr> attrs = new ArrayList<>(common);
        attrs.addAll(attributes());
        int pointers = 0;
        while (accept("*")) {
            pointers++;
            qualifiersAndAttributes(attrs);
        }
        PpToken name = identifier(where);
        List<Long> dims = new ArrayList<>();
        String dimProblem = null;
        while (accept("[")) {
            List<PpToken> size = until("]", where);
            if (size.isEmpty()) {
                dims.add(0L);
                continue;
            }
            try {
                dims.add(ConstExpr.eval(size, scope()));
            } catch (ConstExpr.Failure f) {
                if (dimProblem == null) {
                    dimProblem = "array size (" + size.getFirst().source() + ":" + size.getFirst().at() + "): " + f.getMessage();
                }
            }
        }
        boolean bitfield = false;
        if (accept(":")) {
            bitfield = true;
            while (!peek().is(",") && !peek().is(";") && peek().kind() != PpToken.Kind.EOF) {
                next();
            }
        }
        attrs.addAll(attributes());
        KernelTypes.TypeExpr base = spec.type();
        return new Declarator(name, new KernelTypes.TypeExpr(base.base(), base.pointers() + pointers, dims, dimProblem,
                OptionalLong.empty()), attrs, bitfield);
    }

    /** Constant expressions see the enum constants and types declared so far. */
    private ConstExpr.Scope scope() {
        return new ConstExpr.Scope() {
            @Override
            public Optional<Long> constant(String name) {
                return types.enumConstant(name);
            }

            @Override
            public boolean startsType(PpToken tok) {
                return tok.kind() == PpToken.Kind.IDENT && (TYPE_WORDS.contains(tok.text()) || tok.is("struct")
                        || tok.is("union") || tok.is("enum") || types.isTypedef(tok.text())
                        || KernelTypes.builtin(tok.text()).isPresent());
            }

            @Override
            public long sizeOf(List<PpToken> tokens) throws ConstExpr.Failure {
                KernelParser sub = new KernelParser(withEof(tokens));
                try {
                    Spec spec = sub.typeSpecifier("sizeof");
                    int pointers = 0;
                    while (sub.accept("*")) {
                        pointers++;
                    }
                    if (sub.peek().kind() != PpToken.Kind.EOF) {
                        throw new ConstExpr.Failure("sizeof of an expression: only sizeof(type) is evaluated here");
                    }
                    KernelTypes.Layout l = types.layoutOf(new KernelTypes.TypeExpr(spec.type().base(), pointers, List.of(), null,
                            OptionalLong.empty()));
                    if (l instanceof KernelTypes.Known k) {
                        return k.size();
                    }
                    throw new ConstExpr.Failure("sizeof(" + spec.text() + "): " + ((KernelTypes.Unknown) l).reason());
                } catch (Syntax e) {
                    throw new ConstExpr.Failure("sizeof(...) is not understood here");
                }
            }
        };
    }

    private static List<PpToken> withEof(List<PpToken> tokens) {
        List<PpToken> out = new ArrayList<>(tokens);
        PpToken last = tokens.isEmpty() ? null : tokens.getLast();
        out.add(new PpToken(PpToken.Kind.EOF, "", "", last == null ? "" : last.source(), last == null ? 1 : last.line(),
                last == null ? 1 : last.col()));
        return out;
    }

    // ---------------------------------------------------------------------------------- attributes

    /** Zero or more {@code __attribute__((...))} or {@code __attribute((...))}. */
    private List<Attr> attributes() {
        List<Attr> out = new ArrayList<>();
        while (peek().is("__attribute__") || peek().is("__attribute")) {
            next();
            expect("(", "__attribute__", "'('");
            expect("(", "__attribute__", "'('");
            if (!peek().is(")")) {
                do {
                    PpToken name = identifier("__attribute__");
                    List<PpToken> args = accept("(") ? until(")", "__attribute__") : null;
                    out.add(new Attr(name, name.text().replaceAll("^__(.*)__$", "$1"), args));
                } while (accept(","));
            }
            expect(")", "__attribute__", "','", "')'");
            expect(")", "__attribute__", "')'");
        }
        return out;
    }

    private void qualifiersAndAttributes(List<Attr> into) {
        while (true) {
            if (peek().is("__attribute__") || peek().is("__attribute")) {
                into.addAll(attributes());
            } else if (peek().kind() == PpToken.Kind.IDENT && QUALIFIERS.contains(peek().text())) {
                next();
            } else {
                return;
            }
        }
    }

    private void qualifiers() {
        while (peek().kind() == PpToken.Kind.IDENT && QUALIFIERS.contains(peek().text())) {
            next();
        }
    }

    private static boolean has(List<Attr> attrs, String id) {
        return attrs.stream().anyMatch(a -> a.id().equals(id));
    }

    /** The largest {@code aligned(N)} ({@code aligned} alone: 16); a value that does not evaluate is left out. */
    private OptionalLong aligned(List<Attr> attrs) {
        OptionalLong out = OptionalLong.empty();
        for (Attr a : attrs) {
            if (!a.id().equals("aligned")) {
                continue;
            }
            long n = KernelTypes.DEFAULT_ALIGNED;
            if (a.args() != null && !a.args().isEmpty()) {
                try {
                    n = ConstExpr.eval(a.args(), scope());
                } catch (ConstExpr.Failure f) {
                    continue;
                }
            }
            out = OptionalLong.of(Math.max(n, out.orElse(0)));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------- tokens

    private PpToken peek() {
        return t.get(Math.min(i, t.size() - 1));
    }

    private PpToken next() {
        PpToken p = peek();
        if (i < t.size() - 1) {
            i++;
        }
        return p;
    }

    private boolean accept(String s) {
        if (peek().is(s)) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(String s, String where, String... expected) {
        if (!accept(s)) {
            throw unexpected(peek(), where, expected);
        }
    }

    private PpToken identifier(String where) {
        PpToken p = peek();
        if (p.kind() != PpToken.Kind.IDENT || p.is("__attribute__") || p.is("__attribute")) {
            throw unexpected(p, where, "identifier");
        }
        return next();
    }

    /** The tokens up to the {@code close} that balances the opening token just read; consumes the close. */
    private List<PpToken> until(String close, String where) {
        List<PpToken> out = new ArrayList<>();
        int depth = 0;
        while (true) {
            PpToken p = peek();
            if (p.kind() == PpToken.Kind.EOF) {
                throw unexpected(p, where, "'" + close + "'");
            }
            if (depth == 0 && p.is(close)) {
                next();
                return out;
            }
            if (p.is("(") || p.is("[") || p.is("{")) {
                depth++;
            } else if (p.is(")") || p.is("]") || p.is("}")) {
                depth--;
            }
            out.add(next());
        }
    }

    /** After an error in a file-scope declaration: past the next ';' outside braces, or to a '}' that closes nothing. */
    private void skipStatement() {
        int depth = 0;
        while (peek().kind() != PpToken.Kind.EOF) {
            PpToken p = next();
            if (p.is("{")) {
                depth++;
            } else if (p.is("}")) {
                if (--depth < 0) {
                    return;
                }
            } else if (p.is(";") && depth == 0) {
                return;
            }
        }
    }

    /** After an error in a member: past its ';', or up to the '}' that ends the struct. */
    private void skipMember() {
        int depth = 0;
        while (peek().kind() != PpToken.Kind.EOF) {
            PpToken p = peek();
            if (p.is("}") && depth == 0) {
                return;
            }
            next();
            if (p.is("{") || p.is("(") || p.is("[")) {
                depth++;
            } else if (p.is("}") || p.is(")") || p.is("]")) {
                depth--;
            } else if (p.is(";") && depth == 0) {
                return;
            }
        }
    }

    private Syntax unexpected(PpToken at, String where, String... expected) {
        StringBuilder m = new StringBuilder("unexpected ").append(at.describe()).append(" in ").append(where);
        List<String> names = new ArrayList<>(new TreeSet<>(List.of(expected)));
        if (!names.isEmpty()) {
            m.append(", expecting ").append(names.size() == 1 ? names.getFirst()
                    : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.getLast());
        }
        return new Syntax(new LintMessage(at.source(), at.line(), at.col(), m.toString()));
    }

    private void problem(PpToken at, String message) {
        problems.add(new LintMessage(at.source(), at.line(), at.col(), message));
    }

    /** {@code line:col}, with the file when it is not {@code from}. */
    static String where(String source, int line, int col, String from) {
        return (source.equals(from) ? "" : source + ":") + line + ":" + col;
    }
}
