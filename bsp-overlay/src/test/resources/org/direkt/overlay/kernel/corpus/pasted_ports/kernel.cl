// SPDX-License-Identifier: Apache-2.0
/* Two-port crossbar: io channels named by ## and #, the fabric a channel array. */
#pragma OPENCL EXTENSION cl_intel_channels : enable

typedef ulong4 flit_t;

#define PORT(n) \
    channel flit_t in##n  __attribute__((io("kernel_input_ch" #n))); \
    channel flit_t out##n __attribute__((io("kernel_output_ch" #n)));

/*=2*/PORT(0)
/*=2*/PORT(1)

channel flit_t xbar[2][2] __attribute__((depth(4)));

#define IN(n) read_channel_intel(in##n)
#define OUT(n, f) write_channel_intel(out##n, f)

__kernel void ingress(void)
{
    while (1) {
        flit_t a = /*!*/IN(0);
        flit_t b = /*!*/IN(1);
        write_channel_intel(xbar[0][a.s0 & 1], a);
        write_channel_intel(xbar[1][b.s0 & 1], b);
    }
}

__kernel void egress(void)
{
    while (1) {
        bool v0, v1;
        flit_t f0 = read_channel_nb_intel(xbar[0][0], &v0);
        flit_t f1 = read_channel_nb_intel(xbar[1][1], &v1);
        if (v0) /*!*/OUT(0, f0);
        if (v1) /*!*/OUT(1, f1);
    }
}
