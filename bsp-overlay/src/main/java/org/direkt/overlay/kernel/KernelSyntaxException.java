package org.direkt.overlay.kernel;

/**
 * Malformed OpenCL C as far as channels are concerned: a channel declaration or channel call that
 * does not parse, an {@code io} attribute without a string, or an unterminated comment, string or
 * character literal. The message is {@code source:line:col: message} (1-based line and column).
 */
public final class KernelSyntaxException extends RuntimeException {

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
    public KernelSyntaxException(String sourceName, int line, int column, String detail) {
        super(sourceName + ":" + line + ":" + column + ": " + detail);
        this.sourceName = sourceName;
        this.line = line;
        this.column = column;
        this.detail = detail;
    }

    /** The source name of the message. */
    public String sourceName() {
        return sourceName;
    }

    /** 1-based line. */
    public int line() {
        return line;
    }

    /** 1-based column. */
    public int column() {
        return column;
    }

    /** The message without its position prefix. */
    public String detail() {
        return detail;
    }
}
