// SPDX-License-Identifier: Apache-2.0
// Echo server on a 10G port: every datagram goes back with a flag set.
#pragma OPENCL EXTENSION cl_intel_channels : enable
#include "udp.h"

#define read_channel read_channel_intel
#define write_channel write_channel_intel

#ifdef EMULATION
channel udp_msg_t udp_in  __attribute__((depth(16))) __attribute__((io("emulated_udp_in")));
channel udp_msg_t udp_out __attribute__((depth(16))) __attribute__((io("emulated_udp_out")));
#else
channel udp_msg_t /*=*/udp_in  __attribute__((depth(16))) __attribute__((io("udp0_rx")));
channel udp_msg_t /*=*/udp_out __attribute__((depth(16))) __attribute__((io("udp0_tx")));
#endif

__kernel void echo(uint packets)
{
    for (uint i = 0; i < packets; i++) {
        udp_msg_t m = /*!*/read_channel(udp_in);
        m.flags |= 0x80;
        /*!*/write_channel(udp_out, m);
    }
}
