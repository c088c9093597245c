// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.overlay.OverlayModel;
import org.direkt.overlay.Templates;
import org.direkt.runtime.ffi.ClBuffer;
import org.direkt.runtime.ffi.ClContext;
import org.direkt.runtime.ffi.ClKernel;
import org.direkt.runtime.ffi.ClProgram;
import org.direkt.runtime.sim.Direction;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bring-up kernel ({@code examples/kernels/direkt_bringup.cl}) on PoCL, in the overlay header's
 * emulation mode: it writes exactly the descriptors {@link BringupPlan} lists, in its order, and
 * hands back every status it read, for each ID and status mode.
 */
class BringupKernelTest {

    @TempDir
    Path tmp;

    static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("examples/kernels/direkt_bringup.cl"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "examples/kernels/direkt_bringup.cl is not above " + Path.of("").toAbsolutePath());
        return p;
    }

    private Path header(Bridge.Params p) throws Exception {
        Module top = new Bridge().elaborate(p);
        List<String> files = VerilogEmitter.emit(top).keySet().stream().sorted().map(n -> n + ".v").toList();
        Map<String, Object> bsp = new LinkedHashMap<>();
        bsp.put("board", "test");
        Path include = Files.createDirectories(tmp.resolve("include"));
        Files.writeString(include.resolve("direkt_dma.h"), Templates.render("direkt_dma.h.vm", OverlayModel.of(p, top, files, bsp)));
        return include;
    }

    static Bridge.Params params(String config) {
        return switch (config) {
            case "default" -> Bridge.Params.defaults();
            case "paper" -> Bridge.Params.paper().toBuilder().bringup(true).build();
            case "paper_ids_tagged" -> Bridge.Params.defaults().toBuilder().idMode(BridgeModes.IdMode.PAPER).build();
            case "cycles" -> Bridge.Params.defaults().toBuilder().statusMode(BridgeModes.StatusMode.CYCLES).build();
            default -> throw new IllegalArgumentException(config);
        };
    }

    static BridgeConfig config(Bridge.Params p) {
        Map<String, Integer> regs = new LinkedHashMap<>();
        for (Layout.CsrReg r : Layout.csrMap(p.windowEntries(), p.counters(), p.bringup())) {
            regs.put(r.name(), r.offset());
        }
        return new BridgeConfig(Path.of("direkt-overlay.json"), p.spec(), BridgeParam.overDefault(p), regs);
    }

    private static byte[] longs(long... v) {
        ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long x : v) {
            b.putLong(x);
        }
        return b.array();
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "paper", "paper_ids_tagged", "cycles"})
    void theKernelWritesThePlansDescriptorsAndHandsBackItsStatuses(String name) throws Exception {
        Bridge.Params p = params(name);
        BringupPlan plan = BringupPlan.of(config(p), new BringupTarget.Buffers(0x38_0012_3400L, 1 << 16, 0x1000, 1 << 20));
        BringupPlan.KernelArgs a = plan.kernelArgs();
        int n = BringupPlan.PER_DIRECTION;
        int descBytes = Layout.CLDESC.bits() / 8;
        String source = Files.readString(repo().resolve("examples/kernels/direkt_bringup.cl"));
        long[] rdStatus = {0x11, 0x12, 0x13, 0x14};
        long[] wrStatus = {0x21, 0x22, 0x23, 0x24};
        try (ClContext cl = ClContext.open("Portable Computing Language");
                ClProgram prog = cl.build(source, "-I " + header(p) + " -DDIREKT_EMULATION -DDIREKT_EMU_SLOTS=" + n + "U");
                ClKernel k = prog.kernel("direkt_bringup");
                ClBuffer out = cl.buffer(8L * 2 * n);
                ClBuffer rdDesc = cl.buffer((long) descBytes * n);
                ClBuffer rdSt = cl.buffer(8L * n);
                ClBuffer wrDesc = cl.buffer((long) descBytes * n);
                ClBuffer wrSt = cl.buffer(8L * n)) {
            cl.write(rdSt, longs(rdStatus));
            cl.write(wrSt, longs(wrStatus));
            k.argULong(0, a.gpuPaddr()).argULong(1, a.fpgaAddr()).argUInt(2, a.bytes()).argUInt(3, a.tagBase())
                    .argBuffer(4, out).argBuffer(5, rdDesc).argBuffer(6, rdSt).argBuffer(7, wrDesc).argBuffer(8, wrSt);
            cl.run(k, 1);
            byte[] got = new byte[8 * 2 * n];
            cl.read(out, got);
            ByteBuffer g = ByteBuffer.wrap(got).order(ByteOrder.LITTLE_ENDIAN);
            for (long want : rdStatus) {
                assertEquals(want, g.getLong(), "the kernel hands back the rd statuses in order");
            }
            for (long want : wrStatus) {
                assertEquals(want, g.getLong(), "the kernel hands back the wr statuses in order");
            }
            for (Direction d : Direction.values()) {
                byte[] desc = new byte[descBytes * n];
                cl.read(d == Direction.RD ? rdDesc : wrDesc, desc);
                ByteBuffer b = ByteBuffer.wrap(desc).order(ByteOrder.LITTLE_ENDIAN);
                for (BringupPlan.Probe probe : plan.probes(d)) {
                    long[] words = new long[Layout.CLDESC_WORDS];
                    for (int i = 0; i < words.length; i++) {
                        words[i] = Integer.toUnsignedLong(b.getInt());
                    }
                    assertArrayEquals(probe.words(), words, name + ": " + probe.describe());
                }
            }
        }
    }
}
