// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The types a kernel declares (typedefs, structs, unions, enums) and their size and alignment as
 * the offline compiler lays them out: OpenCL C on a 64-bit SPIR target. A channel's width is the
 * size of its type in bits.
 *
 * <ul>
 *   <li>Scalars have their natural size and alignment: {@code char}, {@code uchar}, {@code bool} 1;
 *       {@code short}, {@code ushort}, {@code half} 2; {@code int}, {@code uint}, {@code float}, enums 4;
 *       {@code long}, {@code ulong}, {@code double}, {@code size_t}, {@code ptrdiff_t},
 *       {@code (u)intptr_t} and pointers 8.</li>
 *   <li>A vector of n elements takes n elements, a 3-element one 4, and is aligned to its size.</li>
 *   <li>An array is n elements, aligned as its element.</li>
 *   <li>A struct puts each member at the next multiple of the member's alignment and is aligned to its
 *       most aligned member; a union is as large as its largest member; both are rounded up to a
 *       multiple of their alignment.</li>
 *   <li>{@code packed} (on the struct or a member) aligns members to 1; {@code aligned(N)} raises a
 *       struct's or member's alignment to at least N and sets a typedef's to N; {@code aligned} without
 *       a number means 16, clang's default for the target.</li>
 * </ul>
 * OpenCL C has no bit-fields; a struct with one has no width here.
 */
public final class KernelTypes {

    /** Size and alignment in bytes, or why they cannot be known. */
    public sealed interface Layout permits Known, Unknown {
    }

    /**
     * A laid-out type.
     *
     * @param size  bytes, padding included (the compiler's sizeof)
     * @param align bytes
     */
    public record Known(long size, long align) implements Layout {
        /** The width of a channel of this type. */
        public long bits() {
            return size * 8;
        }
    }

    /** @param reason why the size cannot be known, naming the member, macro or type at fault */
    public record Unknown(String reason) implements Layout {
        /** Checks the reason. */
        public Unknown {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * A type as a declaration writes it.
     *
     * @param base       a built-in type ({@code uint}, {@code unsigned int}, {@code float4}), a typedef
     *                   name, or a tag ({@code struct x}; an unnamed one has a made-up tag)
     * @param pointers   how many {@code *}
     * @param dims       array lengths, outermost first
     * @param dimProblem why an array length is not known, or null
     * @param align      a typedef's {@code aligned(N)}
     */
    record TypeExpr(String base, int pointers, List<Long> dims, String dimProblem, OptionalLong align) {
        TypeExpr {
            dims = List.copyOf(dims);
        }

        static TypeExpr of(String base) {
            return new TypeExpr(base, 0, List.of(), null, OptionalLong.empty());
        }
    }

    /**
     * A member of a struct or union.
     *
     * @param name    its name, or null for an unnamed struct or union member
     * @param at      {@code file:line:col}
     * @param type    its type
     * @param aligned its {@code aligned(N)}
     * @param packed  its {@code packed}
     * @param problem why it has no layout (a bit-field, a declaration not understood), or null
     */
    record Member(String name, String at, TypeExpr type, OptionalLong aligned, boolean packed, String problem) {
    }

    /**
     * A struct or union definition.
     *
     * @param key     {@code struct x} or {@code union x}
     * @param union   true for a union
     * @param packed  {@code __attribute__((packed))}
     * @param aligned {@code __attribute__((aligned(N)))}
     * @param members in order
     */
    record Record(String key, boolean union, boolean packed, OptionalLong aligned, List<Member> members) {
        Record {
            members = List.copyOf(members);
        }
    }

    /** Alignment of {@code aligned} written without a number. */
    static final long DEFAULT_ALIGNED = 16;

    private static final Map<String, Integer> SCALARS = Map.ofEntries(
            Map.entry("char", 1), Map.entry("uchar", 1), Map.entry("bool", 1),
            Map.entry("short", 2), Map.entry("ushort", 2), Map.entry("half", 2),
            Map.entry("int", 4), Map.entry("uint", 4), Map.entry("float", 4),
            Map.entry("long", 8), Map.entry("ulong", 8), Map.entry("double", 8),
            Map.entry("size_t", 8), Map.entry("ptrdiff_t", 8), Map.entry("intptr_t", 8), Map.entry("uintptr_t", 8));
    private static final Pattern VECTOR = Pattern.compile("(char|uchar|short|ushort|half|int|uint|float|long|ulong|double)(2|3|4|8|16)");

    private final Map<String, TypeExpr> typedefs = new LinkedHashMap<>();
    private final Map<String, Record> records = new LinkedHashMap<>();
    private final Set<String> enums = new HashSet<>();
    private final Map<String, Long> enumConstants = new HashMap<>();
    private final Map<String, Layout> memo = new HashMap<>();
    private final Set<String> inProgress = new HashSet<>();

    KernelTypes() {
    }

    /** No declared types: built-in types only. */
    public static KernelTypes none() {
        return new KernelTypes();
    }

    void typedef(String name, TypeExpr type) {
        typedefs.put(name, type);
        memo.clear();
    }

    void record(Record r) {
        records.put(r.key(), r);
        memo.clear();
    }

    void enumTag(String key) {
        enums.add(key);
    }

    void enumConstant(String name, long value) {
        enumConstants.put(name, value);
    }

    /** The value of an enum constant declared so far. */
    Optional<Long> enumConstant(String name) {
        return Optional.ofNullable(enumConstants.get(name));
    }

    /** True when {@code name} is a typedef name declared so far. */
    boolean isTypedef(String name) {
        return typedefs.containsKey(name);
    }

    /**
     * The layout of a type written as words joined by one space ({@code cldesc_t}, {@code unsigned
     * int}, {@code struct msg}, {@code float4}): a declared typedef, struct, union or enum, or a built-in
     * type; empty when the name is none of these.
     */
    public Optional<Layout> layout(String type) {
        String t = type.strip().replaceAll("\\s+", " ");
        if (typedefs.containsKey(t) || records.containsKey(t) || enums.contains(t) || builtin(t).isPresent()
                || t.matches("(struct|union) .+")) {
            return Optional.of(layoutOf(t));
        }
        return Optional.empty();
    }

    /**
     * A built-in type's layout: the OpenCL C scalars and vectors, {@code unsigned T} as {@code uT},
     * {@code signed T} as {@code T}, {@code long int} and {@code short int} as {@code long} and
     * {@code short}.
     */
    public static Optional<Known> builtin(String type) {
        String t = normalize(type);
        Integer scalar = SCALARS.get(t);
        if (scalar != null) {
            return Optional.of(new Known(scalar, scalar));
        }
        Matcher m = VECTOR.matcher(t);
        if (m.matches()) {
            int n = Integer.parseInt(m.group(2));
            long size = (long) SCALARS.get(m.group(1)) * (n == 3 ? 4 : n);
            return Optional.of(new Known(size, size));
        }
        return Optional.empty();
    }

    /** True when two spellings name the same type ({@code unsigned int} and {@code uint}, say). */
    static boolean sameType(String a, String b) {
        return normalize(a).equals(normalize(b));
    }

    private static String normalize(String type) {
        List<String> words = new ArrayList<>(List.of(type.strip().split("\\s+")));
        boolean unsigned = false;
        if (words.getFirst().equals("unsigned") || words.getFirst().equals("signed")) {
            unsigned = words.removeFirst().equals("unsigned");
            if (words.isEmpty()) {
                words.add("int");
            }
        }
        if (words.size() == 2 && (words.getFirst().equals("long") || words.getFirst().equals("short"))
                && (words.get(1).equals("int") || words.get(1).equals("long"))) {
            words.removeLast();
        }
        String t = String.join(" ", words);
        return unsigned && SCALARS.containsKey("u" + t) ? "u" + t : t;
    }

    /** The layout of a type expression, for {@code sizeof} while parsing and for members. */
    Layout layoutOf(TypeExpr e) {
        Layout base = e.pointers() > 0 ? new Known(8, 8) : layoutOf(e.base());
        if (!(base instanceof Known k)) {
            return base;
        }
        if (e.dimProblem() != null) {
            return new Unknown(e.dimProblem());
        }
        long size = k.size();
        for (long n : e.dims()) {
            size *= n;
        }
        return new Known(size, e.align().orElse(k.align()));
    }

    private Layout layoutOf(String name) {
        Layout cached = memo.get(name);
        if (cached != null) {
            return cached;
        }
        if (!inProgress.add(name)) {
            return new Unknown("'" + name + "' contains itself");
        }
        try {
            Layout l;
            TypeExpr typedef = typedefs.get(name);
            Record r = records.get(name);
            if (typedef != null) {
                l = layoutOf(typedef);
            } else if (r != null) {
                l = recordLayout(r);
            } else if (enums.contains(name)) {
                l = new Known(4, 4);
            } else if (name.matches("(struct|union|enum) .+")) {
                l = new Unknown("'" + name + "' is declared but never defined (an incomplete type has no size)");
            } else {
                l = builtin(name).<Layout>map(k -> k)
                        .orElseGet(() -> new Unknown("unknown type '" + name + "' (not an OpenCL scalar or vector type,"
                                + " and no typedef of that name is declared)"));
            }
            memo.put(name, l);
            return l;
        } finally {
            inProgress.remove(name);
        }
    }

    private Layout recordLayout(Record r) {
        long size = 0;
        long align = 1;
        for (Member m : r.members()) {
            String who = (m.name() == null ? "an unnamed member" : "member '" + m.name() + "'") + " (" + m.at() + ")";
            if (m.problem() != null) {
                return new Unknown(who + ": " + m.problem());
            }
            Layout l = layoutOf(m.type());
            if (!(l instanceof Known k)) {
                return new Unknown(who + ": " + ((Unknown) l).reason());
            }
            boolean packed = r.packed() || m.packed();
            long a = packed ? 1 : k.align();
            if (m.aligned().isPresent()) {
                a = Math.max(a, m.aligned().getAsLong());
            }
            if (r.union()) {
                size = Math.max(size, k.size());
            } else {
                size = roundUp(size, a) + k.size();
            }
            align = Math.max(align, a);
        }
        if (r.aligned().isPresent()) {
            align = Math.max(align, r.aligned().getAsLong());
        }
        return new Known(roundUp(size, align), align);
    }

    private static long roundUp(long n, long to) {
        return (n + to - 1) / to * to;
    }
}
