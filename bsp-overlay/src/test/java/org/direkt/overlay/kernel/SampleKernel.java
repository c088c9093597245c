// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.List;
import java.util.Map;

/** A kernel in the published style, with the board it is written for. */
final class SampleKernel {

    private SampleKernel() {
    }

    /**
     * Writes a read descriptor to the bridge, reads its status, and passes the status on to a
     * second kernel through a kernel-to-kernel channel. Channel calls also appear in a string, a
     * comment and a macro, where they must not be seen.
     */
    static final String SOURCE = """
            // direkt sample: read a buffer from the host through the bridge's descriptor channels.
            #pragma OPENCL EXTENSION cl_intel_channels : enable
            #include "direkt_channels.h"

            typedef struct { ulong src; ulong dst; uint len; uint id; ulong ctl; } cldesc_t;

            channel cldesc_t rdcldesc __attribute__((depth(0))) __attribute__((io("rdcldesc")));
            channel ulong rdclmstatus __attribute__((io("rdclmstatus")));
            channel uint local_ch __attribute__((depth(4)));

            #define TRACE(x) printf("read_channel_intel(%d)\\n", \\
                                    (x))

            __kernel void fetch(__global ulong *restrict dst, ulong host, uint bytes) {
                cldesc_t d = { host, (ulong) dst, bytes, 7, 0 };
                const char *s = "write_channel_intel(rdcldesc, d); channel ) (";
                char paren = ')';
                /* read_channel_intel(rdcldesc) only in a comment */
                write_channel_intel(rdcldesc, d);
                ulong status = read_channel_intel(rdclmstatus);
                write_channel_intel(local_ch, (uint) (status >> 32));
                TRACE(status);
            }

            __kernel void drain(__global uint *out) {
                *out = read_channel_intel(local_ch);
            }
            """;

    /** The board's side of the two I/O channels. */
    static final List<BoardChannel> BOARD = List.of(
            new BoardChannel("rdcldesc", BoardChannel.STREAMSINK, 256),
            new BoardChannel("rdclmstatus", BoardChannel.STREAMSOURCE, 64));

    /** Widths of the struct types the kernels use. */
    static final Map<String, Integer> TYPE_BITS = Map.of("cldesc_t", 256, "direkt_status_t", 64);
}
