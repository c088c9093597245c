// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/** One finding of elaboration: where in the designer's source, how bad, and what rule it breaks. */
public record Diagnostic(Severity severity, SourceLoc loc, String message) {

    public enum Severity { ERROR, WARNING }

    public static Diagnostic error(SourceLoc loc, String message) {
        return new Diagnostic(Severity.ERROR, loc, message);
    }

    public static Diagnostic warning(SourceLoc loc, String message) {
        return new Diagnostic(Severity.WARNING, loc, message);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        return loc + ": " + severity.name().toLowerCase(java.util.Locale.ROOT) + ": " + message;
    }
}
