// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.Map;
import java.util.OptionalInt;

/**
 * One {@code <interface>} inside {@code <channels>}: an I/O channel (pipe) that kernels name with
 * {@code io("chan_id")}. A {@code streamsource} feeds the kernel; a {@code streamsink} is written by it.
 *
 * <p>The typed components hold the attribute values as written (entity references decoded), or
 * {@code null} when the attribute is absent; {@link BoardSpec#validate(java.util.Optional)} reports
 * absent or bad values. {@code width} stays a string because a file may hold a non-number there.
 *
 * @param name       {@code name}: the Platform Designer instance that owns the port (e.g. {@code board})
 * @param port       {@code port}: the conduit on that instance
 * @param type       {@code type}: {@code streamsource} or {@code streamsink}
 * @param width      {@code width}: data width in bits, as written
 * @param chanId     {@code chan_id}: the name kernels use
 * @param attributes every attribute of the element, in source order (including extras such as {@code clock})
 * @param region     position and exact span of the whole element
 */
public record Channel(String name, String port, String type, String width, String chanId,
                      Map<String, String> attributes, Region region) {

    /** The type that feeds the kernel. */
    public static final String STREAMSOURCE = "streamsource";
    /** The type that the kernel writes. */
    public static final String STREAMSINK = "streamsink";

    /** Copies the attribute map. */
    public Channel {
        attributes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(attributes));
    }

    /** The width as a number when it is a plain decimal integer, else empty. */
    public OptionalInt widthBits() {
        if (width == null || width.isEmpty() || width.length() > 9 || !width.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(width));
    }

    /** 1-based line of the element's {@code <}. */
    public int line() {
        return region.line();
    }

    /** 1-based column of the element's {@code <}. */
    public int column() {
        return region.column();
    }

    /** Character span of the element in {@link BoardSpec#text()}. */
    public Span span() {
        return region.chars();
    }

    /** Byte span of the element in the encoded file. */
    public Span byteSpan() {
        return region.bytes();
    }
}
