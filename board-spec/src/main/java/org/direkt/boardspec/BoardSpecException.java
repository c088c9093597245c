// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.io.Serial;

/**
 * A board_spec.xml that cannot be read (not XML, not a board, not decodable) or an edit that is
 * refused (for example one that would duplicate a {@code chan_id}). {@link #getMessage()} and
 * {@link #toString()} both read {@code file:line:col: message}.
 */
public final class BoardSpecException extends Exception {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final int column;
    private final String detail;

    /**
     * @param file   the source name (a path or what the caller passed to {@link BoardSpec#parse(String, String)})
     * @param line   1-based line
     * @param column 1-based column
     * @param detail the message without the position prefix
     */
    public BoardSpecException(String file, int line, int column, String detail) {
        super(file + ":" + line + ":" + column + ": " + detail);
        this.file = file;
        this.line = line;
        this.column = column;
        this.detail = detail;
    }

    /** The source name. */
    public String file() {
        return file;
    }

    /** 1-based line of the problem. */
    public int line() {
        return line;
    }

    /** 1-based column of the problem. */
    public int column() {
        return column;
    }

    /** The message without the {@code file:line:col: } prefix. */
    public String detail() {
        return detail;
    }

    /** Same as {@link #getMessage()}: {@code file:line:col: message}. */
    @Override
    public String toString() {
        return getMessage();
    }
}
