// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.overlay.BspScanner;
import org.direkt.overlay.OverlayException;
import org.direkt.overlay.system.DmaView;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.SystemReader;
import org.direkt.overlay.system.Units;
import org.direkt.overlay.system.Where;

/**
 * {@code direkt inspect}'s system part: finding the Platform Designer system that holds the PCIe hard
 * IP, and showing its DMA-relevant part ({@link DmaView}) as tables, JSON or SVG. Places in files are
 * written relative to the system's directory ({@code board.qsys:5633}, {@code ip/board/board_pcie.ip:8458}).
 */
final class SystemInspect {
    private SystemInspect() {
    }

    /**
     * What was found: the system shown (empty when there is none), its DMA view (empty when it holds no
     * hard IP), and notes on the systems passed over.
     */
    record Found(Optional<SystemModel> system, Optional<DmaView> view, List<String> notes) {
        Found {
            notes = List.copyOf(notes);
        }
    }

    /** One system file. A file that cannot be read as a system is bad input here (exit 2), whatever the reader's kind. */
    static Found read(Path qsys) throws OverlayException {
        SystemModel m = readInput(qsys);
        return new Found(Optional.of(m), DmaView.of(m), List.of());
    }

    private static SystemModel readInput(Path qsys) throws OverlayException {
        try {
            return SystemReader.read(qsys);
        } catch (OverlayException e) {
            throw e.kind() == OverlayException.Kind.INPUT ? e : new OverlayException(OverlayException.Kind.INPUT, e.getMessage(), e);
        }
    }

    /**
     * The system of a board directory: the first {@code .qsys} in name order that holds a PCIe hard IP.
     * A system that cannot be read is a note when another holds the hard IP, else the error.
     */
    static Found inBoardDir(Path boardDir) throws OverlayException {
        List<Path> systems;
        try (Stream<Path> s = Files.list(boardDir)) {
            systems = s.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".qsys") && Files.isRegularFile(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, boardDir + ": cannot list: " + e.getMessage());
        }
        if (systems.isEmpty()) {
            return new Found(Optional.empty(), Optional.empty(), List.of("no Platform Designer system (*.qsys) in " + boardDir));
        }
        List<OverlayException> failed = new ArrayList<>();
        List<String> without = new ArrayList<>();
        for (Path p : systems) {
            SystemModel m;
            try {
                m = readInput(p);
            } catch (OverlayException e) {
                failed.add(e);
                continue;
            }
            Optional<DmaView> v = DmaView.of(m);
            if (v.isPresent()) {
                List<String> notes = new ArrayList<>();
                failed.forEach(e -> notes.add("not read: " + e.getMessage()));
                return new Found(Optional.of(m), v, notes);
            }
            without.add(p.getFileName().toString());
        }
        if (!failed.isEmpty()) {
            throw failed.getFirst();
        }
        return new Found(Optional.empty(), Optional.empty(),
                List.of("no Platform Designer system in " + boardDir + " holds a PCIe hard IP (read " + String.join(", ", without) + ")"));
    }

    /** The board_spec.xml of a BSP or board directory, found as the overlay finds it ({@link BspScanner#findBoardSpec}). */
    static Path findBoardSpec(Path dir, String board) throws OverlayException {
        return BspScanner.findBoardSpec(dir, board);
    }

    // ------------------------------------------------------------------ JSON

    static Map<String, Object> json(Found f) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (f.system().isEmpty()) {
            out.put("system", null);
            out.put("notes", f.notes());
            return out;
        }
        SystemModel s = f.system().get();
        out.put("system", s.file().toString());
        out.put("name", s.name());
        out.put("edition", s.edition().name().toLowerCase(Locale.ROOT));
        out.put("tool_version", s.toolVersion().orElse(null));
        out.put("instances", s.instances().size());
        out.put("connections", s.connections().size());
        out.put("exports", s.exports().size());
        out.put("hard_ip", null);
        f.view().ifPresent(v -> {
            Map<String, Object> hip = new LinkedHashMap<>();
            hip.put("instance", v.hardIp().name());
            hip.put("kind", v.hardIp().kind());
            hip.put("where", where(s, v.hardIp().where()));
            hip.put("parameters_file", v.hardIp().ipFile().map(p -> rel(s, p)).orElse(null));
            hip.put("avalon_mm_dma", v.avalonMmDma());
            hip.put("dma_evidence", v.dmaEvidence());
            out.put("hard_ip", hip);
            DmaView.Controller c = v.controller();
            Map<String, Object> ctl = new LinkedHashMap<>();
            ctl.put("mode", c.mode().name().toLowerCase(Locale.ROOT));
            ctl.put("instance", c.instance().orElse(null));
            ctl.put("feeds", c.feeds());
            ctl.put("evidence", c.evidence());
            ctl.put("where", c.where().map(w -> where(s, w)).orElse(null));
            out.put("descriptor_controller", ctl);
            List<Map<String, Object>> bars = new ArrayList<>();
            for (DmaView.Bar b : v.bars()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bar", b.index());
                m.put("enabled", b.enabled());
                m.put("type", b.type());
                m.put("bits", b.bits() == 0 ? null : b.bits());
                m.put("prefetchable", b.prefetchable());
                m.put("address_bits", b.addressBits().orElse(null));
                m.put("size", b.size().orElse(null));
                m.put("rx_master", b.rxMaster().orElse(null));
                m.put("controller_registers", b.controllerRegisters());
                m.put("where", b.where().map(w -> where(s, w)).orElse(null));
                m.put("agents", reaches(s, b.agents()));
                bars.add(m);
            }
            out.put("bars", bars);
            List<Map<String, Object>> masters = new ArrayList<>();
            for (DmaView.DmaMaster dm : v.dmaMasters()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("master", dm.master());
                m.put("role", dm.role());
                m.put("reaches", reaches(s, dm.reaches()));
                masters.add(m);
            }
            out.put("dma_masters", masters);
            out.put("application_clock", v.applicationClock().map(SystemInspect::clock).orElse(null));
            out.put("kernel_clock", v.kernelClock().map(SystemInspect::clock).orElse(null));
        });
        out.put("notes", f.notes());
        return out;
    }

    private static List<Map<String, Object>> reaches(SystemModel s, List<DmaView.Reach> rs) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (DmaView.Reach r : rs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("base", Units.hex(r.base()));
            m.put("span", r.span().orElse(null));
            m.put("agent", r.agent());
            m.put("kind", r.kind());
            m.put("via", r.via());
            m.put("where", where(s, r.where()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> clock(DmaView.Clock c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("clock", c.clock());
        m.put("rate_hz", c.rateHz().orElse(null));
        m.put("export", c.export().orElse(null));
        m.put("through", c.through());
        return m;
    }

    // ------------------------------------------------------------------ text

    static void text(PrintWriter o, Found f) {
        if (f.system().isEmpty()) {
            f.notes().forEach(n -> o.println("note: " + n));
            return;
        }
        SystemModel s = f.system().get();
        o.printf("system %s: %s, Platform Designer %s%s, %d instances, %d connections, %d exports%n", s.name(), s.file(),
                s.edition() == SystemModel.Edition.PRO ? "Pro" : "Standard", s.toolVersion().map(t -> " " + t).orElse(""),
                s.instances().size(), s.connections().size(), s.exports().size());
        o.println();
        if (f.view().isEmpty()) {
            o.println("no PCIe hard IP instance in this system");
            o.println();
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Instance i : s.instances()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("instance", i.name());
                m.put("kind", i.kind());
                m.put("where", where(s, i.where()));
                rows.add(m);
            }
            Table.print(o, "instances", List.of("instance", "kind", "where"), rows);
            f.notes().forEach(n -> o.println("note: " + n));
            return;
        }
        DmaView v = f.view().get();
        Instance hip = v.hardIp();
        o.printf("PCIe hard IP %s: %s (%s%s)%n", hip.name(), hip.kind(), where(s, hip.where()),
                hip.ipFile().map(p -> ", parameters in " + rel(s, p)).orElse(""));
        o.printf("  Avalon-MM DMA: %s (%s%s)%n", v.avalonMmDma() ? "yes" : "no", v.dmaEvidence(),
                Optional.ofNullable(hip.parameterWhere().get("interface_type_hwtcl")).map(w -> ", " + where(s, w)).orElse(""));
        DmaView.Controller c = v.controller();
        o.printf("  descriptor controller: %s (%s%s)%n", switch (c.mode()) {
            case INTERNAL -> "internal, in the hard IP";
            case EXTERNAL -> "external" + c.instance().map(i -> ", instance " + i).orElse(", no instance feeds the data movers");
            case UNKNOWN -> "unknown";
        }, c.evidence(), c.where().map(w -> ", " + where(s, w)).orElse(""));
        for (String feed : c.feeds()) {
            o.println("    " + feed);
        }
        o.println("  application clock: " + v.applicationClock().map(SystemInspect::clockText).orElse("not found"));
        o.println("  kernel clock: " + v.kernelClock().map(SystemInspect::clockText).orElse("not found (no kernel_clk export or clock)"));
        o.println();

        List<Map<String, Object>> bars = new ArrayList<>();
        for (DmaView.Bar b : v.bars()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("bar", b.index());
            m.put("type", b.enabled() ? (b.type().isEmpty() ? "enabled, type not stated" : b.type()) : "disabled");
            m.put("size", b.size().map(Units::size).orElse(null));
            m.put("rx_master", b.rxMaster().orElse(b.controllerRegisters() ? "(internal descriptor controller registers)" : null));
            m.put("agents", b.rxMaster().isPresent() ? b.agents().size() : null);
            m.put("where", b.where().map(w -> where(s, w)).orElse(null));
            bars.add(m);
        }
        Table.print(o, "BARs", List.of("bar", "type", "size", "rx_master", "agents", "where"), bars);
        for (DmaView.Bar b : v.bars()) {
            if (b.rxMaster().isPresent()) {
                Table.print(o, "BAR" + b.index() + " through " + b.rxMaster().get(), REACH_COLUMNS, reachRows(s, b.agents()));
            }
        }
        for (DmaView.DmaMaster m : v.dmaMasters()) {
            Table.print(o, m.master() + ", " + m.role(), REACH_COLUMNS, reachRows(s, m.reaches()));
        }
        f.notes().forEach(n -> o.println("note: " + n));
    }

    private static final List<String> REACH_COLUMNS = List.of("base", "span", "agent", "kind", "via", "where");

    private static List<Map<String, Object>> reachRows(SystemModel s, List<DmaView.Reach> rs) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (DmaView.Reach r : rs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("base", Units.hex(r.base()));
            m.put("span", r.span().map(Units::size).orElse(null));
            m.put("agent", r.agent());
            m.put("kind", r.kind());
            m.put("via", r.via().isEmpty() ? null : String.join(" > ", r.via()));
            m.put("where", where(s, r.where()));
            rows.add(m);
        }
        return rows;
    }

    private static String clockText(DmaView.Clock c) {
        List<String> more = new ArrayList<>();
        c.export().ifPresent(e -> more.add("exported as " + e));
        if (!c.through().isEmpty()) {
            more.add("through " + String.join(", ", c.through()));
        }
        return c.clock() + c.rateHz().map(r -> ", " + Units.rate(r)).orElse("") + (more.isEmpty() ? "" : " (" + String.join(", ", more) + ")");
    }

    /** A place in a file, relative to the system's directory when it lies under it. */
    private static String where(SystemModel s, Where w) {
        return rel(s, w.file()) + (w.line() > 0 ? ":" + w.line() : "");
    }

    private static String rel(SystemModel s, Path p) {
        Path dir = s.file().toAbsolutePath().normalize().getParent();
        Path abs = p.toAbsolutePath().normalize();
        return dir != null && abs.startsWith(dir) ? dir.relativize(abs).toString().replace('\\', '/') : p.toString();
    }

    // ------------------------------------------------------------------ SVG

    static String svg(Found f) {
        return f.system().map(s -> org.direkt.overlay.system.SystemDiagram.svg(s, f.view())).orElse(null);
    }

    private static final Pattern ROOT_SIZE = Pattern.compile("<svg [^>]*width=\"(\\d+)\" height=\"(\\d+)\"");

    /** SVG documents one below the other in one document, each kept whole as a nested {@code <svg>}. */
    static String stack(List<String> documents) {
        StringBuilder body = new StringBuilder();
        int width = 0;
        int height = 0;
        for (String d : documents) {
            Matcher m = ROOT_SIZE.matcher(d);
            if (!m.find()) {
                throw new IllegalArgumentException("not an SVG document with a width and height");
            }
            int w = Integer.parseInt(m.group(1));
            int h = Integer.parseInt(m.group(2));
            String inner = d.substring(d.indexOf("<svg "));
            body.append(inner.replaceFirst("<svg ", "<svg x=\"0\" y=\"" + height + "\" "));
            width = Math.max(width, w);
            height += h;
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                        width, height, width, height)
                + body + "</svg>\n";
    }
}
