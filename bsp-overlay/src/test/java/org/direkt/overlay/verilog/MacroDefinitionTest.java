// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code `define}s as headers write them: continued lines, padding, names with digits and '_', and none at all. */
class MacroDefinitionTest {

    private static Long param(String defines) {
        return VerilogHeaders.parse(defines + "module m #(parameter P = `W) (input x);\nendmodule\n", "t.v")
                .getFirst().param("P").orElseThrow().value();
    }

    @Test
    void aDefinitionMayContinueOnTheNextLine() {
        assertEquals(8L, param("`define W 4 \\\n + 4\n"));
        assertEquals(8L, param("`define W 4 \\\r\n + 4\r\n"));
    }

    @Test
    void theNameEndsAtTheFirstCharacterThatCannotBeInIt() {
        assertEquals(5L, param("`define   W   5   \n"));
        assertEquals(7L, param("`define W_2x 7\n`define W `W_2x\n"));
        assertEquals(9L, param("`define W(a) a\n`define W 9\n"), "a later definition replaces an earlier one");
    }

    @Test
    void aDefineWithoutANameIsRefused() {
        VerilogSyntaxException e = assertThrows(VerilogSyntaxException.class,
                () -> VerilogHeaders.parse("`define (x) x\nmodule m(input x);\nendmodule\n", "t.v"));
        assertEquals("t.v:1:1: `define without a macro name", e.getMessage());
    }
}
