// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.direkt.generators.Catalog;
import org.direkt.generators.arb.Arbiter;
import org.direkt.hdl.ClockDomain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One description drives every use of a bridge parameter: for each {@link BridgeParam} the
 * {@code key=value} path sets the record component it names, the manifest carries the value, the
 * generator's help describes it, and the README's table is the one the descriptors print. (The
 * overlay's --config path is checked in bsp-overlay's BridgeConfigTest.)
 */
class BridgeParamTest {

    static Stream<BridgeParam<?>> descriptors() {
        return BridgeParam.ALL.stream();
    }

    private static Bridge.Params parse(Map<String, String> args) {
        Catalog.Args a = new Catalog.Args("bridge", args);
        Bridge.Params p = Catalog.bridgeParams(a);
        a.requireAllUsed();
        return p;
    }

    private static Object component(Bridge.Params p, String name) {
        try {
            return Bridge.Params.class.getMethod(name).invoke(p);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("Bridge.Params has no component " + name, e);
        }
    }

    /** The components whose values differ between {@code a} and {@code b}. */
    private static Set<String> differing(Bridge.Params a, Bridge.Params b) {
        return Arrays.stream(Bridge.Params.class.getRecordComponents()).map(RecordComponent::getName)
                .filter(c -> !component(a, c).equals(component(b, c))).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyRecordComponentHasADescriptorAndEveryDescriptorAComponent() {
        Set<String> components = Arrays.stream(Bridge.Params.class.getRecordComponents()).map(RecordComponent::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> described = BridgeParam.ALL.stream().map(BridgeParam::component).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(components, described, "a component of Bridge.Params without a BridgeParam (or a BridgeParam naming no component)");
        List<String> names = BridgeParam.names();
        assertEquals(names.size(), Set.copyOf(names).size(), "names are unique: " + names);
        List<String> keys = BridgeParam.ALL.stream().map(BridgeParam::manifestKey).filter(k -> k != null).toList();
        assertEquals(keys.size(), Set.copyOf(keys).size(), "manifest keys are unique: " + keys);
    }

    @Test
    void theNamesAreTheOnesUsersKnow() {
        assertEquals(List.of("preset", "instance", "rd_desc", "rd_status", "wr_desc", "wr_status", "desc_depth", "status_depth",
                "inflight", "policy", "weights", "id_mode", "status_mode", "windows", "reset", "sync_stages", "fpga_mem",
                "word_order", "registered_channels", "counters", "bringup", "addressing", "region_pages", "regions",
                "ports", "port_credits", "port_policy", "port_weights", "table_fetch_ids"), BridgeParam.names());
    }

    /** The getter of a descriptor reads the component it names, in every preset. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("descriptors")
    void theGetterReadsItsComponent(BridgeParam<?> d) {
        for (Bridge.Preset preset : Bridge.Params.PRESETS.values()) {
            Bridge.Params p = preset.get();
            Object whole = component(p, d.component());
            if (whole instanceof Bridge.ChannelIds ids) {
                assertTrue(ids.all().contains((String) d.get(p)), d.name() + " is one of " + ids);
            } else {
                assertEquals(whole, d.get(p), d.name() + " in preset " + preset.name());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("descriptors")
    void oneValueSetByNameReachesTheRecordTheManifestAndTheHelp(BridgeParam<?> d) {
        Map<String, String> args = d.exampleArgs();
        assertTrue(args.containsKey(d.name()), d.name() + "'s example sets it: " + d.example());
        Bridge.Params dflt = Bridge.Params.defaults();
        Bridge.Params p = parse(args);

        // the record: the parsed value, different from the default, and nothing else changed
        assertEquals(d.parse(args.get(d.name())), d.get(p));
        assertNotEquals(d.get(dflt), d.get(p), d.name() + "'s example must differ from the default preset's value");
        Set<String> touched = args.keySet().stream().map(k -> BridgeParam.named(k).orElseThrow().component())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(touched, differing(dflt, p), "components changed by " + d.example());

        // text and JSON forms read back to the same value
        assertEquals(d.get(p), d.parse(d.text(p)), "key=value text round trip");
        assertEquals(d.get(p), d.parseJson(d.json(p)), "JSON value round trip");

        // the manifest: under its key where it has one; elsewhere in the bridge section (channels, clocks)
        Map<String, Object> section = Manifest.bridge(p);
        if (d.manifestKey() != null) {
            assertEquals(d.json(p), section.get(d.manifestKey()), "manifest bridge." + d.manifestKey());
        }
        assertNotEquals(Manifest.bridge(dflt), section, "the manifest's bridge section carries " + d.name());

        // the generator's help names it, says what it means and which values it takes
        String help = Catalog.entries().get("bridge").help().replaceAll("\\s+", " ");
        assertTrue(help.contains(" " + d.name() + " "), help);
        assertTrue(help.contains(d.doc()), "help has the doc of " + d.name());
        assertTrue(help.contains(d.range() + "; default " + d.defaults() + " e.g. " + d.example()), "help has the values of " + d.name());
    }

    @Test
    void channelIdsAndResetAreCarriedByTheManifestsChannelsAndClocks() {
        Bridge.Params p = parse(Map.of("rd_desc", "a_rd", "wr_status", "b_wr", "reset", "active_high"));
        Map<String, Object> section = Manifest.bridge(p);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> channels = (List<Map<String, Object>>) section.get("channels");
        assertEquals(List.of("a_rd", "direkt_rd_status", "direkt_wr_desc", "b_wr"), channels.stream().map(c -> c.get("chan_id")).toList());
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> clocks = (Map<String, Map<String, Object>>) section.get("clocks");
        assertEquals(false, clocks.get("dma").get("reset_active_low"));
        assertEquals("dma_rst", clocks.get("dma").get("reset"));
    }

    /** What sim/ and host-runtime read: the same keys, in the same order, with the same value formats. */
    @Test
    void theManifestsBridgeSectionKeepsItsKeysAndFormats() {
        Map<String, Object> section = Manifest.bridge(Bridge.Params.paper());
        assertEquals(List.of("top", "instance", "desc_fifo_depth", "status_fifo_depth", "inflight", "policy", "weights", "id_mode",
                "status_mode", "window_entries", "sync_stages", "fpga_mem_bytes", "word_order", "registered_channels", "counters",
                "bringup", "addressing", "region_pages", "regions", "ports", "port_credits", "port_policy", "port_weights",
                "table_fetch_ids", "generator_params", "clocks", "channels"), List.copyOf(section.keySet()));
        assertEquals("fixed_priority", section.get("policy"));
        assertEquals(List.of(), section.get("weights"));
        assertEquals("paper", section.get("id_mode"));
        assertEquals("cycles", section.get("status_mode"));
        assertEquals(8L << 30, section.get("fpga_mem_bytes"));
        assertEquals("x0_low", section.get("word_order"));
        assertEquals(Boolean.TRUE, section.get("counters"));
        assertEquals(1, section.get("window_entries"));
        assertEquals("raw", section.get("addressing"));
        assertEquals("regions", Manifest.bridge(Bridge.Params.regionsPreset()).get("addressing"));
        // what a simulation passes the generator over the default preset to build this bridge
        assertEquals(BridgeParam.overDefault(Bridge.Params.paper()), section.get("generator_params"));
        assertEquals("paper", ((Map<?, ?>) section.get("generator_params")).get("id_mode"));
    }

    @Test
    void presetsAreBuiltFromEachOtherByName() {
        assertEquals(List.of("default", "paper", "lean", "regions"), List.copyOf(Bridge.Params.PRESETS.keySet()));
        assertEquals(Bridge.Params.DEFAULT_PRESET, Bridge.Params.PRESETS.firstEntry().getKey());
        assertEquals(Bridge.Params.defaults(), Bridge.Params.PRESETS.get("default").get());
        assertEquals(Bridge.Params.paper(), Bridge.Params.PRESETS.get("paper").get());
        assertEquals(Bridge.Params.lean(), Bridge.Params.PRESETS.get("lean").get());
        assertEquals(Bridge.Params.regionsPreset(), Bridge.Params.PRESETS.get("regions").get());
        assertEquals(Set.of("addressing", "inflight", "descFifoDepth", "statusFifoDepth", "counters", "bringup"), differing(Bridge.Params.defaults(), Bridge.Params.regionsPreset()));
        assertEquals(Set.of("counters", "descFifoDepth"), differing(Bridge.Params.paper(), Bridge.Params.lean()));
        Bridge.Params lean = Bridge.Params.lean();
        assertEquals(1, lean.windowEntries());
        assertEquals(false, lean.counters());
        assertEquals(8, lean.descFifoDepth());
        assertEquals(Bridge.ChannelIds.PAPER, lean.channels());
        assertEquals(Arbiter.Policy.FIXED_PRIORITY, lean.policy());
        assertEquals(ClockDomain.ResetPolarity.ACTIVE_LOW, lean.dmaResetPolarity());
        for (String name : Bridge.Params.PRESETS.keySet()) {
            assertEquals(Bridge.Params.PRESETS.get(name).get(), parse(Map.of("preset", name)), name);
        }
    }

    @Test
    void theBuilderRunsTheRecordsChecks() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Bridge.Params.defaults().toBuilder().inflight(129).build());
        assertTrue(e.getMessage().startsWith("Bridge inflight = 129: must be in 1..128"), e.getMessage());
        assertEquals(Bridge.Params.defaults(), Bridge.Params.defaults().toBuilder().build());
    }

    @Test
    void badValuesNameTheKeyTheValueAndWhatItMustBe() {
        Map<Map<String, String>, String> cases = new LinkedHashMap<>();
        cases.put(Map.of("inflight", "many"), "bridge inflight = many: must be an integer");
        cases.put(Map.of("fpga_mem", "lots"), "bridge fpga_mem = lots: must be a byte count");
        cases.put(Map.of("counters", "maybe"), "bridge counters = maybe: must be true or false");
        cases.put(Map.of("policy", "lottery"), "bridge policy = lottery: must be one of [fixed_priority, round_robin, weighted]");
        cases.put(Map.of("weights", "3,x"), "bridge weights = 3,x: must be integers separated by commas");
        cases.put(Map.of("preset", "fast"), "bridge preset = fast: must be one of [default, paper, lean, regions]");
        cases.put(Map.of("inflght", "4"), "bridge: unknown parameter 'inflght' (known: " + BridgeParam.names() + ")");
        cases.forEach((args, message) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(args), args.toString());
            assertEquals(message, e.getMessage());
        });
        assertEquals(BridgeParam.unknown("inflght"), cases.get(Map.of("inflght", "4")));
    }

    @Test
    void jsonValuesAreReadByTheirType() {
        BridgeParam<?> inflight = BridgeParam.named("inflight").orElseThrow();
        assertEquals(32, inflight.parseJson(32));
        assertEquals(32, inflight.parseJson("32"));
        assertEquals("bridge inflight = 32.5: must be an integer",
                assertThrows(IllegalArgumentException.class, () -> inflight.parseJson(32.5)).getMessage());
        assertEquals("bridge inflight = [32]: must be an integer, not a list",
                assertThrows(IllegalArgumentException.class, () -> inflight.parseJson(List.of(32))).getMessage());
        BridgeParam<?> weights = BridgeParam.named("weights").orElseThrow();
        assertEquals(List.of(3, 1), weights.parseJson(List.of(3, 1)));
        assertEquals("bridge weights = [3, x]: must be a list of integers",
                assertThrows(IllegalArgumentException.class, () -> weights.parseJson(List.of(3, "x"))).getMessage());
        assertEquals(8L << 30, BridgeParam.named("fpga_mem").orElseThrow().parseJson(8L << 30));
        assertEquals(true, BridgeParam.named("counters").orElseThrow().parseJson(true));
    }

    @Test
    void helpLinesFitTheirWidth() {
        for (String line : BridgeParam.helpLines(2, 80, true)) {
            assertTrue(line.length() <= 80 || !line.strip().contains(" "), "longer than 80 columns: " + line);
        }
        for (String line : BridgeParam.presetLines(2, 80)) {
            assertTrue(line.length() <= 80, "longer than 80 columns: " + line);
        }
    }

    /** README.md's table of --config keys is the one the descriptors print, so it names exactly the keys there are. */
    @Test
    void theReadmeListsExactlyTheDescribedKeys() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        String open = "<!-- bridge-params:";
        String close = "<!-- /bridge-params -->";
        int start = readme.indexOf('\n', readme.indexOf(open)) + 1;
        int end = readme.indexOf(close);
        assertTrue(readme.contains(open) && end > start, "README.md marks its table of bridge parameters");
        String table = readme.substring(start, end);
        assertEquals(BridgeParam.markdownTable(), table,
                "README.md's table of bridge parameters differs from BridgeParam.markdownTable(); replace it with:\n"
                        + BridgeParam.markdownTable());
    }
}
