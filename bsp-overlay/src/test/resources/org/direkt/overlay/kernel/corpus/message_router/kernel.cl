// SPDX-License-Identifier: Apache-2.0
// Two-port router: what comes in on one port leaves on the other.
#pragma OPENCL EXTENSION cl_intel_channels : enable
#include "net_msg.h"

DECLARE_RX(/*=*/io_in_0, 0);
DECLARE_RX(/*=*/io_in_1, 1);
DECLARE_TX(/*=*/io_out_0, 0);
DECLARE_TX(/*=*/io_out_1, 1);

__kernel void route(void)
{
    while (1) {
        network_message_t a = /*!*/POP(io_in_0);
        network_message_t b = /*!*/POP(io_in_1);
        uchar d = a.header.dst;
        a.header.dst = b.header.dst;
        b.header.dst = d;
        /*!*/PUSH(io_out_0, b);
        /*!*/PUSH(io_out_1, a);
    }
}
