// direkt test fixture: the shape of a CCI-P BSP's AFU top (the FIU's CCI-P port), not a BSP's code.
`include "platform_if.vh"

module ccip_std_afu
  (
   input  logic         pClk,
   input  logic         pClkDiv2,
   input  logic         pck_cp2af_softReset,
   input  t_if_ccip_Rx  pck_cp2af_sRx,
   output t_if_ccip_Tx  pck_af2cp_sTx
   );

    // A CCI-P BSP bridges CCI-P to the kernel system's Avalon-MM and runs its host DMA in soft logic here.

endmodule
