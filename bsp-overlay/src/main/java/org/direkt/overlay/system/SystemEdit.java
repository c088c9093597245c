// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One change the overlay makes to a Platform Designer system, as a Platform Designer script command
 * says it. The overlay plans a list of these, renders the script from the list, and applies the same
 * list to the {@link SystemModel} to check the result before anything is written ({@link SystemCheck}).
 */
public sealed interface SystemEdit {

    /** The system with this change made; {@code where} marks what the change brings in. */
    SystemModel apply(SystemModel s, Where where);

    /**
     * An instance parameter changed. In a Pro system it is the instance's {@code .ip} that changes
     * ({@code load_component}/{@code set_component_parameter_value}/{@code save_component}); in a
     * Standard one the instance's parameter. {@code interfacesAfter}: the instance's interfaces the
     * change removes and adds, as the IP declares them for the new value.
     */
    record SetParameter(String instance, String name, String value, List<String> removesInterfaces,
            List<Interface> addsInterfaces) implements SystemEdit {
        public SetParameter {
            removesInterfaces = List.copyOf(removesInterfaces);
            addsInterfaces = List.copyOf(addsInterfaces);
        }

        @Override
        public SystemModel apply(SystemModel s, Where where) {
            List<Instance> instances = new ArrayList<>();
            for (Instance i : s.instances()) {
                if (!i.name().equals(instance)) {
                    instances.add(i);
                    continue;
                }
                Map<String, String> params = new LinkedHashMap<>(i.parameters());
                params.put(name, value);
                Map<String, Where> at = new LinkedHashMap<>(i.parameterWhere());
                at.put(name, where);
                List<Interface> ifs = new ArrayList<>(i.interfaces().stream().filter(f -> !removesInterfaces.contains(f.name())).toList());
                ifs.addAll(addsInterfaces);
                instances.add(new Instance(i.name(), i.kind(), i.version(), params, at, ifs, i.where(), i.ipFile()));
            }
            // connections to interfaces that no longer exist go with them (Platform Designer drops them)
            List<Connection> conns = s.connections().stream().filter(c -> !touchesRemoved(c)).toList();
            return s.with(instances, conns, s.exports());
        }

        private boolean touchesRemoved(Connection c) {
            return (c.startInstance().equals(instance) && removesInterfaces.contains(c.startInterface()))
                    || (c.endInstance().equals(instance) && removesInterfaces.contains(c.endInterface()));
        }
    }

    /** A new instance of a component ({@code add_instance}), with the interfaces its component declares. */
    record AddInstance(String name, String kind, String version, List<Interface> interfaces) implements SystemEdit {
        public AddInstance {
            interfaces = List.copyOf(interfaces);
        }

        @Override
        public SystemModel apply(SystemModel s, Where where) {
            List<Instance> instances = new ArrayList<>(s.instances());
            instances.add(new Instance(name, kind, version, Map.of(), Map.of(), interfaces, where, Optional.empty()));
            return s.with(instances, s.connections(), s.exports());
        }
    }

    /** A connection removed ({@code remove_connection start/end}). */
    record RemoveConnection(String start, String end) implements SystemEdit {
        @Override
        public SystemModel apply(SystemModel s, Where where) {
            return s.with(s.instances(), s.connections().stream()
                    .filter(c -> !(c.start().equals(start) && c.end().equals(end))).toList(), s.exports());
        }
    }

    /** A connection added ({@code add_connection}, then each parameter with {@code set_connection_parameter_value}). */
    record AddConnection(String kind, String start, String end, Map<String, String> parameters) implements SystemEdit {
        public AddConnection {
            parameters = Map.copyOf(parameters);
        }

        @Override
        public SystemModel apply(SystemModel s, Where where) {
            List<Connection> conns = new ArrayList<>(s.connections());
            conns.add(new Connection(kind, start, end, parameters, where));
            return s.with(s.instances(), conns, s.exports());
        }
    }

    /** An interface exported on the system's boundary ({@code add_interface} + {@code EXPORT_OF}). */
    record AddExport(String name, String internal, String type, String dir) implements SystemEdit {
        @Override
        public SystemModel apply(SystemModel s, Where where) {
            List<Export> exports = new ArrayList<>(s.exports());
            exports.add(new Export(name, internal, type, dir, where));
            return s.with(s.instances(), s.connections(), exports);
        }
    }

    /** {@code edits} applied in order, each marked as coming from {@code script}. */
    public static SystemModel applyAll(SystemModel s, List<? extends SystemEdit> edits, java.nio.file.Path script) {
        SystemModel m = s;
        int n = 1;
        for (SystemEdit e : edits) {
            m = e.apply(m, new Where(script, n++));
        }
        return m;
    }
}
