// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.device;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeCsr;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.pcie.Bytes;

/**
 * An overlay's manifest ({@code direkt-overlay.json}) as the runtime reads it, in this one place:
 * it must speak this runtime's {@link Layout} version, its bridge's parameters read back through
 * {@link BridgeParam} (each parameter's manifest key), and its CSR map must be the one the Layout
 * gives for them, so every register a session, a device or the bring-up names is where the
 * Layout puts it.
 *
 * @param file      the manifest
 * @param bridge    the bridge's parameters as the overlay records them
 * @param registers every CSR register's offset, by name, in the manifest's units ({@code layout.csr.addressing})
 * @param unitBytes bytes per unit of those offsets: 4 for word addresses, 1 for byte addresses
 * @param windows   the window table (raw addressing); empty with regions addressing, which has none
 * @param boardCsr  where the bridge's CSR sits on the board ({@code board.csr}); empty where the overlay does not say
 */
public record OverlayManifest(Path file, Bridge.Params bridge, Map<String, Integer> registers, int unitBytes,
        Optional<WindowTable> windows, Optional<BoardCsr> boardCsr) {

    public static final String FILE = "direkt-overlay.json";

    public OverlayManifest {
        registers = Map.copyOf(registers);
    }

    /**
     * Where the bridge's CSR sits on a board: {@code bytes} from byte {@code offset} of BAR
     * {@code bar} of the FPGA's PCI function (a board whose descriptor controller direkt replaces).
     */
    public record BoardCsr(int bar, long offset, long bytes) {
    }

    /**
     * Reads {@code overlayDir/direkt-overlay.json}; a missing, malformed or foreign manifest, or
     * one of another Layout version, is refused with the reason.
     */
    public static OverlayManifest read(Path overlayDir) throws IOException {
        Path f = overlayDir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            throw new IllegalArgumentException(overlayDir + ": no " + FILE + " (run `direkt overlay` first)");
        }
        JsonNode m;
        try {
            m = new ObjectMapper().readTree(f.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(f + ": not a JSON manifest: " + e.getOriginalMessage());
        }
        int v = m.path("layout").path("version").asInt(-1);
        if (v != Layout.VERSION) {
            throw new IllegalArgumentException(f + ": layout version " + v + ", this runtime speaks " + Layout.VERSION
                    + "; regenerate the overlay");
        }
        if (!m.path("format").asText().equals("direkt-overlay")) {
            throw new IllegalArgumentException(f + ": not a direkt overlay manifest (format '" + m.path("format").asText() + "')");
        }
        Bridge.Params p = params(f, m.path("bridge"));
        JsonNode csr = m.path("layout").path("csr");
        Map<String, Integer> regs = new LinkedHashMap<>();
        for (JsonNode r : csr.path("registers")) {
            regs.put(r.path("name").asText(), r.path("offset").asInt(-1));
        }
        for (Layout.CsrReg r : BridgeCsr.map(p)) {
            Integer at = regs.get(r.name());
            if (at == null || at != r.offset()) {
                throw new IllegalArgumentException(f + ": layout.csr.registers has " + (at == null ? "no " + r.name()
                        : r.name() + " at offset 0x" + Integer.toHexString(at)) + "; this runtime's Layout puts it at 0x"
                        + Integer.toHexString(r.offset()) + " for this bridge; regenerate the overlay");
            }
        }
        int unit = switch (csr.path("addressing").asText("word")) {
            case "word" -> csr.path("data_bits").asInt(32) / 8;
            case "byte" -> 1;
            default -> throw new IllegalArgumentException(f + ": layout.csr.addressing '" + csr.path("addressing").asText()
                    + "': word or byte");
        };
        Optional<WindowTable> windows = p.regionsAddressing() ? Optional.empty() : Optional.of(WindowTable.of(f, m));
        return new OverlayManifest(f, p, regs, unit, windows, boardCsr(f, m.path("board").path("csr")));
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

    private static Optional<BoardCsr> boardCsr(Path f, JsonNode c) {
        if (c.isMissingNode()) {
            return Optional.empty();
        }
        int bar = c.path("bar").asInt(-1);
        long offset = number(c.path("offset"));
        long bytes = number(c.path("bytes"));
        if (bar < 0 || offset < 0 || bytes <= 0) {
            throw new IllegalArgumentException(f + ": board.csr needs bar, offset and bytes (" + c + ")");
        }
        return Optional.of(new BoardCsr(bar, offset, bytes));
    }

    /** A number as the manifest writes it: a JSON number, or text in decimal or {@code 0x} hex; -1 when it is neither. */
    private static long number(JsonNode n) {
        if (n.isIntegralNumber()) {
            return n.asLong();
        }
        try {
            return Long.decode(n.asText());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The offset of register {@code name}, in the manifest's units; a register the map lacks is an error naming it. */
    public int offset(String name) {
        Integer at = registers.get(name);
        if (at == null) {
            throw new IllegalArgumentException(file + ": the bridge has no CSR register " + name);
        }
        return at;
    }

    /** The byte offset of register {@code name} from the CSR's start (where a board's BAR range holds it). */
    public long byteOffset(String name) {
        return (long) offset(name) * unitBytes;
    }

    /**
     * The generator parameters of the bridge that differ from the default preset's, as
     * {@code key=value} text: what a simulation of it passes the generator over the default
     * preset (so overlays of one configuration share one build).
     */
    public Map<String, Object> generatorParams() {
        return generatorParams(bridge);
    }

    /** {@link #generatorParams()} of {@code p}. */
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

    @Override
    public String toString() {
        return "OverlayManifest[" + file + ", " + bridge.addressing() + " addressing" + boardCsr.map(c -> ", board CSR in BAR "
                + c.bar() + " at " + Bytes.hex(c.offset())).orElse("") + "]";
    }
}
