// SPDX-License-Identifier: Apache-2.0
/* On the emulator the board's ports are replaced by channels of the emulated board. */
#pragma OPENCL EXTENSION cl_intel_channels : enable

#ifdef __FPGA_EMULATION_X86__
#define PORT_IN  "emu_in"
#define PORT_OUT "emu_out"
#else
#define PORT_IN  "phy_in"
#define PORT_OUT "phy_out"
#endif

channel int8 /*=*/ingress __attribute__((io(PORT_IN)));
channel int8 /*=*/egress  __attribute__((io(PORT_OUT)));

__kernel void scale(int k)
{
    while (1)
        /*!*/write_channel_intel(egress, /*!*/read_channel_intel(ingress) * k);
}
