// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.direkt.runtime.DataPath;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;

/**
 * How fast a {@link Session} is on its simulated FPGA, wall time on this machine; not a test.
 * {@code make bench-session} overlays the example board and runs it from the repository root:
 *
 * <pre>java -cp ... org.direkt.runtime.bench.SessionBench --overlay DIR [--out bench/results/session.json] [--reps N]</pre>
 *
 * For each path (direct: a simulated GPU and the simulated importer; bounce: no importer), on the
 * simulator {@code SIM} names (Verilator by default):
 * <ul>
 * <li>{@code open_s}: {@code Session.open} to a ready device, the simulator build already cached
 *     (one open before the timed ones makes sure of that; it is reported as {@code first_open_s}),
 *     and {@code close_s};</li>
 * <li>{@code copies}: per size (4 KB, 256 KB, 4 MB) and direction, wall time of
 *     {@code copy(...).await()}, the simulated dma_clk cycles and the number of descriptors; every
 *     round trip (GPU -> FPGA, then FPGA -> GPU from FPGA memory) is checked byte-exact.</li>
 * </ul>
 * Medians and maxima over {@code --reps} copies (default 10) and half as many opens (at least 3). The bounds the device
 * is held to ({@link #OPEN_BOUND_S}, {@link #COPY_BOUND_S} for 256 KB) are in the file with whether
 * they are met; a missed bound makes it exit 1 (after writing the file).
 */
public final class SessionBench {
    static final double OPEN_BOUND_S = 10.0;
    static final double COPY_BOUND_S = 1.0;
    static final int BOUND_BYTES = 256 * 1024;
    static final int[] SIZES = {4096, BOUND_BYTES, 4 << 20};
    private static final long APERTURE = 0x38_0000_0000L;
    private static final long APERTURE_SIZE = 1L << 30;
    private static final long FPGA = 0x1000_0000L;

    private SessionBench() {
    }

    public static void main(String[] args) throws Exception {
        Path overlay = null;
        Path out = Path.of("bench/results/session.json");
        int reps = 10;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                usage("'" + args[i] + "' needs a value");
            }
            switch (args[i]) {
                case "--overlay" -> overlay = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                default -> usage("unknown argument '" + args[i] + "'");
            }
        }
        if (overlay == null || reps < 1) {
            usage("--overlay DIR is required, --reps must be >= 1");
        }
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode doc = f.objectNode();
        ObjectNode machine = doc.putObject("machine");
        machine.put("cpus", Runtime.getRuntime().availableProcessors());
        machine.put("java_version", System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        String sim = System.getenv("SIM") == null || System.getenv("SIM").isBlank() ? "verilator" : System.getenv("SIM");
        doc.put("simulator", sim);
        doc.put("reps", reps);
        doc.put("what", "wall time on this machine: Session.open to a ready simulated FPGA (simulator build cached), and"
                + " copy(...).await() per size and direction; medians and maxima");
        boolean met = true;
        ObjectNode paths = doc.putObject("paths");
        for (DataPath path : DataPath.values()) {
            ObjectNode p = paths.putObject(path.name().toLowerCase());
            met &= measure(overlay, path, reps, p);
        }
        ObjectNode bounds = doc.putObject("bounds");
        bounds.put("open_s", OPEN_BOUND_S);
        bounds.put("copy_256k_s", COPY_BOUND_S);
        bounds.put("met", met);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc) + "\n");
        System.out.println("wrote " + out + (met ? "" : "; a bound was missed"));
        if (!met) {
            System.exit(1);
        }
    }

    private static void usage(String why) {
        System.err.println("SessionBench: " + why + " (usage: SessionBench --overlay DIR [--out FILE] [--reps N])");
        System.exit(2);
    }

    private static Session open(Path overlay, DataPath path) throws Exception {
        BusAddressImporter importer = path == DataPath.DIRECT ? new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 2026)
                : BusAddressImporter.none("no importer (the bench's bounce path)");
        Session s = Session.open(overlay, importer, Session.Gpu.SIMULATED);
        if (s.path() != path) {
            s.close();
            throw new IllegalStateException("the session took the " + s.path() + " path, not " + path + ": " + s.pathReason());
        }
        return s;
    }

    /** Fills {@code p} with one path's figures; whether they meet the bounds. */
    private static boolean measure(Path overlay, DataPath path, int reps, ObjectNode p) throws Exception {
        long t0 = System.nanoTime();
        open(overlay, path).close();
        p.put("first_open_s", round((System.nanoTime() - t0) / 1e9, 2));
        int opens = Math.max(3, reps / 2);
        double[] open = new double[opens];
        double[] close = new double[opens];
        for (int i = 0; i < opens; i++) {
            long a = System.nanoTime();
            Session s = open(overlay, path);
            long b = System.nanoTime();
            s.close();
            open[i] = (b - a) / 1e9;
            close[i] = (System.nanoTime() - b) / 1e9;
        }
        p.put("opens", opens);
        p.set("open_s", stats(open, 2));
        p.set("close_s", stats(close, 2));
        boolean met = p.get("open_s").get("max").asDouble() <= OPEN_BOUND_S;
        System.out.printf("%s: open %.2f s median, %.2f s max (first %.2f s)%n", path, p.get("open_s").get("median").asDouble(),
                p.get("open_s").get("max").asDouble(), p.get("first_open_s").asDouble());

        ArrayNode copies = p.putArray("copies");
        try (Session s = open(overlay, path)) {
            s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
            int largest = Arrays.stream(SIZES).max().orElseThrow();
            Session.GpuBuffer g = s.allocateGpu(2L * largest);
            Session.FpgaBuffer fpga = s.fpgaBuffer(FPGA, largest);
            Random rnd = new Random(1);
            for (int size : SIZES) {
                byte[] data = new byte[size];
                double[] in = new double[reps];
                double[] back = new double[reps];
                long inCycles = 0;
                long backCycles = 0;
                int inDescs = 0;
                int backDescs = 0;
                for (int r = 0; r < reps; r++) {
                    rnd.nextBytes(data);
                    g.write(0, data);
                    Session.Copy c = s.copy(g, 0, fpga, 0, size);
                    long a = System.nanoTime();
                    c.await();
                    long b = System.nanoTime();
                    Session.Copy d = s.copy(fpga, 0, g, largest, size);
                    d.await();
                    long e = System.nanoTime();
                    if (!Arrays.equals(data, g.read(largest, size))) {
                        throw new IllegalStateException(path + ", " + size + " bytes: the round trip is not byte-exact");
                    }
                    in[r] = (b - a) / 1e9;
                    back[r] = (e - b) / 1e9;
                    inCycles = c.dmaCycles();
                    backCycles = d.dmaCycles();
                    inDescs = c.descriptorCount();
                    backDescs = d.descriptorCount();
                }
                ObjectNode row = copies.addObject();
                row.put("bytes", size);
                ObjectNode gf = row.putObject("gpu_to_fpga");
                gf.set("wall_s", stats(in, 4));
                gf.put("dma_cycles", inCycles);
                gf.put("descriptors", inDescs);
                ObjectNode fg = row.putObject("fpga_to_gpu");
                fg.set("wall_s", stats(back, 4));
                fg.put("dma_cycles", backCycles);
                fg.put("descriptors", backDescs);
                if (size == BOUND_BYTES) {
                    met &= gf.get("wall_s").get("max").asDouble() <= COPY_BOUND_S && fg.get("wall_s").get("max").asDouble() <= COPY_BOUND_S;
                }
                System.out.printf("%s: %8d B  GPU->FPGA %7.1f ms (%d cycles, %d descriptors)  FPGA->GPU %7.1f ms (%d cycles)%n",
                        path, size, gf.get("wall_s").get("median").asDouble() * 1e3, inCycles, inDescs,
                        fg.get("wall_s").get("median").asDouble() * 1e3, backCycles);
            }
        }
        return met;
    }

    private static ObjectNode stats(double[] v, int digits) {
        double[] s = v.clone();
        Arrays.sort(s);
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("median", round(s[s.length / 2], digits));
        n.put("max", round(s[s.length - 1], digits));
        n.put("min", round(s[0], digits));
        return n;
    }

    private static double round(double v, int digits) {
        double k = Math.pow(10, digits);
        return Math.round(v * k) / k;
    }
}
