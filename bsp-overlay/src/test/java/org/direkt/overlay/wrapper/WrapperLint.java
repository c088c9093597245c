// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.wrapper;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lints a kernel wrapper under {@code verilator --lint-only -Wall} with a stand-in for the kernel system
 * built from the wrapper's own instance of it: each connected signal's width from its declaration, and
 * its direction from what it is in the wrapper (an input port or a reg drives the kernel system; an
 * output port or a wire is driven by it). Returns the warnings, without line numbers, so that two
 * versions of a wrapper can be compared.
 */
final class WrapperLint {
    private WrapperLint() {
    }

    private static final Pattern DECL = Pattern.compile("\\b(input|output|wire|reg)\\s*(\\[\\s*(\\d+)\\s*:\\s*0\\s*\\])?\\s*([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern CONN = Pattern.compile("\\.([A-Za-z_][A-Za-z0-9_]*)\\s*\\(\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)");

    static List<String> warnings(Path dir, String wrapper) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        String code = wrapper.replaceAll("//[^\\n]*", "");
        Map<String, String[]> decl = new LinkedHashMap<>();
        Matcher d = DECL.matcher(code);
        while (d.find()) {
            decl.putIfAbsent(d.group(4), new String[] {d.group(1), d.group(3) == null ? "0" : d.group(3)});
        }
        int inst = code.indexOf("kernel_system kernel_system_inst");
        int end = code.indexOf(");", inst);
        List<String> ports = new ArrayList<>();
        Matcher c = CONN.matcher(code.substring(inst, end));
        while (c.find()) {
            String[] sig = decl.get(c.group(2));
            String dir2 = sig == null || sig[0].equals("input") || sig[0].equals("reg") ? "input" : "output";
            int msb = sig == null ? 0 : Integer.parseInt(sig[1]);
            ports.add("  " + dir2 + " wire " + (msb > 0 ? "[" + msb + ":0] " : "") + c.group(1));
        }
        StringBuilder stub = new StringBuilder("/* verilator lint_off UNUSEDSIGNAL */\n/* verilator lint_off UNDRIVEN */\nmodule kernel_system (\n");
        stub.append(String.join(",\n", ports)).append("\n);\nendmodule\n");
        Files.writeString(dir.resolve("kernel_system.v"), stub, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("freeze_wrapper.v"), wrapper, StandardCharsets.ISO_8859_1);
        ProcessBuilder pb = new ProcessBuilder("verilator", "--lint-only", "-Wall", "-Wno-fatal", "--top-module", "freeze_wrapper",
                "kernel_system.v", "freeze_wrapper.v").directory(dir.toFile()).redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            assumeTrue(false, "verilator not on PATH");
            return List.of();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("verilator did not finish");
        }
        if (out.contains("%Error")) {
            throw new AssertionError("verilator failed on the wrapper:\n" + out);
        }
        List<String> w = new ArrayList<>();
        for (String line : out.lines().toList()) {
            if (line.startsWith("%Warning-") && line.contains("freeze_wrapper.v")) {
                // drop the location: the same warning moves when lines are inserted above it
                w.add(line.replaceAll("freeze_wrapper\\.v:\\d+:\\d+:", "freeze_wrapper.v:"));
            }
        }
        return w;
    }
}
