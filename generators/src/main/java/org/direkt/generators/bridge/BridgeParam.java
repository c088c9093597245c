// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.direkt.contract.BridgeModes.Direction;
import org.direkt.contract.BridgeModes;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.bridge.Bridge.Params;
import org.direkt.hdl.ClockDomain;

/**
 * One bridge parameter, described once: its name (a {@code key=value} argument of the generator
 * and a key of the overlay's {@code --config} file), the {@link Params} component it sets, its key
 * in the manifest's bridge section, how its values are read from text and from JSON and written
 * back, the values it allows and what it means. The generator's argument parser and help, the
 * manifest, the overlay's {@code --config} reader and help, and the README's table all iterate
 * {@link #ALL}, so they cannot disagree; a component of the record without a descriptor fails
 * BridgeParamTest. The record's compact constructor stays the one place that decides what is valid.
 *
 * @param name        the user-facing name
 * @param component   the {@link Params} record component it reads and sets
 * @param manifestKey its key in the manifest's bridge section, or null where the section's
 *                    {@code channels} (channel ids) or {@code clocks} (reset) carry it
 * @param kind        how its values are parsed and written
 * @param range       the values it allows, as the help texts show them
 * @param doc         what it means, one line
 * @param example     {@code key=value} arguments that set it to a value other than the default
 *                    preset's, with any other key that value needs
 * @param getter      reads it from the record
 * @param setter      sets it in a builder
 */
public record BridgeParam<T>(String name, String component, String manifestKey, Kind<T> kind, String range, String doc,
        String example, Function<Params, T> getter, BiConsumer<Params.Builder, T> setter) {

    /** The key that picks the preset every other parameter starts from. */
    public static final String PRESET = "preset";

    private static final String PRESET_DOC = "the starting point; every other key overrides one of its values";

    /** Every parameter, in the order of the record's components (and so of the manifest's keys). */
    public static final List<BridgeParam<?>> ALL = List.of(
            new BridgeParam<>("instance", "instance", "instance", Kind.TEXT, "an identifier",
                    "the bridge's Platform Designer instance; it prefixes the channel ports the board exports"
                            + " (direkt_bridge_rd_desc, ...)",
                    "instance=my_bridge", Params::instance, Params.Builder::instance),
            channel(Direction.RD, true), channel(Direction.RD, false), channel(Direction.WR, true), channel(Direction.WR, false),
            new BridgeParam<>("desc_depth", "descFifoDepth", "desc_fifo_depth", Kind.INT, "a power of two in 4..1024",
                    "descriptor FIFO depth per direction (the kernel_clk -> dma_clk crossing)",
                    "desc_depth=64", Params::descFifoDepth, Params.Builder::descFifoDepth),
            new BridgeParam<>("status_depth", "statusFifoDepth", "status_fifo_depth", Kind.INT,
                    "a power of two in max(4, inflight)..1024",
                    "status FIFO depth per direction; every descriptor in flight owns a slot",
                    "status_depth=32", Params::statusFifoDepth, Params.Builder::statusFifoDepth),
            new BridgeParam<>("inflight", "inflight", "inflight", Kind.INT, "1..128",
                    "kernel descriptors in flight per direction", "inflight=8", Params::inflight, Params.Builder::inflight),
            choice("policy", "policy", "policy", Arbiter.Policy.class,
                    "arbitration between the host's descriptors (requester 0) and the kernel's (1)",
                    "policy=fixed_priority", Params::policy, Params.Builder::policy),
            new BridgeParam<>("weights", "weights", "weights", Kind.INTS, "host,kernel, each 1..255; only with policy=weighted",
                    "consecutive grants each side may take under weighted arbitration",
                    "policy=weighted weights=3,1", Params::weights, Params.Builder::weights),
            choice("id_mode", "idMode", "id_mode", BridgeModes.IdMode.class,
                    "managed: the bridge hands out IDs 128..; paper: the kernel's ID from x4 goes through",
                    "id_mode=paper", Params::idMode, Params.Builder::idMode),
            choice("status_mode", "statusMode", "status_mode", BridgeModes.StatusMode.class,
                    "tagged: tag, error code, elapsed cycles; cycles: elapsed cycles alone (all ones on error)",
                    "status_mode=cycles", Params::statusMode, Params.Builder::statusMode),
            new BridgeParam<>("windows", "windowEntries", "window_entries", Kind.INT, "1..32",
                    "address windows in the CSR table, all closed after reset",
                    "windows=8", Params::windowEntries, Params.Builder::windowEntries),
            choice("reset", "dmaResetPolarity", null, ClockDomain.ResetPolarity.class,
                    "polarity of the dma_clk domain's reset (dma_resetn or dma_rst)",
                    "reset=active_high", Params::dmaResetPolarity, Params.Builder::dmaResetPolarity),
            new BridgeParam<>("sync_stages", "syncStages", "sync_stages", Kind.INT, "2..8",
                    "synchroniser stages of the clock-crossing FIFOs", "sync_stages=3", Params::syncStages, Params.Builder::syncStages),
            new BridgeParam<>("fpga_mem", "fpgaMemBytes", "fpga_mem_bytes", Kind.BYTES, "bytes, a multiple of 4, at least 4096",
                    "FPGA memory size; a descriptor reaching past it is refused (FPGA_RANGE)",
                    "fpga_mem=0x40000000", Params::fpgaMemBytes, Params.Builder::fpgaMemBytes),
            choice("word_order", "wordOrder", "word_order", BridgeModes.WordOrder.class,
                    "where cldesc word x0 sits on the 256-bit channel: x0_low bits [31:0], x0_high [255:224]",
                    "word_order=x0_high", Params::wordOrder, Params.Builder::wordOrder),
            new BridgeParam<>("registered_channels", "registeredChannels", "registered_channels", Kind.FLAG, "true|false",
                    "a register slice on the four kernel channels", "registered_channels=true",
                    Params::registeredChannels, Params.Builder::registeredChannels),
            new BridgeParam<>("counters", "counters", "counters", Kind.FLAG, "true|false",
                    "the CSR's event counters per direction", "counters=false", Params::counters, Params.Builder::counters),
            new BridgeParam<>("bringup", "bringup", "bringup", Kind.FLAG, "true|false",
                    "bring-up registers: the CSR keeps the last descriptor channel word and the last mover status per direction, raw",
                    "bringup=false", Params::bringup, Params.Builder::bringup),
            choice("addressing", "addressing", "addressing", BridgeModes.Addressing.class,
                    "raw: kernels write descriptors with bus addresses, checked against the windows; regions: kernels write"
                            + " region requests, translated through the page table the host programs",
                    "addressing=regions inflight=4 bringup=false", Params::addressing, Params.Builder::addressing),
            new BridgeParam<>("region_pages", "regionPages", "region_pages", Kind.INT, "a power of two in 16..65536",
                    "page table entries (64 KB GPU pages) per direction, with addressing=regions",
                    "addressing=regions inflight=4 bringup=false region_pages=4096", Params::regionPages, Params.Builder::regionPages),
            new BridgeParam<>("regions", "regions", "regions", Kind.INT, "1..64",
                    "region table entries, with addressing=regions",
                    "addressing=regions inflight=4 bringup=false regions=32", Params::regions, Params.Builder::regions),
            new BridgeParam<>("ports", "ports", "ports", Kind.INT, "1..8",
                    "kernel ports per direction, each its own descriptor and status channel pair (port k > 0: ids with _p<k>)",
                    "ports=4", Params::ports, Params.Builder::ports),
            new BridgeParam<>("port_credits", "portCredits", "port_credits", Kind.INT, "a power of two in 2..16",
                    "requests one port may have unanswered (its status FIFO's depth), with ports > 1",
                    "ports=4 port_credits=8", Params::portCredits, Params.Builder::portCredits),
            choice("port_policy", "portPolicy", "port_policy", Arbiter.Policy.class,
                    "arbitration between the kernel ports of a direction, with ports > 1",
                    "ports=4 port_policy=fixed_priority", Params::portPolicy, Params.Builder::portPolicy),
            new BridgeParam<>("port_weights", "portWeights", "port_weights", Kind.INTS, "one per port, each 1..255; only with port_policy=weighted",
                    "consecutive requests each port may take under weighted arbitration",
                    "ports=4 port_policy=weighted port_weights=4,2,1,1", Params::portWeights, Params.Builder::portWeights),
            new BridgeParam<>("table_fetch_ids", "tableFetchIds", "table_fetch_ids", Kind.INT, "0.." + Params.MAX_TABLE_FETCH_IDS,
                    "kernel IDs 256-n..255 kept for a descriptor controller's table fetches (direkt's HostDescController"
                            + " needs 2): the managed pool stays below them, a paper-mode descriptor naming one is refused (BAD_ID),"
                            + " a mover status naming one is ignored (neither a kernel's nor spurious)",
                    "table_fetch_ids=2", Params::tableFetchIds, Params.Builder::tableFetchIds));

    private static BridgeParam<String> channel(Direction d, boolean desc) {
        String role = desc ? "descriptor" : "status";
        String name = d.tag() + (desc ? "_desc" : "_status");
        return new BridgeParam<>(name, "channels", null, Kind.TEXT, "an identifier",
                "the id of the " + d.describe().split(" ")[0] + " " + role + " channel; kernels name it in io(\"...\")",
                name + "=kernel_" + name, p -> p.channels().get(d, desc), (b, id) -> b.channel(d, desc, id));
    }

    private static <E extends Enum<E>> BridgeParam<E> choice(String name, String component, String manifestKey, Class<E> type,
            String doc, String example, Function<Params, E> getter, BiConsumer<Params.Builder, E> setter) {
        Kind<E> kind = Kind.choice(type);
        String range = Arrays.stream(type.getEnumConstants()).map(kind::text).collect(Collectors.joining("|"));
        return new BridgeParam<>(name, component, manifestKey, kind, range, doc, example, getter, setter);
    }

    /** The descriptor called {@code name}, if there is one ({@value #PRESET} is not: it picks the starting point). */
    public static Optional<BridgeParam<?>> named(String name) {
        return ALL.stream().filter(d -> d.name.equals(name)).findFirst();
    }

    /** Every name a user may give: {@value #PRESET}, then every parameter. */
    public static List<String> names() {
        List<String> r = new ArrayList<>();
        r.add(PRESET);
        ALL.forEach(d -> r.add(d.name));
        return List.copyOf(r);
    }

    /** A builder holding the parameters of preset {@code name}. */
    public static Params.Builder preset(String name) {
        Bridge.Preset p = Params.PRESETS.get(name);
        if (p == null) {
            throw new IllegalArgumentException("bridge " + PRESET + " = " + name + ": must be one of " + Params.PRESETS.keySet());
        }
        return p.get().toBuilder();
    }

    /**
     * The parameters of {@code p} that differ from the default preset's, as {@code key=value} text
     * by name: what a simulation of {@code p} passes the generator over the default preset (the
     * manifest's {@code bridge.generator_params}).
     */
    public static Map<String, Object> overDefault(Params p) {
        Params base = preset(Params.DEFAULT_PRESET).build();
        Map<String, Object> out = new LinkedHashMap<>();
        for (BridgeParam<?> d : ALL) {
            if (!d.text(p).equals(d.text(base))) {
                out.put(d.name(), d.text(p));
            }
        }
        return out;
    }

    /** The unknown-key message, naming every key there is. */
    public static String unknown(String key) {
        return "bridge: unknown parameter '" + key + "' (known: " + names() + ")";
    }

    // ------------------------------------------------------------------ one parameter

    /** {@link #example} as {@code key -> value}, in its order. */
    public Map<String, String> exampleArgs() {
        Map<String, String> r = new LinkedHashMap<>();
        for (String kv : example.split(" ")) {
            String[] parts = kv.split("=", 2);
            r.put(parts[0], parts[1]);
        }
        return r;
    }

    /** {@link #example} as a {@code --config} file's object holds it: {@code "policy": "weighted", "weights": [3, 1]}. */
    public String exampleJson() {
        Params.Builder b = preset(Params.DEFAULT_PRESET);
        Map<String, String> args = exampleArgs();
        args.forEach((k, v) -> named(k).orElseThrow().set(b, v));
        Params p = b.build();
        return args.keySet().stream().map(k -> "\"" + k + "\": " + compactJson(named(k).orElseThrow().json(p)))
                .collect(Collectors.joining(", "));
    }

    private static String compactJson(Object v) {
        return switch (v) {
            case String text -> "\"" + text + "\"";
            case List<?> list -> list.stream().map(BridgeParam::compactJson).collect(Collectors.joining(", ", "[", "]"));
            default -> String.valueOf(v);
        };
    }

    public T get(Params p) {
        return getter.apply(p);
    }

    /** Parses {@code text} (a {@code key=value} argument's value) into the builder. */
    public void set(Params.Builder b, String text) {
        setter.accept(b, parse(text));
    }

    /** Reads a {@code key=value} argument's value. */
    public T parse(String text) {
        try {
            return kind.text.apply(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bridge " + name + " = " + text + ": must be " + kind.what);
        }
    }

    /** Reads a value of a {@code --config} file: a String, Number, Boolean, List or null, as a JSON reader gives them. */
    public T parseJson(Object json) {
        if (json instanceof List<?> list) {
            if (kind.list == null) {
                throw new IllegalArgumentException("bridge " + name + " = " + list + ": must be " + kind.what + ", not a list");
            }
            try {
                return kind.list.apply(list);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bridge " + name + " = " + list + ": must be " + kind.listWhat);
            }
        }
        if (json == null || json instanceof Map<?, ?>) {
            throw new IllegalArgumentException("bridge " + name + " = " + json + ": must be " + kind.what);
        }
        return parse(String.valueOf(json));
    }

    /**
     * {@code key=value} of the bridge parameters {@code keep} accepts, in the order of
     * {@link BridgeParam#ALL}: the canonical string a bridge submodule's name hashes.
     */
    public static String canonical(Bridge.Params b, Predicate<BridgeParam<?>> keep) {
        return BridgeParam.ALL.stream().filter(keep).map(d -> d.name() + "=" + d.text(b))
                .collect(Collectors.joining(" "));
    }

    /** {@code p}'s value as a {@code key=value} argument writes it. */
    public String text(Params p) {
        return kind.text(get(p));
    }

    /** {@code p}'s value as the manifest and a {@code --config} file write it. */
    public Object json(Params p) {
        return kind.json.apply(get(p));
    }

    /** The value of every preset, the first preset's first: {@code round_robin (paper, lean: fixed_priority)}. */
    public String defaults() {
        return presetValues(p -> shown(text(p)));
    }

    private static String shown(String text) {
        return text.isEmpty() ? "none" : text;
    }

    private static String presetValues(Function<Params, String> value) {
        Map<String, List<String>> byValue = new LinkedHashMap<>();
        Params.PRESETS.forEach((n, preset) -> byValue.computeIfAbsent(value.apply(preset.get()), v -> new ArrayList<>()).add(n));
        List<String> others = byValue.entrySet().stream().skip(1)
                .map(e -> String.join(", ", e.getValue()) + ": " + e.getKey()).toList();
        String first = byValue.keySet().iterator().next();
        return others.isEmpty() ? first : first + " (" + String.join("; ", others) + ")";
    }

    // ------------------------------------------------------------------ the descriptions as text

    /** The preset row of the help texts: its choices and what each stands for. */
    public static String presetRange() {
        return String.join("|", Params.PRESETS.keySet());
    }

    /**
     * The help text of every key: its name and what it means, its values and the default of each
     * preset, and an example ({@code key=value} arguments, or a JSON object as a {@code --config}
     * file holds it); indented by {@code indent} spaces and wrapped to {@code width} columns.
     */
    public static List<String> helpLines(int indent, int width, boolean jsonExamples) {
        int column = indent + ALL.stream().mapToInt(d -> d.name.length()).max().orElse(0) + 2;
        List<String> r = new ArrayList<>();
        r.addAll(wrap(indent, PRESET, column, PRESET_DOC, width));
        r.addAll(wrap(indent, "", column, presetRange() + "; default " + Params.DEFAULT_PRESET, width));
        for (BridgeParam<?> d : ALL) {
            r.addAll(wrap(indent, d.name, column, d.doc, width));
            r.addAll(wrap(indent, "", column, d.range + "; default " + d.defaults(), width));
            r.addAll(wrap(indent, "", column, "e.g. " + (jsonExamples ? d.exampleJson() : d.example), width));
        }
        return r;
    }

    /** What each preset stands for, indented by {@code indent} spaces and wrapped to {@code width} columns. */
    public static List<String> presetLines(int indent, int width) {
        int column = indent + Params.PRESETS.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
        List<String> r = new ArrayList<>();
        Params.PRESETS.values().forEach(p -> r.addAll(wrap(indent, p.name(), column, p.doc(), width)));
        return r;
    }

    /** {@code label} at {@code indent}, {@code text} from {@code column} on, broken between words before {@code width}. */
    private static List<String> wrap(int indent, String label, int column, String text, int width) {
        List<String> r = new ArrayList<>();
        StringBuilder line = new StringBuilder(" ".repeat(indent)).append(label);
        for (String word : text.split(" ")) {
            boolean first = line.length() <= column;
            if (!first && line.length() + 1 + word.length() > width) {
                r.add(line.toString());
                line = new StringBuilder();
                first = true;
            }
            if (first) {
                line.append(" ".repeat(Math.max(1, column - line.length())));
            } else {
                line.append(' ');
            }
            line.append(word);
        }
        r.add(line.toString());
        return r;
    }

    /** The README's table of the keys: key, values, default (with the presets that differ), meaning. */
    public static String markdownTable() {
        StringBuilder s = new StringBuilder("| key | values | default | meaning |\n|---|---|---|---|\n");
        s.append(row(PRESET, presetRange(), code(Params.DEFAULT_PRESET), PRESET_DOC));
        for (BridgeParam<?> d : ALL) {
            s.append(row(d.name, d.range, presetValuesCode(d), d.doc));
        }
        return s.toString();
    }

    private static String presetValuesCode(BridgeParam<?> d) {
        return presetValues(p -> d.text(p).isEmpty() ? shown("") : code(d.text(p)));
    }

    private static String row(String name, String range, String dflt, String doc) {
        return "| " + code(name) + " | " + cell(range) + " | " + dflt + " | " + cell(doc) + " |\n";
    }

    private static String code(String s) {
        return "`" + s + "`";
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("<", "&lt;");
    }

    // ------------------------------------------------------------------ kinds of values

    /**
     * How the values of one Java type are read from text (a {@code key=value} argument), from a JSON
     * list where the type is one, and written as text and as JSON. A JSON scalar is read as its text.
     *
     * @param what     what a value must be, for the error message
     * @param list     reads a JSON list, or null where the type takes none
     * @param listWhat what a JSON list must hold, or null
     */
    public record Kind<T>(String what, Function<String, T> text, Function<List<?>, T> list, String listWhat,
            Function<T, String> show, Function<T, Object> json) {

        public static final Kind<Integer> INT = new Kind<>("an integer", Integer::parseInt, null, null, String::valueOf, v -> v);

        public static final Kind<Long> BYTES = new Kind<>("a byte count", Long::decode, null, null, String::valueOf, v -> v);

        public static final Kind<Boolean> FLAG = new Kind<>("true or false", Kind::flag, null, null, String::valueOf, v -> v);

        public static final Kind<String> TEXT = new Kind<>("a string", s -> s, null, null, s -> s, s -> s);

        public static final Kind<List<Integer>> INTS = new Kind<>("integers separated by commas", Kind::integers,
                l -> l.stream().map(e -> Integer.parseInt(String.valueOf(e).trim())).toList(), "a list of integers",
                l -> l.stream().map(String::valueOf).collect(Collectors.joining(",")), l -> l);

        static <E extends Enum<E>> Kind<E> choice(Class<E> type) {
            return new Kind<>("one of " + Arrays.stream(type.getEnumConstants()).map(Kind::lower).toList(),
                    s -> Enum.valueOf(type, s.toUpperCase(Locale.ROOT)), null, null, Kind::lower, Kind::lower);
        }

        public String text(T value) {
            return show.apply(value);
        }

        private static String lower(Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT);
        }

        private static boolean flag(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "1", "true", "yes" -> true;
                case "0", "false", "no" -> false;
                default -> throw new IllegalArgumentException(s);
            };
        }

        private static List<Integer> integers(String s) {
            if (s.isBlank()) {
                return List.of();
            }
            return Arrays.stream(s.split(",")).map(part -> Integer.parseInt(part.trim())).toList();
        }
    }
}
