// SPDX-License-Identifier: Apache-2.0
#include "channels.h"

channel uint4 /*=*/cmd_in  __attribute__((io("host_cmd")));
channel uint4 /*=*/cmd_out __attribute((io("host_reply")));

__kernel void server(void)
{
    while (1) {
        uint4 c = next_command();
        reply(c + (uint4)(1));
    }
}
