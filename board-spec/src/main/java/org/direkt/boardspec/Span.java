// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

/**
 * A half-open range {@code [start, end)} of offsets, either characters of {@link BoardSpec#text()}
 * or bytes of the encoded file.
 *
 * @param start first offset in the range
 * @param end   offset just past the range
 */
public record Span(int start, int end) {

    /** Checks {@code 0 <= start <= end}. */
    public Span {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad span [" + start + ", " + end + ")");
        }
    }

    /** Number of offsets covered. */
    public int length() {
        return end - start;
    }
}
