// SPDX-License-Identifier: Apache-2.0
// Formal harness for the GPU-master aperture's PCIe side, direkt_aperture_front_a8_w32_b4_r32 (a
// 256-byte BAR, 32-bit data, bursts up to 4 beats, a 32-beat response buffer of which 16 are kept
// for the crossing's lag: 4 read bursts outstanding at most): the response buffer's room, and the
// command words the memory side follows.
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are asserted
// in every run (CHECK_helpers proves them alone).
//
// Taps (run.py drives each `//@tap` wire from the flattened internal signal; read only by assertions):
//@tap f_left  = dut.write_beats_left
//@tap f_addr  = dut.write_address
//@tap f_count = dut.write_burstcount
//@tap f_room  = dut.read_room
//
// Environment (everything else free in every cycle, $anyseq):
//   E1  rst is high in the first cycle; later it is free (the harness's counts reset with it).
//   E2  The RX master follows Avalon-MM bursts: never a read and a write at once, no burst longer
//       than the agent declares (4), and no read while a write burst it began has beats left
//       (counted by the harness).
//   E3  The memory answers only what was asked: a beat comes back (resp_valid) only while fewer
//       beats have come back than the read commands asked for.
`default_nettype none

module fv_aperture (
  input wire clk
);
  localparam RB = 32;          // response buffer beats
  localparam LAG = 16;         // ApertureFront.LAG_BEATS
  localparam LIMIT = RB - LAG; // beats ever reserved at once

  wire         rst           = $anyseq;
  wire [7:0]   s_address     = $anyseq;
  wire         s_read        = $anyseq;
  wire         s_write       = $anyseq;
  wire [2:0]   s_burstcount  = $anyseq;
  wire [31:0]  s_writedata   = $anyseq;
  wire [3:0]   s_byteenable  = $anyseq;
  wire         cmd_ready     = $anyseq;
  wire         resp_valid    = $anyseq;
  wire [31:0]  resp_data     = $anyseq;
  wire         s_waitrequest, s_readdatavalid, cmd_valid, resp_ready;
  wire [31:0]  s_readdata;
  wire [47:0]  cmd_data;
  wire [5:0]   reserved;
  wire [2:0]   f_left, f_count;
  wire [7:0]   f_addr;
  wire         f_room;

  `DUT dut (
    .clk(clk), .rst(rst), .s_address(s_address), .s_read(s_read), .s_write(s_write), .s_burstcount(s_burstcount),
    .s_writedata(s_writedata), .s_byteenable(s_byteenable), .s_waitrequest(s_waitrequest), .s_readdata(s_readdata),
    .s_readdatavalid(s_readdatavalid), .cmd_data(cmd_data), .cmd_valid(cmd_valid), .cmd_ready(cmd_ready),
    .resp_data(resp_data), .resp_valid(resp_valid), .resp_ready(resp_ready), .reserved(reserved)
  );

  // the command word: {write, address[7:0], burst[2:0], data[31:0], byteenable[3:0]}
  wire         c_write = cmd_data[47];
  wire [7:0]   c_addr  = cmd_data[46:39];
  wire [2:0]   c_burst = cmd_data[38:36];
  wire [31:0]  c_data  = cmd_data[35:4];
  wire [3:0]   c_be    = cmd_data[3:0];
  wire         fire    = cmd_valid && cmd_ready;
  wire [2:0]   burst   = s_burstcount == 3'd0 ? 3'd1 : s_burstcount;

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);                                             // E1

  reg [7:0] f_asked, f_back;     // read beats asked for by commands, beats come back (mod 256)
  reg [2:0] f_wleft;             // beats left of the write burst under way
  reg [7:0] f_waddr;             // its first address
  reg [2:0] f_wburst;            // and its count
  initial begin
    f_asked = 0; f_back = 0; f_wleft = 0; f_waddr = 0; f_wburst = 0;
  end
  always @* if (!rst) begin
    assume (!(s_read && s_write) && s_burstcount <= 3'd4);                         // E2
    assume (f_wleft == 3'd0 || !s_read);                                           // E2
    assume (!resp_valid || f_back != f_asked);                                     // E3
  end
  always @(posedge clk) begin
    if (rst) begin
      f_asked <= 0; f_back <= 0; f_wleft <= 0;
    end else begin
      f_asked <= f_asked + (fire && !c_write ? {5'd0, c_burst} : 8'd0);
      f_back <= f_back + {7'd0, resp_valid};
      if (fire && c_write) begin
        if (f_wleft == 3'd0) begin
          f_wleft <= burst - 3'd1;
          f_waddr <= s_address;
          f_wburst <= burst;
        end else begin
          f_wleft <= f_wleft - 3'd1;
        end
      end
    end
  end

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_buffer_room
    // the beats asked for and not yet delivered are the reserved count, and never more than the
    // response buffer less its lag: the memory's read data, which nothing holds back, always has a place
    buffer_room: assert (reserved == f_asked - f_back && reserved <= LIMIT);
    // a read is taken only with room for its whole burst beside every beat reserved
    read_room: assert (!(fire && !c_write) || {2'b0, reserved} + {5'd0, burst} <= LIMIT);
`endif
`ifdef CHECK_commands
    // the agent waits exactly when no command goes out for its read or write
    taken: assert (fire == (!s_waitrequest && (s_read || s_write)) && (!fire || (s_read || s_write)));
    // a read's command: its address and burst count
    read_cmd: assert (!(fire && !c_write) || (c_addr == s_address && c_burst == burst));
    // every write beat's command: its data and byte enables, and its burst's first address and count
    write_cmd: assert (!(fire && c_write) || (c_data == s_writedata && c_be == s_byteenable
                                              && (f_wleft == 3'd0 ? (c_addr == s_address && c_burst == burst)
                                                                  : (c_addr == f_waddr && c_burst == f_wburst))));
    // read data goes to the RX master as it comes, always taken
    read_data: assert (resp_ready && s_readdatavalid == resp_valid && s_readdata == resp_data);
`endif
  end

  // ---------------------------------------------------------------- helpers
  always @* if (f_past && !rst) begin
    h_reserved: assert (reserved == f_asked - f_back && reserved <= LIMIT);
    // room for another longest burst (4 beats), as the register says
    h_room: assert (!f_room || reserved <= LIMIT - 4);
    h_write: assert (f_left == f_wleft && (f_wleft == 3'd0
                     || (f_addr == f_waddr && f_count == f_wburst && f_wburst > f_wleft)));
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (reserved == LIMIT);                                 // four bursts of four beats outstanding
    cover (fire && c_write && f_wleft == 3'd1 && f_wburst == 3'd4);  // a write burst's last beat
  end
`endif
endmodule

`default_nettype wire
