// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One interface of an instance: {@code type} as Platform Designer names it (clock, reset, avalon,
 * avalon_streaming, conduit, interrupt); {@code start} true for a source/host/output end ("start"
 * in a connection), false for a sink/agent/input end. {@code properties} are its parameters
 * (associatedClock, associatedReset, readyLatency, addressUnits, ...) as the file states them.
 * {@code ports} is empty when the file does not list them (Standard systems keep ports in the
 * component's _hw.tcl). {@code span} is an agent's address span in bytes when the file states it.
 */
public record Interface(String name, String type, boolean start, List<Port> ports, Map<String, String> properties,
        Optional<java.math.BigInteger> span, Where where) {
    public Interface {
        ports = List.copyOf(ports);
        properties = Map.copyOf(properties);
    }

    public Optional<String> associatedClock() {
        return Optional.ofNullable(properties.get("associatedClock")).filter(s -> !s.isEmpty() && !s.equals("none"));
    }

    public Optional<String> associatedReset() {
        return Optional.ofNullable(properties.get("associatedReset")).filter(s -> !s.isEmpty() && !s.equals("none"));
    }
}
