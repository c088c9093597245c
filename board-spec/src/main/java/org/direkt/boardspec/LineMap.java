// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.Arrays;

/**
 * Line starts of a text, for turning offsets into line and column and for finding whole lines. A
 * line ends at LF, CRLF or a lone CR; the terminator belongs to the line it ends.
 */
final class LineMap {

    private final String text;
    private final int[] starts;

    LineMap(String text) {
        this.text = text;
        int[] s = new int[16];
        int n = 0;
        s[n++] = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int next = -1;
            if (c == '\n') {
                next = i + 1;
            } else if (c == '\r') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    i++;
                }
                next = i + 1;
            }
            if (next >= 0) {
                if (n == s.length) {
                    s = Arrays.copyOf(s, n * 2);
                }
                s[n++] = next;
            }
        }
        this.starts = Arrays.copyOf(s, n);
    }

    /** 1-based line holding {@code offset} ({@code offset == length} is allowed). */
    int line(int offset) {
        int i = Arrays.binarySearch(starts, offset);
        return i >= 0 ? i + 1 : -i - 1;
    }

    /** 1-based column of {@code offset}. */
    int column(int offset) {
        return offset - starts[line(offset) - 1] + 1;
    }

    /** Offset where the line holding {@code offset} starts. */
    int lineStart(int offset) {
        return starts[line(offset) - 1];
    }

    /** Offset where the next line starts (past the terminator), or the text length on the last line. */
    int nextLineStart(int offset) {
        int l = line(offset);
        return l < starts.length ? starts[l] : text.length();
    }

    /** Offset of the terminator of the line holding {@code offset} (or the text length when it has none). */
    int contentEnd(int offset) {
        int end = nextLineStart(offset);
        if (end > 0 && end <= text.length() && end > lineStart(offset)) {
            if (text.charAt(end - 1) == '\n') {
                end--;
                if (end > 0 && text.charAt(end - 1) == '\r') {
                    end--;
                }
            } else if (text.charAt(end - 1) == '\r') {
                end--;
            }
        }
        return end;
    }

    /** Whether only spaces and tabs lie between the start of its line and {@code offset}. */
    boolean onlyBlankBefore(int offset) {
        return blank(lineStart(offset), offset);
    }

    /** Whether only spaces and tabs lie between {@code offset} and the end of its line's content. */
    boolean onlyBlankAfter(int offset) {
        return blank(offset, contentEnd(offset));
    }

    /** The spaces and tabs that open the line holding {@code offset}. */
    String indentOf(int offset) {
        int s = lineStart(offset);
        int e = s;
        while (e < text.length() && (text.charAt(e) == ' ' || text.charAt(e) == '\t')) {
            e++;
        }
        return text.substring(s, e);
    }

    /** Whether the line holding {@code offset} has a terminator. */
    boolean hasTerminator(int offset) {
        return contentEnd(offset) < nextLineStart(offset);
    }

    private boolean blank(int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t') {
                return false;
            }
        }
        return true;
    }
}
