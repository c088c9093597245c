// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.direkt.hdl.DirektVersion;
import org.junit.jupiter.api.Test;

/** The FuseSoC cores direkt writes beside its Verilog (make fusesoc-check runs them with FuseSoC itself). */
class FuseSocCoreTest {

    @Test
    void aCoreNamesItsTopItsFilesAndBothTargets() {
        String core = FuseSocCore.core("direkt_x", List.of("direkt_x_sub.v", "direkt_x.v", "direkt_a.v"), "an example");
        List<String> lines = core.lines().toList();
        assertEquals("CAPI=2:", lines.get(0), "FuseSoC reads the first line as the format");
        assertTrue(lines.contains("name: direkt:ip:direkt_x:" + FuseSocCore.version()), core);
        int files = lines.indexOf("    files:");
        assertEquals(List.of("      - direkt_a.v", "      - direkt_x.v", "      - direkt_x_sub.v"), lines.subList(files + 1, files + 4),
                "every file, sorted");
        assertTrue(lines.contains("    toplevel: direkt_x"), core);
        assertTrue(core.contains("  lint:\n    <<: *default\n"), core);
        assertTrue(core.contains("      tool: verilator\n      verilator_options: [-Wall]\n"), core);
        assertTrue(core.contains("  sim:\n    <<: *default\n"), core);
        assertTrue(core.contains("      tool: icarus\n"), core);
        assertTrue(lines.get(1).equals("# SPDX-License-Identifier: 0BSD"), "generated output carries its licence");
    }

    @Test
    void theVersionIsTheReleaseNumbers() {
        String v = FuseSocCore.version();
        assertTrue(v.matches("\\d+(\\.\\d+)*"), v);
        assertTrue(DirektVersion.get().startsWith(v), v + " from " + DirektVersion.get());
    }

    @Test
    void refusesACoreWithoutItsTopOrWithABrokenDescription() {
        assertThrows(IllegalArgumentException.class, () -> FuseSocCore.core("direkt_x", List.of("direkt_y.v"), "x"));
        assertThrows(IllegalArgumentException.class, () -> FuseSocCore.core("direkt_x", List.of("direkt_x.v"), "two\nlines"));
        assertThrows(IllegalArgumentException.class, () -> FuseSocCore.core("direkt_x", List.of("direkt_x.v"), "a \"quote\""));
    }
}
