// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.util.Map;
import java.util.Optional;

/**
 * One connection: {@code kind} (clock, reset, avalon, avalon_streaming, conduit, interrupt), its start
 * and end as {@code instance.interface}, and its parameters (baseAddress, arbitrationPriority, ...).
 */
public record Connection(String kind, String start, String end, Map<String, String> parameters, Where where) {
    public Connection {
        parameters = Map.copyOf(parameters);
    }

    public String startInstance() {
        return start.substring(0, Math.max(0, start.indexOf('.')));
    }

    public String startInterface() {
        return start.substring(start.indexOf('.') + 1);
    }

    public String endInstance() {
        return end.substring(0, Math.max(0, end.indexOf('.')));
    }

    public String endInterface() {
        return end.substring(end.indexOf('.') + 1);
    }

    /** The base address of an Avalon-MM connection, when it states one. */
    public Optional<BigInteger> baseAddress() {
        String b = parameters.get("baseAddress");
        if (b == null || b.isBlank()) {
            return Optional.empty();
        }
        String s = b.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            return Optional.of(s.startsWith("0x") ? new BigInteger(s.substring(2), 16) : new BigInteger(s));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
