// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.Objects;

/**
 * A channel declared by a kernel: {@code channel T name __attribute__((io("ID")));}. An
 * {@code extern} declaration and the definition of the same channel are one declaration, at the
 * definition, with the io attribute of whichever of them names it.
 *
 * @param type   the element type as written, words joined by one space: {@code uint},
 *               {@code ulong4}, {@code cldesc_t}, {@code struct x}, {@code unsigned int}
 * @param name   the channel name
 * @param ioId   the {@code io("...")} attribute: the board channel's chan_id; {@code null} for a
 *               kernel-to-kernel channel
 * @param line   1-based line of the name (of the macro invocation, for a declaration a macro wrote)
 * @param col    1-based column of the name
 * @param source the file the name is in (the kernel, or a header it includes)
 */
public record ChannelDecl(String type, String name, String ioId, int line, int col, String source) {

    /** Checks that type, name and source are present. */
    public ChannelDecl {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
    }
}
