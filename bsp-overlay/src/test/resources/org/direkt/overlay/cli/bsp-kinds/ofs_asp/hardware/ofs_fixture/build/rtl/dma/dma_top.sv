// direkt test fixture: where an OFS oneAPI ASP keeps its soft host DMA.
module dma_top
  (
   input  logic clk,
   input  logic reset
   );
endmodule
