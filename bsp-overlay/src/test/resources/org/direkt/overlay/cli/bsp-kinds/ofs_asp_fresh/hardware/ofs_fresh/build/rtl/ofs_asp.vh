// SPDX-License-Identifier: Apache-2.0
// The board's ASP configuration, as a fresh OFS ASP board directory holds it before its setup
// script copies the ASP's common RTL in (written for direkt's tests).
`ifndef OFS_ASP_VH
`define OFS_ASP_VH
`define ASP_NUM_LOCAL_MEM_BANKS 4
`define ASP_ENABLE_USM 1
`endif
