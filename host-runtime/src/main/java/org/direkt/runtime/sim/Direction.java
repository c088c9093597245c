// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** A bridge direction, named as in the manifest: {@code rd} = GPU->FPGA, {@code wr} = FPGA->GPU. */
public enum Direction {
    /** GPU -> FPGA through the Read Data Mover: the source is a PCIe address, the destination FPGA memory. */
    RD("rd"),
    /** FPGA -> GPU through the Write Data Mover: the source is FPGA memory, the destination a PCIe address. */
    WR("wr");

    private final String tag;

    Direction(String tag) {
        this.tag = tag;
    }

    /** The manifest's name ({@code rd} or {@code wr}). */
    @JsonValue
    public String tag() {
        return tag;
    }

    @JsonCreator
    public static Direction of(String tag) {
        for (Direction d : values()) {
            if (d.tag.equals(tag)) {
                return d;
            }
        }
        throw new IllegalArgumentException("direction '" + tag + "': rd or wr");
    }
}
