// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.List;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.stream.ChannelPort;

/**
 * The steps left to the user that depend on what the BSP scan found, in the order OVERLAY.md lists
 * them between its first step (run the integration script, add the bridge to the system by hand, or
 * connect it to your own data movers) and its last (open a window). Each step is one line of Markdown
 * starting with its bold title; {@code direkt_integrate.tcl} repeats them in its header comment.
 */
final class ManualSteps {
    private ManualSteps() {
    }

    static List<String> of(BspScanner.BspInfo bsp, Bridge.Params p, QsysVersion qsys, boolean portableOnly) {
        List<String> steps = new ArrayList<>();
        String top = p.instance();
        if (portableOnly) {
            steps.add("**Export the " + count(p) + " channel interfaces** of `" + top + "` from the system your kernel is built in, under"
                    + " the port names board_spec.xml gives them (" + boardPorts(p) + "): the OpenCL compiler connects"
                    + " `<port>_data`, `_valid` and `_ready` of each to the kernel's io(\"...\") channels in the kernel clock"
                    + " domain.");
            steps.add("**Give the host a way to the CSR**: connect the bridge's `csr` (Avalon-MM agent, `dma_clk` domain) to"
                    + " a bridge the host reaches, and give host software its base address: the window table and the"
                    + " counters are there (`layout.csr` in `direkt-overlay.json`).");
        } else if (qsys.origin() != QsysVersion.Origin.SYSTEM_FILE) {
            steps.add("**Check the Platform Designer release**: `" + Overlay.hwTcl(top) + "` and `" + Overlay.INTEGRATE_TCL
                    + "` say `package require -exact qsys " + qsys.version() + "`, " + (qsys.origin() == QsysVersion.Origin.BOARD_SPEC
                            ? "taken from " + qsys.source() : "assumed because " + qsys.source())
                    + ", since no Platform Designer file of the BSP states a release; change both lines if the board's Quartus"
                    + " release is another.");
        }
        if (bsp.internalController() && !portableOnly) {
            // direkt edits the kernel wrapper chain itself and places the CSR: what is left is for Quartus and the board
            steps.add("**Give host software the CSR's address**: the bridge's `csr` (window table, counters) sits where"
                    + " `board.csr` in `direkt-overlay.json` says (a BAR and an offset above everything the BSP's host software"
                    + " uses); direkt's host runtime reads it there.");
            return List.copyOf(steps);
        }
        String wrapperStep = "**Wire the channels in the kernel wrapper**";
        String ports = "add the " + count(p) + " channels' `<port>_data`, `_valid` and `_ready` signals (" + boardPorts(p) + ")";
        if (bsp.kernelWrappers().isEmpty()) {
            steps.add(wrapperStep + " if the BSP's kernel wrapper (e.g. `freeze_wrapper.v`) lists the kernel system's ports"
                    + " by hand: " + ports + ".");
        } else {
            List<String> names = bsp.kernelWrappers().stream().map(w -> "`" + bsp.root().relativize(w) + "`").toList();
            steps.add(wrapperStep + " " + String.join(", ", names) + (names.size() == 1 ? ", which lists" : ", which list")
                    + " the kernel system's ports by hand: " + ports + ".");
        }
        if (!portableOnly) {
            steps.add("**Give host software the CSR's address**: the window table and the counters are in the bridge's `csr`"
                    + (bsp.system() == null
                            ? ", at the base address you give it on the host bridge"
                            : ", at `direkt_csr_base` on the host bridge (set at the top of `" + Overlay.INTEGRATE_TCL + "`)")
                    + "; host software programs them there (`layout.csr` in `direkt-overlay.json`).");
        }
        for (String s : steps) {
            if (s.contains("\n")) {
                throw new IllegalStateException("a manual step must be one line (the integration script lists them as comments): " + s);
            }
        }
        return List.copyOf(steps);
    }

    /** How many channels the bridge has, in words: four, or sixteen with four kernel ports. */
    private static String count(Bridge.Params p) {
        int n = p.channelList().size();
        return n == 4 ? "four" : String.valueOf(n);
    }

    /** The channels' board ports, as board_spec.xml names them: {@code `direkt_bridge_rd_desc`, ...}. */
    private static String boardPorts(Bridge.Params p) {
        List<String> out = new ArrayList<>();
        for (ChannelPort.Channel c : p.channelList()) {
            out.add("`" + p.boardPort(c) + "`");
        }
        return String.join(", ", out);
    }
}
