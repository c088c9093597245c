// SPDX-License-Identifier: Apache-2.0
/* Descriptor formats whose widths follow OpenCL C's layout rules. */
#pragma OPENCL EXTENSION cl_intel_channels : enable

typedef enum { OP_NOP, OP_READ, OP_WRITE } op_t;

/* op at 0, origin (a float3 takes 16 bytes, aligned to 16) at 16, lane at 32; aligned(64): 64 bytes */
typedef struct {
    op_t   op;
    float3 origin;
    uchar  lane;
} __attribute__((aligned(64))) request_t;

/* packed: 2 + 8 + 1 = 11 bytes, aligned to 1 */
typedef struct __attribute__((packed)) {
    ushort id;
    ulong  addr;
    uchar  tag;
} packed_t;

/* 11 + 1 = 12 bytes */
struct pair {
    packed_t a;
    uchar    b;
};

/* k at 0, v at 8 (aligned(8)), 12 bytes rounded up to 16 */
typedef struct {
    uchar k;
    uint  v __attribute__((aligned(8)));
} kv_t;

typedef kv_t kv_alias_t;

channel request_t   /*=*/requests __attribute__((io("req")));
channel struct pair /*=*/pairs    __attribute__((io("pairs")));
channel kv_alias_t  /*=*/entries  __attribute__((io("kv")));

__kernel void translate(void)
{
    request_t r = /*!*/read_channel_intel(requests);
    struct pair p;
    p.a.id = r.lane;
    p.a.addr = (ulong) r.origin.x;
    p.a.tag = (uchar) r.op;
    p.b = 0;
    /*!*/write_channel_intel(pairs, p);
    kv_alias_t e = { .k = 1, .v = 2 };
    /*!*/write_channel_intel(entries, e);
}
