// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Platform Designer system as one model, whichever edition wrote it: instances with their IP type
 * and parameters, interfaces with ports and clock/reset associations, connections with base
 * addresses, exports. {@link SystemReader} reads it from a {@code .qsys} (and a Pro system's
 * {@code .ip} files); the overlay plans its edits on it and checks them here before writing.
 */
public record SystemModel(Path file, String name, Edition edition, Optional<String> toolVersion, List<Instance> instances,
        List<Connection> connections, List<Export> exports) {

    /** Pro systems keep each instance's parameters in its own {@code .ip} file; Standard ones inline. */
    public enum Edition { PRO, STANDARD }

    public SystemModel {
        instances = List.copyOf(instances);
        connections = List.copyOf(connections);
        exports = List.copyOf(exports);
    }

    public Optional<Instance> instance(String name) {
        return instances.stream().filter(i -> i.name().equals(name)).findFirst();
    }

    /** The interface {@code inst.ifc}, if both exist. */
    public Optional<Interface> iface(String qualified) {
        int dot = qualified.indexOf('.');
        if (dot < 0) {
            return Optional.empty();
        }
        return instance(qualified.substring(0, dot)).flatMap(i -> i.iface(qualified.substring(dot + 1)));
    }

    /** Every connection with {@code inst.ifc} at either end. */
    public List<Connection> connectionsOf(String qualified) {
        return connections.stream().filter(c -> c.start().equals(qualified) || c.end().equals(qualified)).toList();
    }

    /** The exports of {@code inst.ifc}. */
    public List<Export> exportsOf(String qualified) {
        return exports.stream().filter(e -> e.internal().equals(qualified)).toList();
    }

    /** One agent on a host's map: the agent {@code inst.ifc}, its base and span (empty: the files do not say). */
    public record Mapped(String agent, BigInteger base, Optional<BigInteger> span, Where where) {
        public Optional<BigInteger> end() {
            return span.map(base::add);
        }
    }

    /** Each Avalon-MM host's address map ({@code inst.ifc} -> agents by base address), hosts in file order. */
    public Map<String, List<Mapped>> addressMaps() {
        Map<String, List<Mapped>> maps = new LinkedHashMap<>();
        for (Connection c : connections) {
            if (!c.kind().equals("avalon")) {
                continue;
            }
            Optional<BigInteger> span = iface(c.end()).flatMap(Interface::span);
            maps.computeIfAbsent(c.start(), k -> new ArrayList<>())
                    .add(new Mapped(c.end(), c.baseAddress().orElse(BigInteger.ZERO), span, c.where()));
        }
        maps.values().forEach(l -> l.sort(Comparator.comparing(Mapped::base).thenComparing(Mapped::agent)));
        return maps;
    }

    /** The same system with other instances, connections and exports (the overlay's planned edits). */
    public SystemModel with(List<Instance> instances, List<Connection> connections, List<Export> exports) {
        return new SystemModel(file, name, edition, toolVersion, instances, connections, exports);
    }
}
