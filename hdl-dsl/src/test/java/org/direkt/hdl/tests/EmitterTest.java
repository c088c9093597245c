// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.hdl.Design;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Module;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.hdl.examples.GrayCrossing;
import org.direkt.hdl.examples.SimpleRam;
import org.direkt.hdl.lib.SkidBuffer;
import org.direkt.hdl.examples.SkidChain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The emitter: golden files (reviewed once, then guarded), determinism, one definition per
 * parameter set, kept hierarchy, locators. Regenerate the golden files with
 * {@code make golden} after an intended change, and read the diff.
 */
class EmitterTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    static Stream<Arguments> designs() {
        return Stream.of(
                Arguments.of("skid_buffer_w8", (Supplier<Module>) () -> new SkidBuffer().elaborate(new SkidBuffer.Params(8))),
                Arguments.of("gray_crossing_w4", (Supplier<Module>) () -> new GrayCrossing().elaborate(new GrayCrossing.Params(4, 2))),
                Arguments.of("skid_chain_w8_n3", (Supplier<Module>) () -> new SkidChain().elaborate(new SkidChain.Params(8, 3))),
                Arguments.of("simple_ram_w8_d16", (Supplier<Module>) () -> new SimpleRam().elaborate(new SimpleRam.Params(8, 16))),
                Arguments.of("ops_w8", (Supplier<Module>) () -> new TestDesigns.AllOps().elaborate(new TestDesigns.AllOps.Params(8))),
                Arguments.of("reset_async_low", (Supplier<Module>) () -> new TestDesigns.ResetStyles().elaborate(new TestDesigns.ResetStyles.Params(true))),
                Arguments.of("reset_sync_high", (Supplier<Module>) () -> new TestDesigns.ResetStyles().elaborate(new TestDesigns.ResetStyles.Params(false))),
                Arguments.of("power_up_w4", (Supplier<Module>) () -> new TestDesigns.PowerUp().elaborate(new TestDesigns.PowerUp.Params(4))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void matchesGoldenFiles(String name, Supplier<Module> design) throws IOException {
        Module top = design.get();
        assertEquals(List.of(), top.warnings(), "example designs must be free of warnings");
        Map<String, String> files = VerilogEmitter.emit(top);
        Path dir = GOLDEN.resolve(name);
        if (Boolean.getBoolean("direkt.updateGolden")) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> old = Files.list(dir)) {
                    for (Path p : old.toList()) {
                        Files.delete(p);
                    }
                }
            }
            VerilogEmitter.writeTo(top, dir);
        }
        try (Stream<Path> listed = Files.list(dir)) {
            List<String> onDisk = listed.map(p -> p.getFileName().toString()).sorted().toList();
            List<String> emitted = files.keySet().stream().map(n -> n + ".v").sorted().toList();
            assertEquals(onDisk, emitted, "golden files of " + name);
        }
        for (Map.Entry<String, String> e : files.entrySet()) {
            String golden = Files.readString(dir.resolve(e.getKey() + ".v"), StandardCharsets.UTF_8);
            assertEquals(golden, e.getValue(), "emitted " + e.getKey() + " differs from " + dir + "; run make golden and review the diff");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("designs")
    void sameDesignTwiceGivesIdenticalBytes(String name, Supplier<Module> design, @TempDir Path tmp) throws IOException {
        List<Path> first = VerilogEmitter.writeTo(design.get(), tmp.resolve("a"));
        List<Path> second = VerilogEmitter.writeTo(design.get(), tmp.resolve("b"));
        assertEquals(first.size(), second.size());
        for (int i = 0; i < first.size(); i++) {
            assertEquals(first.get(i).getFileName(), second.get(i).getFileName());
            assertTrue(java.util.Arrays.equals(Files.readAllBytes(first.get(i)), Files.readAllBytes(second.get(i))),
                    () -> name + ": bytes differ between two emissions");
        }
    }

    @Test
    void identicalParametersGiveOneModuleDefinition() {
        Module chain = new SkidChain().elaborate(new SkidChain.Params(16, 4));
        Map<String, String> files = VerilogEmitter.emit(chain);
        assertEquals(List.of("direkt_skid_buffer_w16", "direkt_skid_chain_w16_n4"), List.copyOf(files.keySet()));
        assertEquals(4, chain.instances().size());
        Module first = chain.instances().getFirst().child();
        for (var inst : chain.instances()) {
            assertSame(first, inst.child(), "every stage shares the one definition");
        }
        String top = files.get("direkt_skid_chain_w16_n4");
        for (int i = 0; i < 4; i++) {
            assertTrue(top.contains("direkt_skid_buffer_w16 u_slice" + i + " ("), "instance u_slice" + i + " keeps its name");
        }
    }

    @Test
    void oneDesignCachesAcrossElaborations() {
        Design d = new Design();
        Module a = d.elaborate(new SkidBuffer(), new SkidBuffer.Params(4));
        Module b = d.elaborate(new SkidBuffer(), new SkidBuffer.Params(4));
        Module c = d.elaborate(new SkidBuffer(), new SkidBuffer.Params(5));
        assertSame(a, b);
        assertEquals("direkt_skid_buffer_w5", c.name());
    }

    /** A generator whose module name ignores its parameter: two definitions would clash. */
    static final class BadName extends Generator<BadName.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "same_name";
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            m.domain(Lambda.MAIN);
            m.output("o", p.width(), Lambda.MAIN).set(m.lit(0, p.width()));
        }
    }

    @Test
    void twoDefinitionsWithOneNameAreRefused() {
        Design d = new Design();
        d.elaborate(new BadName(), new BadName.Params(1));
        ElaborationException e = assertThrows(ElaborationException.class, () -> d.elaborate(new BadName(), new BadName.Params(2)));
        assertTrue(e.getMessage().contains("module name 'same_name' is produced by both"), e.getMessage());
    }

    @Test
    void everyDeclarationAndAlwaysBlockCarriesALocator() {
        Map<String, String> files = VerilogEmitter.emit(new TestDesigns.ResetStyles().elaborate(new TestDesigns.ResetStyles.Params(true)));
        String v = files.values().iterator().next();
        Pattern decl = Pattern.compile("^[ \\t]+(?:\\(\\*.*\\*\\) )?(input|output|reg|wire)\\b.*$", Pattern.MULTILINE);
        Matcher dm = decl.matcher(v);
        int decls = 0;
        while (dm.find()) {
            decls++;
            assertTrue(dm.group().matches(".*// @\\[TestDesigns\\.java:\\d+]$"), "declaration without locator: " + dm.group());
        }
        assertTrue(decls >= 8, "found only " + decls + " declarations");
        String[] lines = v.split("\n");
        int always = 0;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].trim().startsWith("always")) {
                always++;
                assertTrue(lines[i - 1].trim().matches("// @\\[TestDesigns\\.java:\\d+]"), "always block without locator at line " + (i + 1));
            }
        }
        assertEquals(3, always, "acc (register), next and flag (combinational)");
        assertTrue(v.contains("always @(posedge k_clk or negedge k_rst_n) begin"), v);
        assertTrue(v.contains("if (!k_rst_n) begin"), v);
        assertTrue(v.contains("end else if (en) begin"), v);
        assertTrue(v.contains("acc <= 8'd90;"), v);
    }

    @Test
    void synchroniserFlopsAreAttributed() {
        Map<String, String> files = VerilogEmitter.emit(new GrayCrossing().elaborate(new GrayCrossing.Params(5, 3)));
        String sync = files.get("direkt_sync_w5_s3");
        for (int i = 0; i < 3; i++) {
            assertTrue(sync.contains("(* ASYNC_REG = \"TRUE\", altera_attribute = \"-name SYNCHRONIZER_IDENTIFICATION FORCED_IF_ASYNCHRONOUS\" *) reg  [4:0] stage" + i + ";"),
                    sync);
        }
        assertTrue(files.get("direkt_gray_crossing_w5_s3").contains("direkt_sync_w5_s3 u_gray_sync ("));
    }

    /**
     * A slice of a bitwise expression is emitted pushed down to names ({@code a[7:4] ^ b[7:4]});
     * under another operator it must keep its parentheses, or Verilog would read
     * {@code |a[7:4] ^ b[7:4]} as {@code (|a[7:4]) ^ b[7:4]}.
     */
    @Test
    void aPushedDownSliceKeepsItsParenthesesUnderAnotherOperator() {
        Module top = Lambda.build("slice_under_op", m -> {
            var cd = m.domain(Lambda.MAIN);
            var a = m.input("a", 8, cd);
            var b = m.input("b", 8, cd);
            var y = m.output("y", 1, cd);
            var z = m.output("z", 4, cd);
            var d = a.xor(b);
            y.set(d.bits(7, 4).orR().or(d.bits(3, 0).andR()));
            z.set(d.bits(7, 4).and(a.bits(3, 0)));
        });
        String v = VerilogEmitter.emit(top).get("slice_under_op");
        assertTrue(v.contains("assign y = |(a[7:4] ^ b[7:4]) | &(a[3:0] ^ b[3:0]);"), v);
        assertTrue(v.contains("assign z = (a[7:4] ^ b[7:4]) & a[3:0];"), v);
    }
    @Test
    void aDistributedMemoryAsksEveryToolForLutRam() {
        Module top = Lambda.build("lut_ram", m -> {
            var cd = m.domain(Lambda.MAIN);
            var wa = m.input("wa", 7, cd);
            var ra = m.input("ra", 7, cd);
            var d = m.input("d", 8, cd);
            var q = m.output("q", 8, cd);
            var plain = m.input("pa", 7, cd);
            var p = m.output("p", 8, cd);
            var table = m.memory("table_d", 8, 128, cd).distributed();
            table.write(wa, d, m.lit(1, 1));
            q.set(table.readAsync(ra));
            var other = m.memory("table_b", 8, 128, cd);
            other.write(wa, d, m.lit(1, 1));
            p.set(other.readAsync(plain));
        });
        String v = VerilogEmitter.emit(top).get("lut_ram");
        assertTrue(Pattern.compile("\\(\\* ram_style = \"distributed\", ramstyle = \"MLAB\" \\*\\) reg\\s+\\[7:0\\]\\s+table_d \\[0:127\\];")
                .matcher(v).find(), v);
        String plainLine = v.lines().filter(l -> l.contains("table_b [0:127];")).findFirst().orElseThrow();
        assertFalse(plainLine.contains("(*"), "a memory not marked keeps the tools' choice: " + plainLine);
    }

    @Test
    void aMemoryWithoutCollisionsTellsYosysAndQuartusToSkipTheBypass() {
        Module top = Lambda.build("no_rw", m -> {
            var cd = m.domain(Lambda.MAIN);
            var wa = m.input("wa", 10, cd);
            var ra = m.input("ra", 10, cd);
            var d = m.input("d", 16, cd);
            var we = m.input("we", 1, cd);
            var q = m.output("q", 16, cd);
            var r = m.output("r", 16, cd);
            var block = m.memory("pages", 16, 1024, cd).noReadWriteCheck();
            block.write(wa, d, we);
            q.set(block.readSync("page", ra, m.lit(1, 1), cd));
            var lut = m.memory("recent", 16, 16, cd).distributed().noReadWriteCheck();
            lut.write(wa.trunc(4), d, we);
            r.set(lut.readAsync(ra.trunc(4)));
        });
        String v = VerilogEmitter.emit(top).get("no_rw");
        assertTrue(Pattern.compile("\\(\\* no_rw_check, ramstyle = \"no_rw_check\" \\*\\) reg\\s+\\[15:0\\]\\s+pages \\[0:1023\\];")
                .matcher(v).find(), v);
        assertTrue(Pattern.compile("\\(\\* ram_style = \"distributed\", no_rw_check, ramstyle = \"MLAB, no_rw_check\" \\*\\) reg\\s+\\[15:0\\]\\s+recent \\[0:15\\];")
                .matcher(v).find(), v);
    }
}
