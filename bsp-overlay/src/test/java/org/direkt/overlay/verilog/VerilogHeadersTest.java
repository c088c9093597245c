// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class VerilogHeadersTest {

    private static ImportedModule only(String text) {
        List<ImportedModule> modules = VerilogHeaders.parse(text, "t.v");
        assertEquals(1, modules.size());
        return modules.getFirst();
    }

    private static Port port(ImportedModule m, String name) {
        return m.port(name).orElseThrow(() -> new AssertionError("no port " + name));
    }

    private static VerilogSyntaxException malformed(String text) {
        return assertThrows(VerilogSyntaxException.class, () -> VerilogHeaders.parse(text, "bad.v"));
    }

    @Test
    void ansiHeader() {
        ImportedModule m = only("""
                module fifo #(parameter W = 8, parameter integer D = 16) (
                  input  wire         clk,
                  input  wire [W-1:0] a, b,
                  output reg signed [7:0] c,
                  inout  d,
                  output integer n,
                  input signed s
                );
                  assign d = 1'bz;
                endmodule
                """);
        assertEquals("fifo", m.name());
        assertEquals(List.of(new Param("W", "8", 8L), new Param("D", "16", 16L)), m.params());
        assertEquals(List.of("clk", "a", "b", "c", "d", "n", "s"),
                m.ports().stream().map(Port::name).toList());
        assertEquals(new Port("clk", Direction.IN, 1, "", false, 2, 23), port(m, "clk"));
        assertEquals(new Port("a", Direction.IN, 8, "[W-1:0]", false, 3, 23), port(m, "a"));
        assertEquals(new Port("b", Direction.IN, 8, "[W-1:0]", false, 3, 26), port(m, "b"));
        assertEquals(new Port("c", Direction.OUT, 8, "[7:0]", true, 4, 27), port(m, "c"));
        assertEquals(Direction.INOUT, port(m, "d").direction());
        assertEquals(32, port(m, "n").width());
        assertTrue(port(m, "n").signed());
        assertEquals(1, port(m, "s").width());
        assertTrue(port(m, "s").signed());
    }

    @Test
    void nonAnsiHeaderWithBodyDeclarations() {
        ImportedModule m = only("""
                module legacy(a, b, c, q);
                  parameter N = 4;
                  localparam M = N * 2;
                  input [N-1:0] a;
                  input b;
                  output [M-1:0] c;
                  output reg q;
                  reg [M-1:0] c;
                  function [3:0] f;
                    input [7:0] x;
                    localparam K = 99;
                    f = x[3:0];
                  endfunction
                  generate
                    localparam G = 1;
                  endgenerate
                  always @(*) q = b;
                  task t; input z; begin end endtask
                  assign c = {a, a};
                endmodule
                """);
        assertEquals(List.of("a", "b", "c", "q"), m.ports().stream().map(Port::name).toList());
        assertEquals(new Port("a", Direction.IN, 4, "[N-1:0]", false, 4, 17), port(m, "a"));
        assertEquals(new Port("c", Direction.OUT, 8, "[M-1:0]", false, 6, 18), port(m, "c"));
        assertEquals(1, port(m, "q").width());
        assertEquals(List.of(new Param("N", "4", 4L, false), new Param("M", "N * 2", 8L, true)),
                m.params());
        ImportedModule wide = m.withParams(Map.of("N", 6L));
        assertEquals(6, port(wide, "a").width());
        assertEquals(12, port(wide, "c").width());
        assertEquals(12L, wide.param("M").orElseThrow().value());
        assertThrows(IllegalArgumentException.class, () -> m.withParams(Map.of("M", 3L)));
    }

    @Test
    void parameterDependentWidthsAndOverrides() {
        ImportedModule m = only("""
                module calc #(
                  parameter W = 8,
                  parameter integer D = 16,
                  parameter [31:0] MASK = 32'hFFFF_FFFF,
                  parameter NAME = "calc"
                ) (
                  input  [W-1:0]                 x,
                  output [$clog2(D)-1:0]         idx,
                  output [(W*2)/4 + W%3 - 1:0]   y,
                  output [(1 << 3) - 1:0]        z,
                  output [8'hFF:8'd248]          k,
                  output [W > 16 ? W : 16 - 1:0] m,
                  output [(W >> 1) - 1 : 0]      h
                );
                  localparam AW = $clog2(D) + 1;
                endmodule
                """);
        assertEquals(8, port(m, "x").width());
        assertEquals(4, port(m, "idx").width());
        assertEquals(6, port(m, "y").width());
        assertEquals(8, port(m, "z").width());
        assertEquals(8, port(m, "k").width());
        assertEquals(16, port(m, "m").width());
        assertEquals(4, port(m, "h").width());
        assertEquals(0xFFFF_FFFFL, m.param("MASK").orElseThrow().value());
        assertNull(m.param("NAME").orElseThrow().value());
        assertEquals("\"calc\"", m.param("NAME").orElseThrow().expr());
        assertTrue(m.param("AW").orElseThrow().local());
        assertEquals(5L, m.param("AW").orElseThrow().value());

        ImportedModule big = m.withParams(Map.of("W", 32L, "D", 64L));
        assertEquals(32, port(big, "x").width());
        assertEquals(6, port(big, "idx").width());
        assertEquals(18, port(big, "y").width());
        assertEquals(33, port(big, "m").width());
        assertEquals(16, port(big, "h").width());
        assertEquals(7L, big.param("AW").orElseThrow().value());
        assertEquals("[W-1:0]", port(big, "x").rangeText());
        assertEquals(8, port(m, "x").width(), "the original is unchanged");

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> m.withParams(Map.of("NOPE", 1L)));
        assertTrue(unknown.getMessage().contains("NOPE"));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> m.withParams(Map.of("W", 0L)).withParams(Map.of("D", -1L)));
        assertTrue(zero.getMessage().startsWith("t.v:8:34: port 'idx'"), zero.getMessage());
    }

    @Test
    void numberFormats() {
        ImportedModule m = only("""
                module n #(parameter A = 'd3, B = 8'hFF, C = 4'b10_10, E = 12 'h 3ff, F = 32,
                           G = 8'sh80, H = 4'hFF, I = 'o17, J = 2 ** 10, K = -3 + ~0) ();
                endmodule
                """);
        Map<String, Long> expected = Map.of("A", 3L, "B", 255L, "C", 10L, "E", 1023L, "F", 32L,
                "G", -128L, "H", 15L, "I", 15L, "J", 1024L, "K", -4L);
        expected.forEach((name, value) ->
                assertEquals(value, m.param(name).orElseThrow().value(), name));
        assertTrue(m.ports().isEmpty());
    }

    @Test
    void commentsAttributesAndDirectivesEverywhere() {
        ImportedModule m = only("""
                `timescale 1ns / 1ps
                `default_nettype none
                // a line comment with module x(); inside
                /* a block comment
                   with endmodule and (parentheses */
                (* keep_hierarchy = "yes" *)
                module /* c */ commented /* c */ #( /* c */ parameter /* c */ W /* c */ = /* c */ 4 /* c */ )
                ( // c
                  (* mark_debug = "true" *) input /* c */ wire /* c */ [ /* c */ W - 1 /* c */ : 0 ] /* c */ a, // c
                  `ifdef NEVER
                  output /* c */ [1:0] b // c
                  `endif
                ) /* c */ ; // c
                  always @(*) begin : blk // c
                    $display("endmodule (not really");
                  end
                endmodule // c
                `resetall
                """);
        assertEquals("commented", m.name());
        assertEquals(4, port(m, "a").width());
        assertEquals("[ /* c */ W - 1 /* c */ : 0 ]", port(m, "a").rangeText());
        assertEquals(2, port(m, "b").width());
        assertEquals(new Param("W", "4", 4L), m.params().getFirst());
        assertEquals(8, m.withParams(Map.of("W", 8L)).port("a").orElseThrow().width());
    }

    @Test
    void severalModulesAndMacros() {
        List<ImportedModule> modules = VerilogHeaders.parse("""
                `define DATA_W 64
                `define ADDR_W (`DATA_W / 2)
                module first(input [`DATA_W-1:0] d, output [`ADDR_W-1:0] a);
                endmodule
                primitive udp(o, i); output o; input i; table 0 : 1; 1 : 0; endtable endprimitive
                module second;
                  wire unused;
                endmodule
                macromodule third(x); inout [2:0] x; endmodule
                """, "multi.v");
        assertEquals(List.of("first", "second", "third"), modules.stream().map(ImportedModule::name).toList());
        assertEquals(64, port(modules.get(0), "d").width());
        assertEquals(32, port(modules.get(0), "a").width());
        assertTrue(modules.get(1).ports().isEmpty());
        assertEquals(new Port("x", Direction.INOUT, 3, "[2:0]", false, 9, 35), port(modules.get(2), "x"));
        assertEquals("multi.v", modules.get(2).sourceName());
    }

    @Test
    void vendorStyleHeader() {
        ImportedModule m = only("""
                // Vendor DMA descriptor controller wrapper
                module dma_rd_ctrl (
                    input  wire         Clk_i,
                    input  wire         Rstn_i,
                    input  wire [159:0] RdDmaRxData_i,
                    input  wire         RdDmaRxValid_i,
                    output wire         RdDmaRxReady_o,
                    output wire [31:0]  RdDmaTxData_o,
                    output wire         RdDmaTxValid_o,
                    input  wire [63:0]  \\esc.ape ,
                    output reg  [7:0]   RdDmaTag_o
                );
                endmodule
                """);
        assertEquals(new Port("RdDmaRxData_i", Direction.IN, 160, "[159:0]", false, 5, 25),
                port(m, "RdDmaRxData_i"));
        assertEquals(32, port(m, "RdDmaTxData_o").width());
        assertEquals(Direction.OUT, port(m, "RdDmaTag_o").direction());
        assertEquals(64, port(m, "esc.ape").width());
        assertEquals(9, m.ports().size());
    }

    @Test
    void generatedBridge() throws IOException {
        Path bridge = findUp(Path.of("ip", "direkt_bridge.v"));
        List<ImportedModule> modules = VerilogHeaders.parseFile(bridge);
        assertEquals(1, modules.size());
        ImportedModule m = modules.getFirst();
        assertEquals("direkt_bridge", m.name());
        assertEquals(42, m.ports().size());
        assertEquals(Direction.IN, port(m, "rd_desc_data").direction());
        assertEquals(256, port(m, "rd_desc_data").width());
        assertEquals(Direction.OUT, port(m, "rd_status_data").direction());
        assertEquals(64, port(m, "rd_status_data").width());
        assertEquals(Direction.IN, port(m, "csr_address").direction());
        assertEquals(7, port(m, "csr_address").width());
        assertEquals(160, port(m, "wr_dma_desc_data").width());
        assertEquals(Direction.OUT, port(m, "wr_dma_desc_data").direction());
        assertEquals("kernel_clk", m.ports().getFirst().name());
        assertEquals("wr_host_status_data", m.ports().getLast().name());
        assertEquals(17, port(m, "kernel_clk").line());
    }

    /** {@code relative} in the working directory or the nearest of its parents that has it. */
    private static Path findUp(Path relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new AssertionError(relative + " not found above " + Path.of("").toAbsolutePath());
    }

    // ---- malformed input ------------------------------------------------------------------

    @Test
    void missingCloseParenInPortList() {
        VerilogSyntaxException e = malformed("module m(input a,\n  output b;\nendmodule\n");
        assertEquals("bad.v:2:11: unexpected ';' in port list, expecting ')' or ','", e.getMessage());
        assertEquals(2, e.line());
        assertEquals(11, e.column());
    }

    @Test
    void missingEndmodule() {
        VerilogSyntaxException e = malformed("module a(input x);\n  wire y;\nmodule b(input z);\nendmodule\n");
        assertTrue(e.getMessage().startsWith("bad.v:3:1: unexpected 'module' in module body"), e.getMessage());
    }

    @Test
    void endOfFileInsideModule() {
        VerilogSyntaxException e = malformed("module a(input x);\n  wire y;\n");
        assertTrue(e.getMessage().startsWith("bad.v:3:1: unexpected end of file"), e.getMessage());
    }

    @Test
    void unterminatedBlockComment() {
        VerilogSyntaxException e = malformed("module a(input x);\n  /* never closed\nendmodule\n");
        assertEquals("bad.v:2:3: unterminated block comment", e.getMessage());
    }

    @Test
    void unterminatedString() {
        VerilogSyntaxException e = malformed("module a(input x);\n initial $display(\"oops);\nendmodule\n");
        assertEquals("bad.v:2:19: unterminated string literal", e.getMessage());
    }

    @Test
    void unknownParameterInRange() {
        VerilogSyntaxException e = malformed("module a #(parameter W = 4) (\n  input [WIDTH-1:0] x);\nendmodule\n");
        assertEquals("bad.v:2:10: port 'x' range [WIDTH-1:0]: unknown parameter 'WIDTH'", e.getMessage());
    }

    @Test
    void divisionByZeroInRange() {
        VerilogSyntaxException e = malformed("module a #(parameter W = 0) (input [8/W:0] x);\nendmodule\n");
        assertEquals("bad.v:1:38: port 'x' range [8/W:0]: division by zero", e.getMessage());
    }

    @Test
    void nonAnsiPortWithoutDirection() {
        VerilogSyntaxException e = malformed("module a(x,\n y);\n input x;\nendmodule\n");
        assertEquals("bad.v:2:2: port 'y' has no input, output or inout declaration", e.getMessage());
    }

    @Test
    void bodyDeclarationOfUnlistedPort() {
        VerilogSyntaxException e = malformed("module a(x);\n input x;\n output [3:0] w;\nendmodule\n");
        assertEquals("bad.v:3:15: output 'w' is not in the port list of module 'a'", e.getMessage());
    }

    @Test
    void mixedAnsiAndNonAnsi() {
        VerilogSyntaxException e = malformed("module a(x, input y);\nendmodule\n");
        assertTrue(e.getMessage().startsWith("bad.v:1:13: ANSI port declaration in a non-ANSI port list"),
                e.getMessage());
    }

    @Test
    void rangeWithoutColon() {
        VerilogSyntaxException e = malformed("module a(input [7 0] x);\nendmodule\n");
        assertTrue(e.getMessage().startsWith("bad.v:1:19: unexpected '0' in range"), e.getMessage());
    }

    @Test
    void somethingOtherThanAModule() {
        VerilogSyntaxException e = malformed("// header\nwire stray;\n");
        assertTrue(e.getMessage().startsWith("bad.v:2:1: unexpected 'wire'"), e.getMessage());
    }

    @Test
    void duplicatePortAndModule() {
        assertEquals("bad.v:1:32: port 'x' is declared twice",
                malformed("module a(input x, output [1:0] x);\nendmodule\n").getMessage());
        assertEquals("bad.v:2:8: module 'a' is already defined at 1:8",
                malformed("module a; endmodule\nmodule a; endmodule\n").getMessage());
    }

    @Test
    void emptyInputHasNoModules() {
        assertTrue(VerilogHeaders.parse("// nothing here\n`timescale 1ns/1ps\n", "e.v").isEmpty());
        assertFalse(VerilogHeaders.parse("module m; endmodule", "e.v").isEmpty());
    }
}
