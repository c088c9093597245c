// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.Channel;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.boardspec.InterfaceEntry;

/**
 * A picture of a board_spec.xml ({@code direkt inspect --svg}): three columns, the global memories
 * with their interfaces (width, address, size), the board's other kernel interfaces, and the I/O
 * channels, each channel's direction as kernels see it (a streamsource feeds the kernel, a
 * streamsink is written by it). direkt's own channels ({@code chan_id} starting {@code direkt_})
 * are drawn in their own colour and carry {@code class="direkt"}, so an overlaid board shows at a
 * glance where the bridge attaches. Plain SVG 1.1, no scripts, no external references;
 * deterministic for a given file.
 */
public final class BoardDiagram {
    private BoardDiagram() {
    }

    private static final int COLUMN_WIDTH = 330;
    private static final int GAP = 20;
    private static final int BOX_HEIGHT = 44;
    private static final int TOP = 70;

    /** One box: its title line, its detail line, and the class that styles it. */
    private record Box(String title, String detail, String css) {
    }

    /** The diagram of {@code board} as an SVG document. */
    public static String svg(BoardSpec board) {
        List<Box> memories = new ArrayList<>();
        for (GlobalMemory g : board.globalMemories()) {
            String name = g.name() == null || g.name().isBlank() ? "(unnamed)" : g.name();
            memories.add(new Box("global_mem " + name + (g.isDefault() ? " (default)" : ""),
                    g.maxBandwidth() == null ? "" : "max_bandwidth " + g.maxBandwidth() + " MB/s", "memory"));
            for (InterfaceEntry i : g.interfaces()) {
                memories.add(new Box("  " + i.name() + "." + i.port(), i.canonicalType() + ", " + i.width() + " bits"
                        + attr(i, "address") + attr(i, "size"), "memif"));
            }
        }
        List<Box> interfaces = new ArrayList<>();
        for (InterfaceEntry i : board.interfaces()) {
            interfaces.add(new Box(i.name() + "." + i.port(), i.canonicalType() + (i.width() == null ? "" : ", " + i.width() + " bits"), "interface"));
        }
        List<Box> channels = new ArrayList<>();
        for (Channel c : board.channels()) {
            boolean direkt = c.chanId() != null && c.chanId().startsWith("direkt_");
            String dir = "streamsource".equals(c.type()) ? "to the kernel" : "streamsink".equals(c.type()) ? "from the kernel" : c.type();
            channels.add(new Box(c.chanId(), c.name() + "." + c.port() + ", " + c.width() + " bits, " + dir, direkt ? "direkt" : "channel"));
        }
        int rows = Math.max(memories.size(), Math.max(interfaces.size(), channels.size()));
        int width = 3 * COLUMN_WIDTH + 4 * GAP;
        int height = TOP + Math.max(1, rows) * (BOX_HEIGHT + 8) + GAP + 20;

        StringBuilder s = new StringBuilder();
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                width, height, width, height));
        s.append("  <title>").append(esc("board " + board.name())).append("</title>\n");
        s.append("  <style>\n")
                .append("    text { font-family: sans-serif; font-size: 12px; fill: #222; }\n")
                .append("    .head { font-size: 15px; font-weight: bold; }\n")
                .append("    rect { stroke-width: 1.2; rx: 4; }\n")
                .append("    .memory rect { fill: #dde8f6; stroke: #3a6ea5; }\n")
                .append("    .memif rect { fill: #f2f6fb; stroke: #8aa8c8; }\n")
                .append("    .interface rect { fill: #eeeeee; stroke: #888888; }\n")
                .append("    .channel rect { fill: #f4f4f4; stroke: #999999; }\n")
                .append("    .direkt rect { fill: #ffe3c2; stroke: #d2691e; stroke-width: 2; }\n")
                .append("  </style>\n");
        s.append(String.format(Locale.ROOT, "  <rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
        s.append("  <text class=\"head\" x=\"").append(GAP).append("\" y=\"28\">")
                .append(esc("board " + board.name() + board.version().map(v -> " (version " + v + ")").orElse("")))
                .append("</text>\n");
        long direkt = channels.stream().filter(b -> b.css().equals("direkt")).count();
        s.append("  <text x=\"").append(GAP).append("\" y=\"48\">")
                .append(esc(count(board.globalMemories().size(), "global memory", "global memories") + ", "
                        + count(interfaces.size(), "interface", "interfaces") + ", " + count(channels.size(), "channel", "channels")
                        + (direkt > 0 ? " (" + direkt + " of them direkt's, shaded)" : "")))
                .append("</text>\n");
        column(s, "global memories", memories, 0);
        column(s, "interfaces", interfaces, 1);
        column(s, "channels", channels, 2);
        s.append("</svg>\n");
        return s.toString();
    }

    private static void column(StringBuilder s, String heading, List<Box> boxes, int index) {
        int x = GAP + index * (COLUMN_WIDTH + GAP);
        s.append("  <g id=\"").append(heading.replace(' ', '-')).append("\">\n");
        s.append("    <text class=\"head\" x=\"").append(x).append("\" y=\"").append(TOP - 6).append("\">").append(esc(heading)).append("</text>\n");
        if (boxes.isEmpty()) {
            s.append("    <text x=\"").append(x).append("\" y=\"").append(TOP + 20).append("\">(none)</text>\n");
        }
        for (int k = 0; k < boxes.size(); k++) {
            Box b = boxes.get(k);
            int y = TOP + k * (BOX_HEIGHT + 8);
            int indent = b.css().equals("memif") ? 16 : 0;
            s.append("    <g class=\"").append(b.css()).append("\">");
            s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x + indent, y, COLUMN_WIDTH - indent, BOX_HEIGHT));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", x + indent + 8, y + 18, esc(b.title().strip())));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", x + indent + 8, y + 35, esc(b.detail())));
            s.append("</g>\n");
        }
        s.append("  </g>\n");
    }

    private static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private static String attr(InterfaceEntry i, String name) {
        String v = i.attributes().get(name);
        return v == null ? "" : ", " + name + " " + v;
    }

    private static String esc(String v) {
        if (v == null) {
            return "";
        }
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
