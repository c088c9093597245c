// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Json;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;

/**
 * A descriptor controller in place of the PCIe hard IP's internal one ({@code internal_controller_hwtcl}
 * = 0), register-compatible with it, so the BSP's host software drives it unchanged; with the
 * {@link Bridge} inside it (hierarchy kept), so OpenCL kernels issue descriptors beside the host's.
 *
 * <pre>
 * rxm_bar0 -> regs ----------------------+
 * dma_rd_master -> rd_dts / wr_dts ----> HostDescFront --rd/wr_host_desc--> Bridge --rd/wr_dma_desc--> rd_ast_rx / wr_ast_rx
 * txs <- dcm <---------------------------+   ^ statuses by ID range          ^ kernel channels, csr
 * rd_ast_tx / wr_ast_tx -> rd/wr_dma_status -+-> (host and kernel IDs) -> Bridge -> host statuses -> flags
 * </pre>
 *
 * <p>The host protocol is the hard IP's: per side (rd at 0x000, wr at 0x100) RC descriptor-table base
 * lo/hi (0x00/0x04), EP FIFO base lo/hi (0x08/0x0C), LAST_PTR (0x10), TABLE_SIZE (0x14), CONTROL
 * (0x18), INT_CONTROL (0x1C); see {@link HostDescSide} for what each does and where a batch's entries
 * are fetched from and to. direkt adds DIAG (0x20) and LAST_HOST_STATUS (0x24) per side. Not generated:
 * MSI (INT_CONTROL and CONTROL are stored and read back; the a10_ref drivers poll the last ID's status
 * word), the host-channel registers (0x20-0x38 of boards built with host channels), and CONTROL[0]=0's
 * single flag per LAST_PTR: every completed ID's flag is written (what CONTROL[0]=1 asks for, and all
 * a driver polling the last ID needs).
 *
 * <p>IDs: host descriptors 0..127 (the table's); table fetches {@link HostDescFront#fetchId} 254 (rd
 * side) and 255 (wr side), kept from the kernel range by the bridge ({@code table_fetch_ids} = 2);
 * kernel descriptors 128..253.
 */
public final class HostDescController extends Generator<HostDescController.Params> {

    /** Descriptor table entries per side: the host protocol's 128 (TABLE_SIZE 127). */
    public static final int ENTRIES = Layout.HOST_ID_LAST + 1;

    /**
     * @param bridge            the bridge inside; it must keep {@link HostDescFront#FETCH_IDS} kernel IDs
     *                          for table fetches ({@link #of} sets that)
     * @param descReadyLatency  the ready latency of the hard IP's descriptor sinks ({@code rd_ast_rx},
     *                          {@code wr_ast_rx}): 1 per the user guide, 3 in Intel's 17.1 example design
     */
    public record Params(Bridge.Params bridge, int descReadyLatency) {
        public Params {
            require(bridge != null, "HostDescController", "bridge", bridge, "must be given");
            require(bridge.tableFetchIds() == HostDescFront.FETCH_IDS, "HostDescController", "bridge.tableFetchIds", bridge.tableFetchIds(),
                    "must be " + HostDescFront.FETCH_IDS + ": the table fetches use kernel IDs " + HostDescFront.fetchId(BridgeModes.Direction.RD)
                            + " and " + HostDescFront.fetchId(BridgeModes.Direction.WR) + " (build the parameters with HostDescController.Params.of)");
            require(descReadyLatency >= MIN_READY_LATENCY && descReadyLatency <= MAX_READY_LATENCY, "HostDescController",
                    "descReadyLatency", descReadyLatency, "must be in " + MIN_READY_LATENCY + ".." + MAX_READY_LATENCY
                            + " (the hard IP's rd_ast_rx/wr_ast_rx ready latency: 1 per the user guide, 3 in Intel's 17.1 example)");
        }

        /** The controller around {@code bridge}, which keeps the table-fetch IDs. */
        public static Params of(Bridge.Params bridge, int descReadyLatency) {
            require(bridge != null, "HostDescController", "bridge", bridge, "must be given");
            return new Params(bridge.toBuilder().tableFetchIds(HostDescFront.FETCH_IDS).build(), descReadyLatency);
        }

        /** direkt's default bridge, descriptor sinks of ready latency 1. */
        public static Params defaults() {
            return of(Bridge.Params.defaults(), MIN_READY_LATENCY);
        }

        public Params withDescReadyLatency(int n) {
            return new Params(bridge, n);
        }
    }

    public static final int MIN_READY_LATENCY = 1;
    public static final int MAX_READY_LATENCY = 3;

    /** The top is named after the bridge's Platform Designer instance: {@code direkt_bridge_ctrl}. */
    @Override
    public String moduleName(Params p) {
        return p.bridge().instance() + "_ctrl";
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        Bridge.Params b = p.bridge();
        m.doc(String.format("""
                direkt descriptor controller: the PCIe hard IP's descriptor controller registers (regs, 0x000 rd,
                0x100 wr), table fetches into rd_dts / wr_dts (IDs %d, %d on the Read Data Mover), completion flags
                through dcm, with the bridge %s inside (kernel channels %s, csr). Descriptor sinks of ready latency %d.
                MSI is not generated (INT_CONTROL is stored; host software polls the last ID's status word).""",
                HostDescFront.fetchId(BridgeModes.Direction.RD), HostDescFront.fetchId(BridgeModes.Direction.WR), new Bridge().moduleName(b),
                b.channels().all(), p.descReadyLatency()));
        ClockDomain kernel = m.domain(ChannelPort.KERNEL);
        ClockDomain dma = m.domain(b.dmaDomain());
        Instance bridge = m.instance("u_bridge", new Bridge(), b).clock(ChannelPort.KERNEL.name(), kernel)
                .clock(b.dmaDomain().name(), dma);

        // ---- the bridge's own ports, unchanged: its CSR agent and the kernel channels
        for (String in : List.of("csr_address", "csr_read", "csr_write", "csr_writedata")) {
            bridge.pin(in).set(m.input(in, bridge.pin(in).width(), dma));
        }
        for (String out : List.of("csr_readdata", "csr_readdatavalid")) {
            m.output(out, bridge.pin(out).width(), dma).set(bridge.pin(out));
        }
        for (int k = 0; k < b.ports(); k++) {
            for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
                String pre = Bridge.Params.portPrefix(d, k);
                Stream desc = bridge.stream(pre + "_desc");
                Stream status = bridge.stream(pre + "_status");
                m.connect(m.stream(pre + "_desc", desc.type(), kernel), desc);
                m.connect(status, m.stream(pre + "_status", status.type(), kernel));
            }
        }

        // ---- the host protocol
        HostDescFront.Io front = m.sub("u_front", new HostDescFront(), new HostDescFront.Params(ENTRIES)).clock(dma).io();
        HostDescFront.Regs regs = front.regs();
        regs.address().set(m.input("regs_address", HostDescFront.REGS_ADDRESS_BITS, dma));
        regs.read().set(m.input("regs_read", 1, dma));
        regs.write().set(m.input("regs_write", 1, dma));
        regs.writedata().set(m.input("regs_writedata", 32, dma));
        m.output("regs_readdata", 32, dma).set(regs.readdata());
        HostDescFront.Dcm dcm = front.dcm();
        m.output("dcm_address", 64, dma).set(dcm.address());
        m.output("dcm_write", 1, dma).set(dcm.write());
        m.output("dcm_writedata", 32, dma).set(dcm.writedata());
        dcm.waitrequest().set(m.input("dcm_waitrequest", 1, dma));

        for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
            String t = d.tag();
            HostDescFront.Mover mv = front.mover(d);
            HostDescSide.Dts dts = mv.dts();
            dts.write().set(m.input(t + "_dts_write", 1, dma));
            dts.address().set(m.input(t + "_dts_address", HostDescSide.DTS_ADDRESS_BITS, dma));
            dts.burstcount().set(m.input(t + "_dts_burstcount", HostDescSide.DTS_BURSTCOUNT_BITS, dma));
            dts.writedata().set(m.input(t + "_dts_writedata", 256, dma));

            // statuses from the hard IP through the front's routing, host statuses back from the bridge
            mv.fromMover().valid().set(m.input(t + "_dma_status_valid", 1, dma));
            mv.fromMover().data().set(m.input(t + "_dma_status_data", Layout.MOVER_STATUS.bits(), dma));
            bridge.pin(t + "_dma_status_valid").set(mv.toBridge().valid());
            bridge.pin(t + "_dma_status_data").set(mv.toBridge().data());
            mv.hostStatus().valid().set(bridge.pin(t + "_host_status_valid"));
            mv.hostStatus().data().set(bridge.pin(t + "_host_status_data"));

            // host descriptors into the bridge (ready latency 0: Bridge.Params#hostReadyLatency) through one
            // register: the front's ready and the bridge's valid are flip-flops, so neither's logic waits on
            // the other's. It takes a word only when empty, one every other cycle at most, as the front
            // offers them anyway (its entries leave at most every other cycle).
            Stream offered = mv.hostDesc();
            Stream toBridge = bridge.stream(t + "_host_desc");
            Reg full = m.reg(t + "_host_desc_full", 1, dma).init(0);
            Reg word = m.reg(t + "_host_desc_word", offered.width(), dma);
            offered.ready().set(full.not());
            m.when(offered.fire(), () -> {
                full.set(1);
                word.set(offered.data());
            }).elseWhen(toBridge.ready(), () -> full.set(0));
            toBridge.valid().set(full);
            toBridge.data().set(word);

            // to the mover at its ready latency n: the bridge's ready-latency-1 source sees ready n - 1 cycles late
            Stream fromBridge = bridge.stream(t + "_dma_desc");
            Stream toMover = m.stream(t + "_dma_desc", AvalonSt.source(Layout.MOVER_DESC.bits(), p.descReadyLatency()), dma);
            toMover.data().set(fromBridge.data());
            toMover.valid().set(fromBridge.valid());
            Signal ready = toMover.ready();
            for (int i = 1; i < p.descReadyLatency(); i++) {
                Reg q = m.reg(t + "_dma_desc_ready_d" + i, 1, dma).init(0);
                q.set(ready);
                ready = q;
            }
            fromBridge.ready().set(ready);
        }
    }

    /**
     * The manifest of an overlay with this controller: the bridge's ({@link Manifest#tree}, whose
     * {@code layout.ids} names the table-fetch IDs) and a {@code controller} section with the top,
     * the descriptor sinks' ready latency, the register agent's read latency and the table size.
     */
    public static Map<String, Object> manifest(Params p) {
        Map<String, Object> root = Manifest.tree(p.bridge());
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("top", new HostDescController().moduleName(p));
        c.put("desc_ready_latency", p.descReadyLatency());
        c.put("regs_read_latency", HostDescFront.REGS_READ_LATENCY);
        c.put("table_entries", ENTRIES);
        c.put("fetch_ids", Manifest.ordered("rd", HostDescFront.fetchId(BridgeModes.Direction.RD), "wr",
                HostDescFront.fetchId(BridgeModes.Direction.WR)));
        c.put("registers", HostDescSide.REGISTERS);
        root.put("controller", c);
        return root;
    }

    public static String manifestJson(Params p) {
        return Json.write(manifest(p));
    }
}
