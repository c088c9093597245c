// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.BoardSpecException;
import org.direkt.boardspec.Channel;
import org.direkt.boardspec.Diagnostic;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.boardspec.InterfaceEntry;
import org.direkt.generators.bridge.Bridge;
import org.direkt.hdl.DirektVersion;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.overlay.ApertureOption;
import org.direkt.overlay.BoardDiagram;
import org.direkt.overlay.Overlay;
import org.direkt.overlay.OverlayException;
import org.direkt.overlay.OverlayWriter;
import org.direkt.overlay.PeakRdl;
import org.direkt.overlay.UnifiedDiff;
import org.direkt.overlay.kernel.BoardChannel;
import org.direkt.overlay.kernel.KernelChannels;
import org.direkt.overlay.kernel.AocMacros;
import org.direkt.overlay.kernel.KernelLint;
import org.direkt.overlay.kernel.KernelPreprocessor;
import org.direkt.overlay.kernel.LintMessage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The {@code direkt} command line. Exit codes: see {@link #EXIT_CODES}. */
@Command(name = "direkt", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Kernel-issued GPU<->FPGA DMA for Intel FPGA OpenCL boards.",
        subcommands = {Main.OverlayCmd.class, Main.RevertCmd.class, Main.LintKernelCmd.class, Main.InspectCmd.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:lint-kernel found errors", "2:bad usage or bad input file",
            "3:the BSP cannot take the bridge (overlay --portable-only writes the portable parts)", "4:generated files disagree, or an internal error (nothing written)",
            "5:cannot write the output (nothing changed)"})
public final class Main implements Callable<Integer> {

    public static final String EXIT_CODES = "0 ok, 1 lint errors, 2 bad input, 3 BSP cannot take the bridge, 4 inconsistency, 5 write failure";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** {@code --version}: the root pom's version, as the build recorded it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"direkt " + DirektVersion.get()};
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
    }

    /** Runs the command line with the given streams; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.getSubcommands().get("overlay").getCommandSpec().usageMessage().footer(OverlayCmd.footer());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            if (ex instanceof OverlayException oe) {
                cmd.getErr().println("direkt: " + oe.getMessage());
                return oe.kind().exitCode;
            }
            cmd.getErr().println("direkt: internal error: " + ex);
            StackTraceElement[] st = ex.getStackTrace();
            if (st.length > 0) {
                cmd.getErr().println("  at " + st[0]);
            }
            return OverlayException.Kind.CONSISTENCY.exitCode;
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("direkt: " + ex.getMessage());
            ex.getCommandLine().getErr().println("(see --help)");
            return 2;
        });
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    static ObjectMapper json() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    // ------------------------------------------------------------------ overlay

    @Command(name = "overlay", mixinStandardHelpOptions = true,
            description = {"Adds kernel-issued DMA to a board: the bridge IP, its Platform Designer component and integration"
                    + " script, the edited board_spec.xml, the OpenCL header, the manifest and OVERLAY.md.",
                "The bridge sits in front of the data movers of the PCIe hard IP with Avalon-MM DMA, in the BSP's Platform"
                    + " Designer system. A BSP without one is refused with exit code 3, naming what was found: an OFS oneAPI"
                    + " ASP or a CCI-P based BSP (their host DMA is soft logic), or a hard IP that uses its internal"
                    + " descriptor controller. --portable-only writes what such boards can still use.",
                "Everything is generated and cross-checked in memory first; on any error nothing is written."})
    static final class OverlayCmd implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--bsp", required = true, paramLabel = "DIR",
                description = "the BSP's root (or hardware/<board>), or a directory holding only board_spec.xml")
        Path bsp;

        @Option(names = "--board", paramLabel = "NAME", description = "which board of the BSP (needed when it has several)")
        String board;

        @Option(names = "--config", paramLabel = "FILE", description = "bridge parameters as JSON, e.g. {\"inflight\": 32, \"policy\": \"weighted\", \"weights\": [1, 4]}")
        Path config;

        @Option(names = "--preset", paramLabel = "NAME", completionCandidates = PresetNames.class,
                description = "the bridge's starting point: ${COMPLETION-CANDIDATES} (see Presets below); default: "
                        + Bridge.Params.DEFAULT_PRESET + " (when no --config is given)")
        String preset;

        @Option(names = "--out", paramLabel = "DIR", description = "write the overlay here (replaced atomically; only an earlier overlay is replaced)")
        Path out;

        @Option(names = "--in-place", description = "change the BSP itself: files into <board>/direkt/, board_spec.xml edited; a backup allows `direkt revert`")
        boolean inPlace;

        @Option(names = "--dry-run", description = "print a unified diff of everything that would be created or changed, with "
                + "paths for `patch -p1` in the --bsp directory (--in-place) or the --out directory; write nothing")
        boolean dryRun;

        @Option(names = "--portable-only", description = "write only the parts that need no Platform Designer system: the IP,"
                + " the OpenCL header, the manifest, board_spec.xml's channels and OVERLAY.md (no _hw.tcl, no integration"
                + " script); for boards whose host DMA the bridge cannot sit in front of (OFS oneAPI ASPs, CCI-P BSPs) when"
                + " you bring your own data movers")
        boolean portableOnly;

        @Option(names = "--peakrdl", paramLabel = "PROGRAM", description = "the PeakRDL program that renders the register reference"
                + " (doc/registers/) and C header (include/direkt_bridge_csr.h) from direkt_bridge_csr.rdl; default: $"
                + PeakRdl.ENV + ", else peakrdl on PATH, else they are not rendered and OVERLAY.md says how")
        Path peakrdl;

        @Option(names = "--no-peakrdl", description = "do not render the register reference and C header (the .rdl is written)")
        boolean noPeakrdl;

        @Option(names = "--aperture", paramLabel = "SIZE", description = "also open a GPU-master aperture: a 64-bit prefetchable BAR of"
                + " SIZE (a power of two, at least 4K: 1G, 256M, 0x40000000) onto FPGA memory, which a GPU's copy engine reads and writes"
                + " as bus master; on Arria 10 boards whose hard IP runs its internal descriptor controller, where it takes BAR2 with its"
                + " bursting RX master (the manifest's aperture section says where)")
        String aperture;

        @Option(names = "--aperture-base", paramLabel = "ADDRESS", description = "the FPGA memory address at the aperture's offset 0,"
                + " a multiple of SIZE (default 0); the window must lie inside the board's FPGA memory")
        String apertureBase;

        @Option(names = "--json", description = "print a machine-readable summary")
        boolean json;

        /** Picocli's usage width: footer lines are printed as they are, so they are wrapped to it here. */
        static final int HELP_WIDTH = 80;

        /** The presets and every --config key with its values, defaults and meaning, from {@link BridgeParam}. */
        static String[] footer() {
            List<String> lines = new ArrayList<>();
            lines.add("");
            lines.add("Presets (--preset NAME, or \"" + BridgeParam.PRESET + "\" in --config):");
            lines.addAll(BridgeParam.presetLines(2, HELP_WIDTH));
            lines.add("");
            lines.add("Bridge parameters (--config keys):");
            lines.addAll(BridgeParam.helpLines(2, HELP_WIDTH, true));
            // Footer lines are format strings.
            return lines.stream().map(l -> l.replace("%", "%%")).toArray(String[]::new);
        }

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            if ((out == null) == !inPlace) {
                throw new OverlayException(OverlayException.Kind.INPUT, "give exactly one of --out DIR and --in-place");
            }
            if (noPeakrdl && peakrdl != null) {
                throw new OverlayException(OverlayException.Kind.INPUT, "give at most one of --peakrdl and --no-peakrdl");
            }
            if (apertureBase != null && aperture == null) {
                throw new OverlayException(OverlayException.Kind.INPUT, "--aperture-base places the aperture: give --aperture SIZE too");
            }
            ApertureOption window = aperture == null ? null : ApertureOption.parse(aperture, apertureBase);
            Path renderer = noPeakrdl ? null : peakrdl != null ? peakrdl : PeakRdl.find();
            Overlay.Plan plan = Overlay.plan(new Overlay.Request(bsp, board, config, preset, portableOnly, renderer, window));
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("board", plan.bsp().boardDir());
            summary.put("bsp_kind", plan.bsp().kind().name().toLowerCase(java.util.Locale.ROOT));
            summary.put("evidence", plan.bsp().evidence());
            summary.put("portable_only", plan.portableOnly());
            summary.put("board_spec", plan.boardSpecPath().toString());
            summary.put("system", plan.bsp().system() == null ? null : plan.bsp().system().toString());
            summary.put("dma_instance", plan.bsp().dmaInstance());
            summary.put("desc_instance", plan.bsp().descInstance());
            summary.put("channels", plan.params().channelIds());
            if (!plan.portableOnly()) {
                summary.put("qsys_version", plan.qsysVersion().version());
                summary.put("qsys_version_from", plan.qsysVersion().origin().name().toLowerCase(java.util.Locale.ROOT));
                summary.put("qsys_version_source", plan.qsysVersion().source());
            }
            if (!plan.aperture().isEmpty()) {
                summary.put("aperture", plan.aperture());
            }
            summary.put("manual_steps", plan.manualSteps());
            summary.put("notes", plan.notes());
            if (!plan.checks().isEmpty()) {
                summary.put("model_check", plan.checks().stream().map(c -> Map.of("check", c.what(), "ok", c.ok(), "detail", c.detail()))
                        .toList());
            }
            if (dryRun) {
                StringBuilder diff = new StringBuilder();
                Path boardDirPath = plan.boardSpecPath().getParent();
                Path root = inPlace ? boardDirPath.resolve(plan.inPlaceDir()) : out;
                // Names as `patch -p1` run in the directory written to needs them: for --in-place the
                // BSP given (the board's files sit under its board directory), for --out the overlay.
                String prefix = "";
                if (inPlace) {
                    Path boardDir = plan.bsp().root().toAbsolutePath().normalize()
                            .relativize(plan.boardSpecPath().getParent().toAbsolutePath().normalize());
                    prefix = boardDir.toString().isEmpty() ? "" : boardDir.toString().replace('\\', '/') + "/";
                }
                for (var e : plan.files().entrySet()) {
                    boolean spec = e.getKey().equals(Overlay.BOARD_SPEC);
                    boolean bspFile = e.getKey().startsWith(Overlay.BOARD_EDITS);
                    String inBoard = bspFile ? e.getKey().substring(Overlay.BOARD_EDITS.length()) : e.getKey();
                    Path existing = inPlace && spec ? plan.boardSpecPath() : inPlace && bspFile ? boardDirPath.resolve(inBoard)
                            : root.resolve(e.getKey());
                    if (spec && !Files.isRegularFile(existing)) {
                        existing = plan.boardSpecPath(); // a first --out run: show the edit of the BSP's own file
                    }
                    if (bspFile && !Files.isRegularFile(existing)) {
                        existing = boardDirPath.resolve(inBoard); // likewise for the kernel wrapper chain
                    }
                    byte[] old = Files.isRegularFile(existing) ? Files.readAllBytes(existing) : null;
                    String name = prefix + (inPlace && (spec || bspFile) ? inBoard : (inPlace ? plan.inPlaceDir() + "/" : "") + e.getKey());
                    diff.append(fileDiff(name, old, e.getValue()));
                }
                // Writing replaces the overlay directory whole: what it holds and the plan does not
                // (another preset's IP, say) goes, and the diff says so.
                if (Files.isDirectory(root)) {
                    List<Path> left;
                    try (var walk = Files.walk(root)) {
                        left = walk.filter(Files::isRegularFile).sorted().toList();
                    }
                    for (Path f : left) {
                        String key = root.relativize(f).toString().replace('\\', '/');
                        if (!plan.files().containsKey(key) || (inPlace && key.equals(Overlay.BOARD_SPEC))) {
                            String name = prefix + (inPlace ? plan.inPlaceDir() + "/" : "") + key;
                            diff.append(fileDiff(name, Files.readAllBytes(f), null));
                        }
                    }
                }
                summary.put("dry_run", true);
                if (json) {
                    summary.put("diff", diff.toString());
                    o.println(json().writeValueAsString(summary));
                } else {
                    o.print(diff);
                    printChecks(o, plan);
                    o.println("direkt overlay: dry run, nothing written");
                }
                return 0;
            }
            OverlayWriter.Result r = inPlace ? OverlayWriter.writeInPlace(plan) : OverlayWriter.writeOut(plan, out);
            summary.put("root", r.root().toString());
            summary.put("written", r.written());
            summary.put("unchanged", r.unchanged());
            if (json) {
                o.println(json().writeValueAsString(summary));
                return 0;
            }
            o.printf("direkt overlay: board %s -> %s%n", plan.bsp().boardDir(), r.root());
            o.printf("  %d %s written, %d unchanged%n", r.written().size(), r.written().size() == 1 ? "file" : "files",
                    r.unchanged().size());
            for (String f : r.written()) {
                o.println("  wrote " + f);
            }
            o.printf("  channels: %s%n", String.join(", ", plan.params().channelIds()));
            if (plan.portableOnly()) {
                o.printf("  portable parts only: %s; connect the bridge to your own data movers (OVERLAY.md says how)%n",
                        plan.bsp().refusal() == null ? plan.bsp().kind().description : plan.bsp().refusal().found());
            } else if (plan.bsp().system() != null && plan.bsp().internalController()) {
                o.printf("  Platform Designer %s: %s, hard IP '%s': its internal descriptor controller gives way to direkt's"
                        + " (run %s/%s as its header says)%n", plan.qsysVersion().version(), plan.bsp().root().relativize(plan.bsp().system()),
                        plan.bsp().dmaInstance(), plan.inPlaceDir(), Overlay.INTEGRATE_TCL);
            } else if (plan.bsp().system() != null) {
                o.printf("  Platform Designer %s: %s, hard IP '%s', descriptor controller '%s' (run direkt_integrate.tcl)%n",
                        plan.qsysVersion().version(), plan.bsp().root().relativize(plan.bsp().system()), plan.bsp().dmaInstance(),
                        plan.bsp().descInstance());
            }
            if (!plan.aperture().isEmpty()) {
                Map<String, Object> a = plan.aperture();
                long bytes = ((Number) a.get("bar_bytes")).longValue();
                long base = ((Number) a.get("fpga_base")).longValue();
                o.printf("  aperture: BAR%s, %s of FPGA memory from 0x%X, up to %s reads of %s bytes in flight (direkt_aperture; the"
                        + " manifest's aperture section)%n", a.get("bar"), org.direkt.overlay.system.Units.size(java.math.BigInteger.valueOf(bytes)),
                        base, a.get("outstanding_reads"), a.get("max_read_bytes"));
            }
            printChecks(o, plan);
            for (String n : plan.notes()) {
                o.println("  note: " + n);
            }
            if (renderer == null) {
                o.println("  note: register reference and C header not rendered (" + (noPeakrdl ? "--no-peakrdl" : "no peakrdl found: "
                        + "--peakrdl PROGRAM or $" + PeakRdl.ENV) + "); OVERLAY.md gives the commands");
            }
            o.println("  next: read OVERLAY.md");
            return 0;
        }
    }

    /** The model check of the Platform Designer integration, one line a check. */
    static void printChecks(PrintWriter o, Overlay.Plan plan) {
        if (plan.checks().isEmpty()) {
            return;
        }
        o.printf("  model check of the Platform Designer integration (%d checks, the edits applied to %s as read):%n",
                plan.checks().size(), plan.bsp().system() == null ? "the system" : plan.bsp().root().relativize(plan.bsp().system()));
        for (var c : plan.checks()) {
            o.println("    " + c);
        }
    }

    /**
     * One file's part of a dry run's diff: a unified diff for text; for binary content (the register
     * reference's fonts and images) the line GNU diff writes, which {@code patch} passes over.
     */
    static String fileDiff(String name, byte[] before, byte[] after) {
        String a = before == null ? null : text(before);
        String b = after == null ? null : text(after);
        if ((before == null || a != null) && (after == null || b != null)) {
            return UnifiedDiff.diff(name, a, name, b);
        }
        if (before != null && after != null && java.util.Arrays.equals(before, after)) {
            return "";
        }
        return "Binary files " + (before == null ? "/dev/null" : "a/" + name) + " and " + (after == null ? "/dev/null" : "b/" + name)
                + " differ\n";
    }

    /** The bytes as UTF-8 text, or null when they are not text (malformed UTF-8 or a NUL byte). */
    private static String text(byte[] bytes) {
        for (byte x : bytes) {
            if (x == 0) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    /** The preset names, in the order {@link Bridge.Params#PRESETS} lists them. */
    static final class PresetNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Bridge.Params.PRESETS.keySet().iterator();
        }
    }

    // ------------------------------------------------------------------ revert

    @Command(name = "revert", mixinStandardHelpOptions = true,
            description = "Undoes `direkt overlay --in-place`: restores board_spec.xml byte for byte and removes what the overlay created.")
    static final class RevertCmd implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--bsp", required = true, paramLabel = "DIR", description = "the BSP given to `direkt overlay --in-place`")
        Path bsp;

        @Option(names = "--board", paramLabel = "NAME", description = "which board of the BSP")
        String board;

        @Override
        public Integer call() throws Exception {
            // Only board_spec.xml is looked up: the system may be mid-edit (its integration script ran) and need not be readable.
            Path given = bsp.toAbsolutePath().normalize();
            if (!Files.isDirectory(given)) {
                throw new OverlayException(OverlayException.Kind.INPUT, given + ": no such BSP directory");
            }
            for (String line : OverlayWriter.revert(org.direkt.overlay.BspScanner.findBoardSpec(given, board).getParent())) {
                spec.commandLine().getOut().println("direkt revert: " + line);
            }
            return 0;
        }
    }

    // ------------------------------------------------------------------ lint-kernel

    @Command(name = "lint-kernel", mixinStandardHelpOptions = true,
            description = {"Checks an OpenCL kernel's I/O channels against a board: each io(\"...\") channel exists, is used in"
                    + " the right direction (write to a streamsink, read from a streamsource) and has the board's width.",
                "The kernel is read as the offline compiler reads it: preprocessed with -D and the macros aoc defines for the"
                    + " board (INTELFPGA_CL from its version, AOCL_BOARD_<name>, OpenCL C 1.2's), #include found in the"
                    + " including file's folder, then each -I folder, then the overlay's include/ beside the board_spec.xml"
                    + " (direkt/include/ for an overlay made in place); a struct's width is its OpenCL C layout.",
                "Messages are file:line:col in the original files, through includes and macros; exit 1 when there is an"
                    + " error, 2 when the board's <channels> or a header cannot be used."})
    static final class LintKernelCmd implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(paramLabel = "KERNEL.cl", description = "the kernel source")
        Path kernel;

        @Option(names = "--board", required = true, paramLabel = "BOARD_SPEC.xml", description = "the board's board_spec.xml")
        Path board;

        @Option(names = {"-I", "--include"}, paramLabel = "DIR", description = "a folder to find included headers in, as"
                + " aoc -I (repeatable; searched in order, before the overlay's include/ beside the board_spec.xml)")
        List<Path> includeDirs = new ArrayList<>();

        @Option(names = {"-D", "--define"}, paramLabel = "NAME[=VALUE]", description = "define a macro, as aoc -D"
                + " (repeatable; NAME alone is 1; NAME(ARGS)=BODY defines a function-like macro)")
        List<String> defines = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            BoardSpec b = readBoard(board);
            boolean boardError = false;
            for (Diagnostic d : b.validateChannels()) {
                spec.commandLine().getErr().println(d);
                boardError |= d.severity() == Diagnostic.Severity.ERROR;
            }
            if (boardError) {
                return OverlayException.Kind.INPUT.exitCode;
            }
            List<BoardChannel> channels = new ArrayList<>();
            for (Channel c : b.channels()) {
                channels.add(new BoardChannel(c.chanId(), c.type(), c.widthBits().orElseThrow(), b.sourceName() + ":" + c.line() + ":" + c.column()));
            }
            List<Path> dirs = new ArrayList<>(includeDirs);
            Path boardDir = board.toAbsolutePath().getParent();
            if (boardDir != null) {
                dirs.add(boardDir.resolve("include"));
                dirs.add(boardDir.resolve("direkt").resolve("include"));
            }
            KernelPreprocessor.Options options = new KernelPreprocessor.Options(dirs, defines, AocMacros.forBoard(b.name(), b.version()), true);
            KernelChannels k;
            try {
                k = KernelChannels.read(kernel, options);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, kernel + ": no such file");
            } catch (java.io.IOException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, kernel + ": cannot read: " + e.getMessage());
            }
            boolean error = false;
            for (LintMessage m : KernelLint.check(k, channels, Map.of())) {
                spec.commandLine().getErr().println(m);
                error |= m.isError();
            }
            if (!error) {
                List<String> where = k.declarations().stream().filter(d -> d.ioId() != null).map(d -> d.source()).distinct().toList();
                long io = k.declarations().stream().filter(d -> d.ioId() != null).count();
                spec.commandLine().getOut().printf("%s: %d io channels%s, all match %s%n", kernel, io,
                        where.isEmpty() || where.equals(List.of(k.sourceName())) ? "" : " (declared in " + String.join(", ", where) + ")", board);
            }
            return error ? 1 : 0;
        }
    }

    // ------------------------------------------------------------------ inspect

    @Command(name = "inspect", mixinStandardHelpOptions = true, description = {
        "Shows a board. For a board_spec.xml: its memories, interfaces and channels.",
        "For a Platform Designer system (.qsys, Standard or Pro with its .ip files): its DMA-relevant part: the PCIe hard"
                + " IP, whether it has Avalon-MM DMA and which descriptor controller drives its data movers, its BARs with"
                + " what host software reaches through each, its DMA masters with what they reach, the kernel clock.",
        "For a BSP or board directory: both, for its board_spec.xml and the system beside it that holds the hard IP."})
    static final class InspectCmd implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(paramLabel = "BOARD_SPEC.xml|SYSTEM.qsys|DIR")
        Path file;

        @Option(names = "--board", paramLabel = "NAME", description = "which board of a BSP directory (needed when it has several)")
        String board;

        @Option(names = "--json", description = "print JSON instead of tables")
        boolean json;

        @Option(names = "--svg", paramLabel = "FILE", description = "also draw the board (memories, interfaces, channels; direkt's "
                + "shaded) and the system (hard IP, BARs, DMA masters, descriptor controller, clocks) as SVG into FILE, or to"
                + " standard output for -")
        Path svg;

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            boolean directory = Files.isDirectory(file);
            if (board != null && !directory) {
                throw new OverlayException(OverlayException.Kind.INPUT, "--board is for a BSP directory; " + file + " is a file");
            }
            boolean system = !directory && file.getFileName() != null
                    && file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".qsys");
            BoardSpec b = null;
            Path specFile = null;
            SystemInspect.Found found = null;
            if (directory) {
                specFile = SystemInspect.findBoardSpec(file, board);
                b = readBoard(specFile);
                found = SystemInspect.inBoardDir(specFile.getParent());
            } else if (system) {
                found = SystemInspect.read(file);
            } else {
                specFile = file;
                b = readBoard(file);
            }
            if (svg != null) {
                List<String> pictures = new ArrayList<>();
                if (b != null) {
                    pictures.add(BoardDiagram.svg(b));
                }
                if (found != null && found.system().isPresent()) {
                    pictures.add(SystemInspect.svg(found));
                }
                String picture = pictures.size() == 1 ? pictures.getFirst() : SystemInspect.stack(pictures);
                if (svg.toString().equals("-")) {
                    o.print(picture);
                    o.flush();
                    return 0;
                }
                try {
                    OverlayWriter.writeFile(svg, picture.getBytes(StandardCharsets.UTF_8));
                } catch (java.io.IOException e) {
                    spec.commandLine().getErr().println("direkt inspect: cannot write " + svg + ": " + e.getMessage());
                    return 5;
                }
                List<String> drawn = new ArrayList<>();
                if (b != null) {
                    drawn.add("board " + b.name());
                }
                if (found != null && found.system().isPresent()) {
                    drawn.add("system " + found.system().get().name()
                            + found.view().map(v -> " (hard IP " + v.hardIp().name() + ")").orElse(" (no PCIe hard IP)"));
                }
                o.println("direkt inspect: drew " + String.join(" and ", drawn) + " into " + svg);
                return 0;
            }
            if (json) {
                Object all;
                if (directory) {
                    Map<String, Object> both = new LinkedHashMap<>();
                    both.put("board_spec_file", specFile.toString());
                    both.put("board_spec", boardJson(b));
                    both.put("system", SystemInspect.json(found));
                    all = both;
                } else {
                    all = system ? SystemInspect.json(found) : boardJson(b);
                }
                o.println(json().writeValueAsString(all));
                return 0;
            }
            if (b != null) {
                printBoard(o, b, directory ? specFile : null);
            }
            if (found != null) {
                if (directory) {
                    o.println();
                }
                SystemInspect.text(o, found);
            }
            return 0;
        }

        private static Map<String, Object> boardJson(BoardSpec b) {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("board", b.name());
            all.put("version", b.version().orElse(null));
            all.put("memories", memories(b));
            all.put("interfaces", interfaces(b));
            all.put("channels", channels(b));
            all.put("diagnostics", problems(b));
            return all;
        }

        private static void printBoard(PrintWriter o, BoardSpec b, Path from) {
            o.printf("board %s (version %s)%s%n%n", b.name(), b.version().orElse("?"), from == null ? "" : ": " + from);
            Table.print(o, "memories", List.of("memory", "default", "max_bandwidth", "interface", "type", "width", "address", "size"), memories(b));
            Table.print(o, "interfaces", List.of("interface", "type", "width"), interfaces(b));
            Table.print(o, "channels", List.of("chan_id", "interface", "type", "width", "line"), channels(b));
            problems(b).forEach(o::println);
        }

        private static List<Map<String, Object>> memories(BoardSpec b) {
            List<Map<String, Object>> mems = new ArrayList<>();
            for (GlobalMemory g : b.globalMemories()) {
                for (InterfaceEntry i : g.interfaces()) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("memory", g.name());
                    m.put("default", g.isDefault());
                    m.put("max_bandwidth", g.maxBandwidth());
                    m.put("interface", i.name() + "." + i.port());
                    m.put("type", i.canonicalType());
                    m.put("width", i.width());
                    m.put("address", i.attributes().get("address"));
                    m.put("size", i.attributes().get("size"));
                    mems.add(m);
                }
            }
            return mems;
        }

        private static List<Map<String, Object>> interfaces(BoardSpec b) {
            List<Map<String, Object>> ifs = new ArrayList<>();
            for (InterfaceEntry i : b.interfaces()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("interface", i.name() + "." + i.port());
                m.put("type", i.canonicalType());
                m.put("width", i.width());
                ifs.add(m);
            }
            return ifs;
        }

        private static List<Map<String, Object>> channels(BoardSpec b) {
            List<Map<String, Object>> chs = new ArrayList<>();
            for (Channel c : b.channels()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("chan_id", c.chanId());
                m.put("interface", c.name() + "." + c.port());
                m.put("type", c.type());
                m.put("width", c.width());
                m.put("line", c.line());
                chs.add(m);
            }
            return chs;
        }

        private static List<String> problems(BoardSpec b) {
            return b.validate(Optional.empty()).stream().map(Diagnostic::toString).toList();
        }
    }

    static BoardSpec readBoard(Path file) throws OverlayException {
        try {
            return BoardSpec.parse(file);
        } catch (BoardSpecException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, e.getMessage());
        } catch (java.nio.file.NoSuchFileException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": no such file");
        } catch (java.io.IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        }
    }
}
