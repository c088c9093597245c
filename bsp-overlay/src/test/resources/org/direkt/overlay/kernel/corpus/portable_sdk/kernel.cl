// SPDX-License-Identifier: Apache-2.0
// Peak detector on an ADC stream: peaks go to a DMA port.
#include "compat.h"

#if INTELFPGA_CL >= 191
#define THRESHOLD 900UL
#else
#define THRESHOLD 1000UL
#endif

channel ulong8 /*=*/samples __attribute__((io("adc0")));
channel ulong2 /*=*/peaks   __attribute__((io("dma_peaks")));

__kernel void detect(ulong n)
{
    for (ulong i = 0; i < n; i++) {
        ulong8 s = /*!*/READ_CHANNEL(samples);
        ulong best = max(max(max(s.s0, s.s1), max(s.s2, s.s3)), max(max(s.s4, s.s5), max(s.s6, s.s7)));
        if (best > THRESHOLD)
            /*!*/WRITE_CHANNEL(peaks, (ulong2)(i, best));
    }
}
