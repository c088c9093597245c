package org.direkt.overlay.verilog;

/**
 * Malformed Verilog: a syntax error, an unterminated comment or string, an inconsistent port
 * list, or a port range that cannot be evaluated. The message is {@code source:line:col: message}
 * (1-based line and column).
 */
public final class VerilogSyntaxException extends RuntimeException {

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
    public VerilogSyntaxException(String sourceName, int line, int column, String detail) {
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
