// SPDX-License-Identifier: Apache-2.0
/* Convolution pipeline: pixels stream in from the board, one dot product per lane streams out. */
#pragma OPENCL EXTENSION cl_intel_channels : enable
#include "cnn_types.h"

channel lane_t chain[LANES] __attribute__((depth(32)));
channel lane_t /*=*/fmap_in  __attribute__((io("fmap_in"), depth(0)));
channel out_t  /*=*/fmap_out __attribute__((io("fmap_out"), depth(0)));

__attribute__((max_global_work_dim(0)))
__kernel void load(uint n)
{
    for (uint i = 0; i < n; i++) {
        lane_t px = /*!*/read_channel_intel(fmap_in);
        #pragma unroll
        for (int l = 0; l < LANES; l++)
            write_channel_intel(chain[l], px);
    }
}

__attribute__((max_global_work_dim(0)))
__kernel void conv(uint n, __constant float *restrict w)
{
    for (uint i = 0; i < n; i++) {
        out_t o;
        #pragma unroll
        for (int l = 0; l < LANES; l++) {
            lane_t px = read_channel_intel(chain[l]);
            float acc = 0.0f;
            #pragma unroll
            for (int k = 0; k < VEC; k++)
                acc += px.v[k] * w[l * VEC + k];
            o.sum[l] = acc;
        }
        o.tag = i;
        /*!*/write_channel_intel(fmap_out, o);
    }
}
