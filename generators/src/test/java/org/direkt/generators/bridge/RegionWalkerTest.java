// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes.Direction;
import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Catalog;
import org.direkt.hdl.Module;
import org.direkt.hdl.Signal;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

class RegionWalkerTest {

    @Test
    void portsFollowTheLayout() {
        Module top = new RegionWalker().elaborate(RegionWalker.Params.of(Direction.RD));
        assertEquals(List.of(), top.warnings());
        assertEquals(Layout.REGION_REQ.bits(), top.port("req_data").width());
        assertEquals(Signal.Kind.INPUT, top.port("req_valid").kind());
        assertEquals(Layout.KERNEL_STATUS_TAGGED.bits(), top.port("st_data").width());
        assertEquals(10, top.port("pt_addr").width(), "1024 pages");
        assertEquals(Layout.PAGE_ENTRY.bits(), top.port("pt_data").width());
        assertEquals(Layout.REGION_ENTRY.bits(), top.port("rg_data").width());
        assertEquals(Layout.MOVER_DESC.bits(), top.port("dma_desc_data").width());
        assertEquals(Layout.MOVER_STATUS.bits(), top.port("dma_status_data").width());
    }

    @Test
    void emittedTwiceIsTheSameText() {
        RegionWalker.Params p = RegionWalker.Params.of(Direction.WR);
        assertEquals(VerilogEmitter.emit(new RegionWalker().elaborate(p)), VerilogEmitter.emit(new RegionWalker().elaborate(p)));
    }

    @Test
    void impossibleParametersAreRefusedByName() {
        RegionWalker.Params d = RegionWalker.Params.of(Direction.RD);
        Map<String, Runnable> bad = Map.of(
                "entries", () -> new RegionWalker.Params(Direction.RD, 3000, 16, 16, 4, 8, 192, d.fpgaMemBytes()),
                "regions", () -> new RegionWalker.Params(Direction.RD, 4096, 0, 16, 4, 8, 192, d.fpgaMemBytes()),
                "statusDepth", () -> new RegionWalker.Params(Direction.RD, 4096, 16, 16, 8, 4, 192, d.fpgaMemBytes()),
                "idBase", () -> new RegionWalker.Params(Direction.RD, 4096, 16, 16, 4, 8, 250, d.fpgaMemBytes()),
                "pieces", () -> new RegionWalker.Params(Direction.RD, 4096, 16, 65, 4, 8, 128, d.fpgaMemBytes()));
        bad.forEach((name, make) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::run, name);
            assertTrue(e.getMessage().contains(name), name + ": " + e.getMessage());
        });
    }

    @Test
    void catalogEntryTakesItsParametersAndWritesItsDescription() {
        Module m = Catalog.build("region_walker", Map.of("direction", "wr", "entries", "1024", "pieces", "4"));
        assertTrue(m.name().startsWith("direkt_region_walker_wr_e1024_r16_p4_"), m.name());
        String json = Catalog.extraFiles("region_walker", Map.of("direction", "wr")).get(RegionWalker.DESCRIPTION_FILE);
        for (String s : List.of("\"format\": \"direkt-region-walker\"", "\"region_req\"", "\"REGION_RANGE\"", "\"page_bytes\": 65536")) {
            assertTrue(json.contains(s), s + " in " + json);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Catalog.build("region_walker", Map.of("entrys", "1024")));
        assertTrue(e.getMessage().contains("entrys"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Catalog.build("region_walker", Map.of("fpga_mem_bytes", "8G")));
        assertTrue(e.getMessage().contains("fpga_mem_bytes"), e.getMessage());
    }

    @Test
    void aPieceNeverExceedsTheMoversLimit() {
        assertTrue((long) RegionWalker.MAX_PAGES_PER_PIECE * RegionWalker.PAGE / 4 <= Layout.MAX_DWORDS);
    }
}
