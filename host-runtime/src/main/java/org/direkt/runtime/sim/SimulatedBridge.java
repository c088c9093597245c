// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.direkt.contract.Layout;

/**
 * The simulated back end: runs a {@link ReplayJob}'s kernel DMA descriptors through the bridge's
 * cocotb system simulation ({@code sim/tb/bridge_replay}) and returns the statuses and memory
 * contents as a {@link ReplayResult}.
 *
 * <p>Each {@link #run} writes the job to a fresh temporary directory, runs
 * {@code <repo>/.venv/bin/pytest -q <repo>/sim/tb/bridge_replay} with {@code DIREKT_REPLAY_JOB},
 * {@code DIREKT_REPLAY_RESULT} and {@code SIM} set (the bench emits the bridge with the Java
 * generator, builds it with Verilator or Icarus, once per configuration, under
 * {@code sim/build/bridge_replay/}), and reads the result back. Status words are decoded here, with
 * this runtime's {@link Layout}, and checked against the fields the bench decoded with the
 * manifest of the Verilog it ran: a disagreement fails the run.
 *
 * <pre>{@code
 * ReplayResult r = SimulatedBridge.locate().run(job);
 * }</pre>
 *
 * <p>{@link #device} starts the other kind of back end on the same repository and simulator: a
 * {@link SimulatedDevice}, one FPGA that lives across many requests (what a session uses).
 *
 * <p>Needs {@code make setup} (the Python venv with cocotb and pytest, Verilator or Icarus) and the
 * compiled emitter ({@code contract}, {@code hdl-dsl} and {@code generators} {@code target/classes}).
 */
public final class SimulatedBridge {
    /** Simulators the bench supports. */
    public static final List<String> SIMULATORS = List.of("verilator", "icarus");
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(600);
    /** Relative to the repository root. */
    public static final String BENCH_DIR = "sim/tb/bridge_replay";
    private static final String BENCH_FILE = BENCH_DIR + "/test_bridge_replay.py";
    private static final int TAIL_LINES = 80;

    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private final Path repo;
    private final String simulator;
    private final Duration timeout;
    private final boolean keepFiles;

    private SimulatedBridge(Path repo, String simulator, Duration timeout, boolean keepFiles) {
        this.repo = repo;
        this.simulator = simulator;
        this.timeout = timeout;
        this.keepFiles = keepFiles;
    }

    /** The bench of the repository at {@code repoRoot}; simulator from env {@code SIM}, else Verilator. */
    public static SimulatedBridge at(Path repoRoot) {
        Path root = repoRoot.toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve(BENCH_FILE))) {
            throw new SimulationException(root + " is not a direkt repository: no " + BENCH_FILE);
        }
        String sim = System.getenv("SIM");
        sim = sim == null || sim.isBlank() ? "verilator" : sim.strip().toLowerCase(Locale.ROOT);
        return new SimulatedBridge(root, checkSim(sim), DEFAULT_TIMEOUT, false);
    }

    /**
     * The repository named by system property {@code direkt.repo} or env {@code DIREKT_REPO}, else
     * the first directory at or above the working directory holding the replay bench.
     */
    public static SimulatedBridge locate() {
        String given = System.getProperty("direkt.repo");
        if (given == null || given.isBlank()) {
            given = System.getenv("DIREKT_REPO");
        }
        if (given != null && !given.isBlank()) {
            return at(Path.of(given));
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(BENCH_FILE))) {
                return at(p);
            }
        }
        throw new SimulationException("no direkt repository at or above " + start + " (no " + BENCH_FILE
                + "); set -Ddirekt.repo=<root> or DIREKT_REPO");
    }

    /** The same back end on simulator {@code sim} ({@code verilator} or {@code icarus}). */
    public SimulatedBridge withSimulator(String sim) {
        return new SimulatedBridge(repo, checkSim(sim), timeout, keepFiles);
    }

    /** The same back end with another limit on one whole replay (build included). */
    public SimulatedBridge withTimeout(Duration limit) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("timeout " + limit);
        }
        return new SimulatedBridge(repo, simulator, limit, keepFiles);
    }

    /** Keep each run's job, result and log (its temporary directory) even when it succeeds. */
    public SimulatedBridge keepingFiles(boolean keep) {
        return new SimulatedBridge(repo, simulator, timeout, keep);
    }

    public Path repository() {
        return repo;
    }

    public String simulator() {
        return simulator;
    }

    private static String checkSim(String sim) {
        if (!SIMULATORS.contains(sim)) {
            throw new IllegalArgumentException("simulator '" + sim + "': one of " + SIMULATORS);
        }
        return sim;
    }

    /** The job as the bench reads it (JSON). */
    public static String toJson(ReplayJob job) {
        try {
            return JSON.writeValueAsString(job);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Checks that the venv, the simulator and the compiled emitter are there; returns the pytest executable. */
    public Path checkEnvironment() {
        Path pytest = repo.resolve(".venv/bin/pytest");
        if (!Files.isExecutable(pytest)) {
            throw new SimulationException("no Python environment for the simulation: " + pytest
                    + " is missing; run make setup (in " + repo + ")");
        }
        String exe = simulator.equals("verilator") ? "verilator" : "iverilog";
        if (onPath(exe) == null) {
            throw new SimulationException("simulator " + simulator + " not found: no " + exe + " on PATH; run make setup");
        }
        if (blank(System.getenv("DIREKT_CLASSPATH")) && blank(System.getenv("DIREKT_EMIT_CMD"))) {
            for (String m : List.of("contract", "hdl-dsl", "generators")) {
                if (!Files.isDirectory(repo.resolve(m).resolve("target/classes"))) {
                    throw new SimulationException("the bridge emitter is not built: " + repo.resolve(m).resolve("target/classes")
                            + " is missing; run make build");
                }
            }
        }
        return pytest;
    }

    /**
     * The venv's Python (after {@link #checkEnvironment}), named through the venv's real directory
     * as pytest's own launcher names it, so the simulator builds its Python runs see the same
     * cocotb paths and are not redone.
     */
    Path python() {
        checkEnvironment();
        try {
            return repo.resolve(".venv").toRealPath().resolve("bin/python");
        } catch (IOException e) {
            throw new SimulationException("no Python environment for the simulation: " + e.getMessage(), e);
        }
    }

    Duration timeout() {
        return timeout;
    }

    boolean keepsFiles() {
        return keepFiles;
    }

    /**
     * Starts a simulated device ({@link SimulatedDevice}): the bridge of {@code preset} with the
     * generator parameters {@code params} over it, on this back end's simulator, with the default
     * clocks (250 MHz each) and data mover model. The build is cached per configuration; the
     * timeout applies to the start (a build included) and to each request.
     */
    public SimulatedDevice device(String preset, Map<String, Object> params) {
        return SimulatedDevice.start(this, preset, params, ReplayJob.Clocks.DEFAULT, ReplayJob.MoverModel.DEFAULT);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** The executable {@code exe} in the first directory of PATH that has one, or null. */
    public static Path onPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) {
                return Path.of(dir, exe);
            }
        }
        return null;
    }

    /**
     * Runs {@code job} and returns its result.
     *
     * @throws SimulationException the environment is missing, the bench failed or timed out (the
     *                             message has the tail of its output and where its files are), or
     *                             the result disagrees with {@link Layout}
     */
    public ReplayResult run(ReplayJob job) {
        Path pytest = checkEnvironment();
        long t0 = System.nanoTime();
        Path dir;
        try {
            dir = Files.createTempDirectory("direkt-replay-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path jobFile = dir.resolve("job.json");
        Path resultFile = dir.resolve("result.json");
        Path log = dir.resolve("pytest.log");
        boolean done = false;
        try {
            Files.writeString(jobFile, toJson(job));
            List<String> cmd = List.of(pytest.toString(), "-q", "-p", "no:cacheprovider", repo.resolve(BENCH_DIR).toString());
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(repo.resolve("sim").toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("DIREKT_REPLAY_JOB", jobFile.toString());
            env.put("DIREKT_REPLAY_RESULT", resultFile.toString());
            env.put("SIM", simulator);
            env.remove("TESTCASE");
            if (blank(env.get("JAVA_HOME"))) {
                env.put("JAVA_HOME", System.getProperty("java.home"));  // the emitter runs on this JDK
            }
            Process p = pb.start();
            boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw failure("the replay did not finish within " + timeout.toSeconds() + " s", log, dir, jobFile, resultFile);
            }
            if (p.exitValue() != 0) {
                throw failure("the replay bench failed (pytest exit code " + p.exitValue() + ")", log, dir, jobFile, resultFile);
            }
            if (!Files.isRegularFile(resultFile)) {
                throw failure("the replay bench passed but wrote no result (was it skipped?)", log, dir, jobFile, resultFile);
            }
            ResultJson raw = JSON.readValue(resultFile.toFile(), ResultJson.class);
            ReplayResult result = convert(raw, job, Duration.ofNanos(System.nanoTime() - t0));
            done = true;
            return result;
        } catch (IOException e) {
            throw new SimulationException("replay in " + dir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SimulationException("interrupted while the replay ran (files in " + dir + ")", e);
        } finally {
            if (done && !keepFiles) {
                deleteTree(dir);
            }
        }
    }

    private SimulationException failure(String what, Path log, Path dir, Path jobFile, Path resultFile) {
        String tail;
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            tail = String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
        } catch (IOException e) {
            tail = "(no output: " + e.getMessage() + ")";
        }
        return new SimulationException(what + "; job, result and full log in " + dir + "\nreproduce: cd " + repo.resolve("sim")
                + " && SIM=" + simulator + " DIREKT_REPLAY_JOB=" + jobFile + " DIREKT_REPLAY_RESULT=" + resultFile
                + " ../.venv/bin/pytest -q tb/bridge_replay\n--- last lines of the pytest output ---\n" + tail);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    // ------------------------------------------------------------------ result

    static ReplayResult convert(ResultJson r, ReplayJob job, Duration runTime) {
        if (r.version() != ResultJson.VERSION) {
            throw new SimulationException("replay result version " + r.version() + ", this runtime reads " + ResultJson.VERSION);
        }
        String mode = r.bridge().statusMode();
        boolean tagged = switch (mode) {
            case "tagged" -> true;
            case "cycles" -> false;
            default -> throw new SimulationException("unknown status mode '" + mode + "' in the replay result");
        };
        List<ReplayResult.Status> statuses = statuses(r.statuses(), job.descriptors(), tagged);
        List<ReplayResult.HostStatus> hostStatuses = hostStatuses(r.hostStatuses() == null ? List.of() : r.hostStatuses(),
                job.hostDescriptors());
        List<ReplayResult.MemoryRange> gpu = ranges(r.memory().gpu());
        List<ReplayResult.MemoryRange> fpga = ranges(r.memory().fpga());
        List<ReplayResult.MemoryRange> host = ranges(r.memory().host() == null ? List.of() : r.memory().host());
        if (host.size() != job.readBack().host().size()) {
            throw new SimulationException("the replay returned " + host.size() + " host memory ranges for "
                    + job.readBack().host().size() + " asked for (the bench and this runtime disagree on the job format)");
        }
        Map<Direction, ReplayResult.MoverStats> movers = new EnumMap<>(Direction.class);
        Map<Direction, Map<String, Long>> counters = new EnumMap<>(Direction.class);
        for (Direction d : Direction.values()) {
            ResultJson.Mover m = r.mover().get(d.tag());
            movers.put(d, new ReplayResult.MoverStats(m.descriptors(), m.kernelDescriptors(), m.bytes(), m.tlps(), m.busyCycles()));
            counters.put(d, new LinkedHashMap<>(r.counters().get(d.tag())));
        }
        if (r.alarms() == null || r.csrReads() == null) {
            throw new SimulationException("the replay result has no " + (r.alarms() == null ? "alarms" : "csr_reads")
                    + " (the bench and this runtime disagree on its format)");
        }
        if (r.csrReads().size() != job.csrReads().size()) {
            throw new SimulationException("the replay returned " + r.csrReads().size() + " CSR reads for the job's " + job.csrReads().size());
        }
        List<ReplayResult.CsrValue> csr = new ArrayList<>();
        for (ResultJson.CsrValue c : r.csrReads()) {
            csr.add(new ReplayResult.CsrValue(c.name(), c.offset(), c.value()));
        }
        return new ReplayResult(mode, statuses, hostStatuses, gpu, fpga, host, movers, counters, r.alarms(), csr,
                r.cycles().kernel(), r.cycles().dma(), r.cycles().simTimePs(), Duration.ofMillis(Math.round(r.wallS() * 1000)), runTime);
    }

    /**
     * The bench's statuses of {@code descriptors}, in order, decoded with this runtime's
     * {@link Layout} and checked against the fields the bench decoded with its manifest.
     */
    static List<ReplayResult.Status> statuses(List<ResultJson.StatusJson> in, List<ReplayJob.Descriptor> descriptors,
                                              boolean tagged) {
        if (in.size() != descriptors.size()) {
            throw new SimulationException("the simulation returned " + in.size() + " statuses for "
                    + descriptors.size() + " descriptors");
        }
        List<ReplayResult.Status> statuses = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            ResultJson.StatusJson s = in.get(i);
            if (s.index() != i || s.direction() != descriptors.get(i).direction()) {
                throw new SimulationException("status " + i + " is for descriptor " + s.index() + " (" + s.direction() + ")");
            }
            ReplayResult.Status st = decode(i, s.direction(), s.raw(), tagged, s.issuedKernelCycle(), s.statusKernelCycle());
            Map<String, BigInteger> mine = Layout.unpack(tagged ? Layout.KERNEL_STATUS_TAGGED : Layout.KERNEL_STATUS_CYCLES, s.raw());
            if (!mine.equals(s.fields()) || st.failed() != s.failed()) {
                throw new SimulationException("status " + i + " (0x" + s.raw().toString(16) + "): this runtime's Layout decodes "
                        + mine + (st.failed() ? " failed" : "") + ", the bench's manifest " + s.fields()
                        + (s.failed() ? " failed" : "") + ": the emitted bridge and the runtime disagree on the layout");
            }
            statuses.add(st);
        }
        return statuses;
    }

    /** The bench's statuses of the host descriptors {@code descriptors}, in order. */
    static List<ReplayResult.HostStatus> hostStatuses(List<ResultJson.HostStatusJson> in,
                                                      List<ReplayJob.HostDescriptor> descriptors) {
        if (in.size() != descriptors.size()) {
            throw new SimulationException("the simulation returned " + in.size() + " host statuses for "
                    + descriptors.size() + " host descriptors (the bench and this runtime disagree on the format)");
        }
        List<ReplayResult.HostStatus> out = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            ResultJson.HostStatusJson s = in.get(i);
            if (s.index() != i || s.direction() != descriptors.get(i).direction()) {
                throw new SimulationException("host status " + i + " is for host descriptor " + s.index() + " (" + s.direction() + ")");
            }
            out.add(new ReplayResult.HostStatus(i, s.direction(), s.id(), s.raw(), s.completed(), s.sentDmaCycle(),
                    s.doneDmaCycle()));
        }
        return out;
    }

    private static List<ReplayResult.MemoryRange> ranges(List<ResultJson.Range> in) {
        List<ReplayResult.MemoryRange> out = new ArrayList<>();
        for (ResultJson.Range g : in) {
            byte[] data = g.data() == null ? new byte[0] : g.data();
            if (data.length != g.len()) {
                throw new SimulationException("read-back range at 0x" + Long.toHexString(g.address()) + ": " + data.length
                        + " bytes for a length of " + g.len());
            }
            out.add(new ReplayResult.MemoryRange(g.address(), data));
        }
        return out;
    }

    /** Decodes a kernel status word with {@link Layout} ({@code tagged}: tagged status mode, else cycles). */
    public static ReplayResult.Status decode(int index, Direction direction, BigInteger raw, boolean tagged,
                                             long issuedKernelCycle, long statusKernelCycle) {
        if (raw.signum() < 0 || raw.bitLength() > 64) {
            throw new SimulationException("status word " + raw + " is not 64 bits");
        }
        Layout.Word w = tagged ? Layout.KERNEL_STATUS_TAGGED : Layout.KERNEL_STATUS_CYCLES;
        Map<String, Long> fields = new LinkedHashMap<>();
        w.unpack(raw).forEach((k, v) -> fields.put(k, v.longValue()));
        if (tagged) {
            int code = (int) Layout.KERNEL_STATUS_TAGGED.field("error").getLong(raw);
            Layout.Error[] errors = Layout.Error.values();
            Layout.Error error = code < errors.length ? errors[code] : null;
            return new ReplayResult.Status(index, direction, raw.longValue(), fields,
                    Layout.KERNEL_STATUS_TAGGED.field("tag").getLong(raw), error, code,
                    Layout.KERNEL_STATUS_TAGGED.field("elapsed").getLong(raw), code != Layout.Error.OK.code(),
                    issuedKernelCycle, statusKernelCycle);
        }
        Layout.Field cycles = Layout.KERNEL_STATUS_CYCLES.field("cycles");
        boolean failed = Layout.KERNEL_STATUS_CYCLES.field("failed").getLong(raw) != 0;
        return new ReplayResult.Status(index, direction, raw.longValue(), fields, -1, failed ? null : Layout.Error.OK,
                failed ? -1 : 0, cycles.get(raw).longValue(), failed, issuedKernelCycle, statusKernelCycle);
    }
}
