// SPDX-License-Identifier: Apache-2.0
/* UDP offload: the message the network core exchanges with kernels, one 256-bit word. */
#ifndef UDP_H
#define UDP_H

#define UDP_PAYLOAD_BYTES 24

typedef struct {
    uchar  dst_port;
    uchar  flags;
    ushort length;
    uint   peer_ip;
    uchar  payload[UDP_PAYLOAD_BYTES];
} udp_msg_t;

#endif
