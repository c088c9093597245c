// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a kernel's I/O channels against the board's channels.
 *
 * <p>Errors:
 * <ul>
 *   <li>a channel is declared twice, or two channels name the same {@code io("...")} id;</li>
 *   <li>an {@code io} channel names a chan_id the board does not have;</li>
 *   <li>the kernel writes to a {@code streamsource} or reads from a {@code streamsink};</li>
 *   <li>an {@code io} channel's type has an unknown width, or a width other than the board
 *       channel's;</li>
 *   <li>a channel call names an undeclared channel.</li>
 * </ul>
 * <p>Warning: an {@code io} channel that the kernel never reads or writes (the compiler drops it,
 * and the board side of that channel is left unconnected).
 */
public final class KernelLint {

    /** Widths of the OpenCL C scalar types a channel can carry. */
    private static final Map<String, Integer> SCALAR_BITS = Map.ofEntries(
            Map.entry("char", 8), Map.entry("uchar", 8),
            Map.entry("short", 16), Map.entry("ushort", 16), Map.entry("half", 16),
            Map.entry("int", 32), Map.entry("uint", 32), Map.entry("float", 32),
            Map.entry("long", 64), Map.entry("ulong", 64), Map.entry("double", 64));

    /** A vector type: scalar base and 2, 3, 4, 8 or 16 elements. */
    private static final Pattern VECTOR = Pattern.compile("([a-z]+)(2|3|4|8|16)");

    private KernelLint() {
    }

    /**
     * Lints a kernel against a board.
     *
     * @param k        the kernel's channels
     * @param board    the board's I/O channels
     * @param typeBits widths of struct and typedef types, e.g. {@code cldesc_t -> 256}
     * @return findings ordered by position
     */
    public static List<LintMessage> check(KernelChannels k, List<BoardChannel> board,
                                          Map<String, Integer> typeBits) {
        return check(List.of(k), board, typeBits);
    }

    /**
     * Lints a kernel together with the headers it includes, as one translation unit: a channel
     * declared in a header and used in the kernel (or the other way round) is one channel. Each
     * finding names the file it lies in.
     *
     * @param units    the files in the order the compiler reads them (an included header before the
     *                 kernel that includes it at its top)
     * @param board    the board's I/O channels
     * @param typeBits widths of struct and typedef types, e.g. {@code cldesc_t -> 256}
     * @return findings ordered by file (in {@code units} order) and position
     */
    public static List<LintMessage> check(List<KernelChannels> units, List<BoardChannel> board,
                                          Map<String, Integer> typeBits) {
        Map<Object, String> sourceOf = new IdentityHashMap<>();
        List<ChannelDecl> declarations = new ArrayList<>();
        List<ChannelUse> allUses = new ArrayList<>();
        for (KernelChannels u : units) {
            for (ChannelDecl d : u.declarations()) {
                sourceOf.put(d, u.sourceName());
                declarations.add(d);
            }
            for (ChannelUse c : u.uses()) {
                sourceOf.put(c, u.sourceName());
                allUses.add(c);
            }
        }
        KernelChannels k = new KernelChannels(units.isEmpty() ? "" : units.getLast().sourceName(), declarations, allUses);
        List<LintMessage> out = new ArrayList<>();
        Map<String, BoardChannel> boardById = new LinkedHashMap<>();
        for (BoardChannel b : board) {
            boardById.putIfAbsent(b.chanId(), b);
        }
        Map<String, ChannelDecl> byName = new HashMap<>();
        Map<String, ChannelDecl> byIoId = new HashMap<>();
        for (ChannelDecl d : k.declarations()) {
            String src = sourceOf.get(d);
            ChannelDecl previous = byName.putIfAbsent(d.name(), d);
            if (previous != null) {
                out.add(error(src, d, "channel '" + d.name() + "' is already declared at "
                        + where(sourceOf.get(previous), src) + previous.line() + ":" + previous.col()));
                continue;
            }
            if (d.ioId() == null) {
                continue;
            }
            ChannelDecl sameId = byIoId.putIfAbsent(d.ioId(), d);
            if (sameId != null) {
                out.add(error(src, d, "channel '" + d.name() + "': io(\"" + d.ioId()
                        + "\") is already bound to channel '" + sameId.name() + "' at "
                        + where(sourceOf.get(sameId), src) + sameId.line() + ":" + sameId.col()));
            }
            BoardChannel b = boardById.get(d.ioId());
            if (b == null) {
                out.add(error(src, d, "channel '" + d.name() + "': the board has no I/O channel"
                        + " with chan_id \"" + d.ioId() + "\" (it has: "
                        + (boardById.isEmpty() ? "none" : String.join(", ", boardById.keySet())) + ")"));
            }
            OptionalInt bits = typeBits(d.type(), typeBits);
            if (bits.isEmpty()) {
                out.add(error(src, d, "channel '" + d.name() + "': unknown type '" + d.type()
                        + "' (not an OpenCL scalar or vector type; known struct types: "
                        + (typeBits.isEmpty() ? "none" : String.join(", ", new TreeSet<>(typeBits.keySet())))
                        + ")"));
            } else if (b != null && bits.getAsInt() != b.width()) {
                out.add(error(src, d, "channel '" + d.name() + "' carries " + d.type() + " ("
                        + bits.getAsInt() + " bits) but board channel \"" + b.chanId() + "\" is "
                        + b.width() + " bits wide"));
            }
            if (k.usesOf(d.name()).isEmpty()) {
                out.add(new LintMessage(src, d.line(), d.col(), "I/O channel '" + d.name()
                        + "' (io(\"" + d.ioId() + "\")) is never read or written",
                        LintMessage.Severity.WARNING));
            }
        }
        for (ChannelUse u : k.uses()) {
            String src = sourceOf.get(u);
            String verb = u.kind() == ChannelUse.Kind.READ ? "read from" : "write to";
            ChannelDecl d = byName.get(u.channel());
            if (d == null) {
                out.add(new LintMessage(src, u.line(), u.col(), verb + " undeclared channel '"
                        + u.channel() + "'"));
                continue;
            }
            BoardChannel b = d.ioId() == null ? null : boardById.get(d.ioId());
            if (b == null) {
                continue;
            }
            if (u.kind() == ChannelUse.Kind.WRITE && b.isSource()) {
                out.add(new LintMessage(src, u.line(), u.col(), "write to channel '" + d.name()
                        + "', but board channel \"" + b.chanId() + "\" is a streamsource: the kernel"
                        + " can only read it"));
            } else if (u.kind() == ChannelUse.Kind.READ && !b.isSource()) {
                out.add(new LintMessage(src, u.line(), u.col(), "read from channel '" + d.name()
                        + "', but board channel \"" + b.chanId() + "\" is a streamsink: the kernel"
                        + " can only write it"));
            }
        }
        List<String> order = units.stream().map(KernelChannels::sourceName).toList();
        out.sort(Comparator.comparingInt((LintMessage m) -> order.indexOf(m.source()))
                .thenComparingInt(LintMessage::line).thenComparingInt(LintMessage::col));
        return out;
    }

    /** "file:" when a position lies in another file than the message's, else nothing. */
    private static String where(String of, String messageSource) {
        return of.equals(messageSource) ? "" : of + ":";
    }

    /**
     * The width in bits of a channel's element type: {@code typeBits} first (by the type as
     * written, then for {@code struct x} by the tag {@code x}), then the OpenCL scalar types and
     * their vectors (a 3-element vector occupies 4 elements, as in OpenCL's sizeof).
     * {@code unsigned T} is {@code uT}; {@code signed T} is {@code T}.
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
        if (t.equals("unsigned")) {
            t = "uint";
        } else if (t.startsWith("unsigned ")) {
            t = "u" + t.substring("unsigned ".length());
        } else if (t.startsWith("signed ")) {
            t = t.substring("signed ".length());
        }
        Integer scalar = SCALAR_BITS.get(t);
        if (scalar != null) {
            return OptionalInt.of(scalar);
        }
        Matcher m = VECTOR.matcher(t);
        if (m.matches() && SCALAR_BITS.containsKey(m.group(1))) {
            int n = Integer.parseInt(m.group(2));
            return OptionalInt.of(SCALAR_BITS.get(m.group(1)) * (n == 3 ? 4 : n));
        }
        return OptionalInt.empty();
    }

    private static LintMessage error(String src, ChannelDecl d, String message) {
        return new LintMessage(src, d.line(), d.col(), message);
    }
}
