// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;

/**
 * Command line of the generators.
 * <pre>
 *   Emit &lt;generator&gt; [key=value ...] --out &lt;dir&gt;   one configuration; prints each file, then "top &lt;module&gt;"
 *   Emit --ip &lt;dir&gt;                               the reference IP and a FuseSoC core per top; removes files no longer generated
 *   Emit --list-ip                                  the reference configurations' top modules
 *   Emit --list-presets                             the bridge's presets
 * </pre>
 */
public final class Emit {
    private Emit() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        try {
            if (args.length == 2 && args[0].equals("--ip")) {
                return writeIp(Path.of(args[1]));
            }
            if (args.length == 1 && args[0].equals("--list-ip")) {
                // The reference configurations' top modules, one per line (what bench/area.py measures).
                for (Module m : Catalog.referenceIp()) {
                    System.out.println(m.name());
                }
                return 0;
            }
            if (args.length == 1 && args[0].equals("--list-presets")) {
                // The bridge's presets, one per line (what bench/timing.py and bench/bridge.py measure).
                org.direkt.generators.bridge.Bridge.Params.PRESETS.keySet().forEach(System.out::println);
                return 0;
            }
            String name = null;
            Path out = null;
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--out") && i + 1 < args.length) {
                    out = Path.of(args[++i]);
                } else if (a.contains("=")) {
                    String[] kv = a.split("=", 2);
                    params.put(kv[0], kv[1]);
                } else if (name == null && !a.startsWith("-")) {
                    name = a;
                } else {
                    return usage("unexpected argument '" + a + "'");
                }
            }
            if (name == null || out == null) {
                return usage("give a generator and --out <dir>");
            }
            Module top = Catalog.build(name, params);
            for (Diagnostic w : top.warnings()) {
                System.err.println(w);
            }
            for (Path f : VerilogEmitter.writeTo(top, out)) {
                System.out.println(f);
            }
            for (Map.Entry<String, String> extra : Catalog.extraFiles(name, params).entrySet()) {
                Path f = out.resolve(extra.getKey());
                Path tmp = Files.createTempFile(out, "." + extra.getKey(), ".tmp");
                Files.writeString(tmp, extra.getValue());
                Files.move(tmp, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                System.out.println(f);
            }
            System.out.println("top " + top.name());
            return 0;
        } catch (ElaborationException | IllegalArgumentException e) {
            System.err.println("emit: " + e.getMessage());
            return 1;
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            System.err.println("emit: " + e.getMessage());
            return 1;
        }
    }

    private static int writeIp(Path dir) throws java.io.IOException {
        Set<String> wanted = new TreeSet<>();
        Map<String, String> files = new LinkedHashMap<>();
        for (Module m : Catalog.referenceIp()) {
            if (!m.warnings().isEmpty()) {
                m.warnings().forEach(System.err::println);
                System.err.println("ip: " + m.name() + " has warnings; reference IP must be clean");
                return 1;
            }
            Map<String, String> modules = VerilogEmitter.emit(m);
            modules.forEach((name, text) -> files.putIfAbsent(name + ".v", text));
            // a FuseSoC core per top: its lint and sim targets (make fusesoc-check runs every lint)
            files.put(m.name() + ".core", FuseSocCore.referenceIp(m.name(), modules.keySet().stream().map(n -> n + ".v").toList()));
        }
        Files.createDirectories(dir);
        for (Map.Entry<String, String> e : files.entrySet()) {
            Path target = dir.resolve(e.getKey());
            wanted.add(target.getFileName().toString());
            if (!Files.exists(target) || !Files.readString(target).equals(e.getValue())) {
                Path tmp = Files.createTempFile(dir, "." + e.getKey(), ".tmp");
                Files.writeString(tmp, e.getValue());
                Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                System.out.println("wrote " + target);
            }
        }
        try (Stream<Path> old = Files.list(dir)) {
            for (Path p : old.filter(p -> p.toString().endsWith(".v") || p.toString().endsWith(".core")).toList()) {
                if (!wanted.contains(p.getFileName().toString())) {
                    Files.delete(p);
                    System.out.println("removed " + p);
                }
            }
        }
        long cores = files.keySet().stream().filter(f -> f.endsWith(".core")).count();
        System.out.println("ip: " + (files.size() - cores) + " modules and " + cores + " FuseSoC cores in " + dir);
        return 0;
    }

    private static int usage(String problem) {
        System.err.println("emit: " + problem);
        System.err.println("usage: Emit <generator> [key=value ...] --out <dir> | Emit --ip <dir>");
        Catalog.entries().forEach((k, v) -> System.err.println("  " + k + ": " + v.help()));
        return 2;
    }
}
