// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.Objects;

/**
 * A token of a kernel after preprocessing, at the place a reader of the original files would look
 * for it: a token written in a file is at its own file, line and column; a token that a macro
 * expansion produced is at the macro's invocation in the file the expansion started from (so a
 * call written as {@code WRITE(ch, v)} with {@code WRITE} a macro is found at {@code WRITE}).
 *
 * @param kind   what sort of token
 * @param text   the token as spelled
 * @param value  for a string literal, its content with escapes resolved; otherwise the text
 * @param source the original file name (as given, or as found on the include path)
 * @param line   1-based line in {@code source}
 * @param col    1-based column in {@code source}
 */
public record PpToken(Kind kind, String text, String value, String source, int line, int col) {

    /** The sorts of tokens the channel reader tells apart. */
    public enum Kind {
        /** An identifier or keyword. */
        IDENT,
        /** An integer or floating constant. */
        NUMBER,
        /** A string literal. */
        STRING,
        /** A character constant. */
        CHAR,
        /** An operator or punctuator. */
        PUNCT,
        /** The end of the translation unit. */
        EOF
    }

    /** Checks the components. */
    public PpToken {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(source, "source");
    }

    /** True when this token is spelled {@code s}. */
    public boolean is(String s) {
        return kind != Kind.EOF && kind != Kind.STRING && text.equals(s);
    }

    /** {@code line:col}. */
    public String at() {
        return line + ":" + col;
    }

    /** {@code 'text'}, or {@code end of file}, as parse errors name a token. */
    public String describe() {
        return kind == Kind.EOF ? "end of file" : "'" + text + "'";
    }
}
