// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.direkt.contract.BridgeModes.Addressing;
import org.direkt.contract.BridgeModes.IdMode;
import org.direkt.contract.BridgeModes.StatusMode;
import org.direkt.contract.BridgeModes.WordOrder;

/**
 * An overlay's manifest ({@code direkt-overlay.json}) as host software reads it, in this one
 * place: it must speak this {@link Layout} version, its bridge section gives the bridge's
 * {@link BridgeSpec} (each value checked and named by its key where it is wrong), and its CSR map
 * must be the one the Layout gives for that bridge, so every register a session, a device or the
 * bring-up names is where the Layout puts it.
 *
 * @param file            the manifest
 * @param bridge          the bridge as the overlay records it
 * @param generatorParams the generator parameters that differ from the default preset's, as
 *                        {@code key=value} text ({@code bridge.generator_params}): what a simulation
 *                        of this bridge passes the generator, so overlays of one configuration share
 *                        one build
 * @param registers       every CSR register's offset, by name, in the manifest's units ({@code layout.csr.addressing})
 * @param unitBytes       bytes per unit of those offsets: 4 for word addresses, 1 for byte addresses
 * @param windows         the window table (raw addressing); empty with regions addressing, which has none
 * @param boardCsr        where the bridge's CSR sits on the board ({@code board.csr}); empty where the overlay does not say
 */
public record OverlayManifest(Path file, BridgeSpec bridge, Map<String, Object> generatorParams, Map<String, Integer> registers,
        int unitBytes,
        Optional<WindowTable> windows, Optional<BoardCsr> boardCsr) {

    public static final String FILE = "direkt-overlay.json";

    /** The generator preset that {@link #generatorParams} are given over. */
    public static final String GENERATOR_PRESET = "default";

    public OverlayManifest {
        generatorParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(generatorParams));
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
        BridgeSpec p = spec(f, m.path("bridge"));
        JsonNode csr = m.path("layout").path("csr");
        Map<String, Integer> regs = new LinkedHashMap<>();
        for (JsonNode r : csr.path("registers")) {
            regs.put(r.path("name").asText(), r.path("offset").asInt(-1));
        }
        for (Layout.CsrReg r : p.csrMap()) {
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
        Optional<WindowTable> windows = p.regionsAddressing() ? Optional.empty() : Optional.of(WindowTable.of(f, m, p.windowEntries()));
        return new OverlayManifest(f, p, generatorParams(f, m.path("bridge")), regs, unit, windows, boardCsr(f, m.path("board").path("csr")));
    }

    /** The bridge section's {@link BridgeSpec}: each value by its key, a missing or malformed one named. */
    static BridgeSpec spec(Path f, JsonNode b) {
        if (!b.isObject()) {
            throw new IllegalArgumentException(f + ": no bridge section");
        }
        IdMode ids = choice(f, b, "id_mode", IdMode.class);
        StatusMode status = choice(f, b, "status_mode", StatusMode.class);
        WordOrder order = choice(f, b, "word_order", WordOrder.class);
        Addressing addressing = choice(f, b, "addressing", Addressing.class);
        long windows = integer(f, b, "window_entries");
        long inflight = integer(f, b, "inflight");
        long sync = integer(f, b, "sync_stages");
        long fpgaMem = integer(f, b, "fpga_mem_bytes");
        boolean counters = flag(f, b, "counters");
        boolean bringup = flag(f, b, "bringup");
        long regions = integer(f, b, "regions");
        long regionPages = integer(f, b, "region_pages");
        long ports = integer(f, b, "ports");
        try {
            return new BridgeSpec(ids, status, order, addressing, (int) windows, (int) inflight, (int) sync, fpgaMem, counters,
                    bringup, (int) regions, (int) regionPages, (int) ports);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(f + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode value(Path f, JsonNode b, String key) {
        JsonNode v = b.get(key);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException(f + ": bridge." + key + " is missing; regenerate the overlay");
        }
        return v;
    }

    private static long integer(Path f, JsonNode b, String key) {
        JsonNode v = value(f, b, key);
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException(f + ": bridge." + key + " = " + v + ": must be a whole number");
        }
        long n = v.asLong();
        if (n < 0 || (!key.equals("fpga_mem_bytes") && n > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(f + ": bridge." + key + " = " + v + ": out of range");
        }
        return n;
    }

    private static boolean flag(Path f, JsonNode b, String key) {
        JsonNode v = value(f, b, key);
        if (!v.isBoolean()) {
            throw new IllegalArgumentException(f + ": bridge." + key + " = " + v + ": must be true or false");
        }
        return v.asBoolean();
    }

    private static <E extends Enum<E>> E choice(Path f, JsonNode b, String key, Class<E> type) {
        JsonNode v = value(f, b, key);
        try {
            return BridgeSpec.parse("bridge." + key, type, v.isTextual() ? v.asText() : v.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(f + ": " + e.getMessage(), e);
        }
    }

    /** {@code bridge.generator_params}: each parameter's text by its name. */
    private static Map<String, Object> generatorParams(Path f, JsonNode b) {
        JsonNode g = value(f, b, "generator_params");
        if (!g.isObject()) {
            throw new IllegalArgumentException(f + ": bridge.generator_params must be an object of key=value texts");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : g.properties()) {
            if (!e.getValue().isTextual()) {
                throw new IllegalArgumentException(f + ": bridge.generator_params." + e.getKey() + " = " + e.getValue()
                        + ": must be text");
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
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

    @Override
    public String toString() {
        return "OverlayManifest[" + file + ", " + bridge.addressing() + " addressing" + boardCsr.map(c -> ", board CSR in BAR "
                + c.bar() + " at 0x" + Long.toHexString(c.offset())).orElse("") + "]";
    }
}
