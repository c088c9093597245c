// SPDX-License-Identifier: Apache-2.0
// Forwards words when there is room, counting what it saw and sent.
#pragma OPENCL EXTENSION cl_intel_channels : enable

#define FIFO_DEPTH 64

#if MODE == 1
#define WORD uint
#elif MODE == 2
#define WORD uint2
#else
#define WORD uint4
#endif

channel WORD /*=*/rx __attribute((depth(FIFO_DEPTH))) __attribute((io("rx_word")));
channel WORD /*=*/tx __attribute((depth(FIFO_DEPTH), io("tx_word")));

__kernel void poll(__global uint *restrict counters, uint rounds)
{
    uint seen = 0, sent = 0;
    for (uint r = 0; r < rounds; r++) {
        bool ok;
        WORD w = /*!*/read_channel_nb_intel(rx, &ok);
        if (ok) {
            seen++;
            sent += /*!*/write_channel_nb_intel(tx, w) ? 1 : 0;
        }
    }
    counters[0] = seen;
    counters[1] = sent;
}
