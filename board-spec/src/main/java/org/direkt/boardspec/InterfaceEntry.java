// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One {@code <interface>} child of {@code <global_mem>} or of {@code <interfaces>}. Older BSPs write
 * the types {@code master}/{@code slave}, newer ones {@code host}/{@code agent}; both are kept as
 * written, and {@link #canonicalType()} maps the old words to the new.
 *
 * @param name       {@code name}: owning instance, or {@code null} when absent
 * @param port       {@code port}, or {@code null}
 * @param type       {@code type} as written ({@code master}, {@code slave}, {@code host}, {@code agent},
 *                   {@code irq}, {@code streamsource}, ...), or {@code null}
 * @param width      {@code width} as written, or {@code null}
 * @param attributes every attribute in source order
 * @param region     position and span of the element
 */
public record InterfaceEntry(String name, String port, String type, String width,
                             Map<String, String> attributes, Region region) {

    /** Copies the attribute map. */
    public InterfaceEntry {
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    /** The type with {@code master} read as {@code host} and {@code slave} as {@code agent}. */
    public String canonicalType() {
        if ("master".equals(type)) {
            return "host";
        }
        if ("slave".equals(type)) {
            return "agent";
        }
        return type;
    }
}
