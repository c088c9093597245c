// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest the generators write is the one host software reads: for every preset (and a
 * bridge far from all of them) the contract's reader gives back the bridge's {@code spec()}, the
 * generator parameters that rebuild it, and the CSR map by name; a manifest with a value missing
 * or wrong is refused naming the file and the key.
 */
class ManifestContractTest {
    @TempDir
    Path dir;

    private OverlayManifest roundTrip(Bridge.Params p) throws IOException {
        Files.writeString(dir.resolve(OverlayManifest.FILE), Manifest.json(p));
        return OverlayManifest.read(dir);
    }

    @Test
    void everyPresetReadsBackAsItsSpecAndItsGeneratorParameters() throws IOException {
        for (Map.Entry<String, Bridge.Preset> e : Bridge.Params.PRESETS.entrySet()) {
            Bridge.Params p = e.getValue().get();
            OverlayManifest m = roundTrip(p);
            assertEquals(p.spec(), m.bridge(), e.getKey());
            assertEquals(BridgeParam.overDefault(p), m.generatorParams(), e.getKey());
            // the generator parameters rebuild the very bridge
            Bridge.Params.Builder rebuilt = BridgeParam.preset(OverlayManifest.GENERATOR_PRESET);
            m.generatorParams().forEach((k, v) -> BridgeParam.named(k).orElseThrow().set(rebuilt, (String) v));
            assertEquals(p, rebuilt.build(), e.getKey());
            for (Layout.CsrReg r : p.spec().csrMap()) {
                assertEquals(r.offset(), m.offset(r.name()), e.getKey() + " " + r.name());
            }
        }
    }

    @Test
    void aBridgeUnlikeAnyPresetReadsBack() throws IOException {
        Bridge.Params p = Bridge.Params.defaults().toBuilder().windowEntries(7).inflight(32).statusFifoDepth(32)
                .wordOrder(BridgeModes.WordOrder.X0_HIGH).statusMode(BridgeModes.StatusMode.CYCLES).counters(false)
                .fpgaMemBytes(1L << 34).build();
        OverlayManifest m = roundTrip(p);
        assertEquals(p.spec(), m.bridge());
        assertEquals("x0_high", m.bridge().setting("word_order"));
        assertEquals("7", m.bridge().setting("windows"));
        assertEquals(7, m.windows().orElseThrow().entries());
        assertEquals(Map.of("windows", "7", "inflight", "32", "status_depth", "32", "word_order", "x0_high",
                "status_mode", "cycles", "counters", "false", "fpga_mem", Long.toString(1L << 34)),
                new LinkedHashMap<>(m.generatorParams()).entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, x -> (String) x.getValue())));
    }

    private IllegalArgumentException refusal(String key, Object value) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode tree = (ObjectNode) json.readTree(Manifest.json(Bridge.Params.defaults()));
        ObjectNode bridge = (ObjectNode) tree.path("bridge");
        if (value == null) {
            bridge.remove(key);
        } else {
            bridge.set(key, json.valueToTree(value));
        }
        Files.writeString(dir.resolve(OverlayManifest.FILE), json.writeValueAsString(tree));
        return assertThrows(IllegalArgumentException.class, () -> OverlayManifest.read(dir));
    }

    @Test
    void aMissingOrWrongValueIsRefusedNamingTheFileAndTheKey() throws IOException {
        String file = dir.resolve(OverlayManifest.FILE).toString();
        IllegalArgumentException missing = refusal("status_mode", null);
        assertTrue(missing.getMessage().startsWith(file + ": bridge.status_mode is missing"), missing.getMessage());
        IllegalArgumentException choice = refusal("word_order", "x0_middle");
        assertTrue(choice.getMessage().contains("bridge.word_order = x0_middle: one of [x0_low, x0_high]"), choice.getMessage());
        IllegalArgumentException number = refusal("inflight", "many");
        assertTrue(number.getMessage().contains("bridge.inflight = \"many\": must be a whole number"), number.getMessage());
        IllegalArgumentException flag = refusal("counters", 1);
        assertTrue(flag.getMessage().contains("bridge.counters = 1: must be true or false"), flag.getMessage());
        IllegalArgumentException zero = refusal("window_entries", 0);
        assertTrue(zero.getMessage().contains("bridge window_entries = 0: must be at least 1"), zero.getMessage());
        IllegalArgumentException generator = refusal("generator_params", null);
        assertTrue(generator.getMessage().contains("bridge.generator_params is missing; regenerate the overlay"),
                generator.getMessage());
        // a window count the CSR map does not match: the map is checked against the Layout's for the bridge read
        IllegalArgumentException map = refusal("window_entries", 5);
        assertTrue(map.getMessage().contains("layout.csr.registers has no WIN4_BASE_LO"), map.getMessage());
    }
}
