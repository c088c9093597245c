// SPDX-License-Identifier: Apache-2.0
/**
 * The host runtime on a board: the parts that reach a real FPGA beside its BSP's driver. A
 * {@link org.direkt.runtime.board.CsrWindow} reads and writes the registers of direkt's bridge
 * through the importer kernel module, on the BAR range the overlay's manifest names
 * ({@link org.direkt.runtime.board.CsrRange}); its refusals say what is missing
 * ({@link org.direkt.runtime.board.CsrWindowException.Reason}).
 */
package org.direkt.runtime.board;
