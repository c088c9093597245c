// SPDX-License-Identifier: Apache-2.0
/**
 * What a {@link org.direkt.runtime.Session} drives, and what it knows of the overlay: an
 * {@link org.direkt.runtime.device.FpgaDevice} (the bridge's registers, host DMA, kernels launched
 * with their arguments, the PCIe memory the bridge's movers reach), implemented by the simulated
 * FPGA ({@link org.direkt.runtime.sim.SimulatedFpga}) and a board
 * ({@link org.direkt.runtime.board.BoardDevice}); the kernel calls it launches
 * ({@link org.direkt.runtime.device.KernelCall}); and the overlay's manifest, read in this one place
 * ({@link org.direkt.contract.OverlayManifest}).
 */
package org.direkt.runtime.device;


import org.direkt.contract.OverlayManifest;
