// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code <global_mem>} element: a memory the kernels reach through one or more interfaces.
 *
 * @param name         {@code name} (e.g. {@code DDR}, {@code device0}, {@code host}), or {@code null} when absent
 *                     (SDK 14.x files leave it out of a board's only memory)
 * @param maxBandwidth {@code max_bandwidth} in MB/s as written, or {@code null}
 * @param isDefault    whether this is the board's default memory: the one marked {@code default="1"},
 *                     else the first {@code <global_mem>} of the file
 * @param attributes   every attribute in source order (interleaved_bytes, config_addr, allocation_type, ...)
 * @param interfaces   the {@code <interface>} children in source order
 * @param region       position and span of the element
 */
public record GlobalMemory(String name, String maxBandwidth, boolean isDefault, Map<String, String> attributes,
                           List<InterfaceEntry> interfaces, Region region) {

    /** Copies the collections. */
    public GlobalMemory {
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        interfaces = List.copyOf(interfaces);
    }
}
