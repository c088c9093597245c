// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.util.List;
import java.util.Map;

/**
 * A small deterministic JSON writer (maps keep their insertion order, two-space indent, LF line
 * ends), so the same input always gives the same bytes.
 */
public final class Json {
    private Json() {
    }

    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> string(sb, s);
            case Boolean b -> sb.append(b);
            case Integer i -> sb.append(i);
            case Long l -> sb.append(l);
            case java.math.BigInteger b -> sb.append(b);
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append("{\n");
                int n = 0;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    pad(sb, indent + 1);
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent + 1);
                    sb.append(++n < m.size() ? ",\n" : "\n");
                }
                pad(sb, indent);
                sb.append('}');
            }
            case List<?> l -> {
                if (l.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                boolean flat = l.stream().allMatch(x -> !(x instanceof Map) && !(x instanceof List));
                if (flat) {
                    sb.append('[');
                    for (int i = 0; i < l.size(); i++) {
                        write(sb, l.get(i), indent);
                        if (i + 1 < l.size()) {
                            sb.append(", ");
                        }
                    }
                    sb.append(']');
                    return;
                }
                sb.append("[\n");
                for (int i = 0; i < l.size(); i++) {
                    pad(sb, indent + 1);
                    write(sb, l.get(i), indent + 1);
                    sb.append(i + 1 < l.size() ? ",\n" : "\n");
                }
                pad(sb, indent);
                sb.append(']');
            }
            default -> throw new IllegalArgumentException("cannot write " + v.getClass().getSimpleName() + " as JSON");
        }
    }

    private static void pad(StringBuilder sb, int indent) {
        sb.append("  ".repeat(indent));
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
