// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.overlay.cli.Main;
import org.direkt.runtime.bringup.BringupReport.Verdict;
import org.direkt.runtime.sim.Direction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bring-up's decisions without a simulator: the overlay's manifest read back, the plan's
 * descriptors, and the analysis of what a bridge shows, against a model of the bridge's answers
 * (the statuses its first checks give, LAST_DESC as the channel word, LAST_MOVER_STATUS as the
 * last completion) for mis-configurations the simulated back end does not inject. BringupSimTest
 * runs the real bridge.
 */
class BringupTest {

    @TempDir
    Path tmp;

    static final BringupTarget.Buffers BUFFERS = new BringupTarget.Buffers(0x38_0000_0000L, 1 << 16, 0x1000, 1 << 20);

    /** What a bridge built with {@code hw} shows when the kernel's channel carries x0 {@code channel}; its mover's status word from {@code mover}. */
    static BringupTarget.Observation model(BringupPlan plan, Bridge.Params hw, BridgeModes.WordOrder channel, MoverWord mover) {
        boolean cycles = hw.statusMode() == BridgeModes.StatusMode.CYCLES;
        boolean paper = hw.idMode() == BridgeModes.IdMode.PAPER;
        List<Long> statuses = new ArrayList<>();
        List<Long> kernel = new ArrayList<>();
        Map<String, Long> regs = new LinkedHashMap<>();
        int nextId = Layout.KERNEL_ID_FIRST;
        for (BringupPlan.Probe p : plan.probes()) {
            long[] onChannel = channel == BridgeModes.WordOrder.X0_LOW ? p.words() : BringupPlan.reversed(p.words());
            long[] view = hw.wordOrder() == BridgeModes.WordOrder.X0_LOW ? onChannel : BringupPlan.reversed(onChannel);
            Layout.Error e = Bringup.expected(view, cycles, paper);
            long elapsed = e == Layout.Error.OK ? 14 : 2;
            BigInteger s = cycles
                    ? Layout.KERNEL_STATUS_CYCLES.pack(Map.of("cycles", elapsed, "failed", e == Layout.Error.OK ? 0L : 0xFFFF_FFFFL))
                    : Layout.KERNEL_STATUS_TAGGED.pack(Map.of("tag", view[5], "error", (long) e.code(), "elapsed", elapsed));
            statuses.add(s.longValue());
            kernel.add(e == Layout.Error.OK ? 22L : 9L);
            for (int i = 0; i < onChannel.length; i++) {
                regs.put(BringupPlan.lastDesc(p.direction()).get(i), onChannel[i]);
            }
            if (e == Layout.Error.OK) {
                int id = paper ? p.id() : nextId++;
                regs.put(BringupPlan.lastMoverStatus(p.direction()), mover.of(id));
            }
        }
        regs.putIfAbsent(BringupPlan.lastMoverStatus(Direction.RD), 0L);
        regs.putIfAbsent(BringupPlan.lastMoverStatus(Direction.WR), 0L);
        regs.put("MAGIC", Layout.CSR_MAGIC);
        regs.put("VERSION", (long) Layout.VERSION);
        regs.put("CONFIG", Layout.CSR_CONFIG.pack(Map.of("window_entries", hw.windowEntries(), "inflight", hw.inflight(),
                "paper_ids", paper ? 1 : 0, "cycles_status", cycles ? 1 : 0, "x0_high", hw.wordOrder() == BridgeModes.WordOrder.X0_HIGH ? 1 : 0,
                "sync_stages", hw.syncStages(), "counters", hw.counters() ? 1 : 0, "bringup", hw.bringup() ? 1 : 0)).longValueExact());
        return new BringupTarget.Observation(statuses, regs, kernel, 4000);
    }

    /** The hard IP's status word for a completed descriptor with ID {@code id}. */
    interface MoverWord {
        long of(int id);
    }

    static final MoverWord LAYOUT = id -> Layout.MOVER_STATUS.pack(Map.of("id", id, "completed", 1)).longValueExact();

    static BringupReport analyse(Bridge.Params believed, Bridge.Params hw, BridgeModes.WordOrder channel, MoverWord mover) {
        BringupPlan plan = BringupPlan.of(BringupKernelTest.config(believed), BUFFERS);
        return Bringup.analyse(plan, model(plan, hw, channel, mover), "model", List.of());
    }

    static void assertVerdicts(BringupReport r, Verdict bitstream, Verdict wordOrder, Verdict kernelStatus, Verdict moverStatus) {
        String text = r.render();
        assertEquals(bitstream, r.check(BringupReport.BITSTREAM).verdict(), text);
        assertEquals(wordOrder, r.check(BringupReport.WORD_ORDER).verdict(), text);
        assertEquals(kernelStatus, r.check(BringupReport.KERNEL_STATUS).verdict(), text);
        assertEquals(moverStatus, r.check(BringupReport.MOVER_STATUS).verdict(), text);
    }

    @Test
    void aBridgeAsConfiguredPassesEveryCheck() {
        for (String name : List.of("default", "paper", "paper_ids_tagged", "cycles")) {
            Bridge.Params p = BringupKernelTest.params(name);
            for (BridgeModes.WordOrder o : BridgeModes.WordOrder.values()) {
                Bridge.Params q = p.toBuilder().wordOrder(o).build();
                BringupReport r = analyse(q, q, o, LAYOUT);
                assertTrue(r.allOk(), name + ", " + o + ":\n" + r.render());
                for (Direction d : Direction.values()) {
                    assertEquals(List.of(14L, 14L, 14L), r.latency(d).dmaCycles(), r.render());
                }
                assertTrue(r.render().contains("latency rd     MEASURED     14 dma_clk cycles from admission to completion (56 ns at 250 MHz), "
                        + "3 descriptors of 256 bytes; 22 kernel_clk cycles"), r.render());
            }
        }
    }

    /**
     * A target's limits: a board's own parts keep the bridge's counts and list what the run leaves
     * open; stand-ins are named, their counts are no latency, and the list is what only a board settles.
     */
    @Test
    void theTargetsLimitsDecideWhatTheReportClaims() {
        BringupReport r = analyse(Bridge.Params.defaults(), Bridge.Params.defaults(), BridgeModes.WordOrder.X0_LOW, LAYOUT);
        String board = r.within(new BringupTarget.Limits(List.of(), List.of("the moved bytes: none compared"), "")).render();
        assertTrue(board.contains("latency rd     MEASURED     14 dma_clk cycles"), board);
        assertTrue(board.endsWith("result: every check OK\nleft open by this run:\n  - the moved bytes: none compared\n"), board);
        assertFalse(board.contains("stand-in"), board);

        BringupReport s = r.within(new BringupTarget.Limits(List.of("the bridge (a stand-in)"), List.of("word order: aoc's"),
                "its counts are not timings"));
        String text = s.render();
        assertTrue(text.contains("\n  stand-ins, not a board: the bridge (a stand-in)\n"), text);
        for (Direction d : Direction.values()) {
            assertFalse(s.latency(d).measured(), text);
        }
        assertTrue(text.contains("latency wr     NOT MEASURED not measured: its counts are not timings\n"), text);
        assertFalse(text.contains("dma_clk"), text);
        assertTrue(text.endsWith("only a board can settle (this run had stand-ins for it):\n  - word order: aoc's\n"), text);
        assertTrue(s.allOk(), "the checks stand as they are");
    }

    @Test
    void aChannelInTheOtherWordOrderIsNamedWithEitherOverlayOrder() {
        for (BridgeModes.WordOrder o : BridgeModes.WordOrder.values()) {
            Bridge.Params p = Bridge.Params.defaults().toBuilder().wordOrder(o).build();
            BridgeModes.WordOrder channel = o == BridgeModes.WordOrder.X0_LOW ? BridgeModes.WordOrder.X0_HIGH : BridgeModes.WordOrder.X0_LOW;
            BringupReport r = analyse(p, p, channel, LAYOUT);
            assertVerdicts(r, Verdict.OK, Verdict.MISMATCH, Verdict.OK, Verdict.OK);
            String want = channel.name().toLowerCase(java.util.Locale.ROOT);
            assertTrue(r.check(BringupReport.WORD_ORDER).change().startsWith("word_order=" + want + ": regenerate the overlay"),
                    r.render());
            // Only the reversed descriptor reaches the mover: one latency per direction.
            assertEquals(1, r.latency(Direction.RD).dmaCycles().size(), r.render());
        }
    }

    @Test
    void aCyclesBridgeUnderATaggedOverlayIsNamed() {
        // The reverse of the simulated injection: the bitstream returns cycles statuses, the overlay says tagged.
        Bridge.Params hw = BringupKernelTest.params("paper");
        Bridge.Params believed = hw.toBuilder().statusMode(BridgeModes.StatusMode.TAGGED).build();
        BringupReport r = analyse(believed, hw, hw.wordOrder(), LAYOUT);
        assertVerdicts(r, Verdict.MISMATCH, Verdict.OK, Verdict.MISMATCH, Verdict.OK);
        assertTrue(r.check(BringupReport.KERNEL_STATUS).change().startsWith("status_mode=cycles: "), r.render());
        assertTrue(r.check(BringupReport.BITSTREAM).finding().contains("status_mode: bitstream cycles, overlay tagged"), r.render());
        // Tagged descriptors are RESERVED to a cycles bridge: only the tag-0 one completes.
        assertEquals(List.of(14L), r.latency(Direction.WR).dmaCycles(), r.render());
    }

    @Test
    void bothWrongAtOnceAreBothNamed() {
        Bridge.Params hw = Bridge.Params.defaults();
        Bridge.Params believed = hw.toBuilder().statusMode(BridgeModes.StatusMode.CYCLES).build();
        BringupReport r = analyse(believed, hw, BridgeModes.WordOrder.X0_HIGH, LAYOUT);
        assertVerdicts(r, Verdict.MISMATCH, Verdict.MISMATCH, Verdict.MISMATCH, Verdict.OK);
        assertTrue(r.check(BringupReport.WORD_ORDER).change().startsWith("word_order=x0_high"), r.render());
        assertTrue(r.check(BringupReport.KERNEL_STATUS).change().startsWith("status_mode=tagged"), r.render());
    }

    @Test
    void aChannelInNeitherOrderStopsTheChecksThatNeedIt() {
        Bridge.Params p = Bridge.Params.defaults();
        BringupPlan plan = BringupPlan.of(BringupKernelTest.config(p), BUFFERS);
        BringupTarget.Observation good = model(plan, p, BridgeModes.WordOrder.X0_LOW, LAYOUT);
        Map<String, Long> regs = new LinkedHashMap<>(good.registers());
        for (String r : BringupPlan.lastDesc(Direction.WR)) {
            regs.put(r, Long.reverseBytes(regs.get(r)) >>> 32);  // each word byte-swapped
        }
        BringupReport r = Bringup.analyse(plan, new BringupTarget.Observation(good.statuses(), regs, good.kernelCycles(), 0),
                "model", List.of());
        assertVerdicts(r, Verdict.OK, Verdict.MISMATCH, Verdict.NOT_CHECKED, Verdict.NOT_CHECKED);
        String f = r.check(BringupReport.WORD_ORDER).finding();
        assertTrue(f.startsWith("wr: LAST_DESC holds the last descriptor in neither word order (x0 0x"), f);
        assertTrue(f.contains("not found"), f);
        assertFalse(r.latency(Direction.RD).measured());
        assertTrue(r.render().contains("NOT MEASURED"), r.render());

        for (String reg : BringupPlan.lastDesc(Direction.RD)) {
            regs.put(reg, 0L);
        }
        r = Bringup.analyse(plan, new BringupTarget.Observation(good.statuses(), regs, good.kernelCycles(), 0), "model", List.of());
        assertTrue(r.check(BringupReport.WORD_ORDER).finding().startsWith("rd: LAST_DESC reads 0: no descriptor reached"), r.render());
    }

    @Test
    void aMoverStatusInAnotherFormatIsNamed() {
        // A hard IP that reports completion in bit 9 instead of bit 8: the bridge's statuses still flow.
        MoverWord other = id -> id | 1L << 9;
        BringupReport r = analyse(Bridge.Params.defaults(), Bridge.Params.defaults(), BridgeModes.WordOrder.X0_LOW, other);
        assertVerdicts(r, Verdict.OK, Verdict.OK, Verdict.OK, Verdict.MISMATCH);
        assertTrue(r.check(BringupReport.MOVER_STATUS).finding().contains("completed 0"), r.render());
        assertTrue(r.check(BringupReport.MOVER_STATUS).change().contains("Layout.MOVER_STATUS"), r.render());
    }

    @Test
    void registersThatAreNotABridgesStopEverything() {
        Bridge.Params p = Bridge.Params.defaults();
        BringupPlan plan = BringupPlan.of(BringupKernelTest.config(p), BUFFERS);
        BringupTarget.Observation good = model(plan, p, BridgeModes.WordOrder.X0_LOW, LAYOUT);
        Map<String, Long> regs = new LinkedHashMap<>(good.registers());
        regs.put("MAGIC", 0xFFFF_FFFFL);
        BringupReport r = Bringup.analyse(plan, new BringupTarget.Observation(good.statuses(), regs, good.kernelCycles(), 0),
                "model", List.of());
        assertVerdicts(r, Verdict.MISMATCH, Verdict.NOT_CHECKED, Verdict.NOT_CHECKED, Verdict.NOT_CHECKED);
        assertTrue(r.check(BringupReport.BITSTREAM).finding().startsWith("MAGIC reads 0xffffffff"), r.render());

        // A bitstream without bring-up registers: named in CONFIG, nothing decided from their zeros.
        Bridge.Params without = p.toBuilder().bringup(false).build();
        r = Bringup.analyse(plan, model(plan, without, BridgeModes.WordOrder.X0_LOW, LAYOUT), "model", List.of());
        assertVerdicts(r, Verdict.MISMATCH, Verdict.NOT_CHECKED, Verdict.NOT_CHECKED, Verdict.NOT_CHECKED);
        assertTrue(r.check(BringupReport.BITSTREAM).finding().contains("bringup: bitstream false, overlay true"), r.render());
    }

    @Test
    void theOverlaysManifestReadsBackAsItsParameters() throws Exception {
        Path repo = BringupKernelTest.repo();
        String bsp = repo.resolve("examples/bsp/direkt_ref").toString();
        for (String preset : List.of("default", "paper")) {
            Path out = tmp.resolve(preset);
            StringWriter err = new StringWriter();
            int rc = Main.run(new String[] {"overlay", "--bsp", bsp, "--preset", preset, "--out", out.toString()},
                    new PrintWriter(new StringWriter()), new PrintWriter(err));
            assertEquals(0, rc, err.toString());
            BridgeConfig c = BridgeConfig.read(out);
            Bridge.Params built = Bridge.Params.PRESETS.get(preset).get();
            assertEquals(built.spec(), c.params(), preset);
            assertEquals(BridgeParam.overDefault(built), c.generatorParams(), preset);
            if (preset.equals("paper")) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BringupPlan.of(c, BUFFERS));
                assertTrue(e.getMessage().contains("no bring-up registers (bringup=false)"), e.getMessage());
            } else {
                assertEquals(Layout.CSR_LAST_DESC_OFFSET, c.offset("RD_LAST_DESC_0"));
            }
        }
    }

    @Test
    void badManifestsAreRefusedWithTheReason() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BridgeConfig.read(tmp));
        assertTrue(e.getMessage().contains("no direkt-overlay.json (run `direkt overlay` first)"), e.getMessage());
        Path f = tmp.resolve("direkt-overlay.json");
        Files.writeString(f, "{\"format\": ");
        e = assertThrows(IllegalArgumentException.class, () -> BridgeConfig.read(tmp));
        assertTrue(e.getMessage().contains("not a JSON manifest"), e.getMessage());
        Files.writeString(f, "{\"format\": \"direkt-overlay\", \"layout\": {\"version\": 1}}");
        e = assertThrows(IllegalArgumentException.class, () -> BridgeConfig.read(tmp));
        assertTrue(e.getMessage().contains("layout version 1, this runtime speaks " + Layout.VERSION), e.getMessage());
        Files.writeString(f, "{\"format\": \"direkt-overlay\", \"layout\": {\"version\": " + Layout.VERSION
                + "}, \"bridge\": {\"inflight\": 16}}");
        e = assertThrows(IllegalArgumentException.class, () -> BridgeConfig.read(tmp));
        assertTrue(e.getMessage().contains("bridge.id_mode is missing"), e.getMessage());
    }

    @Test
    void buffersThePlanCannotUseAreRefused() {
        BridgeConfig c = BringupKernelTest.config(Bridge.Params.defaults().toBuilder().fpgaMemBytes(4096).build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BringupPlan.of(c, new BringupTarget.Buffers(BUFFERS.gpuBus(), BUFFERS.gpuBytes(), 0xF00, 0x1000)));
        assertTrue(e.getMessage().contains("inside the bridge's 4096 bytes of FPGA memory"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> BringupPlan.of(c, new BringupTarget.Buffers(0, BUFFERS.gpuBytes(), 0x100, 0x400)));
        assertTrue(e.getMessage().contains("non-zero"), e.getMessage());
        BringupPlan p = BringupPlan.of(c, new BringupTarget.Buffers(0x38_000F_FF00L, 4096, 0x100, 0x400));
        assertEquals(21, p.window().log2(), "the probed GPU bytes cross a 1 MB boundary: a 2 MB window holds them");
    }
}
