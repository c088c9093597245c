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

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.BoardSpecEditor;
import org.direkt.boardspec.BoardSpecException;
import org.direkt.boardspec.Channel;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.boardspec.InterfaceEntry;
import org.direkt.boardspec.ChannelDefinition;
import org.direkt.boardspec.Diagnostic;
import org.direkt.generators.Catalog;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Manifest;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;

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
    public static final String HW_TCL = "direkt_bridge_hw.tcl";
    public static final String INTEGRATE_TCL = "direkt_integrate.tcl";
    public static final String HEADER = "include/direkt_dma.h";
    public static final String OVERLAY_MD = "OVERLAY.md";

    /** The inputs of one run. {@code config} (a JSON file) and {@code preset} exclude each other. */
    public record Request(Path bsp, String board, Path config, String preset) {
    }

    /**
     * A planned overlay: the files of the overlay directory (relative path -> content), the
     * BSP's board_spec.xml with its original and edited bytes, and what was found.
     */
    public record Plan(Map<String, byte[]> files, Path boardSpecPath, byte[] boardSpecBefore, byte[] boardSpecAfter,
            BspScanner.BspInfo bsp, Bridge.Params params, List<String> notes) {
    }

    public static Plan plan(Request req) throws OverlayException {
        Bridge.Params p = params(req);
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

        // ---- the bridge and everything generated from it
        Module top;
        try {
            top = new Bridge().elaborate(p);
        } catch (ElaborationException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, "the configuration does not elaborate: " + e.getMessage());
        }
        Map<String, String> verilog = new TreeMap<>(VerilogEmitter.emit(top));
        List<String> files = verilog.keySet().stream().map(n -> n + ".v").toList();
        Map<String, Object> bspModel = new LinkedHashMap<>();
        bspModel.put("board", spec.name());
        bspModel.put("boardInstance", boardInstance);
        bspModel.put("boardSpec", bspRoot.relativize(info.boardSpec()).toString());
        bspModel.put("system", info.system() == null ? "" : info.boardSpec().getParent().relativize(info.system()).toString());
        bspModel.put("dmaInstance", info.dmaInstance());
        bspModel.put("descInstance", info.descInstance());
        bspModel.put("qsysVersion", "18.0");
        bspModel.put("manualSteps", List.of());
        Map<String, Object> model = OverlayModel.of(p, top, files, bspModel);

        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put(BOARD_SPEC, edited.getBytes(spec.charset()));
        verilog.forEach((name, text) -> out.put(IP_DIR + "/" + name + ".v", utf8(text)));
        out.put(HW_TCL, utf8(Templates.render("direkt_bridge_hw.tcl.vm", model)));
        out.put(INTEGRATE_TCL, utf8(Templates.render("direkt_integrate.tcl.vm", model)));
        out.put(HEADER, utf8(Templates.render("direkt_dma.h.vm", model)));
        out.put(Manifest.FILE_NAME, utf8(Manifest.json(p)));
        out.put(OVERLAY_MD, utf8(Templates.render("OVERLAY.md.vm", model)));

        Consistency.check(p, top, out);
        return new Plan(out, info.boardSpec(), spec.bytes(), edited.getBytes(spec.charset()), info, p, info.notes());
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

    /** The bridge parameters: a preset, or a JSON configuration of the same keys as the generator's. */
    static Bridge.Params params(Request req) throws OverlayException {
        if (req.config() != null && req.preset() != null) {
            throw new OverlayException(OverlayException.Kind.INPUT, "give --config or --preset, not both");
        }
        Map<String, String> values = new LinkedHashMap<>();
        if (req.config() != null) {
            JsonNode root;
            try {
                root = new ObjectMapper().readTree(Files.readString(req.config()));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                var loc = e.getLocation();
                throw new OverlayException(OverlayException.Kind.INPUT, req.config() + (loc == null ? "" : ":" + loc.getLineNr()
                        + ":" + loc.getColumnNr()) + ": malformed JSON: " + e.getOriginalMessage());
            } catch (IOException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, req.config() + ": cannot read: " + e.getMessage());
            }
            if (root == null || !root.isObject()) {
                throw new OverlayException(OverlayException.Kind.INPUT, req.config() + ": must hold a JSON object of bridge parameters");
            }
            for (var it = root.fields(); it.hasNext();) {
                var e = it.next();
                JsonNode v = e.getValue();
                if (v.isArray()) {
                    List<String> parts = new ArrayList<>();
                    v.forEach(x -> parts.add(x.asText()));
                    values.put(e.getKey(), String.join(",", parts));
                } else if (v.isValueNode()) {
                    values.put(e.getKey(), v.asText());
                } else {
                    throw new OverlayException(OverlayException.Kind.INPUT, req.config() + ": \"" + e.getKey()
                            + "\" must be a number, string, boolean or list");
                }
            }
        } else {
            values.put("preset", req.preset() == null ? "default" : req.preset().toLowerCase(Locale.ROOT));
        }
        try {
            Catalog.Args args = new Catalog.Args("bridge", values);
            Bridge.Params p = Catalog.bridgeParams(args);
            args.requireAllUsed();
            return p;
        } catch (IllegalArgumentException e) {
            String where = req.config() != null ? req.config() + ": " : "";
            throw new OverlayException(OverlayException.Kind.INPUT, where + e.getMessage());
        }
    }
}
