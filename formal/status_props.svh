// SPDX-License-Identifier: Apache-2.0
// The properties both kernel status builder harnesses state (status.sv, status_paper.sv), in
// the cycles after E1 (f_past, rst low): host_passthrough, reject_waits, events_exact.
//
// The including harness has declared the builder's ports, f_past, f_take (a rejection is taken
// in this cycle) and the status in the stage, pushed in this cycle if any: f_due_mover (a
// believed mover status, not a rejection) and f_due_failed (with an error).

  always @* if (f_past && !rst) begin
`ifdef CHECK_host_passthrough
    host_passthrough: assert (hs_valid == (ms_valid && !ms_data[7]) && hs_data == ms_data);
`endif
`ifdef CHECK_reject_waits
    // a rejection is taken exactly in a cycle without a kernel status (the mover's cannot wait)
    reject_waits: assert (reject_taken == f_take);
`endif
`ifdef CHECK_events_exact
    events_exact: assert (ev_completed == (push && f_due_mover)
                          && ev_aborted == (push && f_due_mover && f_due_failed));
`endif
  end
