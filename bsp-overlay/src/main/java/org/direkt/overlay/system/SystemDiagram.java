// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A picture of a system's DMA-relevant part ({@code direkt inspect SYSTEM.qsys --svg}), in three
 * columns: the PCIe hard IP with its BARs and DMA masters; what host software reaches through each
 * BAR and what each DMA master reaches (base address, agent, the bridges passed), a line joining each
 * BAR and master to its list; the descriptor controller (internal or the external instance) and the
 * kernel and application clocks. Classes start {@code sys-}
 * so the picture can sit beside {@link org.direkt.overlay.BoardDiagram}'s in one document. Plain SVG
 * 1.1, no scripts, no external references; deterministic for a given system.
 */
public final class SystemDiagram {
    private SystemDiagram() {
    }

    private static final int COLUMN_WIDTH = 380;
    private static final int GAP = 40;
    private static final int BOX_HEIGHT = 44;
    private static final int ROW = BOX_HEIGHT + 8;
    private static final int TOP = 90;
    private static final int INDENT = 14;

    /** One box: title line, detail line, class, indent level, and the id a link ends at. */
    private record Box(String title, String detail, String css, int indent, String anchor) {
    }

    /** A line from a box in the first column to a heading box in another. */
    private record Link(String from, String to) {
    }

    /** The diagram of {@code system}'s DMA part ({@code view} empty: the system holds no PCIe hard IP). */
    public static String svg(SystemModel system, Optional<DmaView> view) {
        List<Box> hip = new ArrayList<>();
        List<Box> maps = new ArrayList<>();
        List<Box> side = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        String subtitle;
        if (view.isEmpty()) {
            subtitle = system.instances().size() + " instances, no PCIe hard IP";
        } else {
            DmaView v = view.get();
            subtitle = "PCIe hard IP " + v.hardIp().name() + " (" + v.hardIp().kind() + "), "
                    + (v.avalonMmDma() ? "Avalon-MM DMA" : "no Avalon-MM DMA") + ", descriptor controller " + controller(v.controller());
            hip.add(new Box(v.hardIp().name(), v.hardIp().kind(), "sys-hip", 0, ""));
            for (DmaView.Bar b : v.bars()) {
                String id = "bar" + b.index();
                String title = "BAR" + b.index() + b.rxMaster().map(m -> " -> " + m).orElse(b.controllerRegisters() ? " (inside the hard IP)" : "");
                String detail = !b.enabled() ? "disabled"
                        : barType(b) + b.size().map(s -> ", " + Units.size(s)).orElse("")
                                + (b.controllerRegisters() ? ": controller registers" : "");
                hip.add(new Box(title, detail, b.enabled() ? "sys-bar" : "sys-bar-off", 1, id));
                if (!b.agents().isEmpty()) {
                    maps.add(new Box("BAR" + b.index() + " via " + b.rxMaster().orElse("?"), agents(b.agents().size()), "sys-map", 0, id));
                    links.add(new Link(id, id));
                    for (DmaView.Reach r : b.agents()) {
                        maps.add(reach(r));
                    }
                }
            }
            int k = 0;
            for (DmaView.DmaMaster m : v.dmaMasters()) {
                String id = "master" + k++;
                hip.add(new Box(m.master(), m.role(), "sys-master", 1, id));
                maps.add(new Box(m.master(), agents(m.reaches().size()), "sys-map", 0, id));
                links.add(new Link(id, id));
                for (DmaView.Reach r : m.reaches()) {
                    maps.add(reach(r));
                }
            }
            DmaView.Controller c = v.controller();
            side.add(new Box("descriptor controller: " + controller(c), c.evidence(), "sys-controller", 0, ""));
            for (String feed : c.feeds()) {
                side.add(new Box(feed, "descriptors to the data movers", "sys-controller", 1, ""));
            }
            v.applicationClock().ifPresent(a -> side.add(new Box("application clock " + a.clock(), a.rateHz().map(Units::rate).orElse("rate not stated"),
                    "sys-clock", 0, "")));
            v.kernelClock().ifPresent(kc -> side.add(new Box("kernel clock " + kc.clock(), kc.rateHz().map(Units::rate).orElse("rate not stated")
                    + kc.export().map(e -> ", exported as " + e).orElse(""), "sys-clock", 0, "")));
        }
        int rows = Math.max(1, Math.max(hip.size(), Math.max(maps.size(), side.size())));
        int width = 3 * COLUMN_WIDTH + 4 * GAP;
        int height = TOP + rows * ROW + GAP;

        StringBuilder s = new StringBuilder();
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                width, height, width, height));
        s.append("  <title>").append(esc("system " + system.name())).append("</title>\n");
        s.append("  <style>\n")
                .append("    text { font-family: sans-serif; font-size: 12px; fill: #222; }\n")
                .append("    .sys-head { font-size: 15px; font-weight: bold; }\n")
                .append("    rect { stroke-width: 1.2; rx: 4; }\n")
                .append("    .sys-hip rect { fill: #dde8f6; stroke: #3a6ea5; stroke-width: 2; }\n")
                .append("    .sys-bar rect { fill: #f2f6fb; stroke: #8aa8c8; }\n")
                .append("    .sys-bar-off rect { fill: #f8f8f8; stroke: #cccccc; stroke-dasharray: 4 3; }\n")
                .append("    .sys-bar-off text { fill: #888888; }\n")
                .append("    .sys-master rect { fill: #e6f2e6; stroke: #4c8c4c; }\n")
                .append("    .sys-controller rect { fill: #ffe3c2; stroke: #d2691e; }\n")
                .append("    .sys-clock rect { fill: #f3e8f8; stroke: #8a5aa5; }\n")
                .append("    .sys-map rect { fill: #eeeeee; stroke: #666666; }\n")
                .append("    .sys-agent rect { fill: #ffffff; stroke: #999999; }\n")
                .append("    .sys-link { fill: none; stroke: #777777; stroke-width: 1.2; }\n")
                .append("  </style>\n");
        s.append(String.format(Locale.ROOT, "  <rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
        s.append("  <text class=\"sys-head\" x=\"").append(GAP).append("\" y=\"28\">")
                .append(esc("system " + system.name() + " (" + system.edition().name().toLowerCase(Locale.ROOT)
                        + system.toolVersion().map(t -> " " + t).orElse("") + ")"))
                .append("</text>\n");
        s.append("  <text x=\"").append(GAP).append("\" y=\"48\">").append(esc(subtitle)).append("</text>\n");
        for (int k = 0; k < links.size(); k++) {
            Link l = links.get(k);
            int from = anchorRow(hip, l.from());
            int to = anchorRow(maps, l.to());
            int x1 = GAP + COLUMN_WIDTH;
            int y1 = TOP + from * ROW + BOX_HEIGHT / 2;
            int x2 = GAP + COLUMN_WIDTH + GAP;
            int y2 = TOP + to * ROW + BOX_HEIGHT / 2;
            // Each link turns at its own x, so links running down side by side stay apart.
            int mid = x1 + 6 + (k * 5) % (GAP - 12);
            s.append(String.format(Locale.ROOT, "  <path class=\"sys-link\" d=\"M %d %d H %d V %d H %d\"/>%n", x1, y1, mid, y2, x2));
        }
        column(s, "hard IP", hip, 0, view.isEmpty() ? "(no PCIe hard IP in this system)" : "");
        if (view.isPresent()) {
            column(s, "what each BAR and DMA master reaches", maps, 1, "(no BAR or DMA master reaches an agent)");
            column(s, "descriptor controller and clocks", side, 2, "");
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static Box reach(DmaView.Reach r) {
        // The bridges passed show as indentation under the bridge's own box, which comes just before.
        String detail = (r.kind().isEmpty() ? "kind unknown" : r.kind()) + r.span().map(x -> ", " + Units.size(x)).orElse("");
        return new Box(Units.hex(r.base()) + "  " + r.agent(), detail, "sys-agent", 1 + r.via().size(), "");
    }

    private static String agents(int n) {
        return n + (n == 1 ? " agent" : " agents");
    }

    private static String controller(DmaView.Controller c) {
        return switch (c.mode()) {
            case INTERNAL -> "internal";
            case EXTERNAL -> "external" + c.instance().map(i -> " (" + i + ")").orElse("");
            case UNKNOWN -> "unknown";
        };
    }

    private static String barType(DmaView.Bar b) {
        if (b.bits() == 0) {
            return b.type().isEmpty() ? "type not stated" : b.type();
        }
        return b.bits() + "-bit " + (b.prefetchable() ? "prefetchable" : "non-prefetchable");
    }

    private static int anchorRow(List<Box> boxes, String anchor) {
        for (int k = 0; k < boxes.size(); k++) {
            if (boxes.get(k).anchor().equals(anchor)) {
                return k;
            }
        }
        throw new IllegalStateException("no box " + anchor);
    }

    private static void column(StringBuilder s, String heading, List<Box> boxes, int index, String empty) {
        int x = GAP + index * (COLUMN_WIDTH + GAP);
        s.append("  <g id=\"").append(heading.replace(' ', '-')).append("\">\n");
        s.append("    <text class=\"sys-head\" x=\"").append(x).append("\" y=\"").append(TOP - 10).append("\">").append(esc(heading)).append("</text>\n");
        if (boxes.isEmpty() && !empty.isEmpty()) {
            s.append("    <text x=\"").append(x).append("\" y=\"").append(TOP + 20).append("\">").append(esc(empty)).append("</text>\n");
        }
        for (int k = 0; k < boxes.size(); k++) {
            Box b = boxes.get(k);
            int y = TOP + k * ROW;
            int indent = Math.min(b.indent(), 6) * INDENT;
            s.append("    <g class=\"").append(b.css()).append("\">");
            s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x + indent, y, COLUMN_WIDTH - indent, BOX_HEIGHT));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", x + indent + 8, y + 18, esc(b.title())));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", x + indent + 8, y + 35, esc(b.detail())));
            s.append("</g>\n");
        }
        s.append("  </g>\n");
    }

    private static String esc(String v) {
        StringBuilder b = new StringBuilder(v.length());
        for (char c : v.toCharArray()) {
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                default -> b.append(c < 0x20 && c != '\t' ? ' ' : c);
            }
        }
        return b.toString();
    }
}
