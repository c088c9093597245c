// SPDX-License-Identifier: Apache-2.0
/* The command channels, for every kernel file of the program; one file defines them. */
#ifndef CHANNELS_H
#define CHANNELS_H
#pragma OPENCL EXTENSION cl_intel_channels : enable

extern channel uint4 cmd_in;
extern channel uint4 cmd_out;

static inline uint4 next_command(void)
{
    return /*!*/read_channel_intel(cmd_in);
}

static inline void reply(uint4 r)
{
    /*!*/write_channel_intel(cmd_out, r);
}

#endif
