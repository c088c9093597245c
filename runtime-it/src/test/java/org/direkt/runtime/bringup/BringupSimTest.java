// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import org.direkt.overlay.cli.Main;
import org.direkt.runtime.bringup.BringupReport.Verdict;
import org.direkt.runtime.cli.DirektRun;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.SimulatedBridge;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code direkt-run bringup} on the simulated back end (tag {@code sim}: the bridge's cocotb
 * simulation, the default build the other replay tests share): the example board's overlay as it
 * is passes every check, and each injected wrong setting is named, by the check it concerns, with
 * the setting to change, while the checks it does not concern stay OK.
 */
@Tag("sim")
class BringupSimTest {

    @TempDir
    static Path tmp;

    static Path overlay;

    @BeforeAll
    static void overlayTheExampleBoard() {
        overlay = tmp.resolve("overlay");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"overlay", "--bsp", BringupKernelTest.repo().resolve("examples/bsp/direkt_ref").toString(),
                "--out", overlay.toString()}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(0, rc, err.toString());
    }

    @Test
    void asConfiguredEveryCheckIsOk() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        DirektRun.ExitCode code = DirektRun.run(new String[] {"bringup", "--overlay", overlay.toString()},
                new PrintWriter(out), new PrintWriter(err));
        String text = out.toString();
        assertEquals(DirektRun.ExitCode.OK, code, text + err);
        for (String check : List.of("bitstream", "word order", "kernel status", "mover status")) {
            assertTrue(text.lines().anyMatch(l -> l.startsWith(String.format("%-15s%-13s", check, "OK"))), check + ":\n" + text);
        }
        assertTrue(text.contains("as word_order=x0_low says"), text);
        assertTrue(text.contains("6 completed, 2 RESERVED"), "the reversed descriptors are rejected:\n" + text);
        for (String d : List.of("rd", "wr")) {
            assertTrue(text.lines().anyMatch(l -> l.startsWith(String.format("%-15s%-13s", "latency " + d, "MEASURED"))
                    && l.contains("3 descriptors of 256 bytes")), text);
        }
        assertTrue(text.endsWith("result: every check OK\n"), text);
    }

    @ParameterizedTest
    @EnumSource(Injection.class)
    void eachInjectedWrongSettingIsNamed(Injection injection) throws Exception {
        BringupReport r = Bringup.simulated(BridgeConfig.read(overlay), EnumSet.of(injection), SimulatedBridge.locate());
        String text = r.render();
        System.out.print(text);
        assertTrue(text.contains("injected wrong setting: " + injection.key() + ": "), text);
        Map<String, Verdict> want = switch (injection) {
            // The bridge and the host follow the overlay (x0_low), the toolchain does not: only the word order is wrong.
            case WORD_ORDER -> Map.of(BringupReport.BITSTREAM, Verdict.OK, BringupReport.WORD_ORDER, Verdict.MISMATCH,
                    BringupReport.KERNEL_STATUS, Verdict.OK, BringupReport.MOVER_STATUS, Verdict.OK);
            // The overlay says cycles, the bitstream is tagged: CONFIG and the statuses both say so.
            case STATUS_MODE -> Map.of(BringupReport.BITSTREAM, Verdict.MISMATCH, BringupReport.WORD_ORDER, Verdict.OK,
                    BringupReport.KERNEL_STATUS, Verdict.MISMATCH, BringupReport.MOVER_STATUS, Verdict.OK);
        };
        want.forEach((check, verdict) -> assertEquals(verdict, r.check(check).verdict(), check + ":\n" + text));
        switch (injection) {
            case WORD_ORDER -> {
                BringupReport.Check c = r.check(BringupReport.WORD_ORDER);
                assertTrue(c.finding().contains("x0 at channel bits [255:224] (LAST_DESC_7)"), text);
                assertTrue(c.finding().contains("the overlay says x0_low"), text);
                assertTrue(c.change().startsWith("word_order=x0_high: regenerate the overlay"), text);
                // The bridge rejects what it reads reversed and completes the one written reversed.
                assertTrue(r.check(BringupReport.KERNEL_STATUS).finding().endsWith("2 completed, 6 RESERVED"), text);
                for (Direction d : Direction.values()) {
                    assertEquals(1, r.latency(d).dmaCycles().size(), text);
                }
            }
            case STATUS_MODE -> {
                assertTrue(r.check(BringupReport.BITSTREAM).finding().contains("status_mode: bitstream tagged, overlay cycles"), text);
                assertTrue(r.check(BringupReport.KERNEL_STATUS).finding().contains("do not decode as status_mode=cycles says"), text);
                assertTrue(r.check(BringupReport.KERNEL_STATUS).change().startsWith("status_mode=tagged: "), text);
                for (Direction d : Direction.values()) {
                    assertEquals(3, r.latency(d).dmaCycles().size(), text);
                }
            }
        }
        for (Direction d : Direction.values()) {
            assertTrue(r.latency(d).minDmaCycles() > 0 && r.latency(d).maxDmaCycles() < 1000, text);
        }
        assertTrue(!r.allOk());
    }
}
