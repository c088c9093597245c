// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The edits that carry new board channels through a BSP's hand-written kernel wrapper (FACTS section 9):
 * {@code freeze_wrapper.v} gains a port per channel signal ({@code board_<port>_data/_valid/_ready})
 * and connects it to the kernel system's ({@code <port>_data/...}, the names the OpenCL compiler gives
 * a board_spec.xml channel), with the kernel's outputs held inactive during partial reconfiguration
 * as the wrapper holds its other outputs; the top level that instantiates the wrapper gains the
 * wires between the board system's exports and the wrapper. Each edit only inserts text, so every
 * original byte stays where it was relative to its neighbours; applied twice it refuses (the port is
 * already there).
 */
public final class KernelWrapper {
    private KernelWrapper() {
    }

    /** One channel: the board_spec.xml port (the system's export), its width, and whether the kernel writes it. */
    public record Channel(String port, int width, boolean kernelWrites) {
    }

    /** Marks the lines direkt adds, so that a reader (and a second run) can tell them. */
    static final String MARK = "// direkt overlay: ";

    /** The wrapper's text with the channels added; {@code file} names it in messages. */
    public static String editWrapper(String text, Path file, List<Channel> channels) throws OverlayException {
        Block header = moduleHeader(text, "freeze_wrapper", file);
        Block inst = instance(text, "kernel_system", file);
        for (Channel c : channels) {
            if (Pattern.compile("\\bboard_" + Pattern.quote(c.port()) + "_data\\b").matcher(text).find()) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + line(text, header.open) + ": freeze_wrapper already has"
                        + " port board_" + c.port() + "_data: the channels were added before (revert the BSP first)");
            }
        }
        boolean freeze = Pattern.compile("\\breg\\s+pr_freeze_reg\\b").matcher(text).find();
        StringBuilder ports = new StringBuilder(",\n  " + MARK + "kernel channels\n");
        StringBuilder conns = new StringBuilder(",\n  " + MARK + "kernel channels\n");
        StringBuilder wires = new StringBuilder(MARK + "kernel channels: the kernel's outputs held inactive while frozen\n");
        List<String> portLines = new ArrayList<>();
        List<String> connLines = new ArrayList<>();
        for (Channel c : channels) {
            String b = "board_" + c.port();
            String k = "kernel_system_" + c.port();
            String data = String.format("[%d:0]", c.width() - 1);
            if (c.kernelWrites()) {
                portLines.add(String.format("  output %-9s %s_data", data, b));
                portLines.add(String.format("  output %-9s %s_valid", "", b));
                portLines.add(String.format("  input  %-9s %s_ready", "", b));
                connLines.add("  ." + c.port() + "_data(" + b + "_data)");
                connLines.add("  ." + c.port() + "_valid(" + (freeze ? k : b) + "_valid)");
                connLines.add("  ." + c.port() + "_ready(" + b + "_ready)");
                if (freeze) {
                    wires.append("wire              ").append(k).append("_valid;\n");
                    wires.append("assign ").append(b).append("_valid = pr_freeze_reg ? 1'b0 : ").append(k).append("_valid;\n");
                }
            } else {
                portLines.add(String.format("  input  %-9s %s_data", data, b));
                portLines.add(String.format("  input  %-9s %s_valid", "", b));
                portLines.add(String.format("  output %-9s %s_ready", "", b));
                connLines.add("  ." + c.port() + "_data(" + b + "_data)");
                connLines.add("  ." + c.port() + "_valid(" + b + "_valid)");
                connLines.add("  ." + c.port() + "_ready(" + (freeze ? k : b) + "_ready)");
                if (freeze) {
                    wires.append("wire              ").append(k).append("_ready;\n");
                    wires.append("assign ").append(b).append("_ready = pr_freeze_reg ? 1'b0 : ").append(k).append("_ready;\n");
                }
            }
        }
        ports.append(String.join(",\n", portLines.stream().map(String::stripTrailing).toList()));
        conns.append(String.join(",\n", connLines));
        // insert back to front so that earlier positions stay valid
        StringBuilder out = new StringBuilder(text);
        out.insert(inst.lastToken, conns);
        if (freeze) {
            out.insert(inst.lineStart, wires.append("\n"));
        }
        out.insert(header.lastToken, ports);
        return out.toString();
    }

    /** The top level's text with the wires between the board system and the wrapper added. */
    public static String editTop(String text, Path file, String boardSystem, List<Channel> channels) throws OverlayException {
        Block board = instance(text, boardSystem, file);
        Block wrapper = instance(text, "freeze_wrapper", file);
        StringBuilder wires = new StringBuilder(MARK + "kernel channels between the board system and the kernel wrapper\n");
        List<String> boardConns = new ArrayList<>();
        List<String> wrapperConns = new ArrayList<>();
        for (Channel c : channels) {
            String b = "board_" + c.port();
            wires.append(String.format("wire %-9s %s_data;%n", String.format("[%d:0]", c.width() - 1), b).replace("\r", ""));
            wires.append(String.format("wire %-9s %s_valid;%n", "", b).replace("\r", ""));
            wires.append(String.format("wire %-9s %s_ready;%n", "", b).replace("\r", ""));
            for (String sig : List.of("data", "valid", "ready")) {
                boardConns.add("  ." + c.port() + "_" + sig + "(" + b + "_" + sig + ")");
                wrapperConns.add("  ." + b + "_" + sig + "(" + b + "_" + sig + ")");
            }
        }
        String bc = ",\n  " + MARK + "kernel channels\n" + String.join(",\n", boardConns);
        String wc = ",\n  " + MARK + "kernel channels\n" + String.join(",\n", wrapperConns);
        List<int[]> inserts = new ArrayList<>();
        StringBuilder out = new StringBuilder(text);
        // positions in descending order
        record Ins(int at, String s) {
        }
        List<Ins> l = new ArrayList<>(List.of(new Ins(board.lastToken, bc), new Ins(wrapper.lastToken, wc),
                new Ins(Math.min(board.lineStart, wrapper.lineStart), wires.append("\n").toString())));
        l.sort((x, y) -> Integer.compare(y.at, x.at));
        for (Ins i : l) {
            out.insert(i.at, i.s);
        }
        return out.toString();
    }

    /** The file among {@code candidates} that instantiates {@code freeze_wrapper}, if one does. */
    public static boolean instantiatesWrapper(String text) {
        return findInstance(text, "freeze_wrapper").isPresent();
    }

    /**
     * A parenthesised list: where its declaration line starts, where its '(' is, and the offset just
     * after its last significant character before the closing ')' (where a new entry goes).
     */
    record Block(int lineStart, int open, int lastToken) {
    }

    private static Block moduleHeader(String text, String module, Path file) throws OverlayException {
        Matcher m = Pattern.compile("\\bmodule\\s+" + module + "\\s*(#\\s*\\()?").matcher(text);
        int from = -1;
        while (m.find()) {
            if (!inComment(text, m.start())) {
                from = m.end();
                if (m.group(1) != null) {
                    from = closing(text, m.end() - 1, file) + 1; // skip the parameter list
                }
                break;
            }
        }
        if (from < 0) {
            throw new OverlayException(OverlayException.Kind.BSP, file + ": declares no module " + module);
        }
        int open = text.indexOf('(', from);
        if (open < 0) {
            throw new OverlayException(OverlayException.Kind.BSP, file + ":" + line(text, from) + ": module " + module + " has no port list");
        }
        return block(text, text.lastIndexOf('\n', open) + 1, open, file);
    }

    private static Optional<Integer> findInstance(String text, String module) {
        Matcher m = Pattern.compile("(?m)^[ \\t]*" + Pattern.quote(module) + "\\s+(#\\s*\\(.*?\\)\\s*)?[A-Za-z_][A-Za-z0-9_$]*\\s*\\(",
                Pattern.DOTALL).matcher(text);
        while (m.find()) {
            if (!inComment(text, m.start())) {
                return Optional.of(m.start());
            }
        }
        return Optional.empty();
    }

    private static Block instance(String text, String module, Path file) throws OverlayException {
        int at = findInstance(text, module).orElseThrow(() -> new OverlayException(OverlayException.Kind.BSP, file
                + ": instantiates no " + module + " (the kernel channels cannot be connected through it)"));
        Matcher m = Pattern.compile("\\(").matcher(text);
        m.region(at, text.length());
        // the port list's '(' is the last '(' of the instance's header, after its name
        Matcher name = Pattern.compile(Pattern.quote(module) + "\\s+(#\\s*\\()?").matcher(text);
        name.region(at, text.length());
        name.find();
        int from = name.end();
        if (name.group(1) != null) {
            from = closing(text, name.end() - 1, file) + 1;
        }
        int open = text.indexOf('(', from);
        return block(text, text.lastIndexOf('\n', at) + 1, open, file);
    }

    private static Block block(String text, int lineStart, int open, Path file) throws OverlayException {
        int close = closing(text, open, file);
        int last = open + 1;
        int i = open + 1;
        while (i < close) {
            char ch = text.charAt(i);
            if (ch == '/' && i + 1 < close && text.charAt(i + 1) == '/') {
                int nl = text.indexOf('\n', i);
                i = nl < 0 || nl > close ? close : nl;
            } else if (ch == '/' && i + 1 < close && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 ? close : end + 2;
            } else {
                if (!Character.isWhitespace(ch)) {
                    last = i + 1;
                }
                i++;
            }
        }
        return new Block(lineStart, open, last);
    }

    /** The offset of the ')' matching the '(' at {@code open}, skipping comments and strings. */
    private static int closing(String text, int open, Path file) throws OverlayException {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '/' && i + 1 < text.length() && text.charAt(i + 1) == '/') {
                int nl = text.indexOf('\n', i);
                i = nl < 0 ? text.length() : nl;
            } else if (ch == '/' && i + 1 < text.length() && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 ? text.length() : end + 1;
            } else if (ch == '"') {
                int end = text.indexOf('"', i + 1);
                i = end < 0 ? text.length() : end;
            } else if (ch == '(') {
                depth++;
            } else if (ch == ')' && --depth == 0) {
                return i;
            }
        }
        throw new OverlayException(OverlayException.Kind.BSP, file + ":" + line(text, open) + ": unbalanced parentheses from here to the end");
    }

    private static boolean inComment(String text, int at) {
        int ls = text.lastIndexOf('\n', at) + 1;
        if (text.substring(ls, at).contains("//")) {
            return true;
        }
        int open = text.lastIndexOf("/*", at);
        return open >= 0 && text.indexOf("*/", open) > at;
    }

    static int line(String text, int offset) {
        int n = 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }
}
