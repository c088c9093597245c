// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.anarres.cpp.Feature;
import org.anarres.cpp.InternalException;
import org.anarres.cpp.LexerException;
import org.anarres.cpp.LexerSource;
import org.anarres.cpp.Preprocessor;
import org.anarres.cpp.PreprocessorListener;
import org.anarres.cpp.Source;
import org.anarres.cpp.Token;
import org.anarres.cpp.VirtualFile;
import org.anarres.cpp.VirtualFileSystem;
import org.direkt.overlay.OverlayException;

/**
 * Preprocesses a kernel as the offline compiler's clang does, with jcpp (the Anarres C
 * preprocessor): the predefined macros, then the {@code -D} definitions, then the kernel, following
 * {@code #include} through the including file's folder and the {@code -I} folders, honouring
 * {@code #if}/{@code #ifdef}/{@code #elif}/{@code #else} and expanding every macro.
 *
 * <p>Every token comes out at its original place ({@link PpToken}): jcpp gives each token the line and
 * column where it was lexed, so a token read from a file outside a directive keeps them (a macro
 * argument too), and a token of a macro body (whose own position lies in the {@code #define}) is placed
 * at the invocation that started the expansion: the first token read from a file since the last
 * token that went out unexpanded.
 *
 * <p>Files are read as UTF-8, or as ISO-8859-1 when they are not valid UTF-8 (a Latin-1 comment must
 * not stop a lint; the compiler does not care what a comment holds either).
 */
public final class KernelPreprocessor {

    /** The header the overlay writes; a kernel that cannot find it gets a pointer to --include. */
    static final String OVERLAY_HEADER = "direkt_dma.h";

    private static final Pattern DEFINE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*(?:\\([^)]*\\))?)(?:=(.*))?", Pattern.DOTALL);
    private static final String BUILT_IN = "<built-in>";
    private static final String COMMAND_LINE = "<command line>";

    /**
     * What the compiler is told besides the file.
     *
     * @param includeDirs    {@code -I} folders, searched in order after the including file's folder
     * @param defines        {@code -D} arguments as given: {@code NAME}, {@code NAME=VALUE} or
     *                       {@code NAME(ARGS)=BODY}
     * @param predefined     macros the compiler defines itself, name to value
     * @param followIncludes false to read the file alone, skipping its {@code #include} lines
     */
    public record Options(List<Path> includeDirs, List<String> defines, Map<String, String> predefined,
                          boolean followIncludes) {

        /** Copies the collections. */
        public Options {
            includeDirs = List.copyOf(includeDirs);
            defines = List.copyOf(defines);
            predefined = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(predefined));
        }

        /** A file alone: no includes followed, nothing defined but OpenCL's own macros. */
        public static Options fileAlone() {
            return new Options(List.of(), List.of(), AocMacros.openCl(), false);
        }
    }

    /**
     * The preprocessed translation unit.
     *
     * @param tokens   its tokens, ending with one {@link PpToken.Kind#EOF} token
     * @param files    the files read, in the order they were first entered (the kernel first)
     * @param problems errors and warnings of the preprocessor ({@code #error}, {@code #warning},
     *                 malformed directives, unterminated literals and comments)
     */
    public record Output(List<PpToken> tokens, List<String> files, List<LintMessage> problems) {

        /** Copies the lists. */
        public Output {
            tokens = List.copyOf(tokens);
            files = List.copyOf(files);
            problems = List.copyOf(problems);
        }
    }

    private KernelPreprocessor() {
    }

    /**
     * Preprocesses a kernel file; its path as given names it in positions.
     *
     * @throws IOException       when the kernel cannot be read
     * @throws OverlayException  ({@link OverlayException.Kind#INPUT}) for a header found in no include
     *                           folder, or a malformed {@code -D}
     */
    public static Output file(Path kernel, Options options) throws IOException, OverlayException {
        return run(decode(Files.readAllBytes(kernel)), kernel.toString(), options);
    }

    /**
     * Preprocesses kernel text held in memory; includes are looked up relative to {@code sourceName}.
     *
     * @throws OverlayException as {@link #file}
     */
    public static Output text(String text, String sourceName, Options options) throws OverlayException {
        return run(stripBom(text), sourceName, options);
    }

    /** UTF-8 when the bytes are valid UTF-8, else ISO-8859-1 (one character per byte). */
    static String decode(byte[] bytes) {
        try {
            return stripBom(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }

    private static String stripBom(String text) {
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static Output run(String text, String sourceName, Options options) throws OverlayException {
        Tracker tracker = new Tracker();
        Cpp pp = new Cpp(options.followIncludes());
        tracker.pp = pp;
        pp.setListener(tracker);
        pp.setFileSystem(new Headers(tracker));
        pp.addFeatures(Feature.PRAGMA_ONCE, Feature.INCLUDENEXT);
        List<String> dirs = options.includeDirs().stream().map(Path::toString).toList();
        pp.setQuoteIncludePath(new ArrayList<>());
        pp.setSystemIncludePath(new ArrayList<>(dirs));
        StringBuilder builtIn = new StringBuilder();
        options.predefined().forEach((name, value) -> builtIn.append("#define ").append(name).append(' ').append(value).append('\n'));
        pp.addInput(new KernelSource(builtIn.toString(), BUILT_IN, tracker));
        StringBuilder commandLine = new StringBuilder();
        for (String d : options.defines()) {
            Matcher m = DEFINE.matcher(d);
            if (!m.matches() || d.contains("\n")) {
                throw new OverlayException(OverlayException.Kind.INPUT, "-D " + d + ": expected NAME, NAME=VALUE or NAME(ARGS)=BODY");
            }
            commandLine.append("#define ").append(m.group(1)).append(' ').append(m.group(2) == null ? "1" : m.group(2)).append('\n');
        }
        pp.addInput(new KernelSource(commandLine.toString(), COMMAND_LINE, tracker));
        KernelSource main = new KernelSource(text, sourceName, tracker);
        pp.addInput(main);

        List<PpToken> out = new ArrayList<>();
        try {
            for (Token t = pp.token(); t.getType() != Token.EOF; t = pp.token()) {
                PpToken p = tracker.emit(t);
                if (p != null) {
                    out.add(p);
                }
            }
        } catch (MissingInclude e) {
            throw new OverlayException(OverlayException.Kind.INPUT, e.getMessage());
        } catch (LexerException | IOException | InternalException e) {
            tracker.problem(tracker.lastPlace(main), LintMessage.Severity.ERROR, "the preprocessor stopped here: " + e.getMessage());
        }
        Place end = endOf(text, sourceName);
        out.add(new PpToken(PpToken.Kind.EOF, "", "", end.source(), end.line(), end.col()));
        List<String> seen = tracker.files.stream().filter(f -> !f.equals(BUILT_IN) && !f.equals(COMMAND_LINE)).toList();
        return new Output(out, seen, tracker.problems);
    }

    /** Just past the last character. */
    private static Place endOf(String text, String sourceName) {
        int line = 1;
        int col = 1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return new Place(sourceName, line, col);
    }

    /** Where a token or message lies: file, 1-based line and column. */
    private record Place(String source, int line, int col) {
    }

    /** A header found in no folder: stops preprocessing, as it stops the compiler. */
    private static final class MissingInclude extends LexerException {
        private static final long serialVersionUID = 1L;

        MissingInclude(String message) {
            super(message);
        }
    }

    /** jcpp with the pragmas the offline compiler knows left alone and, for a file alone, includes skipped. */
    private static final class Cpp extends Preprocessor {
        private final boolean followIncludes;

        Cpp(boolean followIncludes) {
            this.followIncludes = followIncludes;
        }

        /** OPENCL EXTENSION, unroll, ivdep, ...: aoc's business, not a preprocessor warning. */
        @Override
        protected void pragma(Token name, List<Token> value) throws IOException, LexerException {
            if ("once".equals(name.getText())) {
                super.pragma(name, value);
            }
        }

        @Override
        protected boolean include(VirtualFile file) throws IOException {
            return followIncludes ? super.include(file) : true;
        }
    }

    /** A file (or the built-in and command-line definitions) lexed by jcpp, its tokens recorded as its own. */
    private static final class KernelSource extends LexerSource {
        /** The one-character tokens jcpp passes on ('#' it takes in directives and macro bodies). */
        private static final String PUNCTUATORS = "!%&()*+,-/:;<=>?[]^{|}~.@`#";
        /** jcpp numbers its multi-character tokens from here; below, a token's type is its character. */
        private static final int FIRST_NAMED_TOKEN = 257;

        private final String name;
        private final String text;
        private final Tracker tracker;
        /**
         * Inside a directive line: its tokens are not the file's own output (a #define body comes out
         * only through an expansion, placed at the invocation).
         */
        private boolean directive;
        /** The '#' of the directive being read, until its name. */
        private Token hash;
        /** The '#' of each conditional not yet closed, innermost first. */
        private final Deque<Token> open = new ArrayDeque<>();

        KernelSource(String text, String name, Tracker tracker) {
            super(new StringReader(text), true);
            this.text = text;
            this.name = name;
            this.tracker = tracker;
        }

        @Override
        public Token token() throws IOException, LexerException {
            Token t = super.token();
            int type = t.getType();
            if (type < FIRST_NAMED_TOKEN && t.getText().length() == 1 && t.getText().charAt(0) == type
                    && PUNCTUATORS.indexOf(type) < 0) {
                // A character C has no use for (a stray backslash, '$' aside): jcpp would stop on it; the compiler's business.
                t = new Token(Token.INVALID, t.getLine(), t.getColumn(), t.getText(), "stray character");
            }
            conditionals(t);
            if (type == Token.HASH) {
                directive = true;
            } else if (type == Token.NL || type == Token.EOF) {
                directive = false;
            }
            if (!directive) {
                tracker.read(this, t);
            }
            return t;
        }

        @Override
        public String getPath() {
            return name;
        }

        @Override
        public String getName() {
            return name;
        }

        /**
         * Follows #if/#ifdef/#ifndef and #endif, taken or skipped, to report a conditional the file
         * leaves open (jcpp ends the file without a word; clang stops on it).
         */
        private void conditionals(Token t) {
            int type = t.getType();
            if (type == Token.HASH) {
                hash = t;
                return;
            }
            if (hash != null && type == Token.IDENTIFIER) {
                switch (t.getText()) {
                    case "if", "ifdef", "ifndef" -> open.push(hash);
                    case "endif" -> open.poll();
                    default -> {
                        // #else, #elif, #define and the others neither open nor close
                    }
                }
            }
            if (type != Token.WHITESPACE && type != Token.CCOMMENT) {
                hash = null;
            }
            if (type == Token.EOF) {
                while (!open.isEmpty()) {
                    Token at = open.pop();
                    tracker.problem(new Place(name, at.getLine(), at.getColumn() + 1), LintMessage.Severity.ERROR,
                            "unterminated conditional directive: no #endif before the end of the file");
                }
            }
        }

        /** The text of a 1-based line, without its end. */
        String lineText(int line) {
            String[] lines = text.split("\n", -1);
            return line >= 1 && line <= lines.length ? lines[line - 1] : "";
        }
    }

    /**
     * Follows jcpp's source stack and the tokens it reads, to place every token it hands out and every
     * message it reports at an original position.
     */
    private static final class Tracker implements PreprocessorListener {
        private final Map<Token, KernelSource> owner = new IdentityHashMap<>();
        private final Deque<Source> stack = new ArrayDeque<>();
        private final Set<String> files = new LinkedHashSet<>();
        private final List<LintMessage> problems = new ArrayList<>();
        private final List<String> misses = new ArrayList<>();
        private Preprocessor pp;
        /** The first token read from a file since the last file token went out or an expansion began. */
        private Place pending;
        /** The invocation that started the expansion the current macro tokens come from. */
        private Place invocation;
        /** Whether a token went out since that expansion began (else a new one continues it). */
        private boolean emitted;
        private Place lastOut;

        void read(KernelSource s, Token t) {
            owner.put(t, s);
            int type = t.getType();
            if (pending == null && type != Token.WHITESPACE && type != Token.NL && type != Token.CCOMMENT
                    && type != Token.CPPCOMMENT && type != Token.EOF) {
                pending = new Place(s.getName(), t.getLine(), t.getColumn() + 1);
            }
        }

        /** The token as a {@link PpToken}, or null for white space, comments and line markers. */
        PpToken emit(Token t) {
            emitted = true;
            KernelSource s = owner.get(t);
            Place at;
            if (s != null) {
                pending = null;
                at = new Place(s.getName(), t.getLine(), t.getColumn() + 1);
            } else {
                at = invocation != null ? invocation : lastOut;
            }
            PpToken.Kind kind = switch (t.getType()) {
                case Token.IDENTIFIER -> PpToken.Kind.IDENT;
                case Token.NUMBER -> PpToken.Kind.NUMBER;
                case Token.STRING -> PpToken.Kind.STRING;
                case Token.CHARACTER, Token.SQSTRING -> PpToken.Kind.CHAR;
                case Token.WHITESPACE, Token.NL, Token.CCOMMENT, Token.CPPCOMMENT, Token.P_LINE -> null;
                case Token.INVALID -> {
                    invalid(t, at);
                    yield null;
                }
                default -> PpToken.Kind.PUNCT;
            };
            if (kind == null || at == null) {
                return null;
            }
            lastOut = at;
            String value = kind == PpToken.Kind.STRING && t.getValue() != null ? String.valueOf(t.getValue()) : t.getText();
            return new PpToken(kind, t.getText(), value, at.source(), at.line(), at.col());
        }

        /** jcpp hands malformed literals and comments on as INVALID tokens; a stray character is the compiler's business. */
        private void invalid(Token t, Place at) {
            String text = t.getText();
            String what;
            if (text.startsWith("/*")) {
                what = "unterminated comment";
            } else if (text.startsWith("\"")) {
                what = "unterminated string literal";
            } else if (text.equals("''")) {
                what = "empty character literal";
            } else if (text.startsWith("'")) {
                what = "unterminated character literal";
            } else {
                return;
            }
            problem(at, LintMessage.Severity.ERROR, what);
        }

        Place lastPlace(KernelSource main) {
            if (lastOut != null) {
                return lastOut;
            }
            return new Place(main.getName(), 1, 1);
        }

        void problem(Place at, LintMessage.Severity severity, String message) {
            problems.add(new LintMessage(at.source(), at.line(), at.col(), message, severity));
        }

        private Place place(Source s, int line, int column) {
            if (s instanceof KernelSource k) {
                return new Place(k.getName(), line > 0 ? line : Math.max(1, k.getLine()), Math.max(1, column + 1));
            }
            return invocation != null ? invocation : lastOut != null ? lastOut : new Place(BUILT_IN, 1, 1);
        }

        @Override
        public void handleWarning(Source source, int line, int column, String msg) {
            if (msg.startsWith("#warning")) {
                problem(place(source, line, column), LintMessage.Severity.WARNING, msg);
            }
        }

        @Override
        public void handleError(Source source, int line, int column, String msg) throws LexerException {
            if (msg.startsWith("File not found: ") && source instanceof KernelSource k) {
                throw new MissingInclude(missing(k, line, msg));
            }
            problem(place(source, line, column), LintMessage.Severity.ERROR, lowerFirst(msg));
        }

        /** {@code file:line:col: error: cannot find "x.h" ...}, naming every place looked in. */
        private String missing(KernelSource k, int line, String msg) {
            String text = k.lineText(line);
            Matcher m = Pattern.compile("#\\s*include(?:_next)?\\s*([\"<])([^\">]*)").matcher(text);
            String name;
            int col;
            if (m.find()) {
                name = m.group(2);
                col = m.start(1) + 1;
            } else {
                name = msg.substring("File not found: ".length()).split(" in ", 2)[0];
                col = 1;
            }
            String where = String.join(", ", misses);
            String detail;
            if (name.equals(OVERLAY_HEADER)) {
                boolean ownChannels = pp.getMacro("DIREKT_NO_CHANNELS") != null || pp.getMacro("DIREKT_EMULATION") != null;
                detail = "includes " + OVERLAY_HEADER + (ownChannels ? "" : " and uses its channels (no DIREKT_NO_CHANNELS or"
                        + " DIREKT_EMULATION defined before the include)") + ", but no " + OVERLAY_HEADER + " is at " + where
                        + "; pass the overlay's include folder with --include";
            } else {
                detail = "cannot find \"" + name + "\": it is not at " + where + "; pass its folder with -I";
            }
            return k.getName() + ":" + line + ":" + col + ": error: " + detail;
        }

        @Override
        public void handleSourceChange(Source source, SourceChangeEvent event) {
            switch (event) {
                case PUSH -> {
                    if (source instanceof KernelSource k) {
                        files.add(k.getName());
                        pending = null;
                    } else if (stack.peek() instanceof KernelSource) {
                        // A macro whose name came out of the previous expansion (RD expanding to READ_CH,
                        // whose arguments follow in the file) continues that expansion's invocation.
                        if (pending != null && (emitted || invocation == null)) {
                            invocation = pending;
                        }
                        pending = null;
                        emitted = false;
                    }
                    stack.push(source);
                }
                case POP -> stack.pop();
                default -> {
                    // SUSPEND and RESUME follow every PUSH and POP; the stack already tells.
                }
            }
        }

        private static String lowerFirst(String s) {
            return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
        }
    }

    /** Include lookup on the real file system, remembering each place looked in without success. */
    private static final class Headers implements VirtualFileSystem {
        private final Tracker tracker;

        Headers(Tracker tracker) {
            this.tracker = tracker;
        }

        @Override
        public VirtualFile getFile(String path) {
            return new File(Path.of(path));
        }

        @Override
        public VirtualFile getFile(String dir, String name) {
            return new File(Path.of(dir).resolve(name));
        }

        /** A path as the messages show it: joined as given, not made absolute. */
        private final class File implements VirtualFile {
            private final Path path;

            File(Path path) {
                this.path = Objects.requireNonNull(path);
            }

            @Override
            public boolean isFile() {
                boolean found = Files.isRegularFile(path);
                if (!found) {
                    tracker.misses.add(path.toString());
                }
                return found;
            }

            @Override
            public String getPath() {
                return path.toString();
            }

            @Override
            public String getName() {
                Path n = path.getFileName();
                return n == null ? "" : n.toString();
            }

            @Override
            public VirtualFile getParentFile() {
                Path parent = path.getParent();
                return new File(parent == null ? Path.of("") : parent);
            }

            @Override
            public VirtualFile getChildFile(String name) {
                return new File(path.resolve(name));
            }

            @Override
            public Source getSource() throws IOException {
                tracker.misses.clear();
                return new KernelSource(decode(Files.readAllBytes(path)), path.toString(), tracker);
            }
        }
    }
}
