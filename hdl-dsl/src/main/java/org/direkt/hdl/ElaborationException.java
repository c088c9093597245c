// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a design breaks a rule; carries every error found, each with the designer's source line. */
public final class ElaborationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<Diagnostic> diagnostics;

    public ElaborationException(List<Diagnostic> diagnostics) {
        super(diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining("\n")));
        this.diagnostics = List.copyOf(diagnostics);
    }

    static ElaborationException at(SourceLoc loc, String format, Object... args) {
        return new ElaborationException(List.of(Diagnostic.error(loc, String.format(format, args))));
    }

    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }
}
