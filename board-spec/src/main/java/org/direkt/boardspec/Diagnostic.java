// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

/**
 * One finding of {@link BoardSpec#validate(java.util.Optional)}.
 *
 * @param severity whether the SDK would refuse the board ({@link Severity#ERROR}) or it is only suspicious
 * @param file     the source name
 * @param line     1-based line (of the attribute at fault, or of the element when an attribute is missing)
 * @param column   1-based column
 * @param message  what is wrong, naming the attribute and its value
 */
public record Diagnostic(Severity severity, String file, int line, int column, String message) {

    /** How serious a finding is. */
    public enum Severity {
        /** The board is wrong: the SDK or the overlay would fail on it. */
        ERROR,
        /** Unusual but not fatal. */
        WARNING
    }

    /** {@code file:line:col: error: message} (or {@code warning:}), the format compilers use. */
    @Override
    public String toString() {
        return file + ":" + line + ":" + column + ": " + severity.name().toLowerCase(java.util.Locale.ROOT) + ": " + message;
    }
}
