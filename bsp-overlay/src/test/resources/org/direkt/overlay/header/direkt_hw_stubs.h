// SPDX-License-Identifier: Apache-2.0
/*
 * Stand-ins for the Intel FPGA channel extension, so that PoCL can compile direkt_dma.h in hardware
 * mode (without DIREKT_EMULATION): a channel declaration becomes a typedef of its element type
 * (attributes and all), a write checks that its value converts to that type, a read yields a zero
 * of it. Everything outside the channel parts is compiled as it is.
 */
#define channel typedef
#define write_channel_intel(c, v) do { c direkt_stub_value_ = (v); (void)direkt_stub_value_; } while (0)
#define read_channel_intel(c) ((c){ 0 })
