// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.overlay.OverlayException;

/**
 * Reads a Platform Designer system ({@code .qsys} with a {@code <system>} root) into a {@link SystemModel}.
 *
 * <ul>
 * <li>Standard edition: each {@code <module kind="<ip>">} holds its parameters inline; the file lists
 * no ports, so an instance's interfaces are what its connections and exports name (no ports, no span).
 * <li>Pro edition ({@code tool="QsysPro"}): a {@code kind="altera_generic_component"} module states its
 * real IP class and its interfaces in the {@code componentDefinition} CDATA, and keeps its parameters
 * in the {@code .ip} file named by {@code logicalView} (relative to the system's directory). Other
 * modules of a Pro system (composed subsystems such as {@code acl_ddr4_a10}) are read as in Standard.
 * </ul>
 *
 * Errors are {@code file:line: what is wrong}, with lines inside a CDATA counted from the system file's
 * own lines. A system or {@code .ip} file that is missing or unreadable is bad input ({@code INPUT});
 * one that is malformed, in an unknown schema, or names a missing {@code .ip} is a broken BSP ({@code BSP}).
 */
public final class SystemReader {
    private SystemReader() {
    }

    static final String GENERIC = "altera_generic_component";
    private static final Pattern RELEASE = Pattern.compile("(\\d{1,2})\\.(\\d{1,2})(?:\\.\\d+)*");

    public static SystemModel read(Path qsys) throws OverlayException {
        Path file = qsys.normalize();
        if (Files.isDirectory(file)) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": a directory, not a Platform Designer system file");
        }
        XmlTree root = XmlTree.parse(file);
        if (!root.name().equals("system")) {
            boolean design = root.name().equals("design") && root.namespace().equals(IpFile.IPXACT_2014);
            throw new OverlayException(OverlayException.Kind.BSP, file + ":" + root.line() + ": "
                    + (design ? "a system saved as an IP-XACT design (<ipxact:design>); direkt reads systems with a <system> root"
                            : "not a Platform Designer system: root element <" + root.name() + ">, expected <system>"));
        }
        boolean pro = root.child("component").map(c -> c.attribute("tool").equals("QsysPro")).orElse(false)
                || root.all("module").stream().anyMatch(m -> m.attribute("kind").equals(GENERIC));
        Path dir = file.getParent() == null ? Path.of("") : file.getParent();

        List<Export> exports = new ArrayList<>();
        for (XmlTree e : root.all("interface")) {
            exports.add(new Export(e.attribute("name"), e.attribute("internal"), e.attribute("type"), e.attribute("dir"),
                    new Where(file, e.line())));
        }
        List<Connection> connections = new ArrayList<>();
        for (XmlTree c : root.all("connection")) {
            String start = c.attribute("start");
            String end = c.attribute("end");
            if (start.isEmpty() || end.isEmpty()) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + c.line() + ": a <connection> without "
                        + (start.isEmpty() ? "start" : "end"));
            }
            connections.add(new Connection(c.attribute("kind"), start, end, inlineParameters(c), new Where(file, c.line())));
        }

        List<Instance> instances = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        String newestIp = null;
        for (XmlTree m : root.all("module")) {
            String name = m.attribute("name");
            if (name.isEmpty() || m.attribute("kind").isEmpty()) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + m.line() + ": a <module> without "
                        + (name.isEmpty() ? "a name" : "a kind"));
            }
            Integer first = seen.putIfAbsent(name, m.line());
            if (first != null) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + m.line() + ": a second module named '" + name
                        + "' (the first is at line " + first + ")");
            }
            Instance i = described(m) ? generic(m, file, dir) : inline(m, file, connections, exports);
            instances.add(i);
            if (i.kind().startsWith("altera_") || i.kind().startsWith("intel_")) {
                newestIp = newer(newestIp, i.version());
            }
        }
        String newestConnection = null;
        for (XmlTree c : root.all("connection")) {
            newestConnection = newer(newestConnection, c.attribute("version"));
        }
        Optional<String> tool = Optional.ofNullable(newestConnection != null ? newestConnection : newestIp);
        return new SystemModel(file, root.attribute("name"), pro ? SystemModel.Edition.PRO : SystemModel.Edition.STANDARD, tool,
                instances, connections, exports);
    }

    /** A Pro generic component, or any module that carries a componentDefinition or names its .ip file. */
    private static boolean described(XmlTree m) {
        return m.attribute("kind").equals(GENERIC) || m.all("parameter").stream()
                .anyMatch(p -> p.attribute("name").equals("componentDefinition") || p.attribute("name").equals("logicalView"));
    }

    /**
     * A Pro generic component: class and interfaces from its componentDefinition, parameters from its
     * .ip file (a module of another kind that carries them keeps its kind).
     */
    private static Instance generic(XmlTree m, Path file, Path dir) throws OverlayException {
        String name = m.attribute("name");
        ComponentDefinition def = new ComponentDefinition(Optional.empty(), Optional.empty(), List.of());
        Optional<Path> ipPath = Optional.empty();
        Map<String, String> params = new LinkedHashMap<>();
        Map<String, Where> where = new LinkedHashMap<>();
        Optional<String> ipType = Optional.empty();
        for (XmlTree p : m.all("parameter")) {
            String pname = p.attribute("name");
            switch (pname) {
                case "componentDefinition" -> def = ComponentDefinition.parse(p.text(), file, p.textLine(), name);
                case "logicalView" -> {
                    String rel = value(p).replace('\\', '/');
                    if (rel.isEmpty()) {
                        throw new OverlayException(OverlayException.Kind.BSP, file + ":" + p.line() + ": module '" + name
                                + "' names no parameters file (logicalView is empty)");
                    }
                    Path ip = dir.resolve(rel).normalize();
                    if (!Files.isRegularFile(ip)) {
                        throw new OverlayException(OverlayException.Kind.BSP, file + ":" + p.line() + ": module '" + name
                                + "': its parameters file " + rel + " does not exist (looked for " + ip + ")");
                    }
                    IpFile f = IpFile.read(ip);
                    params.putAll(f.parameters());
                    where.putAll(f.where());
                    ipType = f.ipType();
                    ipPath = Optional.of(ip);
                }
                case "generationInfoDefinition", "moduleAssignmentDefinition" -> {
                    // how Platform Designer generates the instance: nothing the model holds
                }
                default -> {
                    params.put(pname, value(p));
                    where.put(pname, new Where(file, p.line()));
                }
            }
        }
        Optional<String> fromIp = ipType;
        String kind = !m.attribute("kind").equals(GENERIC) ? m.attribute("kind") : def.className().or(() -> fromIp).orElse(GENERIC);
        String version = def.version().orElse(m.attribute("version"));
        return new Instance(name, kind, version, params, where, def.interfaces(), new Where(file, m.line()), ipPath);
    }

    /**
     * A module with its parameters inline (Standard, or a composed subsystem in Pro): its interfaces
     * are the ones its connections and exports name, in file order, each as the first mention states it.
     */
    private static Instance inline(XmlTree m, Path file, List<Connection> connections, List<Export> exports) {
        String name = m.attribute("name");
        Map<String, String> params = new LinkedHashMap<>();
        Map<String, Where> where = new LinkedHashMap<>();
        for (XmlTree p : m.all("parameter")) {
            params.put(p.attribute("name"), value(p));
            where.put(p.attribute("name"), new Where(file, p.line()));
        }
        Map<String, Interface> ifs = new LinkedHashMap<>();
        for (Connection c : connections) {
            if (c.startInstance().equals(name)) {
                ifs.putIfAbsent(c.startInterface(), named(c.startInterface(), c.kind(), true, c.where()));
            }
            if (c.endInstance().equals(name)) {
                ifs.putIfAbsent(c.endInterface(), named(c.endInterface(), c.kind(), false, c.where()));
            }
        }
        for (Export e : exports) {
            int dot = e.internal().indexOf('.');
            if (dot > 0 && e.internal().substring(0, dot).equals(name)) {
                String ifc = e.internal().substring(dot + 1);
                ifs.putIfAbsent(ifc, named(ifc, e.type(), e.dir().equals("start"), e.where()));
            }
        }
        return new Instance(name, m.attribute("kind"), m.attribute("version"), params, where, List.copyOf(ifs.values()),
                new Where(file, m.line()), Optional.empty());
    }

    private static Interface named(String name, String type, boolean start, Where where) {
        return new Interface(name, type, start, List.of(), Map.of(), Optional.empty(), where);
    }

    private static Map<String, String> inlineParameters(XmlTree e) {
        Map<String, String> out = new LinkedHashMap<>();
        for (XmlTree p : e.all("parameter")) {
            out.put(p.attribute("name"), value(p));
        }
        return out;
    }

    /** {@code <parameter name value/>}, or the value as the element's text. */
    private static String value(XmlTree p) {
        return p.attributes().containsKey("value") ? p.attribute("value") : p.text().strip();
    }

    /** The newer of two releases (major.minor; anything else is not one). */
    private static String newer(String a, String b) {
        Matcher m = RELEASE.matcher(b == null ? "" : b.strip());
        if (!m.matches() || Integer.parseInt(m.group(1)) < 11) {
            return a;
        }
        String v = Integer.parseInt(m.group(1)) + "." + Integer.parseInt(m.group(2));
        if (a == null) {
            return v;
        }
        String[] x = a.split("\\.");
        int c = Integer.compare(Integer.parseInt(m.group(1)), Integer.parseInt(x[0]));
        return c > 0 || (c == 0 && Integer.parseInt(m.group(2)) > Integer.parseInt(x[1])) ? v : a;
    }
}
