// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One instance of a system: its name, its IP type ({@code kind}: the real class name, also for a Pro
 * system's {@code altera_generic_component}), its parameters (from the {@code .qsys} or from its
 * {@code .ip} file), its interfaces, where it is declared and, in a Pro system, the {@code .ip} file
 * that holds its parameters ({@code ipFile}, resolved against the system's directory).
 */
public record Instance(String name, String kind, String version, Map<String, String> parameters,
        Map<String, Where> parameterWhere, List<Interface> interfaces, Where where, Optional<Path> ipFile) {
    public Instance {
        parameters = Map.copyOf(parameters);
        parameterWhere = Map.copyOf(parameterWhere);
        interfaces = List.copyOf(interfaces);
    }

    public Optional<Interface> iface(String name) {
        return interfaces.stream().filter(i -> i.name().equals(name)).findFirst();
    }

    public Optional<String> parameter(String name) {
        return Optional.ofNullable(parameters.get(name));
    }
}
