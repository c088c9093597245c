// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.overlay.OverlayModel;
import org.direkt.overlay.Templates;
import org.direkt.runtime.ffi.ClContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OpenCL back end on PoCL, in the header's emulation mode: for 1,000 random (address, size,
 * tag) cases in each direction the kernel the runtime launches builds exactly the descriptor the
 * Java Layout packs.
 */
class OpenClIssuerTest {

    @TempDir
    Path tmp;

    private Path header(Bridge.Params p) throws Exception {
        Module top = new Bridge().elaborate(p);
        List<String> files = VerilogEmitter.emit(top).keySet().stream().sorted().map(n -> n + ".v").toList();
        Map<String, Object> bsp = new LinkedHashMap<>();
        bsp.put("board", "test");
        String h = Templates.render("direkt_dma.h.vm", OverlayModel.of(p, top, files, bsp));
        Path include = Files.createDirectories(tmp.resolve("include"));
        Files.writeString(include.resolve("direkt_dma.h"), h);
        return include;
    }

    /** What the Layout says the kernel must build for this request. */
    static BigInteger expected(OpenClIssuer.Request r, Bridge.Params p) {
        long src = r.toFpga() ? r.gpuPaddr() : r.fpgaAddr();
        long dst = r.toFpga() ? r.fpgaAddr() : r.gpuPaddr();
        Map<String, Number> f = new LinkedHashMap<>();
        f.put("src_lo", src & 0xFFFF_FFFFL);
        f.put("src_hi", src >>> 32);
        f.put("dst_lo", dst & 0xFFFF_FFFFL);
        f.put("dst_hi", dst >>> 32);
        f.put("dwords", Integer.toUnsignedLong(r.bytes()) >>> 2);
        if (p.idMode() == BridgeModes.IdMode.PAPER) {
            f.put("id", r.id());
        }
        if (p.statusMode() == BridgeModes.StatusMode.TAGGED) {
            f.put("tag", Integer.toUnsignedLong(r.tag()));
        }
        return Layout.CLDESC.pack(f);
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "paper"})
    void descriptorsBuiltOnPoclAreBitExactWithTheLayout(String preset) throws Exception {
        Bridge.Params p = preset.equals("paper") ? Bridge.Params.paper() : Bridge.Params.defaults();
        long seed = 0xD1EC7L + preset.hashCode();
        Random rnd = new Random(seed);
        List<OpenClIssuer.Request> reqs = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            boolean toFpga = i % 2 == 0; // 1,000 per direction
            long gpu = rnd.nextLong() & ~3L;
            long fpga = (rnd.nextLong() >>> rnd.nextInt(40)) & ~3L;
            int bytes = 4 * (1 + rnd.nextInt(Layout.MAX_DWORDS));
            reqs.add(new OpenClIssuer.Request(toFpga, gpu, fpga, bytes, rnd.nextInt(), 128 + rnd.nextInt(128)));
        }
        // Edges: the smallest and largest lengths, addresses at both ends of the 64-bit range.
        reqs.add(new OpenClIssuer.Request(true, 0xFFFF_FFFF_FFFF_FFFCL, 0, 4, -1, 255));
        reqs.add(new OpenClIssuer.Request(false, 0, 0xFFFF_FFFF_FFFF_FFFCL, Layout.MAX_DWORDS * 4, 0, 128));
        try (ClContext cl = ClContext.open("Portable Computing Language");
                OpenClIssuer issuer = new OpenClIssuer(cl, header(p), true)) {
            List<OpenClIssuer.Issued> got = issuer.issue(reqs, 0x1234_5678_9ABC_DEF0L);
            assertEquals(reqs.size(), got.size());
            int checked = 0;
            for (OpenClIssuer.Issued g : got) {
                assertEquals(expected(g.request(), p), g.value(), () -> "seed " + seed + ", request " + g.request());
                assertEquals(0x1234_5678_9ABC_DEF0L, g.status(), "the status the bridge returned reaches the host");
                checked++;
            }
            System.out.printf("OpenClIssuerTest[%s]: %d descriptors built on %s, bit-exact with the Layout (seed %d)%n",
                    preset, checked, cl.platform().name(), seed);
        }
    }
}
