// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.generators.bridge.Layout;

/**
 * What the host believes about the bridge: the configuration an overlay's manifest
 * ({@code direkt-overlay.json}) records, its bridge parameters read back through {@link BridgeParam}
 * (each parameter's manifest key, as the manifest writer uses it), and the CSR map by name. The
 * manifest must speak this runtime's {@link Layout} version, and its CSR map must be the one the
 * Layout gives for its parameters, so every offset and field the bring-up uses is the Layout's.
 *
 * @param manifest  the file it was read from
 * @param params    the bridge's parameters as the overlay records them
 * @param registers every CSR register's offset, by name
 */
public record BridgeConfig(Path manifest, Bridge.Params params, Map<String, Integer> registers) {

    public BridgeConfig {
        registers = Map.copyOf(registers);
    }

    /** Reads {@code overlayDir/direkt-overlay.json}; a missing, malformed or foreign manifest is refused with the reason. */
    public static BridgeConfig read(Path overlayDir) throws IOException {
        Path f = overlayDir.resolve("direkt-overlay.json");
        if (!Files.isRegularFile(f)) {
            throw new IllegalArgumentException(overlayDir + ": no direkt-overlay.json (run `direkt overlay` first)");
        }
        JsonNode m;
        try {
            m = new ObjectMapper().readTree(f.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(f + ": not a JSON manifest: " + e.getOriginalMessage());
        }
        if (!m.path("format").asText().equals("direkt-overlay")) {
            throw new IllegalArgumentException(f + ": not a direkt overlay manifest (format '" + m.path("format").asText() + "')");
        }
        int v = m.path("layout").path("version").asInt(-1);
        if (v != Layout.VERSION) {
            throw new IllegalArgumentException(f + ": layout version " + v + ", this runtime speaks " + Layout.VERSION
                    + "; regenerate the overlay");
        }
        Bridge.Params p = params(f, m.path("bridge"));
        Map<String, Integer> regs = new LinkedHashMap<>();
        for (JsonNode r : m.path("layout").path("csr").path("registers")) {
            regs.put(r.path("name").asText(), r.path("offset").asInt(-1));
        }
        for (Layout.CsrReg r : org.direkt.generators.bridge.BridgeCsr.map(p)) {
            Integer at = regs.get(r.name());
            if (at == null || at != r.offset()) {
                throw new IllegalArgumentException(f + ": layout.csr.registers has " + (at == null ? "no " + r.name()
                        : r.name() + " at offset 0x" + Integer.toHexString(at)) + "; this runtime's Layout puts it at 0x"
                        + Integer.toHexString(r.offset()) + " for this bridge; regenerate the overlay");
            }
        }
        return new BridgeConfig(f, p, regs);
    }

    /** The bridge section's parameters: each {@link BridgeParam} by its manifest key, the channel ids and the dma reset. */
    static Bridge.Params params(Path f, JsonNode b) {
        if (!b.isObject()) {
            throw new IllegalArgumentException(f + ": no bridge section");
        }
        ObjectMapper json = new ObjectMapper();
        Bridge.Params.Builder builder = BridgeParam.preset(Bridge.Params.DEFAULT_PRESET);
        try {
            for (BridgeParam<?> d : BridgeParam.ALL) {
                if (d.manifestKey() != null) {
                    JsonNode value = b.get(d.manifestKey());
                    if (value == null) {
                        throw new IllegalArgumentException("bridge." + d.manifestKey() + " is missing");
                    }
                    set(d, builder, json.convertValue(value, Object.class));
                }
            }
            for (JsonNode c : b.path("channels")) {
                if (c.path("kernel_port").asInt(0) != 0) {
                    continue;  // a further kernel port: its ids follow from port 0's
                }
                Bridge.Direction dir = c.path("direction").asText().equals("wr") ? Bridge.Direction.WR : Bridge.Direction.RD;
                builder.channel(dir, c.path("role").asText().equals("desc"), c.path("chan_id").asText());
            }
            JsonNode low = b.path("clocks").path("dma").path("reset_active_low");
            if (!low.isBoolean()) {
                throw new IllegalArgumentException("bridge.clocks.dma.reset_active_low is missing");
            }
            BridgeParam.named("reset").orElseThrow().set(builder, low.asBoolean() ? "active_low" : "active_high");
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(f + ": " + e.getMessage(), e);
        }
    }

    private static <T> void set(BridgeParam<T> d, Bridge.Params.Builder b, Object json) {
        d.setter().accept(b, d.parseJson(json));
    }

    /** The offset of register {@code name}; a register the map lacks is an error naming it. */
    public int offset(String name) {
        Integer at = registers.get(name);
        if (at == null) {
            throw new IllegalArgumentException(manifest + ": the bridge has no CSR register " + name);
        }
        return at;
    }

    /**
     * The generator parameters of {@code p} that differ from the default preset's, as
     * {@code key=value} text: what a simulation of this bridge passes the generator over the
     * default preset (so the default overlay shares the default build).
     */
    public static Map<String, Object> generatorParams(Bridge.Params p) {
        Bridge.Params base = BridgeParam.preset(Bridge.Params.DEFAULT_PRESET).build();
        Map<String, Object> out = new LinkedHashMap<>();
        for (BridgeParam<?> d : BridgeParam.ALL) {
            if (!d.text(p).equals(d.text(base))) {
                out.put(d.name(), d.text(p));
            }
        }
        return out;
    }

    /** {@code name}'s value in these parameters, as a {@code key=value} argument writes it ({@code x0_low}, {@code tagged}, ...). */
    public String setting(String name) {
        return BridgeParam.named(name).orElseThrow().text(params);
    }

    /** The same manifest, believed to say {@code other} parameters (how a mis-configured host is modelled). */
    public BridgeConfig believing(Bridge.Params other) {
        return new BridgeConfig(manifest, other, registers);
    }
}
