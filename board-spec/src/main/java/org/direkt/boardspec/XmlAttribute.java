// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

/**
 * One attribute as scanned: its decoded value and where its name and raw value lie.
 *
 * @param name       attribute name
 * @param value      value with entity and character references decoded and whitespace normalised
 * @param nameStart  offset of the first character of the name
 * @param valueStart offset just past the opening quote
 * @param valueEnd   offset of the closing quote
 */
record XmlAttribute(String name, String value, int nameStart, int valueStart, int valueEnd) {
}
