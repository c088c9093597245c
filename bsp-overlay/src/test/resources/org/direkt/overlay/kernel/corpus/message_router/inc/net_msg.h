// SPDX-License-Identifier: Apache-2.0
#ifndef NET_MSG_H
#define NET_MSG_H

typedef struct {
    uchar src;
    uchar dst;
    uchar op;
    uchar count;
} msg_header_t;

/* One network word: a 4-byte header and 28 bytes of data seen three ways. */
typedef struct {
    msg_header_t header;
    union {
        uchar bytes[28];
        uint  words[7];
        float values[7];
    } data;
} network_message_t;

#define DECLARE_RX(name, port) channel network_message_t name __attribute__((depth(16))) __attribute__((io("kernel_input_ch" #port)))
#define DECLARE_TX(name, port) channel network_message_t name __attribute__((depth(16))) __attribute__((io("kernel_output_ch" #port)))
#define PUSH(ch, m) write_channel_intel(ch, m)
#define POP(ch) read_channel_intel(ch)

#endif
