// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/** ip/ holds exactly what the generators emit for the reference configurations, a FuseSoC core per top; `make ip` regenerates it. */
class ReferenceIpTest {
    private static final Path IP = Path.of("..", "ip");

    @Test
    void ipDirectoryIsInSyncWithTheGenerators() throws IOException {
        Map<String, String> expected = new TreeMap<>();
        for (Module m : Catalog.referenceIp()) {
            assertEquals(List.of(), m.warnings(), m.name() + " must elaborate without warnings");
            Map<String, String> modules = VerilogEmitter.emit(m);
            modules.forEach((name, text) -> expected.putIfAbsent(name + ".v", text));
            // and its FuseSoC core, naming exactly the top's files (make fusesoc-check runs it)
            expected.put(m.name() + ".core", FuseSocCore.referenceIp(m.name(), modules.keySet().stream().map(n -> n + ".v").toList()));
        }
        Map<String, String> onDisk = new TreeMap<>();
        try (Stream<Path> files = Files.list(IP)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".v") || p.toString().endsWith(".core")).toList()) {
                onDisk.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        assertEquals(expected.keySet(), onDisk.keySet(), "ip/ file list differs from the generators: run make ip");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), onDisk.get(e.getKey()), "ip/" + e.getKey() + " differs from the generator: run make ip");
        }
    }

    @Test
    void referenceSetHoldsEveryConfigurationTheBridgeNeeds() {
        List<String> names = Catalog.referenceIp().stream().map(Module::name).toList();
        for (String n : List.of("direkt_async_fifo_w160_d16_r", "direkt_async_fifo_w256_d16_r", "direkt_async_fifo_w64_d16_r",
                "direkt_sync_fifo_w160_d16", "direkt_arbiter_fixed_n2", "direkt_arbiter_rr_n2", "direkt_arbiter_wrr_n2_3_1",
                "direkt_arbiter_fixed_n3", "direkt_arbiter_rr_n3", "direkt_arbiter_wrr_n3_4_2_1",
                "direkt_rl_adapter_w160_0to1", "direkt_rl_adapter_w160_1to0", "direkt_skid_buffer_w160")) {
            assertTrue(names.contains(n), n + " missing from the reference IP");
        }
    }
}
