// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One simulated FPGA for as long as its holder keeps it: the emitted bridge, its data movers, FPGA
 * memory and the BSP's host descriptor controller in one long-lived simulator process
 * ({@code sim/tb/bridge_device}, started by {@code python -m direkt_sim.device}), driven over a
 * Unix domain socket. FPGA memory and the bridge's registers keep what they hold from one request
 * to the next, as on a board; {@link #close} ends the process.
 *
 * <p>PCIe memory stays with the holder: it {@linkplain #map maps} ranges for the FPGA (GPU pages,
 * pinned host buffers), and while a {@link #run} lasts every byte a data mover moves to or from
 * them is read or written through the {@link HostMemory} given to the run. So nothing is copied
 * into the simulation ahead of time, and nothing comes back but what the movers wrote.
 *
 * <p>The device is built once per bridge configuration under {@code sim/build/bridge_device/}
 * (Verilator: about half a minute cold on two cores); started on a cached build it is ready in a
 * few seconds. If its process dies, the call that finds out and every later one throw
 * {@link SimulationException} naming why (the launcher's last word, its exit status and its log).
 * The operations and messages are specified in {@code sim/tb/bridge_device/README.md}.
 *
 * <pre>{@code
 * try (SimulatedDevice d = SimulatedBridge.locate().device(Map.of())) {
 *     d.map(List.of(new SimulatedDevice.Range(bus, 65_536, "pinned buffer")));
 *     SimulatedDevice.Run r = d.run(List.of(), List.of(hostDescriptor), memory);
 * }
 * }</pre>
 *
 * One request at a time: callers on several threads take turns (a run's host memory is served on
 * the thread that asked for the run).
 */
public final class SimulatedDevice implements AutoCloseable {
    /** The link protocol this runtime speaks ({@code direkt_sim.link.PROTOCOL}). */
    public static final int PROTOCOL = 1;
    /** Kernel cycles a run waits for any one status unless told otherwise (the device's own default). */
    public static final long STATUS_LIMIT_KERNEL_CYCLES = 2_000_000;
    private static final int MAX_HEADER = 64 << 20;
    private static final int TAIL_LINES = 20;
    private static final int TAIL_WIDTH = 300;
    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    /**
     * PCIe memory as its holder keeps it: a run's data movers read and write the mapped ranges
     * through this. Called on the caller's thread while {@link #run} waits.
     */
    public interface HostMemory {
        /** Fills {@code into} with the bytes at bus address {@code bus} onwards. */
        void read(long bus, byte[] into);

        /** Stores {@code data} at bus address {@code bus} onwards. */
        void write(long bus, byte[] data);
    }

    /** A PCIe range mapped for the FPGA: {@code size} bytes at bus address {@code bus} (multiples of 4), named for messages. */
    public record Range(long bus, long size, String name) {
        public Range {
            if (bus < 0 || size <= 0 || bus % 4 != 0 || size % 4 != 0) {
                throw new IllegalArgumentException("PCIe range " + name + " at 0x" + Long.toHexString(bus) + " of " + size
                        + " bytes: the address and the size must be multiples of 4, the size positive, the address below 2^63");
            }
        }
    }

    /**
     * What a run did: a status per kernel descriptor and per host descriptor (in order), the
     * simulated cycles it took in each clock domain, and its wall time.
     */
    public record Run(List<ReplayResult.Status> statuses, List<ReplayResult.HostStatus> hostStatuses, long kernelCycles,
                      long dmaCycles, long simTimePs, Duration wall) {
        public Run {
            statuses = List.copyOf(statuses);
            hostStatuses = List.copyOf(hostStatuses);
        }
    }

    private final Process process;
    private final Path dir;
    private final Path log;
    private final SocketChannel channel;
    private final Selector selector;
    private final Duration timeout;
    private final boolean keepFiles;
    private final JsonNode hello;
    private final boolean tagged;
    private final Duration startTime;
    /** Why the device cannot be used any more (null while it can). */
    private String gone;
    private boolean closed;

    private SimulatedDevice(Process process, Path dir, Path log, SocketChannel channel, Duration timeout, boolean keepFiles,
                            Duration startTime) throws IOException {
        this.process = process;
        this.dir = dir;
        this.log = log;
        this.channel = channel;
        this.timeout = timeout;
        this.keepFiles = keepFiles;
        this.startTime = startTime;
        channel.configureBlocking(false);
        this.selector = Selector.open();
        channel.register(selector, 0);
        Message h = receive("start", deadline());
        if (!h.op().equals("hello")) {
            throw fail("start", "the device's first message is '" + h.op() + "', not hello");
        }
        if (h.header().path("protocol").asInt(-1) != PROTOCOL) {
            throw fail("start", "the device speaks link protocol " + h.header().path("protocol") + ", this runtime "
                    + PROTOCOL + " (sim/ and host-runtime/ are from different versions)");
        }
        this.hello = h.header();
        String mode = hello.path("bridge").path("status_mode").asText();
        if (!mode.equals("tagged") && !mode.equals("cycles")) {
            throw fail("start", "the device's bridge has status mode '" + mode + "'");
        }
        this.tagged = mode.equals("tagged");
    }

    /**
     * Builds (when not cached) and starts the device of the repository {@code bench} names, on its
     * simulator: the bridge {@code preset} with generator {@code params} over it, clocks and the
     * data movers' model as given.
     */
    static SimulatedDevice start(SimulatedBridge bench, String preset, Map<String, Object> params, ReplayJob.Clocks clocks,
                                 ReplayJob.MoverModel mover) {
        if (!ReplayJob.PRESETS.contains(preset)) {
            throw new IllegalArgumentException("preset '" + preset + "': one of " + ReplayJob.PRESETS);
        }
        Path python = bench.python();
        long t0 = System.nanoTime();
        Path dir;
        try {
            dir = Files.createTempDirectory("direkt-device-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path log = dir.resolve("device.log");
        Path socket = dir.resolve("link.sock");
        Process p = null;
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            server.configureBlocking(false);
            Map<String, Object> generator = new LinkedHashMap<>();
            generator.put("preset", preset);
            generator.putAll(params);
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("kernel_ps", clocks.kernelPs());
            settings.put("dma_ps", clocks.dmaPs());
            settings.put("mover", Map.of("latency", mover.latency(), "bytes_per_cycle", mover.bytesPerCycle()));
            ProcessBuilder pb = new ProcessBuilder(python.toString(), "-m", "direkt_sim.device", "--socket", socket.toString(),
                    "--run-dir", dir.resolve("run").toString(), "--params", JSON.writeValueAsString(generator),
                    "--settings", JSON.writeValueAsString(settings))
                    .directory(bench.repository().resolve("sim").toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("SIM", bench.simulator());
            if (env.get("JAVA_HOME") == null || env.get("JAVA_HOME").isBlank()) {
                env.put("JAVA_HOME", System.getProperty("java.home"));  // the emitter runs on this JDK
            }
            p = pb.start();
            long deadline = System.nanoTime() + bench.timeout().toNanos();
            SocketChannel c;
            while ((c = server.accept()) == null) {
                if (!p.isAlive()) {
                    throw new SimulationException("the simulated device did not start: " + ending(p, log) + tail(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new SimulationException("the simulated device did not start within " + bench.timeout().toSeconds()
                            + " s (log: " + log + ")" + tail(log));
                }
                Thread.sleep(20);
            }
            try {
                return new SimulatedDevice(p, dir, log, c, bench.timeout(), bench.keepsFiles(),
                        Duration.ofNanos(System.nanoTime() - t0));
            } catch (IOException | RuntimeException e) {
                c.close();
                throw e;
            }
        } catch (IOException e) {
            stop(p);
            throw new SimulationException("the simulated device did not start: " + e.getMessage() + " (files in " + dir + ")", e);
        } catch (InterruptedException e) {
            stop(p);
            Thread.currentThread().interrupt();
            throw new SimulationException("interrupted while the simulated device started (files in " + dir + ")", e);
        } catch (RuntimeException e) {
            stop(p);
            throw e;
        }
    }

    private static void stop(Process p) {
        if (p != null && p.isAlive()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** How long starting took (the build check included). */
    public Duration startTime() {
        return startTime;
    }

    /** The simulator the device runs on ({@code verilator} or {@code icarus}). */
    public String simulator() {
        return hello.path("simulator").asText();
    }

    /** The simulator process's ID (the device itself; its launcher is this runtime's child). */
    public long simulatorPid() {
        return hello.path("pid").asLong();
    }

    /** The bridge as its manifest describes it ({@code status_mode}, {@code window_entries}, {@code fpga_mem_bytes}, ...). */
    public JsonNode bridge() {
        return hello.path("bridge").deepCopy();
    }

    /**
     * The kernel cycles the device's data movers take to move {@code bytes} at their model's rate
     * ({@code mover.bytes_per_cycle} a dma_clk cycle), latency aside.
     */
    public long kernelCyclesToMove(long bytes) {
        long perCycle = hello.path("mover").path("bytes_per_cycle").asLong();
        long dmaPs = hello.path("clocks").path("dma_ps").asLong();
        long kernelPs = hello.path("clocks").path("kernel_ps").asLong();
        return Math.ceilDiv(Math.ceilDiv(bytes, perCycle) * dmaPs, kernelPs);
    }

    /** The directory holding the device's log ({@code device.log}) and its simulator's run directory. */
    public Path directory() {
        return dir;
    }

    /** Whether the device can still be used: not closed, and its process has not been found dead. */
    public boolean usable() {
        return !closed && gone == null;
    }

    /**
     * Maps PCIe ranges for the FPGA (one request for all of them). A range may not overlap one
     * already mapped (the device refuses, naming both, and maps none of them).
     */
    public void map(List<Range> ranges) {
        if (ranges.isEmpty()) {
            return;
        }
        ObjectNode req = request("map");
        var arr = req.putArray("ranges");
        for (Range r : ranges) {
            arr.addObject().put("bus", r.bus()).put("size", r.size()).put("name", r.name());
        }
        call(req, "mapped", null);
    }

    /** Unmaps the ranges starting at these bus addresses. */
    public void unmap(List<Long> buses) {
        if (buses.isEmpty()) {
            return;
        }
        ObjectNode req = request("unmap");
        var arr = req.putArray("buses");
        buses.forEach(arr::add);
        call(req, "unmapped", null);
    }

    /** Writes a CSR register by the manifest's name (a 32-bit value). */
    public void csrWrite(String name, long value) {
        call(request("csr_write").put("name", name).put("value", value), "csr_written", null);
    }

    /** Reads a CSR register by the manifest's name. */
    public long csrRead(String name) {
        return call(request("csr_read").put("name", name), "csr_value", null).header().path("value").asLong();
    }

    /**
     * Issues kernel descriptors (one at a time, as the published kernel does) and host
     * descriptors (through the BSP's descriptor controller, at once), and waits for every status.
     * The data movers read and write mapped PCIe memory through {@code memory} meanwhile. A status
     * with an error code is a result, not an exception.
     *
     * @throws SimulationException the device refused the request (a host descriptor outside mapped
     *                             memory, say) or stopped (a data mover saw an illegal access, a
     *                             status never came, its process died): the message says which
     */
    public Run run(List<ReplayJob.Descriptor> descriptors, List<ReplayJob.HostDescriptor> hostDescriptors, HostMemory memory) {
        return run(descriptors, hostDescriptors, memory, STATUS_LIMIT_KERNEL_CYCLES);
    }

    /**
     * {@link #run(List, List, HostMemory)}, waiting up to {@code statusLimit} kernel cycles for each
     * status: room for a request that moves more than the default's worth of bytes
     * ({@link #kernelCyclesToMove}).
     */
    public Run run(List<ReplayJob.Descriptor> descriptors, List<ReplayJob.HostDescriptor> hostDescriptors, HostMemory memory,
                   long statusLimit) {
        long t0 = System.nanoTime();
        ObjectNode req = request("run");
        req.putObject("issue").put("timeout_kernel_cycles", statusLimit);
        var d = req.putArray("descriptors");
        for (ReplayJob.Descriptor k : descriptors) {
            var o = d.addObject().put("direction", k.direction().tag());
            var w = o.putArray("words");
            for (long x : k.words()) {
                w.add(x);
            }
        }
        var h = req.putArray("host_descriptors");
        for (ReplayJob.HostDescriptor x : hostDescriptors) {
            h.addObject().put("direction", x.direction().tag()).put("src", x.src()).put("dst", x.dst()).put("bytes", x.bytes());
        }
        JsonNode done = call(req, "done", memory).header();
        try {
            List<ResultJson.StatusJson> st = JSON.convertValue(done.path("statuses"), new TypeReference<>() { });
            List<ResultJson.HostStatusJson> hs = JSON.convertValue(done.path("host_statuses"), new TypeReference<>() { });
            JsonNode c = done.path("cycles");
            return new Run(SimulatedBridge.statuses(st, descriptors, tagged), SimulatedBridge.hostStatuses(hs, hostDescriptors),
                    c.path("kernel").asLong(), c.path("dma").asLong(), c.path("sim_time_ps").asLong(),
                    Duration.ofNanos(System.nanoTime() - t0));
        } catch (IllegalArgumentException e) {
            throw new SimulationException("the device's answer to a run is not what this runtime reads: " + e.getMessage(), e);
        }
    }

    /**
     * Closes the device: its simulator ends, its process exits, and its files go (unless the
     * back end keeps files, or the device died: then its log stays where the exception said).
     * Later calls do nothing.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        boolean clean = false;
        try {
            if (gone == null) {
                call(request("close"), "closed", null);
                clean = true;
            }
        } catch (SimulationException e) {
            // gone now: its files stay for the message that named them
        } finally {
            closed = true;
            try {
                selector.close();
                channel.close();
            } catch (IOException e) {
                // closing a socket that failed
            }
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    stop(process);
                    clean = false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop(process);
            }
            if (clean && process.exitValue() == 0 && !keepFiles) {
                deleteTree(dir);
            }
        }
    }

    // ------------------------------------------------------------------ the link

    private record Message(String op, JsonNode header, byte[] data) {
    }

    private static ObjectNode request(String op) {
        return JSON.createObjectNode().put("op", op);
    }

    private long deadline() {
        return System.nanoTime() + timeout.toNanos();
    }

    /** Sends {@code req}, serves the device's memory requests while they come, returns the answer {@code op}. */
    private synchronized Message call(ObjectNode req, String op, HostMemory memory) {
        String what = req.path("op").asText();
        if (closed) {
            throw new IllegalStateException("the simulated device is closed");
        }
        if (gone != null) {
            throw new SimulationException("the simulated device is gone (" + gone + "); " + what + " cannot run");
        }
        long deadline = deadline();
        try {
            send(req, null, what, deadline);
            while (true) {
                Message m = receive(what, deadline);
                switch (m.op()) {
                    case "read" -> {
                        if (memory == null) {
                            throw abandon(what, "the device asked to read host memory outside a run");
                        }
                        byte[] into = new byte[checkedLength(m.header().path("bytes").asLong(-1), what)];
                        memory.read(m.header().path("bus").asLong(), into);
                        send(request("data"), into, what, deadline);
                    }
                    case "write" -> {
                        if (memory == null) {
                            throw abandon(what, "the device asked to write host memory outside a run");
                        }
                        memory.write(m.header().path("bus").asLong(), m.data());
                    }
                    case "error" -> {
                        String message = m.header().path("message").asText("?");
                        if (m.header().path("fatal").asBoolean(false)) {
                            gone = "it stopped during " + what + ": " + message + "; log: " + log;
                            throw new SimulationException("the simulated device stopped during " + what + ": " + message
                                    + " (log: " + log + ")");
                        }
                        throw new SimulationException("the simulated device refused " + what + ": " + message);
                    }
                    default -> {
                        if (m.op().equals(op)) {
                            return m;
                        }
                        throw abandon(what, "the device answered '" + m.op() + "', expected '" + op + "'");
                    }
                }
            }
        } catch (IOException e) {
            String why = ending(process, log);
            gone = "the link broke during " + what + " (" + e.getMessage() + "): " + why;
            throw new SimulationException("the simulated device is gone: the link broke during " + what + ": " + why + tail(log), e);
        } catch (SimulationException e) {
            throw e;  // a refusal (the link is in step) or the device gone (said where it was found)
        } catch (RuntimeException e) {
            // A request left half-answered (host memory that could not be served, say): the link is out of step.
            abandonQuietly(what + " failed on this side: " + e);
            throw e;
        }
    }

    private int checkedLength(long n, String what) {
        if (n < 0 || n > Integer.MAX_VALUE - 8) {
            throw abandon(what, "the device asked for " + n + " bytes");
        }
        return (int) n;
    }

    private SimulationException abandon(String what, String why) {
        abandonQuietly(why);
        return new SimulationException("the simulated device was abandoned during " + what + ": " + why + " (log: " + log + ")");
    }

    private void abandonQuietly(String why) {
        if (gone == null) {
            gone = "abandoned: " + why;
        }
        stop(process);
    }

    private void send(JsonNode header, byte[] data, String what, long deadline) throws IOException {
        ObjectNode h = (ObjectNode) header;
        if (data != null) {
            h.put("nbytes", data.length);
        }
        byte[] body = JSON.writeValueAsBytes(h);
        ByteBuffer b = ByteBuffer.allocate(4 + body.length + (data == null ? 0 : data.length));
        b.putInt(body.length).put(body);
        if (data != null) {
            b.put(data);
        }
        b.flip();
        io(b, true, what, deadline);
    }

    private Message receive(String what, long deadline) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4);
        io(len, false, what, deadline);
        int n = len.flip().getInt();
        if (n < 0 || n > MAX_HEADER) {
            throw abandon(what, "a message header of " + n + " bytes");
        }
        ByteBuffer body = ByteBuffer.allocate(n);
        io(body, false, what, deadline);
        JsonNode header = JSON.readTree(new String(body.array(), StandardCharsets.UTF_8));
        String op = header.path("op").asText("");
        if (op.isEmpty()) {
            throw abandon(what, "a message without an op");
        }
        long nbytes = header.path("nbytes").asLong(0);
        byte[] data = new byte[0];
        if (nbytes > 0) {
            ByteBuffer d = ByteBuffer.allocate(checkedLength(nbytes, what));
            io(d, false, what, deadline);
            data = d.array();
        }
        return new Message(op, header, data);
    }

    private void io(ByteBuffer b, boolean write, String what, long deadline) throws IOException {
        SelectionKey key = channel.keyFor(selector);
        while (b.hasRemaining()) {
            int n = write ? channel.write(b) : channel.read(b);
            if (n < 0) {
                throw new EOFException("the device closed the link");
            }
            if (n == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw abandon(what, "no answer within " + timeout.toSeconds() + " s");
                }
                key.interestOps(write ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
            }
        }
    }

    // ------------------------------------------------------------------ when it dies

    /** How the launcher ended (waiting a little for it): its last word and exit status, and the log. */
    private static String ending(Process p, Path log) {
        boolean exited;
        try {
            exited = p.waitFor(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = !p.isAlive();
        }
        String last = null;
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            last = lines.filter(l -> l.startsWith("direkt-device: ")).reduce((a, b) -> b).orElse(null);
        } catch (IOException | UncheckedIOException e) {
            // no log: said below
        }
        return (last == null ? "" : last.substring("direkt-device: ".length()) + "; ")
                + (exited ? "its process exited with status " + p.exitValue() : "its process is still running")
                + "; log: " + log;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "\n--- last lines of the device's log ---\n" + String.join("\n", lines.subList(Math.max(0,
                    lines.size() - TAIL_LINES), lines.size()).stream()
                    .map(l -> l.length() <= TAIL_WIDTH ? l : l.substring(0, TAIL_WIDTH) + " ...").toList());
        } catch (IOException e) {
            return "";
        }
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

    private SimulationException fail(String what, String why) {
        abandonQuietly(why);
        return new SimulationException("the simulated device could not " + what + ": " + why + " (log: " + log + ")");
    }

    @Override
    public String toString() {
        return "SimulatedDevice[" + simulator() + ", pid " + simulatorPid() + (usable() ? "" : closed ? ", closed" : ", gone") + "]";
    }
}
