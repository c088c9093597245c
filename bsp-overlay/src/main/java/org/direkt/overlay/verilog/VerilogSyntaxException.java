// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import org.direkt.overlay.SourceSyntaxException;

/**
 * Malformed Verilog: a syntax error, an unterminated comment or string, an inconsistent port
 * list, or a port range that cannot be evaluated. The message is {@code source:line:col: message}
 * (1-based line and column).
 */
public final class VerilogSyntaxException extends SourceSyntaxException {

    private static final long serialVersionUID = 1L;

    /**
     * @param sourceName the file name used in the message
     * @param line       1-based line
     * @param column     1-based column
     * @param detail     the message without the position prefix
     */
    public VerilogSyntaxException(String sourceName, int line, int column, String detail) {
        super(sourceName, line, column, detail);
    }
}
