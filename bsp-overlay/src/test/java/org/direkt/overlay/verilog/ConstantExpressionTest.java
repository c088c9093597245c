// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The value of every operator, number form and system function a header's parameter defaults and
 * port ranges may use, and for each way an expression has no integer value the message that the
 * port range then carries.
 */
class ConstantExpressionTest {

    private static Long value(String expr) {
        List<ImportedModule> modules = VerilogHeaders.parse("`define W 8\n`define F(x) x\n`define L `L\n`define BAD 1 +\n"
                + "module m #(parameter A = 3, parameter P = " + expr + ") (input x);\nendmodule\n", "t.v");
        return modules.getFirst().param("P").orElseThrow().value();
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiterString = "=>", quoteCharacter = '@', value = {
            "2 ** 10 => 1024", "0 ** 0 => 1", "0 ** 5 => 0", "1 ** 9 => 1", "(-1) ** 3 => -1", "(-1) ** 4 => 1", "3 ** 0 => 1",
            "7 / 2 => 3", "-7 / 2 => -3", "7 % 3 => 1", "-7 % 3 => -1", "2 + 3 => 5", "2 - 5 => -3", "3 * 4 => 12",
            "1 << 4 => 16", "1 <<< 4 => 16", "1 << 63 => -9223372036854775808", "1 << 64 => 0", "-16 >> 2 => 4611686018427387900",
            "256 >> 64 => 0", "-16 >>> 2 => -4", "-16 >>> 100 => -1",
            "2 < 3 => 1", "3 < 3 => 0", "3 <= 3 => 1", "4 <= 3 => 0", "3 > 3 => 0", "4 > 3 => 1", "3 >= 3 => 1", "2 >= 3 => 0",
            "3 == 3 => 1", "3 == 4 => 0", "3 === 3 => 1", "3 != 4 => 1", "3 != 3 => 0", "3 !== 3 => 0",
            "12 & 10 => 8", "12 ^ 10 => 6", "12 | 10 => 14", "2 && 3 => 1", "2 && 0 => 0", "0 || 0 => 0", "0 || 5 => 1",
            "1 ? 5 : 6 => 5", "0 ? 5 : 6 => 6", "+5 => 5", "-5 => -5", "!0 => 1", "!7 => 0", "~0 => -1",
            "$clog2(0) => 0", "$clog2(1) => 0", "$clog2(2) => 1", "$clog2(5) => 3", "$clog2(8) => 3", "$clog2(9) => 4",
            "8'hFF => 255", "8'shFF => -1", "4'sb0111 => 7", "'h10 => 16", "'o17 => 15", "'d12 => 12", "'b1_0 => 2",
            "4'hFF => 15", "1_000 => 1000", "64'hFFFFFFFFFFFFFFFF => -1", "'sd5 => 5", "3'sb100 => -4",
            "`W * 2 => 16", "A + 1 => 4", "(A) => 3"})
    void operatorsAndNumbers(String expr, long expected) {
        assertEquals(expected, value(expr));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1 / 0", "1 % 0", "1 << -1", "2 ** -1", "9223372036854775807 + 1", "2 ** 64", "Q", "`U", "`F", "`L",
            "\"s\"", "1.5", "$bits(1)", "$clog2(-1)", "8'hxz", "0'h1", "65'h1", "99999999999999999999", "`BAD"})
    void expressionsWithoutAnIntegerValueLeaveTheParameterWithoutOne(String expr) {
        assertNull(value(expr));
    }

    private static String rangeError(String range) {
        String text = "`define F(x) x\n`define L `L\n`define BAD 1 +\nmodule m #(parameter A = 3) (input " + range + " x);\nendmodule\n";
        return assertThrows(VerilogSyntaxException.class, () -> VerilogHeaders.parse(text, "t.v")).detail();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiterString = "=>", quoteCharacter = '@', value = {
            "[1/0:0] => division by zero",
            "[1%0:0] => division by zero",
            "[1<<-1:0] => negative shift amount -1",
            "[1>>-1:0] => negative shift amount -1",
            "[1>>>-1:0] => negative shift amount -1",
            "[2**-1:0] => negative exponent -1",
            "[9223372036854775807+1:0] => integer overflow in '+'",
            "[-9223372036854775807-2:0] => integer overflow in '-'",
            "[4611686018427387904*2:0] => integer overflow in '*'",
            "[2**64:0] => integer overflow in '**'",
            "[-(-9223372036854775807-1):0] => integer overflow in unary '-'",
            "[Q:0] => unknown parameter 'Q'",
            "[`U:0] => undefined macro `U",
            "[`F:0] => macro `F takes arguments; not supported here",
            "[`L:0] => in macro `L (`L): macro `L expands to itself",
            "[`BAD:0] => in macro `BAD (1 +): unexpected end of file",
            "[$bits(1):0] => unsupported system function $bits",
            "[$clog2(1,2):0] => $clog2 takes one argument",
            "[$clog2(-1):0] => $clog2 of a negative value (-1)",
            "[8'hxz:0] => x/z digits in 'hxz have no integer value",
            "[0'h1:0] => size 0 of a number must be 1 to 64",
            "[65'h1:0] => size 65 of a number must be 1 to 64",
            "[99999999999999999999:0] => 99999999999999999999 does not fit in 64 bits",
            "[4294967296:0] => range [4294967296:0] is too wide"})
    void portRangesWithoutAnIntegerValueAreRefused(String range, String why) {
        String detail = rangeError(range);
        assertEquals("port 'x' range " + range + ": " + why, detail.startsWith("port") ? cut(detail, why) : detail);
    }

    /** The detail up to the end of {@code why} (a parse error may go on to list what it expected). */
    private static String cut(String detail, String why) {
        int at = detail.indexOf(why);
        return at < 0 ? detail : detail.substring(0, at + why.length());
    }
}
