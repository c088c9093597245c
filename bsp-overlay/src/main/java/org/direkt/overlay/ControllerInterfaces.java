// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.HostDescController;
import org.direkt.generators.bridge.HostDescFront;
import org.direkt.hdl.Module;
import org.direkt.overlay.PlatformInterfaces.Interface;

/**
 * The descriptor controller's top ({@link HostDescController}, {@code <instance>_ctrl}) as Platform
 * Designer interfaces, in {@link PlatformInterfaces}' form: the bridge's own (clocks, resets, the
 * bridge's CSR agent, the kernel channels, passed through unchanged) and the hard IP's descriptor
 * controller interfaces it takes the place of, each on {@code dma_clk} / {@code dma_reset}:
 *
 * <ul>
 * <li>{@code regs}: agent for the hard IP's {@code rxm_bar0} (BAR0): 32-bit words, word addressed,
 *     512 bytes (rd side at 0x000, wr at 0x100), fixed read latency, no waitrequest.</li>
 * <li>{@code rd_dts}, {@code wr_dts}: write-only agents of 256-bit words for the hard IP's
 *     {@code dma_rd_master}, 0x2000 bytes each, bursts of up to 16 words, always ready; place them
 *     where host software's EP FIFO base values point (0x0000_7FFF_FFFF_0000 and _2000).</li>
 * <li>{@code dcm}: write-only host onto the hard IP's {@code txs}: 64-bit byte addresses, 32-bit
 *     data, waitrequest; the completion flags.</li>
 * <li>{@code rd_dma_desc}, {@code wr_dma_desc}: 160-bit descriptor sources for {@code rd_ast_rx} /
 *     {@code wr_ast_rx} at the controller's {@code descReadyLatency}.</li>
 * <li>{@code rd_dma_status}, {@code wr_dma_status}: 32-bit status sinks for {@code rd_ast_tx} /
 *     {@code wr_ast_tx}, no ready.</li>
 * </ul>
 * No MSI conduit: the controller does not generate MSIs (host software polls the status words).
 */
public final class ControllerInterfaces {
    private ControllerInterfaces() {
    }

    public static List<Interface> of(HostDescController.Params p, Module top) {
        List<Interface> out = new ArrayList<>(PlatformInterfaces.kernelSide(p.bridge(), top));

        Map<String, String> regs = new LinkedHashMap<>();
        regs.put("addressUnits", "WORDS");
        regs.put("readLatency", Integer.toString(HostDescFront.REGS_READ_LATENCY));
        regs.put("maximumPendingReadTransactions", "0");
        regs.put("readWaitTime", "0");
        regs.put("writeWaitTime", "0");
        out.add(new Interface("regs", "avalon", true, "dma_clk", "dma_reset", regs, List.of(
                PlatformInterfaces.port(top, "regs_address", "address"), PlatformInterfaces.port(top, "regs_read", "read"),
                PlatformInterfaces.port(top, "regs_write", "write"), PlatformInterfaces.port(top, "regs_writedata", "writedata"),
                PlatformInterfaces.port(top, "regs_readdata", "readdata")),
                "the hard IP's descriptor controller registers (rd side at 0x000, wr at 0x100), for rxm_bar0 (BAR0)"));

        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            String t = dir.tag();
            Map<String, String> dts = new LinkedHashMap<>();
            dts.put("addressUnits", "WORDS");
            dts.put("burstcountUnits", "WORDS");
            dts.put("linewrapBursts", "false");
            dts.put("burstOnBurstBoundariesOnly", "false");
            dts.put("constantBurstBehavior", "false");
            dts.put("writeWaitTime", "0");
            out.add(new Interface(t + "_dts", "avalon", true, "dma_clk", "dma_reset", dts, List.of(
                    PlatformInterfaces.port(top, t + "_dts_address", "address"), PlatformInterfaces.port(top, t + "_dts_write", "write"),
                    PlatformInterfaces.port(top, t + "_dts_burstcount", "burstcount"),
                    PlatformInterfaces.port(top, t + "_dts_writedata", "writedata")),
                    "the " + t + " side's descriptor table, written by dma_rd_master at the EP FIFO base host software programs"));
        }

        Map<String, String> dcm = new LinkedHashMap<>();
        dcm.put("addressUnits", "SYMBOLS");
        out.add(new Interface("dcm", "avalon", false, "dma_clk", "dma_reset", dcm, List.of(
                PlatformInterfaces.port(top, "dcm_address", "address"), PlatformInterfaces.port(top, "dcm_write", "write"),
                PlatformInterfaces.port(top, "dcm_writedata", "writedata"),
                PlatformInterfaces.port(top, "dcm_waitrequest", "waitrequest")),
                "completion flags (1 to RC table base + 4 x ID) into host memory through txs"));

        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            String t = dir.tag();
            out.add(PlatformInterfaces.stream(top, t + "_dma_desc", true, "dma_clk", "dma_reset", Layout.MOVER_DESC.bits(),
                    p.descReadyLatency(), true, "descriptors to the hard IP's " + dir.describe() + " descriptor sink (" + t + "_ast_rx)"));
            out.add(PlatformInterfaces.stream(top, t + "_dma_status", false, "dma_clk", "dma_reset", Layout.MOVER_STATUS.bits(), 0, false,
                    "status from the " + dir.describe() + " (" + t + "_ast_tx, no ready)"));
        }
        return out;
    }
}
