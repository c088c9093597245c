// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
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

import org.direkt.generators.Catalog;
import org.direkt.generators.bridge.Bridge;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.overlay.OverlayModel;

/**
 * Runs a rendered Platform Designer script under {@code tclsh} with the recording stand-in
 * {@code qsys_stub.tcl}, and reads back its log: one {@link Call} per Platform Designer command.
 */
final class QsysStub {
    private static final String STUB = "/org/direkt/overlay/tcl/qsys_stub.tcl";

    private QsysStub() {
    }

    /** One logged call: the command and its arguments as the script passed them. */
    record Call(String cmd, List<String> args) {
        String arg(int i) {
            return i < args.size() ? args.get(i) : "";
        }

        boolean is(String command, String... leading) {
            if (!cmd.equals(command) || args.size() < leading.length) {
                return false;
            }
            for (int i = 0; i < leading.length; i++) {
                if (!args.get(i).equals(leading[i])) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return cmd + " " + String.join(" ", args);
        }
    }

    /** Exit status, what the script printed, and the calls it made in order. */
    record Run(int exit, String stdout, String stderr, List<Call> calls) {
        List<Call> calls(String command, String... leading) {
            return calls.stream().filter(c -> c.is(command, leading)).toList();
        }

        String describe() {
            return "exit " + exit + "\n--- stderr:\n" + stderr + "\n--- stdout:\n" + stdout;
        }
    }

    /** A bridge, its elaborated top and the overlay model the templates see. */
    record Design(String label, Map<String, String> values, Bridge.Params params, Module top, String topVerilog, List<String> files,
            Map<String, Object> model) {
        @Override
        public String toString() {
            return label;
        }
    }

    /** The bridge of preset/overrides {@code values} (Catalog's {@code bridge} keys), with the given BSP facts. */
    static Design design(String label, Map<String, String> values, Map<String, Object> bsp) {
        Bridge.Params p = Catalog.bridgeParams(new Catalog.Args("bridge", values));
        Module top = new Bridge().elaborate(p);
        Map<String, String> verilog = VerilogEmitter.emit(top);
        List<String> files = verilog.keySet().stream().sorted().map(n -> n + ".v").toList();
        return new Design(label, Map.copyOf(values), p, top, verilog.get(top.name()), files, OverlayModel.of(p, top, files, bsp));
    }

    /** BSP facts as the overlay planner fills them; {@code system} "" when none was found. */
    static Map<String, Object> bsp(String system, String dma, String desc) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("board", "a10_ref");
        b.put("system", system);
        b.put("dmaInstance", dma);
        b.put("descInstance", desc);
        b.put("qsysVersion", "18.0");
        b.put("manualSteps", List.of("Add the four channels to the kernel wrapper (freeze_wrapper.v)."));
        return b;
    }

    /** Verilog ports of the top as the emitted text declares them: name -> {direction, width}. */
    static Map<String, VerilogPort> verilogPorts(String verilog) {
        Pattern decl = Pattern.compile("^\\s*(input|output|inout)\\s+(?:wire\\s+|reg\\s+)?(?:\\[(\\d+):(\\d+)\\]\\s+)?([A-Za-z_][A-Za-z0-9_]*)\\s*[,)]?",
                Pattern.MULTILINE);
        Map<String, VerilogPort> out = new LinkedHashMap<>();
        Matcher m = decl.matcher(verilog);
        while (m.find()) {
            int width = m.group(2) == null ? 1 : Math.abs(Integer.parseInt(m.group(2)) - Integer.parseInt(m.group(3))) + 1;
            if (out.put(m.group(4), new VerilogPort(m.group(4), m.group(1), width)) != null) {
                fail("port " + m.group(4) + " declared twice in the emitted Verilog");
            }
        }
        return out;
    }

    record VerilogPort(String name, String direction, int width) {
    }

    /**
     * Writes {@code script} (and {@code fixture}, when not null) into {@code dir} and runs it under the
     * stand-in. Fails the test when tclsh cannot be started.
     */
    static Run run(Path dir, String scriptName, String script, String fixture) throws IOException, InterruptedException {
        Path stub = dir.resolve("qsys_stub.tcl");
        try (InputStream in = QsysStub.class.getResourceAsStream(STUB)) {
            if (in == null) {
                fail("test resource " + STUB + " is missing");
            }
            Files.write(stub, in.readAllBytes());
        }
        Path scriptFile = dir.resolve(scriptName);
        Files.writeString(scriptFile, script, StandardCharsets.UTF_8);
        Path log = dir.resolve(scriptName + ".log");
        List<String> cmd = new ArrayList<>(List.of(tclsh(), stub.toString(), log.toString(), scriptFile.toString()));
        if (fixture != null) {
            Path f = dir.resolve(scriptName + ".fixture.tcl");
            Files.writeString(f, fixture, StandardCharsets.UTF_8);
            cmd.add(f.toString());
        }
        Path out = dir.resolve(scriptName + ".stdout");
        Path err = dir.resolve(scriptName + ".stderr");
        Process proc;
        try {
            proc = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        } catch (IOException e) {
            throw new AssertionError(missingTclsh(e), e);
        }
        if (!proc.waitFor(60, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            fail("tclsh " + scriptName + " did not finish within 60 s");
        }
        List<Call> calls = new ArrayList<>();
        if (Files.exists(log)) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                List<String> args = new ArrayList<>();
                for (int i = 1; i < fields.length; i++) {
                    args.add(unescape(fields[i]));
                }
                calls.add(new Call(fields[0], List.copyOf(args)));
            }
        }
        return new Run(proc.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
                List.copyOf(calls));
    }

    private static String tclsh() {
        return System.getenv().getOrDefault("DIREKT_TCLSH", "tclsh");
    }

    private static String missingTclsh(IOException e) {
        return "tclsh could not be started (" + e.getMessage() + "): these tests run the generated Platform Designer "
                + "scripts under tclsh. Install it with `make setup` (Debian/Ubuntu package tcl), or point DIREKT_TCLSH at one.";
    }

    private static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                b.append(switch (n) {
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    default -> n;
                });
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
