// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.Objects;

/**
 * An I/O channel of the board, as listed in board_spec.xml.
 *
 * @param chanId the {@code chan_id} that kernels name in {@code io("...")}
 * @param type   {@code streamsource} (board to kernel: the kernel reads it) or
 *               {@code streamsink} (kernel to board: the kernel writes it)
 * @param width  the data width in bits
 * @param at     where the board declares it ({@code board_spec.xml:line:col}), or null when not from a file
 */
public record BoardChannel(String chanId, String type, int width, String at) {

    /** The board-spec type of a channel the kernel reads. */
    public static final String STREAMSOURCE = "streamsource";
    /** The board-spec type of a channel the kernel writes. */
    public static final String STREAMSINK = "streamsink";

    /** Checks the components. */
    public BoardChannel {
        Objects.requireNonNull(chanId, "chanId");
        if (!STREAMSOURCE.equals(type) && !STREAMSINK.equals(type)) {
            throw new IllegalArgumentException("board channel " + chanId + ": type must be "
                    + STREAMSOURCE + " or " + STREAMSINK + ", not " + type);
        }
        if (width < 1) {
            throw new IllegalArgumentException("board channel " + chanId + ": width " + width + " < 1");
        }
    }

    /** A channel not read from a file. */
    public BoardChannel(String chanId, String type, int width) {
        this(chanId, type, width, null);
    }

    /** True for a {@code streamsource}: the kernel may only read this channel. */
    public boolean isSource() {
        return STREAMSOURCE.equals(type);
    }
}
