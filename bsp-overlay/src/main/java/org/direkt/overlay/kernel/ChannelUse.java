// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.Objects;

/**
 * A channel call: {@code read_channel_intel(c)}, {@code write_channel_intel(c, v)}, their
 * {@code _nb} (non-blocking) and older {@code _altera} forms, written out or through a macro.
 *
 * @param channel the channel name (for an element of a channel array, the array's name)
 * @param kind    read or write
 * @param line    1-based line of the call's function name (of the macro invocation, for a call a
 *                macro wrote)
 * @param col     1-based column of the call's function name
 * @param source  the file the call is in
 */
public record ChannelUse(String channel, Kind kind, int line, int col, String source) {

    /** Which way the call moves data, seen from the kernel. */
    public enum Kind {
        /** {@code read_channel_*}: data into the kernel. */
        READ,
        /** {@code write_channel_*}: data out of the kernel. */
        WRITE
    }

    /** Checks that channel, kind and source are present. */
    public ChannelUse {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
    }
}
