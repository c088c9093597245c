// SPDX-License-Identifier: Apache-2.0
/* Decimator © 2019 Laboratoire d'électronique (this comment is ISO-8859-1, not UTF-8). */
#pragma OPENCL EXTENSION cl_intel_channels : enable

#define READ_CH(c) read_channel_intel(c)
#define RD READ_CH
#define WRITE_IMPL(c, v) write_channel_intel(c, v)
#define WR(c, v) WRITE_IMPL(c, (v))

channel ushort8 /*=*/samples __attribute__((io("adc_samples")));
channel ushort8 /*=*/result  __attribute__((io("dac_samples")));

__kernel void decimate(uint n)
{
    for (uint i = 0; i < n; i++) {
        ushort8 x = /*!*/RD(samples);
        if ((i & 1) == 0)
            /*!*/WR(result, x >> (ushort8)(1));
    }
}
