// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.Locale;
import java.util.Objects;

/**
 * A finding of {@link KernelLint}, printed as {@code source:line:col: error: message} (or
 * {@code warning:}, {@code note:}).
 *
 * @param source   the kernel source name
 * @param line     1-based line
 * @param col      1-based column
 * @param message  the message
 * @param severity error or warning
 */
public record LintMessage(String source, int line, int col, String message, Severity severity) {

    /** How bad a finding is. */
    public enum Severity {
        /** The kernel does not fit the board. */
        ERROR,
        /** Probably a mistake, but the kernel still fits the board. */
        WARNING,
        /** Context for the findings before it (what the board has). */
        NOTE
    }

    /** Checks that source, message and severity are present. */
    public LintMessage {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(severity, "severity");
    }

    /** An error. */
    public LintMessage(String source, int line, int col, String message) {
        this(source, line, col, message, Severity.ERROR);
    }

    /** True for an error. */
    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** {@code source:line:col: error: message}. */
    public String format() {
        return source + ":" + line + ":" + col + ": " + severity.name().toLowerCase(Locale.ROOT)
                + ": " + message;
    }

    @Override
    public String toString() {
        return format();
    }
}
