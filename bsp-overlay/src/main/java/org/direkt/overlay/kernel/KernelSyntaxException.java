// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import org.direkt.overlay.SourceSyntaxException;

/**
 * Malformed OpenCL C as far as channels are concerned: a channel declaration or channel call that
 * does not parse, an {@code io} attribute without a string, or an unterminated comment, string or
 * character literal. The message is {@code source:line:col: message} (1-based line and column).
 */
public final class KernelSyntaxException extends SourceSyntaxException {

    private static final long serialVersionUID = 1L;

    /**
     * @param sourceName the file name used in the message
     * @param line       1-based line
     * @param column     1-based column
     * @param detail     the message without the position prefix
     */
    public KernelSyntaxException(String sourceName, int line, int column, String detail) {
        super(sourceName, line, column, detail);
    }
}
