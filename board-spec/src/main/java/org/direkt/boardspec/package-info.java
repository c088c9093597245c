// SPDX-License-Identifier: Apache-2.0
/**
 * Reading, checking and editing the {@code board_spec.xml} of an Intel FPGA SDK for OpenCL / oneAPI
 * board support package.
 *
 * <p>{@link org.direkt.boardspec.BoardSpec#parse(java.nio.file.Path)} reads a file with a small
 * well-formedness-checking XML scanner of its own (no DOM) that records, for every element, its
 * line, column and exact character and byte span. The typed model ({@link
 * org.direkt.boardspec.GlobalMemory}, {@link org.direkt.boardspec.InterfaceEntry}, {@link
 * org.direkt.boardspec.Channel}) keeps those positions so that {@link
 * org.direkt.boardspec.BoardSpec#validate(java.util.Optional)} can point at the offending attribute
 * and {@link org.direkt.boardspec.BoardSpecEditor} can edit channel interfaces by splicing text at
 * recorded offsets: every byte outside the edited lines (comments, whitespace, attribute quoting and
 * order, line ends, XML declaration, final newline) is kept as it was. {@link
 * org.direkt.boardspec.AtomicWriter} writes the result through a temporary file and an atomic move.
 *
 * <p>Positions: lines and columns count from 1; a line ends at LF, CRLF or a lone CR; a column counts
 * UTF-16 characters, so a tab is one column. Character spans index {@link
 * org.direkt.boardspec.BoardSpec#text()}; byte spans index the file's bytes in its encoding.
 */
package org.direkt.boardspec;
