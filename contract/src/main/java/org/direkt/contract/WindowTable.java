// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The bridge's window table as an overlay's manifest describes it ({@code layout.csr}): its
 * entries, the smallest and largest window, and each entry's registers by name
 * ({@code WIN<i>_BASE_LO}, {@code _BASE_HI}, {@code _SIZE}, {@code _CTRL}), checked against the
 * offsets the manifest gives.
 */
public record WindowTable(int entries, int minLog2, int maxLog2, List<List<String>> names) {
    /** An entry's registers, in the order {@link #names} lists them. */
    public static final List<String> REGISTERS = List.of("BASE_LO", "BASE_HI", "SIZE", "CTRL");

    public WindowTable {
        names = List.copyOf(names);
    }

    /** The table of a bridge with {@code entries} windows (its spec, already read), as {@code layout.csr} of manifest {@code m} places it. */
    static WindowTable of(Path f, JsonNode m, int entries) {
        JsonNode csr = m.path("layout").path("csr");
        int minLog2 = csr.path("window_min_log2").asInt(-1);
        int maxLog2 = csr.path("window_max_log2").asInt(-1);
        int offset = csr.path("window_offset").asInt(-1);
        int stride = csr.path("window_stride").asInt(-1);
        List<String> regs = new ArrayList<>();
        csr.path("window_regs").forEach(r -> regs.add(r.asText()));
        if (entries < 1 || minLog2 < 0 || maxLog2 < minLog2 || maxLog2 > 63 || offset < 0 || stride < regs.size()
                || !regs.containsAll(REGISTERS)) {
            throw new IllegalArgumentException(f + ": no usable window table in layout.csr (window_entries " + entries
                    + ", window_min_log2 " + minLog2 + ", window_max_log2 " + maxLog2 + ", window_regs " + regs
                    + "; need " + REGISTERS + ")");
        }
        Map<String, Integer> offsets = new LinkedHashMap<>();
        csr.path("registers").forEach(r -> offsets.put(r.path("name").asText(), r.path("offset").asInt(-1)));
        List<List<String>> names = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            List<String> entry = new ArrayList<>();
            for (String reg : REGISTERS) {
                String name = "WIN" + i + "_" + reg;
                Integer at = offsets.get(name);
                int want = offset + stride * i + regs.indexOf(reg);
                if (at == null || at != want) {
                    throw new IllegalArgumentException(f + ": layout.csr.registers has " + (at == null ? "no " + name
                            : name + " at offset " + at) + "; window " + i + "'s " + reg + " is at offset " + want);
                }
                entry.add(name);
            }
            names.add(List.copyOf(entry));
        }
        return new WindowTable(entries, minLog2, maxLog2, names);
    }
}
