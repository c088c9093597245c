// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.examples;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.hdl.lib.SkidBuffer;

/**
 * Command line: {@code Emit <example> [key=value ...] --out <dir>} elaborates an example design and
 * writes one Verilog file per module. Prints each file written, then {@code top <module>}.
 */
public final class Emit {

    private record Example(String help, Function<Map<String, Integer>, Module> build) {
    }

    private static final Map<String, Example> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("skid_buffer", new Example("width (default 8)",
                p -> new SkidBuffer().elaborate(new SkidBuffer.Params(p.getOrDefault("width", 8)))));
        EXAMPLES.put("gray_crossing", new Example("width (default 4), sync_stages (default 2)",
                p -> new GrayCrossing().elaborate(new GrayCrossing.Params(p.getOrDefault("width", 4),
                        p.getOrDefault("sync_stages", 2)))));
        EXAMPLES.put("skid_chain", new Example("width (default 8), stages (default 3)",
                p -> new SkidChain().elaborate(new SkidChain.Params(p.getOrDefault("width", 8), p.getOrDefault("stages", 3)))));
        EXAMPLES.put("simple_ram", new Example("width (default 8), depth (default 16)",
                p -> new SimpleRam().elaborate(new SimpleRam.Params(p.getOrDefault("width", 8), p.getOrDefault("depth", 16)))));
    }

    /** The example names, in the order the help lists them. */
    public static java.util.Set<String> examples() {
        return java.util.Collections.unmodifiableSet(EXAMPLES.keySet());
    }

    private Emit() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        String example = null;
        Path out = null;
        Map<String, Integer> params = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--out")) {
                if (i + 1 >= args.length) {
                    return usage("--out needs a directory");
                }
                out = Path.of(args[++i]);
            } else if (a.contains("=")) {
                String[] kv = a.split("=", 2);
                try {
                    params.put(kv[0], Integer.parseInt(kv[1]));
                } catch (NumberFormatException e) {
                    return usage("parameter " + kv[0] + ": '" + kv[1] + "' is not an integer");
                }
            } else if (example == null) {
                example = a;
            } else {
                return usage("unexpected argument '" + a + "'");
            }
        }
        if (example == null || out == null) {
            return usage("give an example name and --out <dir>");
        }
        Example ex = EXAMPLES.get(example);
        if (ex == null) {
            return usage("unknown example '" + example + "'");
        }
        try {
            Module top = ex.build().apply(params);
            for (Diagnostic w : top.warnings()) {
                System.err.println(w);
            }
            List<Path> files = VerilogEmitter.writeTo(top, out);
            for (Path f : files) {
                System.out.println(f);
            }
            System.out.println("top " + top.name());
            return 0;
        } catch (ElaborationException | IllegalArgumentException e) {
            System.err.println("emit " + example + ": " + e.getMessage());
            return 1;
        }
    }

    private static int usage(String problem) {
        System.err.println("emit: " + problem);
        System.err.println("usage: Emit <example> [key=value ...] --out <dir>");
        EXAMPLES.forEach((k, v) -> System.err.println("  " + k + ": " + v.help()));
        return 2;
    }
}
