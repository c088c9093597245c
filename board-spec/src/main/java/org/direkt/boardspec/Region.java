// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

/**
 * Where an element lies in the source: the line and column of its {@code <}, and its extent from
 * {@code <} to the final {@code >} (of {@code />} or of the end tag) as characters and as bytes.
 *
 * @param line   1-based line of the element's {@code <}
 * @param column 1-based column (in UTF-16 characters; a tab counts one) of the element's {@code <}
 * @param chars  character span in {@link BoardSpec#text()}
 * @param bytes  byte span in the encoded file ({@link BoardSpec#bytes()})
 */
public record Region(int line, int column, Span chars, Span bytes) {

    /** {@code line:column}, the way diagnostics print it. */
    public String position() {
        return line + ":" + column;
    }
}
