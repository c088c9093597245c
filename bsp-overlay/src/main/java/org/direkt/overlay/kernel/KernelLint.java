// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Checks a kernel's I/O channels against the board's channels.
 *
 * <p>Errors, besides what reading the kernel found ({@link KernelChannels#problems()}):
 * <ul>
 *   <li>a channel is defined twice, or two channels name the same {@code io("...")} id;</li>
 *   <li>an {@code io} channel names a chan_id the board does not have;</li>
 *   <li>the kernel writes to a {@code streamsource} or reads from a {@code streamsink};</li>
 *   <li>an {@code io} channel's type has no known width (an unknown type, a struct with a member of
 *       an unknown type or size, an array whose length is an undefined macro), or a width other than
 *       the board channel's;</li>
 *   <li>a channel call names an undeclared channel.</li>
 * </ul>
 * <p>Warning: an {@code io} channel that the kernel never reads or writes (the compiler drops it,
 * and the board side of that channel is left unconnected). Note, once after the errors: the board's
 * channels, when an io id named none of them.
 */
public final class KernelLint {

    private KernelLint() {
    }

    /**
     * Lints a kernel against a board.
     *
     * @param k        the kernel's channels
     * @param board    the board's I/O channels
     * @param typeBits widths of types the kernel uses but does not declare, e.g. {@code cldesc_t -> 256}
     * @return what reading the kernel found, then the findings, ordered by file (in
     *         {@link KernelChannels#files()} order) and position; a note on the board's channels last
     */
    public static List<LintMessage> check(KernelChannels k, List<BoardChannel> board, Map<String, Integer> typeBits) {
        List<LintMessage> out = new ArrayList<>(k.problems());
        Map<String, BoardChannel> boardById = new LinkedHashMap<>();
        for (BoardChannel b : board) {
            boardById.putIfAbsent(b.chanId(), b);
        }
        Map<String, ChannelDecl> byName = new HashMap<>();
        Map<String, ChannelDecl> byIoId = new HashMap<>();
        ChannelDecl firstMissing = null;
        for (ChannelDecl d : k.declarations()) {
            ChannelDecl previous = byName.putIfAbsent(d.name(), d);
            if (previous != null) {
                out.add(error(d, "channel '" + d.name() + "' is already declared at " + where(previous, d)));
                continue;
            }
            if (d.ioId() == null) {
                continue;
            }
            ChannelDecl sameId = byIoId.putIfAbsent(d.ioId(), d);
            if (sameId != null) {
                out.add(error(d, "channel '" + d.name() + "': io(\"" + d.ioId() + "\") is already bound to channel '"
                        + sameId.name() + "' at " + where(sameId, d)));
            }
            BoardChannel b = boardById.get(d.ioId());
            if (b == null) {
                out.add(error(d, "channel '" + d.name() + "': the board has no I/O channel with chan_id \"" + d.ioId() + "\""
                        + (boardById.isEmpty() ? " (it declares no I/O channels)"
                        : closest(d.ioId(), boardById.keySet()).map(c -> " (did you mean \"" + c + "\"?)").orElse(""))));
                if (firstMissing == null) {
                    firstMissing = d;
                }
            }
            width(out, d, b, k.types(), typeBits);
            if (k.usesOf(d.name()).isEmpty()) {
                out.add(new LintMessage(d.source(), d.line(), d.col(), "I/O channel '" + d.name()
                        + "' (io(\"" + d.ioId() + "\")) is never read or written", LintMessage.Severity.WARNING));
            }
        }
        for (ChannelUse u : k.uses()) {
            String verb = u.kind() == ChannelUse.Kind.READ ? "read from" : "write to";
            ChannelDecl d = byName.get(u.channel());
            if (d == null) {
                out.add(new LintMessage(u.source(), u.line(), u.col(), verb + " undeclared channel '" + u.channel() + "'"));
                continue;
            }
            BoardChannel b = d.ioId() == null ? null : boardById.get(d.ioId());
            if (b == null) {
                continue;
            }
            if (u.kind() == ChannelUse.Kind.WRITE && b.isSource()) {
                out.add(new LintMessage(u.source(), u.line(), u.col(), "write to channel '" + d.name()
                        + "', but board channel \"" + b.chanId() + "\" is a streamsource: the kernel can only read it"));
            } else if (u.kind() == ChannelUse.Kind.READ && !b.isSource()) {
                out.add(new LintMessage(u.source(), u.line(), u.col(), "read from channel '" + d.name()
                        + "', but board channel \"" + b.chanId() + "\" is a streamsink: the kernel can only write it"));
            }
        }
        List<String> order = k.files();
        out.sort(Comparator.comparingInt((LintMessage m) -> order.indexOf(m.source()) < 0 ? order.size() : order.indexOf(m.source()))
                .thenComparingInt(LintMessage::line).thenComparingInt(LintMessage::col));
        if (firstMissing != null && !boardById.isEmpty()) {
            List<String> listed = new ArrayList<>();
            for (BoardChannel b : boardById.values()) {
                listed.add(b.chanId() + " (" + b.type() + ", " + b.width() + " bits" + (b.at() == null ? "" : ", " + b.at()) + ")");
            }
            out.add(new LintMessage(firstMissing.source(), firstMissing.line(), firstMissing.col(),
                    "the board's I/O channels: " + String.join(", ", listed), LintMessage.Severity.NOTE));
        }
        return out;
    }

    private static void width(List<LintMessage> out, ChannelDecl d, BoardChannel b, KernelTypes types, Map<String, Integer> typeBits) {
        Optional<KernelTypes.Layout> declared = types.layout(d.type());
        if (declared.isPresent() && declared.get() instanceof KernelTypes.Unknown u) {
            out.add(error(d, "channel '" + d.name() + "': cannot compute the width of " + d.type() + ": " + u.reason()));
            return;
        }
        OptionalInt bits = declared.isPresent()
                ? OptionalInt.of((int) ((KernelTypes.Known) declared.get()).bits())
                : typeBits(d.type(), typeBits);
        if (bits.isEmpty()) {
            out.add(error(d, "channel '" + d.name() + "': unknown type '" + d.type() + "' (not an OpenCL scalar or vector"
                    + " type, and the kernel declares no typedef, struct, union or enum of that name)"));
        } else if (b != null && bits.getAsInt() != b.width()) {
            out.add(error(d, "channel '" + d.name() + "' carries " + d.type() + " (" + bits.getAsInt()
                    + " bits) but board channel \"" + b.chanId() + "\" is " + b.width() + " bits wide"));
        }
    }

    /** The board chan_id a mistyped one most likely meant: within a third of its length in edits, and alone at that distance. */
    private static Optional<String> closest(String id, Iterable<String> ids) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        boolean tie = false;
        for (String c : ids) {
            int dist = distance(id, c);
            if (dist < bestDistance) {
                best = c;
                bestDistance = dist;
                tie = false;
            } else if (dist == bestDistance) {
                tie = true;
            }
        }
        return best != null && !tie && bestDistance <= Math.max(1, id.length() / 3) ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] swap = prev;
            prev = cur;
            cur = swap;
        }
        return prev[b.length()];
    }

    /** "line:col", or "file:line:col" when {@code of} lies in another file than {@code from}. */
    private static String where(ChannelDecl of, ChannelDecl from) {
        return KernelParser.where(of.source(), of.line(), of.col(), from.source());
    }

    /**
     * The width in bits of a type from {@code typeBits} (by the type as written, then for
     * {@code struct x} by the tag {@code x}), else of an OpenCL scalar or vector type (a 3-element
     * vector occupies 4 elements, as in OpenCL's sizeof). {@code unsigned T} is {@code uT};
     * {@code signed T} is {@code T}.
     *
     * @return the width, or empty for an unknown type
     */
    public static OptionalInt typeBits(String type, Map<String, Integer> typeBits) {
        String t = type.strip().replaceAll("\\s+", " ");
        Integer declared = typeBits.get(t);
        if (declared == null && t.matches("(struct|union|enum) .+")) {
            declared = typeBits.get(t.substring(t.indexOf(' ') + 1));
        }
        if (declared != null) {
            return OptionalInt.of(declared);
        }
        return KernelTypes.builtin(t).map(k -> OptionalInt.of((int) k.bits())).orElse(OptionalInt.empty());
    }

    private static LintMessage error(ChannelDecl d, String message) {
        return new LintMessage(d.source(), d.line(), d.col(), message);
    }
}
