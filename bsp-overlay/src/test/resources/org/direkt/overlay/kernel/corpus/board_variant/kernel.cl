// SPDX-License-Identifier: Apache-2.0
/* A MAC loopback whose word width depends on the board it is built for. */
#pragma OPENCL EXTENSION cl_intel_channels : enable

#if defined(AOCL_BOARD_nic_a10)
typedef ulong4 word_t;   /* 256-bit MAC interface */
#elif defined(AOCL_BOARD_nic_s10)
typedef ulong8 word_t;   /* 512-bit MAC interface */
#else
#error "unknown board: build with -board=nic_a10 or -board=nic_s10"
#endif

channel word_t /*=*/mac_rx __attribute__((io("mac0_rx"))) __attribute__((depth(4)));
channel word_t /*=*/mac_tx __attribute__((io("mac0_tx"))) __attribute__((depth(4)));

__kernel void loopback(void)
{
    while (1)
        /*!*/write_channel_intel(mac_tx, /*!*/read_channel_intel(mac_rx));
}
