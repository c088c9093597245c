// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The header's field masks: all ones of the field's width, with the C suffix that width needs. */
class FieldMaskTest {

    @ParameterizedTest(name = "{0} bits: {1}")
    @CsvSource({"1, 0x1U", "8, 0xFFU", "31, 0x7FFFFFFFU", "32, 0xFFFFFFFFU", "33, 0x1FFFFFFFFUL",
            "63, 0x7FFFFFFFFFFFFFFFUL", "64, 0xFFFFFFFFFFFFFFFFUL"})
    void maskOfAWidth(int width, String mask) {
        assertEquals(mask, OverlayModel.mask(width));
    }
}
