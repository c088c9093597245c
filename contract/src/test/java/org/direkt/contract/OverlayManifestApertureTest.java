// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest's optional {@code aperture} section: read into {@link OverlayManifest.Aperture}
 * where the overlay has one, absent where it has none, and each key that is missing or wrong
 * refused with the manifest's path and the key's name.
 */
class OverlayManifestApertureTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long FPGA_MEM = 8L << 30;

    @TempDir
    Path dir;

    /** A manifest of a regions bridge (no window table to describe) as the overlay writes it, changed by {@code edit}. */
    private Path manifest(Consumer<ObjectNode> edit) throws IOException {
        BridgeSpec spec = new BridgeSpec(BridgeModes.IdMode.MANAGED, BridgeModes.StatusMode.TAGGED, BridgeModes.WordOrder.X0_LOW,
                BridgeModes.Addressing.REGIONS, 4, 16, 2, FPGA_MEM, true, true, 16, 1024, 1);
        ObjectNode m = JSON.createObjectNode().put("format", "direkt-overlay");
        ObjectNode layout = m.putObject("layout").put("version", Layout.VERSION);
        ObjectNode csr = layout.putObject("csr").put("addressing", "word").put("data_bits", 32);
        ArrayNode regs = csr.putArray("registers");
        spec.csrMap().forEach(r -> regs.addObject().put("name", r.name()).put("offset", r.offset()));
        ObjectNode b = m.putObject("bridge");
        b.put("id_mode", "managed").put("status_mode", "tagged").put("word_order", "x0_low").put("addressing", "regions")
                .put("window_entries", 4).put("inflight", 16).put("sync_stages", 2).put("fpga_mem_bytes", FPGA_MEM)
                .put("counters", true).put("bringup", true).put("regions", 16).put("region_pages", 1024).put("ports", 1);
        b.putObject("generator_params").put("addressing", "regions");
        m.putObject("board").putObject("csr").put("bar", 4).put("offset", "0x20000").put("bytes", 4096);
        ObjectNode a = m.putObject("aperture");
        a.put("bar", 2).put("bar_bytes", 256L << 20).put("fpga_base", 1L << 30).put("outstanding_reads", 16)
                .put("max_read_bytes", 512);
        edit.accept(m);
        Path d = Files.createDirectories(dir.resolve("overlay"));
        Files.writeString(d.resolve(OverlayManifest.FILE), JSON.writeValueAsString(m));
        return d;
    }

    private String refused(Consumer<ObjectNode> edit) throws IOException {
        Path d = manifest(edit);
        return assertThrows(IllegalArgumentException.class, () -> OverlayManifest.read(d)).getMessage();
    }

    private static ObjectNode aperture(ObjectNode m) {
        return (ObjectNode) m.get("aperture");
    }

    @Test
    void anApertureIsReadKeyByKey() throws IOException {
        OverlayManifest m = OverlayManifest.read(manifest(x -> { }));
        OverlayManifest.Aperture a = m.aperture().orElseThrow();
        assertEquals(new OverlayManifest.Aperture(2, 256L << 20, 1L << 30, 16, 512), a);
        assertEquals((1L << 30) + (256L << 20), a.fpgaEnd());
        assertTrue(a.holds(1L << 30, 256L << 20), "the whole aperture");
        assertTrue(a.holds(a.fpgaEnd() - 4, 4), "its last word");
        assertFalse(a.holds(a.fpgaEnd() - 4, 8), "a range running past its end");
        assertFalse(a.holds((1L << 30) - 4, 8), "a range starting below it");
        assertTrue(m.toString().contains("aperture BAR 2 = FPGA memory [0x40000000, 0x50000000)"), m.toString());
    }

    @Test
    void hexTextIsReadAsTheBoardSectionWritesIt() throws IOException {
        OverlayManifest m = OverlayManifest.read(manifest(x -> aperture(x).put("fpga_base", "0x10000000").put("bar_bytes", "0x1000000")));
        assertEquals(0x1000_0000L, m.aperture().orElseThrow().fpgaBase());
        assertEquals(16L << 20, m.aperture().orElseThrow().barBytes());
    }

    @Test
    void anOverlayWithoutAnApertureHasNone() throws IOException {
        assertEquals(Optional.empty(), OverlayManifest.read(manifest(x -> x.remove("aperture"))).aperture());
        assertEquals(Optional.empty(), OverlayManifest.read(manifest(x -> x.putNull("aperture"))).aperture());
    }

    @Test
    void eachMissingKeyIsNamedWithTheFile() throws IOException {
        for (String key : new String[] {"bar", "bar_bytes", "fpga_base", "outstanding_reads", "max_read_bytes"}) {
            String e = refused(x -> aperture(x).remove(key));
            assertTrue(e.startsWith(dir.resolve("overlay").resolve(OverlayManifest.FILE) + ": aperture." + key + " is missing"), e);
        }
    }

    @Test
    void eachWrongValueIsNamedByItsKey() throws IOException {
        assertTrue(refused(x -> aperture(x).put("bar", 6)).contains("aperture.bar = 6: out of range (a BAR of the FPGA's function, 0..5)"));
        assertTrue(refused(x -> aperture(x).put("bar", "two")).contains("aperture.bar = \"two\": must be a whole number"));
        assertTrue(refused(x -> aperture(x).put("bar", 2.5)).contains("aperture.bar = 2.5: must be a whole number"));
        assertTrue(refused(x -> aperture(x).put("bar_bytes", 3 << 20)).contains("aperture.bar_bytes = 3145728: must be a power of two"));
        assertTrue(refused(x -> aperture(x).put("bar_bytes", 0)).contains("aperture.bar_bytes = 0: out of range"));
        assertTrue(refused(x -> aperture(x).put("fpga_base", -4)).contains("aperture.fpga_base = -4: out of range"));
        assertTrue(refused(x -> aperture(x).put("fpga_base", 6)).contains("aperture.fpga_base = 0x6: must be a multiple of 4"));
        assertTrue(refused(x -> aperture(x).put("outstanding_reads", 0)).contains("aperture.outstanding_reads = 0: out of range"));
        assertTrue(refused(x -> aperture(x).put("max_read_bytes", 2)).contains("aperture.max_read_bytes = 2: out of range"));
        assertTrue(refused(x -> aperture(x).put("max_read_bytes", 130)).contains("aperture.max_read_bytes = 130: must be a multiple of 4"));
        assertTrue(refused(x -> x.put("aperture", 2)).contains("aperture = 2: must be an object"));
    }

    @Test
    void theApertureMustLieInFpgaMemoryAndOffTheCsrsBar() throws IOException {
        String e = refused(x -> aperture(x).put("fpga_base", FPGA_MEM - (128L << 20)));
        assertTrue(e.contains("end past the FPGA memory the bridge reaches (bridge.fpga_mem_bytes = " + FPGA_MEM + ")"), e);
        assertTrue(OverlayManifest.read(manifest(x -> aperture(x).put("fpga_base", FPGA_MEM - (256L << 20)))).aperture().isPresent(),
                "an aperture ending at the end of FPGA memory");
        e = refused(x -> aperture(x).put("bar", 4));
        assertTrue(e.contains("aperture.bar = 4 is also board.csr.bar"), e);
        assertEquals(4, OverlayManifest.read(manifest(x -> {
            aperture(x).put("bar", 4);
            x.remove("board");
        })).aperture().orElseThrow().bar(), "without a board.csr section any BAR will do");
    }
}
