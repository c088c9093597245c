// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A wrong setting the simulated back end can inject, each the way a user meets it on a board: the
 * hardware is what the overlay describes, except for the one thing the setting gets wrong.
 */
public enum Injection {
    /**
     * The overlay's {@code word_order} is not the channel's: the kernel toolchain puts cldesc word x0
     * at the other end of the 256-bit channel than the bridge was generated for (the bridge and the
     * host both follow the overlay). How a kernel's struct lands on the channel is not confirmed on
     * hardware, so this is the setting a first board may get wrong.
     */
    WORD_ORDER("the kernel toolchain puts cldesc word x0 at the other end of the channel than the overlay's word_order"),
    /**
     * The overlay the host and kernel use says the other {@code status_mode} than the bitstream's
     * bridge was built with (an overlay regenerated after the bitstream, or another board's): the
     * kernel builds its descriptors and the host reads statuses for the other mode.
     */
    STATUS_MODE("the overlay the host and kernel use says the other status_mode than the bitstream's bridge was built with");

    public final String describe;

    Injection(String describe) {
        this.describe = describe;
    }

    /** Its name on the command line: {@code word_order}, {@code status_mode}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static List<String> keys() {
        return Arrays.stream(values()).map(Injection::key).toList();
    }

    /** The injection called {@code key}; an unknown one is an error naming the known ones. */
    public static Injection of(String key) {
        for (Injection i : values()) {
            if (i.key().equals(key)) {
                return i;
            }
        }
        throw new IllegalArgumentException("--inject " + key + ": unknown setting (one of " + String.join(", ", keys()) + ")");
    }
}
