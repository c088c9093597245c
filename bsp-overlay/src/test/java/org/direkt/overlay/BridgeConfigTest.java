// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.direkt.generators.Catalog;
import org.direkt.generators.Json;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The overlay's {@code --config} file is read through the same {@link BridgeParam} descriptors as
 * the generator's {@code key=value} arguments: every parameter, given as its natural JSON type or as
 * a string, gives the same record; bad keys and values are reported at their file:line:col.
 */
class BridgeConfigTest {

    @TempDir
    Path tmp;

    static Stream<BridgeParam<?>> descriptors() {
        return BridgeParam.ALL.stream();
    }

    private Bridge.Params config(String json) throws IOException, OverlayException {
        Path file = tmp.resolve("bridge.json");
        Files.writeString(file, json);
        return Overlay.params(new Overlay.Request(tmp, null, file, null));
    }

    private OverlayException refused(String json) throws IOException {
        Path file = tmp.resolve("bridge.json");
        Files.writeString(file, json);
        OverlayException e = assertThrows(OverlayException.class, () -> Overlay.params(new Overlay.Request(tmp, null, file, null)));
        assertEquals(OverlayException.Kind.INPUT, e.kind(), "bad input: exit code " + OverlayException.Kind.INPUT.exitCode);
        return e;
    }

    private String at(int line, int col) {
        return tmp.resolve("bridge.json") + ":" + line + ":" + col + ": ";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("descriptors")
    void everyParameterReadsToTheSameRecordAsOnTheCommandLine(BridgeParam<?> d) throws Exception {
        Map<String, String> args = d.exampleArgs();
        Bridge.Params expected = Catalog.bridgeParams(new Catalog.Args("bridge", args));
        Map<String, Object> typed = new LinkedHashMap<>();
        Map<String, Object> strings = new LinkedHashMap<>();
        for (String key : args.keySet()) {
            BridgeParam<?> k = BridgeParam.named(key).orElseThrow();
            typed.put(key, k.json(expected));
            strings.put(key, args.get(key));
        }
        assertEquals(expected, config(Json.write(typed)), "JSON values: " + Json.write(typed));
        assertEquals(expected, config(Json.write(strings)), "string values: " + Json.write(strings));
        assertEquals(d.get(expected), d.get(config(Json.write(typed))));
    }

    @Test
    void aPresetInTheConfigIsTheStartingPoint() throws Exception {
        assertEquals(Bridge.Params.lean(), config("{\"preset\": \"lean\"}"));
        assertEquals(Bridge.Params.paper().toBuilder().inflight(8).build(), config("{\"preset\": \"paper\", \"inflight\": 8}"));
        assertEquals(Bridge.Params.defaults(), config("{}"));
        assertEquals(Bridge.Params.paper(), Overlay.params(new Overlay.Request(tmp, null, null, "PAPER")));
        assertEquals(Bridge.Params.defaults(), Overlay.params(new Overlay.Request(tmp, null, null, null)));
    }

    @Test
    void aBadValueIsReportedAtItsKey() throws IOException {
        OverlayException e = refused("{\n  \"inflight\": \"many\"\n}\n");
        assertEquals(at(2, 3) + "bridge inflight = many: must be an integer", e.getMessage());
        e = refused("{\"counters\": [true]}");
        assertEquals(at(1, 2) + "bridge counters = [true]: must be true or false, not a list", e.getMessage());
        e = refused("{\"weights\": [1, \"x\"]}");
        assertEquals(at(1, 2) + "bridge weights = [1, x]: must be a list of integers", e.getMessage());
        e = refused("{\"windows\": {\"n\": 2}}");
        assertEquals(at(1, 2) + "\"windows\" must be a number, string, boolean or list", e.getMessage());
    }

    @Test
    void everyBadKeyIsReportedAtOnce() throws IOException {
        OverlayException e = refused("{\n  \"inflght\": 4,\n  \"preset\": \"fast\",\n  \"sync_stages\": true\n}\n");
        String file = tmp.resolve("bridge.json").toString();
        assertEquals(file + " has errors:\n"
                + "  " + at(2, 3) + BridgeParam.unknown("inflght") + "\n"
                + "  " + at(3, 3) + "bridge preset = fast: must be one of [default, paper, lean, regions]\n"
                + "  " + at(4, 3) + "bridge sync_stages = true: must be an integer", e.getMessage());
    }

    @Test
    void aKeyGivenTwiceIsRefused() throws IOException {
        OverlayException e = refused("{\"inflight\": 4,\n \"inflight\": 8}");
        assertEquals(at(2, 2) + "\"inflight\" is given twice (first at " + at(1, 2).replaceAll(": $", "") + ")", e.getMessage());
    }

    @Test
    void aConfigurationTheBridgeRefusesNamesTheFileAndTheRule() throws IOException {
        OverlayException e = refused("{\"inflight\": 500}");
        assertEquals(tmp.resolve("bridge.json") + ": Bridge inflight = 500: must be in 1..128 (kernel IDs are 128..255)", e.getMessage());
    }

    @Test
    void notAnObjectOrNotJson() throws IOException {
        assertEquals(tmp.resolve("bridge.json") + ": must hold a JSON object of bridge parameters", refused("[1, 2]").getMessage());
        assertEquals(tmp.resolve("bridge.json") + ": must hold a JSON object of bridge parameters", refused("").getMessage());
        String m = refused("{\"inflight\": 4} {").getMessage();
        assertTrue(m.startsWith(at(1, 17) + "malformed JSON"), m);
        m = refused("{\n  \"inflight\": 4,\n  \"policy\" \"weighted\"\n}\n").getMessage();
        assertTrue(m.startsWith(tmp.resolve("bridge.json") + ":3:") && m.contains("malformed JSON"), m);
    }
}
