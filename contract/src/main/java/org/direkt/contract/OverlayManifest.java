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
 * @param aperture        the flat FPGA-memory BAR the GPU reads and writes as bus master ({@code aperture}); empty where
 *                        the overlay was made without one
 */
public record OverlayManifest(Path file, BridgeSpec bridge, Map<String, Object> generatorParams, Map<String, Integer> registers,
        int unitBytes,
        Optional<WindowTable> windows, Optional<BoardCsr> boardCsr, Optional<Aperture> aperture) {

    public static final String FILE = "direkt-overlay.json";

    /** The generator preset that {@link #generatorParams} are given over. */
    public static final String GENERATOR_PRESET = "default";

    public OverlayManifest {
        generatorParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(generatorParams));
        registers = Map.copyOf(registers);
    }

    /** A manifest without an aperture. */
    public OverlayManifest(Path file, BridgeSpec bridge, Map<String, Object> generatorParams, Map<String, Integer> registers,
            int unitBytes, Optional<WindowTable> windows, Optional<BoardCsr> boardCsr) {
        this(file, bridge, generatorParams, registers, unitBytes, windows, boardCsr, Optional.empty());
    }

    /**
     * Where the bridge's CSR sits on a board: {@code bytes} from byte {@code offset} of BAR
     * {@code bar} of the FPGA's PCI function (a board whose descriptor controller direkt replaces).
     */
    public record BoardCsr(int bar, long offset, long bytes) {
    }

    /**
     * The overlay's aperture (the manifest's optional {@code aperture} section): BAR {@code bar} of
     * the FPGA's PCI function, {@code barBytes} long (a power of two), exposes FPGA memory flat, its
     * byte 0 being FPGA address {@code fpgaBase}, so the GPU's copy engine and kernels read and
     * write {@code [fpgaBase, fpgaBase + barBytes)} as bus master once CUDA registers the BAR as I/O
     * memory. The BAR's master keeps up to {@code outstandingReads} reads of at most
     * {@code maxReadBytes} each in flight: what bounds the GPU's reads of FPGA memory.
     */
    public record Aperture(int bar, long barBytes, long fpgaBase, int outstandingReads, int maxReadBytes) {
        public Aperture {
            if (bar < 0 || bar > 5 || barBytes <= 0 || Long.bitCount(barBytes) != 1 || fpgaBase < 0 || fpgaBase % 4 != 0
                    || fpgaBase > Long.MAX_VALUE - barBytes || outstandingReads < 1 || maxReadBytes < 4 || maxReadBytes % 4 != 0) {
                throw new IllegalArgumentException("aperture BAR " + bar + " of " + barBytes + " bytes at FPGA address "
                        + fpgaBase + ", " + outstandingReads + " reads of " + maxReadBytes + " bytes: BAR 0..5, a power-of-two"
                        + " size, a non-negative FPGA address that is a multiple of 4, at least one read of a multiple of 4 bytes");
            }
        }

        /** The first FPGA address past the aperture. */
        public long fpgaEnd() {
            return fpgaBase + barBytes;
        }

        /** Whether FPGA memory {@code [fpgaAddress, fpgaAddress + bytes)} lies inside the aperture. */
        public boolean holds(long fpgaAddress, long bytes) {
            return bytes >= 0 && fpgaAddress >= fpgaBase && fpgaAddress <= fpgaEnd() && bytes <= fpgaEnd() - fpgaAddress;
        }

        @Override
        public String toString() {
            return "aperture BAR " + bar + " = FPGA memory [0x" + Long.toHexString(fpgaBase) + ", 0x" + Long.toHexString(fpgaEnd())
                    + ")";
        }
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
        Optional<BoardCsr> board = boardCsr(f, m.path("board").path("csr"));
        return new OverlayManifest(f, p, generatorParams(f, m.path("bridge")), regs, unit, windows, board,
                apertureSection(f, m.get("aperture"), p, board));
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

    /**
     * The optional {@code aperture} section: absent (or null) when the overlay has none; otherwise
     * each key by its name, and the range inside the FPGA memory the bridge reaches and off the
     * CSR's BAR (the aperture maps its BAR from offset 0).
     */
    private static Optional<Aperture> apertureSection(Path f, JsonNode a, BridgeSpec bridge, Optional<BoardCsr> csr) {
        if (a == null || a.isNull()) {
            return Optional.empty();
        }
        if (!a.isObject()) {
            throw new IllegalArgumentException(f + ": aperture = " + a + ": must be an object with bar, bar_bytes, fpga_base,"
                    + " outstanding_reads and max_read_bytes");
        }
        int bar = (int) apertureKey(f, a, "bar", 0, 5, "a BAR of the FPGA's function, 0..5");
        long barBytes = apertureKey(f, a, "bar_bytes", 1, Long.MAX_VALUE, "a power of two");
        if (Long.bitCount(barBytes) != 1) {
            throw new IllegalArgumentException(f + ": aperture.bar_bytes = " + barBytes + ": must be a power of two (a BAR's size)");
        }
        long fpgaBase = apertureKey(f, a, "fpga_base", 0, Long.MAX_VALUE, "a non-negative FPGA memory address");
        if (fpgaBase % 4 != 0) {
            throw new IllegalArgumentException(f + ": aperture.fpga_base = 0x" + Long.toHexString(fpgaBase)
                    + ": must be a multiple of 4");
        }
        int reads = (int) apertureKey(f, a, "outstanding_reads", 1, Integer.MAX_VALUE, "at least 1");
        int readBytes = (int) apertureKey(f, a, "max_read_bytes", 4, Integer.MAX_VALUE, "a multiple of 4, at least 4");
        if (readBytes % 4 != 0) {
            throw new IllegalArgumentException(f + ": aperture.max_read_bytes = " + readBytes + ": must be a multiple of 4");
        }
        if (barBytes > bridge.fpgaMemBytes() || fpgaBase > bridge.fpgaMemBytes() - barBytes) {
            throw new IllegalArgumentException(f + ": aperture.fpga_base = 0x" + Long.toHexString(fpgaBase) + " and"
                    + " aperture.bar_bytes = " + barBytes + " end past the FPGA memory the bridge reaches (bridge.fpga_mem_bytes = "
                    + bridge.fpgaMemBytes() + "); regenerate the overlay");
        }
        if (csr.isPresent() && csr.get().bar() == bar) {
            throw new IllegalArgumentException(f + ": aperture.bar = " + bar + " is also board.csr.bar: the aperture maps its BAR"
                    + " from offset 0 and would cover the bridge's registers; regenerate the overlay");
        }
        return Optional.of(new Aperture(bar, barBytes, fpgaBase, reads, readBytes));
    }

    /** {@code aperture.<key>}: a JSON whole number, or text in decimal or {@code 0x} hex, in {@code [min, max]}. */
    private static long apertureKey(Path f, JsonNode a, String key, long min, long max, String rule) {
        JsonNode v = a.get(key);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException(f + ": aperture." + key + " is missing; regenerate the overlay");
        }
        long n;
        if (v.isIntegralNumber() && v.canConvertToLong()) {
            n = v.asLong();
        } else if (v.isTextual()) {
            try {
                n = Long.decode(v.asText().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(f + ": aperture." + key + " = " + v + ": must be a whole number");
            }
        } else {
            throw new IllegalArgumentException(f + ": aperture." + key + " = " + v + ": must be a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(f + ": aperture." + key + " = " + v + ": out of range (" + rule + ")");
        }
        return n;
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
                + c.bar() + " at 0x" + Long.toHexString(c.offset())).orElse("") + aperture.map(a -> ", " + a).orElse("") + "]";
    }
}
