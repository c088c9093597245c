// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.BoardSpecEditor;
import org.direkt.boardspec.BoardSpecException;
import org.direkt.boardspec.Channel;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.boardspec.InterfaceEntry;
import org.direkt.boardspec.ChannelDefinition;
import org.direkt.boardspec.Diagnostic;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.generators.FuseSocCore;
import org.direkt.generators.bridge.CsrRdl;
import org.direkt.generators.bridge.HostDescController;
import org.direkt.generators.bridge.Manifest;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Plans an overlay: reads the BSP, builds the bridge for the configuration, renders every
 * artifact in memory, checks them against each other, and returns the files to write. Nothing
 * touches the disk here; {@link OverlayWriter} puts a plan in place atomically.
 */
public final class Overlay {
    private Overlay() {
    }

    /** Where each artifact goes, relative to the overlay directory. */
    public static final String BOARD_SPEC = "board_spec.xml";
    public static final String IP_DIR = "ip";
    public static final String INTEGRATE_TCL = "direkt_integrate.tcl";
    public static final String HEADER = "include/direkt_dma.h";
    public static final String OVERLAY_MD = "OVERLAY.md";
    /** In an --out overlay, the BSP's own files the overlay edits, at their path in the board directory below this. */
    public static final String BOARD_EDITS = "board/";

    /** The Platform Designer component, named after the bridge's top module (its instance name): {@code <top>_hw.tcl}. */
    public static String hwTcl(String top) {
        return top + "_hw.tcl";
    }

    /** The overlay files that only make sense inside a Platform Designer system; {@code --portable-only} leaves them out. */
    static List<String> platformDesignerFiles(String top) {
        return List.of(hwTcl(top), INTEGRATE_TCL);
    }

    /**
     * The inputs of one run. {@code config} (a JSON file) and {@code preset} exclude each other.
     * {@code aperture} (null: none): the GPU-master aperture ({@code --aperture}), for boards whose
     * hard IP runs its internal descriptor controller.
     * {@code portableOnly}: write only what does not depend on the BSP's Platform Designer system (the
     * IP, the header, the manifest, board_spec.xml's channels and OVERLAY.md), for boards whose host DMA
     * the bridge cannot sit in front of and users who bring their own data movers. {@code peakrdl}: the
     * PeakRDL program that renders the register reference and C header ({@link PeakRdl}); null: not
     * rendered, a manual step says how.
     */
    public record Request(Path bsp, String board, Path config, String preset, boolean portableOnly, Path peakrdl,
            ApertureOption aperture) {
        /** A run that writes the whole overlay, without the PeakRDL renderings. */
        public Request(Path bsp, String board, Path config, String preset) {
            this(bsp, board, config, preset, false, null, null);
        }

        /** A run without the PeakRDL renderings. */
        public Request(Path bsp, String board, Path config, String preset, boolean portableOnly) {
            this(bsp, board, config, preset, portableOnly, null, null);
        }

        /** A run without an aperture. */
        public Request(Path bsp, String board, Path config, String preset, boolean portableOnly, Path peakrdl) {
            this(bsp, board, config, preset, portableOnly, peakrdl, null);
        }
    }

    /**
     * A planned overlay: the files of the overlay directory (relative path -> content), the
     * BSP's board_spec.xml with its original and edited bytes, what was found, the Platform Designer
     * release the Tcl files ask for, the steps left to the user (as OVERLAY.md lists them after the
     * integration step), and whether only the portable parts are written.
     */
    public record Plan(Map<String, byte[]> files, Path boardSpecPath, byte[] boardSpecBefore, byte[] boardSpecAfter,
            BspScanner.BspInfo bsp, Bridge.Params params, QsysVersion qsysVersion, List<String> manualSteps,
            boolean portableOnly, List<String> notes, String inPlaceDir, List<String> keptForRevert, List<String> createdByScript,
            List<org.direkt.overlay.system.SystemCheck.Result> checks, List<org.direkt.overlay.system.SystemEdit> systemEdits,
            Map<String, Object> aperture) {

        /** A plan that edits only board_spec.xml in the BSP and goes into {@code <board>/direkt/} in place. */
        public Plan(Map<String, byte[]> files, Path boardSpecPath, byte[] boardSpecBefore, byte[] boardSpecAfter,
                BspScanner.BspInfo bsp, Bridge.Params params, QsysVersion qsysVersion, List<String> manualSteps,
                boolean portableOnly, List<String> notes) {
            this(files, boardSpecPath, boardSpecBefore, boardSpecAfter, bsp, params, qsysVersion, manualSteps, portableOnly, notes,
                    OverlayWriter.IN_PLACE_DIR, List.of(), List.of(), List.of(), List.of(), Map.of());
        }

        /** The same plan with other overlay files. */
        public Plan withFiles(Map<String, byte[]> other) {
            return new Plan(other, boardSpecPath, boardSpecBefore, boardSpecAfter, bsp, params, qsysVersion, manualSteps,
                    portableOnly, notes, inPlaceDir, keptForRevert, createdByScript, checks, systemEdits, aperture);
        }
    }

    private static final String PORTABLE_HINT = "With --portable-only, direkt writes the parts that need no Platform Designer system"
            + " (IP, header, manifest, board_spec.xml channels, OVERLAY.md) for you to connect to your own data movers.";

    public static Plan plan(Request req) throws OverlayException {
        Bridge.Params p = params(req);
        // (reassigned below when the bridge goes inside direkt's descriptor controller)
        BspScanner.BspInfo info = BspScanner.scan(req.bsp(), req.board());
        Path bspRoot = info.root();
        BoardSpec spec;
        try {
            spec = BoardSpec.parse(info.boardSpec());
        } catch (BoardSpecException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, e.getMessage());
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, info.boardSpec() + ": cannot read: " + e.getMessage());
        }
        // The board name must match its directory when the tree says which directory that is.
        boolean fullTree = !info.boardSpec().getParent().equals(bspRoot);
        List<Diagnostic> problems = spec.validate(fullTree ? Optional.of(info.boardDir()) : Optional.empty()).stream()
                .filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList();
        if (!problems.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.INPUT, "board_spec.xml has errors:\n  "
                    + String.join("\n  ", problems.stream().map(Diagnostic::toString).toList()));
        }
        if (req.aperture() != null) {
            apertureWanted(req, info);
        }
        BspScanner.Refusal refusal = info.refusal();
        if (refusal != null && !req.portableOnly()) {
            throw new OverlayException(OverlayException.Kind.BSP, bspRoot + ": " + refusal.found() + "; " + refusal.missing()
                    + ". " + PORTABLE_HINT);
        }
        QsysVersion qsys = QsysVersion.choose(info.qsysVersion(), spec.version());

        // ---- the edited board_spec.xml: direkt's channels, replacing only direkt's own entries
        String boardInstance = boardInstance(spec);
        String prefix = p.instance() + "_";
        List<ChannelDefinition> defs = new ArrayList<>();
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (ChannelPort.Channel c : p.channelList()) {
            defs.add(new ChannelDefinition(boardInstance, p.boardPort(c), c.type() == ChannelPort.Type.STREAMSINK
                    ? ChannelDefinition.Type.STREAMSINK : ChannelDefinition.Type.STREAMSOURCE, c.width(), c.chanId()));
            ids.add(c.chanId());
        }
        String edited;
        try {
            BoardSpecEditor ed = spec.edit();
            for (Channel existing : spec.channels()) {
                boolean ours = boardInstance.equals(existing.name()) && existing.port() != null && existing.port().startsWith(prefix);
                if (ids.contains(existing.chanId()) && !ours) {
                    throw new OverlayException(OverlayException.Kind.BSP, info.boardSpec() + ":" + existing.line() + ":"
                            + existing.column() + ": chan_id \"" + existing.chanId() + "\" is already used by channel "
                            + existing.name() + "." + existing.port() + "; choose other channel ids (--config with rd_desc=..., ...)");
                }
                if (ours && !ids.contains(existing.chanId())) {
                    ed.removeChannel(existing.chanId()); // an earlier direkt configuration's channel
                }
            }
            for (ChannelDefinition d : defs) {
                ed.putChannel(d);
            }
            edited = ed.text();
        } catch (BoardSpecException e) {
            throw new OverlayException(OverlayException.Kind.BSP, e.getMessage());
        }

        // ---- the bridge (or, for a hard IP running its internal controller, direkt's controller with the bridge inside)
        boolean replaceController = info.internalController() && !req.portableOnly();
        HostDescController.Params ctrlParams = null;
        if (replaceController) {
            try {
                ctrlParams = HostDescController.Params.of(p, HostDescController.MIN_READY_LATENCY);
                p = ctrlParams.bridge();
            } catch (IllegalArgumentException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, "the configuration cannot go inside direkt's descriptor controller: "
                        + e.getMessage());
            }
        }
        Module top;
        try {
            top = replaceController ? new HostDescController().elaborate(ctrlParams) : new Bridge().elaborate(p);
        } catch (ElaborationException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, "the configuration does not elaborate: " + e.getMessage());
        }
        List<PlatformInterfaces.Interface> interfaces = replaceController ? ControllerInterfaces.of(ctrlParams, top)
                : PlatformInterfaces.of(p, top);
        Map<String, String> verilog = new TreeMap<>(VerilogEmitter.emit(top));
        List<String> files = verilog.keySet().stream().map(n -> n + ".v").toList();
        Map<String, Object> bspModel = new LinkedHashMap<>();
        bspModel.put("board", spec.name());
        bspModel.put("boardInstance", boardInstance);
        bspModel.put("boardSpec", bspRoot.relativize(info.boardSpec()).toString());
        bspModel.put("system", info.system() == null ? "" : info.boardSpec().getParent().relativize(info.system()).toString());
        bspModel.put("dmaInstance", info.dmaInstance());
        bspModel.put("descInstance", info.descInstance());
        bspModel.put("qsysVersion", qsys.version());
        bspModel.put("qsysVersionSource", switch (qsys.origin()) {
            case SYSTEM_FILE -> "stated by `" + qsys.source() + "`";
            case BOARD_SPEC -> "from " + qsys.source() + ": no Platform Designer file of the BSP states one";
            case ASSUMED -> "assumed: no Platform Designer file of the BSP states one, and " + qsys.source();
        });
        String rdl = CsrRdl.rdl(p);
        Map<String, byte[]> registerDocs = req.peakrdl() == null ? Map.of() : PeakRdl.render(req.peakrdl(), rdl);
        List<String> steps = new ArrayList<>(ManualSteps.of(info, p, qsys, req.portableOnly()));
        if (req.peakrdl() == null) {
            steps.add("**Render the register reference** (PeakRDL was not given to direkt): in this directory, " + PeakRdl.commands()
                    + " write the HTML reference and the C header from `" + CsrRdl.FILE_NAME + "`.");
        }
        bspModel.put("manualSteps", steps);
        bspModel.put("registerDocs", !registerDocs.isEmpty());
        bspModel.put("mode", req.portableOnly() ? "portable" : info.system() == null ? "manual" : "script");
        bspModel.put("kind", info.kind().description);
        bspModel.put("evidence", info.evidence());
        bspModel.put("refusalFound", refusal == null ? "" : refusal.found());
        bspModel.put("refusalMissing", refusal == null ? "" : refusal.missing());
        Map<String, Object> model = OverlayModel.of(p, top, files, bspModel, interfaces);

        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put(BOARD_SPEC, edited.getBytes(spec.charset()));
        verilog.forEach((name, text) -> out.put(IP_DIR + "/" + name + ".v", utf8(text)));
        out.put(IP_DIR + "/" + top.name() + ".core", utf8(FuseSocCore.core(top.name(), files,
                "direkt bridge " + top.name() + " for board " + spec.name() + ", from direkt overlay")));
        out.put(hwTcl(top.name()), utf8(Templates.render("direkt_bridge_hw.tcl.vm", model)));
        ControllerIntegration replaced = null;
        if (replaceController) {
            try {
                replaced = ControllerIntegration.plan(info, spec, ctrlParams, top, interfaces, boardInstance, model, qsys, req.aperture());
            } catch (OverlayException e) {
                if (e.kind() != OverlayException.Kind.BSP) {
                    throw e;
                }
                throw new OverlayException(e.kind(), e.getMessage() + ". " + PORTABLE_HINT);
            }
            bspModel.put("mode", "controller");
            bspModel.put("controller", replaced.describe(info));
            out.put(INTEGRATE_TCL, utf8(replaced.script()));
            out.putAll(replaced.bspFiles());
            for (var e : replaced.apertureFiles().entrySet()) {
                byte[] had = out.putIfAbsent(e.getKey(), e.getValue());
                if (had != null && !java.util.Arrays.equals(had, e.getValue())) {
                    throw new OverlayException(OverlayException.Kind.CONSISTENCY, "generated files disagree (nothing was written): the"
                            + " aperture and the controller both have a module file " + e.getKey() + ", with different contents");
                }
            }
        } else {
            out.put(INTEGRATE_TCL, utf8(Templates.render("direkt_integrate.tcl.vm", model)));
        }
        out.put(HEADER, utf8(Templates.render("direkt_dma.h.vm", model)));
        out.put(Manifest.FILE_NAME, utf8(replaced != null ? replaced.manifest() : Manifest.json(p)));
        out.put(CsrRdl.FILE_NAME, utf8(rdl));
        out.putAll(registerDocs);
        out.put(OVERLAY_MD, utf8(Templates.render("OVERLAY.md.vm", model)));

        // Checked whole, so that the Verilog is still compared with its hw.tcl when the hw.tcl is then left out.
        Consistency.check(p, top, out);
        if (replaced != null && !replaced.apertureFiles().isEmpty()) {
            Consistency.checkComponent(ControllerIntegration.APERTURE_INSTANCE, out);
        }
        if (req.portableOnly()) {
            platformDesignerFiles(top.name()).forEach(out::remove);
        }
        if (replaced != null) {
            return new Plan(out, info.boardSpec(), spec.bytes(), edited.getBytes(spec.charset()), info, p, qsys, steps,
                    req.portableOnly(), info.notes(), replaced.inPlaceDir(), replaced.keptForRevert(), replaced.createdByScript(),
                    replaced.plan().checks(), replaced.plan().edits(), replaced.aperture());
        }
        return new Plan(out, info.boardSpec(), spec.bytes(), edited.getBytes(spec.charset()), info, p, qsys, steps,
                req.portableOnly(), info.notes());
    }

    /**
     * {@code --aperture} goes on a board whose PCIe hard IP runs its internal descriptor controller,
     * where direkt plans on the Platform Designer system itself; elsewhere it is refused as a bad option.
     */
    private static void apertureWanted(Request req, BspScanner.BspInfo info) throws OverlayException {
        if (req.portableOnly()) {
            throw new OverlayException(OverlayException.Kind.INPUT, "--aperture adds a BAR and an instance to the board's Platform Designer"
                    + " system, and --portable-only writes nothing for that system: give one of them");
        }
        if (info.internalController() && info.system() != null && info.refusal() == null) {
            return;
        }
        String found = info.refusal() != null ? info.refusal().found()
                : info.system() == null ? info.kind().description + " (no Platform Designer system with the PCIe hard IP was found)"
                : info.kind().description + " whose hard IP's movers another descriptor controller feeds ("
                        + String.join("; ", info.evidence()) + ")";
        throw new OverlayException(OverlayException.Kind.INPUT, info.root() + ": --aperture needs a board whose PCIe hard IP runs its"
                + " internal descriptor controller (a stock a10_ref-derived Arria 10 board, where direkt puts its own controller and the"
                + " aperture on the hard IP's bursting BAR2); this one is " + found + ". Nothing was written");
    }

    /** The instance name the board's other interfaces use (the board system inside the OpenCL top), usually "board". */
    static String boardInstance(BoardSpec spec) {
        Map<String, Integer> count = new TreeMap<>();
        for (InterfaceEntry i : spec.interfaces()) {
            if (i.name() != null) {
                count.merge(i.name(), 1, Integer::sum);
            }
        }
        for (GlobalMemory g : spec.globalMemories()) {
            for (InterfaceEntry i : g.interfaces()) {
                if (i.name() != null) {
                    count.merge(i.name(), 1, Integer::sum);
                }
            }
        }
        return count.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("board");
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The bridge parameters: a preset, or a JSON object of the generator's keys ({@link BridgeParam}).
     * Every key that is unknown, repeated or of the wrong type is reported at once, each at its
     * file:line:col; a configuration the bridge refuses is reported with the bridge's rule.
     */
    static Bridge.Params params(Request req) throws OverlayException {
        if (req.config() != null && req.preset() != null) {
            throw new OverlayException(OverlayException.Kind.INPUT, "give --config or --preset, not both");
        }
        if (req.config() == null) {
            String preset = req.preset() == null ? Bridge.Params.DEFAULT_PRESET : req.preset().toLowerCase(Locale.ROOT);
            try {
                return BridgeParam.preset(preset).build();
            } catch (IllegalArgumentException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, e.getMessage());
            }
        }
        Path file = req.config();
        List<String> problems = new ArrayList<>();
        String preset = Bridge.Params.DEFAULT_PRESET;
        List<Consumer<Bridge.Params.Builder>> settings = new ArrayList<>();
        for (ConfigValue v : readConfig(file)) {
            try {
                if (v.key().equals(BridgeParam.PRESET)) {
                    preset = String.valueOf(v.value());
                    BridgeParam.preset(preset);
                } else {
                    settings.add(setting(BridgeParam.named(v.key())
                            .orElseThrow(() -> new IllegalArgumentException(BridgeParam.unknown(v.key()))), v.value()));
                }
            } catch (IllegalArgumentException e) {
                problems.add(v.where() + ": " + e.getMessage());
            }
        }
        if (problems.size() == 1) {
            throw new OverlayException(OverlayException.Kind.INPUT, problems.getFirst());
        }
        if (!problems.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + " has errors:\n  " + String.join("\n  ", problems));
        }
        try {
            Bridge.Params.Builder b = BridgeParam.preset(preset);
            settings.forEach(s -> s.accept(b));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": " + e.getMessage());
        }
    }

    private static <T> Consumer<Bridge.Params.Builder> setting(BridgeParam<T> d, Object json) {
        T value = d.parseJson(json);
        return b -> d.setter().accept(b, value);
    }

    /** One key of a {@code --config} file, its value as plain Java (String, Number, Boolean, List, null) and where it stands. */
    record ConfigValue(String key, Object value, String where) {
    }

    private static List<ConfigValue> readConfig(Path file) throws OverlayException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        }
        ObjectMapper mapper = new ObjectMapper();
        List<ConfigValue> values = new ArrayList<>();
        Map<String, String> seen = new LinkedHashMap<>();
        try (JsonParser jp = mapper.createParser(text)) {
            if (jp.nextToken() != JsonToken.START_OBJECT) {
                throw new OverlayException(OverlayException.Kind.INPUT, file + ": must hold a JSON object of bridge parameters");
            }
            while (jp.nextToken() == JsonToken.FIELD_NAME) {
                String key = jp.currentName();
                JsonLocation at = jp.currentTokenLocation();
                String where = file + ":" + at.getLineNr() + ":" + at.getColumnNr();
                jp.nextToken();
                JsonNode v = mapper.readTree(jp);
                if (v.isObject()) {
                    throw new OverlayException(OverlayException.Kind.INPUT, where + ": \"" + key
                            + "\" must be a number, string, boolean or list");
                }
                String earlier = seen.putIfAbsent(key, where);
                if (earlier != null) {
                    throw new OverlayException(OverlayException.Kind.INPUT, where + ": \"" + key + "\" is given twice (first at "
                            + earlier + ")");
                }
                values.add(new ConfigValue(key, plain(v), where));
            }
            if (jp.nextToken() != null) {
                JsonLocation at = jp.currentTokenLocation();
                throw new OverlayException(OverlayException.Kind.INPUT, file + ":" + at.getLineNr() + ":" + at.getColumnNr()
                        + ": malformed JSON: content after the object");
            }
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new OverlayException(OverlayException.Kind.INPUT, file + (loc == null ? "" : ":" + loc.getLineNr()
                    + ":" + loc.getColumnNr()) + ": malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        }
        return values;
    }

    /** A JSON value as the descriptors read it; an object inside a list stays its JSON text and fails there. */
    private static Object plain(JsonNode v) {
        if (v.isArray()) {
            List<Object> list = new ArrayList<>();
            v.forEach(x -> list.add(plain(x)));
            return list;
        }
        if (v.isNull()) {
            return null;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isNumber()) {
            return v.numberValue();
        }
        return v.isTextual() ? v.textValue() : v.toString();
    }
}
