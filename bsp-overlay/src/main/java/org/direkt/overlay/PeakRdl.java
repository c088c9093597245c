// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

import org.direkt.generators.bridge.CsrRdl;
import org.direkt.hdl.GeneratedLicence;

/**
 * Renders the register map's SystemRDL ({@link CsrRdl}) with PeakRDL, the command line most register
 * tooling goes through: {@code peakrdl html} for the browsable reference ({@link #HTML_DIR}) and
 * {@code peakrdl c-header} for host programs in C ({@link #C_HEADER}). PeakRDL is a Python program
 * direkt does not ship; {@link #find} looks for it, and an overlay made without it keeps the RDL
 * and lists the two commands as a manual step.
 *
 * <p>Two things are changed in what PeakRDL writes, so that an overlay stays byte-stable from run to
 * run: the build time stamps in the HTML index (they key the browser's cache of the pages' data) become
 * a checksum of the RDL, and the C header gets direkt's licence line for generated output.
 */
public final class PeakRdl {
    private PeakRdl() {
    }

    public static final String HTML_DIR = "doc/registers";
    public static final String C_HEADER = "include/direkt_bridge_csr.h";
    /** The environment variable naming the peakrdl program; {@code bin/direkt} points it at the project's venv. */
    public static final String ENV = "DIREKT_PEAKRDL";
    private static final long TIMEOUT_S = 120;
    /** The build time stamp in the index: once as a variable, and as the query that defeats the cache for its scripts. */
    private static final Pattern BUILD_TS = Pattern.compile("(var BUILD_TS = |\\.js\\?ts=)\\d+");

    /** The peakrdl program: {@code $DIREKT_PEAKRDL}, else {@code peakrdl} on PATH; null when neither exists. */
    public static Path find() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String path = System.getenv("PATH");
        for (String dir : path == null ? new String[0] : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, "peakrdl");
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    /** The commands that render what {@link #render} writes, for a user without PeakRDL here (run in the overlay). */
    public static String commands() {
        return "`peakrdl html " + CsrRdl.FILE_NAME + " -o " + HTML_DIR + "` and `peakrdl c-header " + CsrRdl.FILE_NAME + " -o "
                + C_HEADER + "`";
    }

    /**
     * The HTML reference and the C header of {@code rdl}, as overlay files (relative path -> bytes).
     * A program that is missing, fails or hangs is an {@link OverlayException} naming it and its output.
     */
    public static Map<String, byte[]> render(Path peakrdl, String rdl) throws OverlayException {
        if (!Files.isExecutable(peakrdl)) {
            throw new OverlayException(OverlayException.Kind.INPUT, peakrdl + ": no such program (given by --peakrdl or $" + ENV
                    + "); install PeakRDL (pip install peakrdl-cli peakrdl-html peakrdl-cheader) or pass --no-peakrdl");
        }
        Path tmp = null;
        try {
            tmp = Files.createTempDirectory("direkt-peakrdl");
            Path source = tmp.resolve(CsrRdl.FILE_NAME);
            Files.writeString(source, rdl, StandardCharsets.UTF_8);
            Path html = tmp.resolve("html");
            Path header = tmp.resolve("direkt_bridge_csr.h");
            run(peakrdl, tmp, List.of("html", source.toString(), "-o", html.toString(), "--title", "direkt bridge CSR"));
            run(peakrdl, tmp, List.of("c-header", source.toString(), "-o", header.toString()));
            Map<String, byte[]> out = new TreeMap<>();
            try (var walk = Files.walk(html)) {
                for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                    String key = HTML_DIR + "/" + html.relativize(f).toString().replace('\\', '/');
                    byte[] bytes = Files.readAllBytes(f);
                    if (key.equals(HTML_DIR + "/index.html")) {
                        bytes = stableIndex(new String(bytes, StandardCharsets.UTF_8), rdl).getBytes(StandardCharsets.UTF_8);
                    }
                    out.put(key, bytes);
                }
            }
            if (!out.containsKey(HTML_DIR + "/index.html")) {
                throw new OverlayException(OverlayException.Kind.CONSISTENCY, peakrdl + " html wrote no index.html");
            }
            String h = "// " + GeneratedLicence.SPDX_LINE + "\n// " + GeneratedLicence.NOTE + "\n// Rendered from " + CsrRdl.FILE_NAME
                    + " by PeakRDL-cheader.\n" + Files.readString(header, StandardCharsets.UTF_8);
            out.put(C_HEADER, h.getBytes(StandardCharsets.UTF_8));
            return out;
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "rendering " + CsrRdl.FILE_NAME + " with " + peakrdl + ": "
                    + e.getMessage());
        } finally {
            if (tmp != null) {
                try {
                    OverlayWriter.deleteTree(tmp);
                } catch (IOException ignored) {
                    // a temporary directory left behind is harmless
                }
            }
        }
    }

    /** The HTML index with its build stamp replaced by a checksum of the RDL it was rendered from. */
    static String stableIndex(String index, String rdl) {
        CRC32 crc = new CRC32();
        crc.update(rdl.getBytes(StandardCharsets.UTF_8));
        Matcher m = BUILD_TS.matcher(index);
        return m.replaceAll(r -> Matcher.quoteReplacement(r.group(1) + crc.getValue()));
    }

    private static void run(Path peakrdl, Path dir, List<String> args) throws OverlayException, IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(peakrdl.toAbsolutePath().toString()); // it runs in the temporary directory
        cmd.addAll(args);
        Path logFile = dir.resolve("peakrdl-" + args.get(0) + ".log");
        Process proc = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(logFile.toFile()).start();
        proc.getOutputStream().close();
        try {
            if (!proc.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                throw new OverlayException(OverlayException.Kind.CONSISTENCY, String.join(" ", cmd) + ": no result after " + TIMEOUT_S
                        + " s (killed)");
            }
        } catch (InterruptedException e) {
            proc.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, String.join(" ", cmd) + ": interrupted");
        }
        String log = Files.readString(logFile, StandardCharsets.UTF_8);
        if (proc.exitValue() != 0) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "peakrdl " + args.get(0) + " failed (exit " + proc.exitValue()
                    + ", " + peakrdl + "):\n" + log.strip());
        }
    }
}
