// SPDX-License-Identifier: Apache-2.0
/* Streams global memory through a board port and back (Altera SDK 16.1 era). */
#pragma OPENCL EXTENSION cl_altera_channels : enable

channel float16 /*=*/to_port   __attribute__((io("mem_out")));
channel float16 /*=*/from_port __attribute__((io("mem_in")));

__kernel void producer(__global const float16 *restrict src, uint n)
{
    for (uint i = 0; i < n; i++)
        /*!*/write_channel_altera(to_port, src[i]);
}

__kernel void consumer(__global float16 *restrict dst, uint n)
{
    uint i = 0;
    while (i < n) {
        bool valid;
        float16 v = /*!*/read_channel_nb_altera(from_port, &valid);
        if (valid)
            dst[i++] = v;
    }
}
