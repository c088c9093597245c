// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

/**
 * Malformed source text read by one of direkt's importers, with its position. The message is
 * {@code source:line:col: message} (1-based line and column); the accessors give the parts.
 */
public abstract class SourceSyntaxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String sourceName;
    private final int line;
    private final int column;
    private final String detail;

    /**
     * @param sourceName the file name used in the message
     * @param line       1-based line
     * @param column     1-based column
     * @param detail     the message without the position prefix
     */
    protected SourceSyntaxException(String sourceName, int line, int column, String detail) {
        super(sourceName + ":" + line + ":" + column + ": " + detail);
        this.sourceName = sourceName;
        this.line = line;
        this.column = column;
        this.detail = detail;
    }

    /** The source name of the message. */
    public final String sourceName() {
        return sourceName;
    }

    /** 1-based line. */
    public final int line() {
        return line;
    }

    /** 1-based column. */
    public final int column() {
        return column;
    }

    /** The message without its position prefix. */
    public final String detail() {
        return detail;
    }
}
