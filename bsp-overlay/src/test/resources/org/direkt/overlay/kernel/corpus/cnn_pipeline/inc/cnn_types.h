// SPDX-License-Identifier: Apache-2.0
#ifndef CNN_TYPES_H
#define CNN_TYPES_H

#ifndef LANES
#define LANES 4
#endif

/* VEC floats of one feature map pixel; the build sets VEC (aoc -DVEC=8). */
typedef struct {
    float v[VEC];
} lane_t;

typedef struct {
    float sum[LANES];
    uint  tag;
} out_t;

#endif
