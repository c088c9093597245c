// direkt test fixture: the shape of an OFS oneAPI ASP's AFU top (the Platform Interface Manager
// hands it the FIM's host channel), not the ASP's code.
`include "ofs_plat_if.vh"

module ofs_plat_afu
  (
   ofs_plat_if plat_ifc
   );

    // The ASP maps the host channel to its soft DMA (dma/dma_top.sv) and the kernel system here.

endmodule : ofs_plat_afu
