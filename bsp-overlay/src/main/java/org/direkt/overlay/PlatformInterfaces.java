// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Module;
import org.direkt.hdl.Signal;

/**
 * The bridge's ports grouped into Platform Designer interfaces, as its {@code _hw.tcl} declares
 * them. Built from the elaborated top, so an interface can only name ports that exist; the
 * overlay's consistency check compares this against the Verilog read back from disk.
 */
public final class PlatformInterfaces {
    private PlatformInterfaces() {
    }

    /** One port of an interface: its Verilog name, its role in the interface, direction and width. */
    public record Port(String name, String role, String direction, int width) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("role", role);
            m.put("direction", direction);
            m.put("width", width);
            return m;
        }
    }

    /**
     * One interface: {@code type} is the Platform Designer interface type (clock, reset,
     * avalon, avalon_streaming), {@code end} true for a sink/agent ("end"), false for a
     * source ("start"); {@code properties} in declaration order.
     */
    public record Interface(String name, String type, boolean end, String clock, String reset,
            Map<String, String> properties, List<Port> ports, String doc) {
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("type", type);
            m.put("end", end ? "end" : "start");
            m.put("clock", clock == null ? "" : clock);
            m.put("reset", reset == null ? "" : reset);
            m.put("properties", properties);
            m.put("ports", ports.stream().map(Port::toMap).toList());
            m.put("doc", doc);
            m.put("terminated", false);
            return m;
        }
    }

    public static List<Interface> of(Bridge.Params p, Module top) {
        List<Interface> out = new ArrayList<>(kernelSide(p, top));
        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            String t = dir.tag();
            int descBits = Layout.MOVER_DESC.bits();
            int statusBits = Layout.MOVER_STATUS.bits();
            out.add(stream(top, t + "_host_desc", false, "dma_clk", "dma_reset", descBits, p.hostReadyLatency(), true,
                    "descriptors from the BSP's descriptor controller, as it would send them to the " + dir.describe()));
            out.add(stream(top, t + "_dma_desc", true, "dma_clk", "dma_reset", descBits, 1, true,
                    "descriptors to the hard IP's " + dir.describe() + " descriptor sink"));
            out.add(stream(top, t + "_dma_status", false, "dma_clk", "dma_reset", statusBits, 0, false,
                    "status from the " + dir.describe() + " (no ready)"));
            out.add(stream(top, t + "_host_status", true, "dma_clk", "dma_reset", statusBits, 0, false,
                    "status of host descriptors (IDs 0..127), back to the descriptor controller (no ready)"));
        }
        return out;
    }

    /**
     * What every top holding the bridge offers: its clocks and resets, the bridge's CSR agent and the
     * kernel channels ({@code top} is the bridge or a top that passes these ports through unchanged).
     */
    static List<Interface> kernelSide(Bridge.Params p, Module top) {
        List<Interface> out = new ArrayList<>();
        ClockDomain k = ChannelPort.KERNEL;
        ClockDomain d = p.dmaDomain();
        out.add(clock("kernel_clk", k.clock(), "kernel clock: the OpenCL kernel system's clock (the channels run on it)"));
        out.add(reset("kernel_reset", k.reset(), "kernel_clk", k.polarity(), top, "kernel reset, synchronous to kernel_clk"));
        out.add(clock("dma_clk", d.clock(), "PCIe application clock: the data movers' and the descriptor controller's clock"));
        out.add(reset("dma_reset", d.reset(), "dma_clk", d.polarity(), top, "PCIe application reset, synchronous to dma_clk"));

        Map<String, String> csrProps = new LinkedHashMap<>();
        csrProps.put("addressUnits", "WORDS");
        csrProps.put("readLatency", Integer.toString(Layout.CSR_READ_LATENCY));
        csrProps.put("maximumPendingReadTransactions", "0");
        csrProps.put("readWaitTime", "0");
        csrProps.put("writeWaitTime", "0");
        out.add(new Interface("csr", "avalon", true, "dma_clk", "dma_reset", csrProps, List.of(
                port(top, "csr_address", "address"), port(top, "csr_read", "read"), port(top, "csr_write", "write"),
                port(top, "csr_writedata", "writedata"), port(top, "csr_readdata", "readdata"),
                port(top, "csr_readdatavalid", "readdatavalid")),
                "window table and counters (host-programmed through the BSP's host bridge)"));

        for (BridgeModes.Direction dir : BridgeModes.Direction.values()) {
            for (int port = 0; port < p.ports(); port++) {
                for (boolean desc : new boolean[] {true, false}) {
                    ChannelPort.Channel c = p.channel(dir, desc, port);
                    out.add(stream(top, c.port(), !desc, "kernel_clk", "kernel_reset", 8, 0, true,
                            "OpenCL I/O channel " + c.chanId() + " (" + c.type().xmlName() + ", " + c.width() + " bits)"));
                }
            }
        }
        return out;
    }

    private static Interface clock(String name, String port, String doc) {
        return new Interface(name, "clock", true, null, null, new LinkedHashMap<>(),
                List.of(new Port(port, "clk", "input", 1)), doc);
    }

    private static Interface reset(String name, String port, String clock, ClockDomain.ResetPolarity pol, Module top, String doc) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("synchronousEdges", "DEASSERT");
        String role = pol == ClockDomain.ResetPolarity.ACTIVE_LOW ? "reset_n" : "reset";
        return new Interface(name, "reset", true, clock, null, props, List.of(port(top, port, role)), doc);
    }

    /** A stream; {@code source} true when the bridge drives data (interface "start"). */
    static Interface stream(Module top, String base, boolean source, String clock, String reset, int bitsPerSymbol,
            int readyLatency, boolean hasReady, String doc) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("dataBitsPerSymbol", Integer.toString(bitsPerSymbol));
        props.put("readyLatency", Integer.toString(readyLatency));
        List<Port> ports = new ArrayList<>();
        ports.add(port(top, base + "_data", "data"));
        ports.add(port(top, base + "_valid", "valid"));
        if (hasReady) {
            ports.add(port(top, base + "_ready", "ready"));
        }
        return new Interface(base, "avalon_streaming", !source, clock, reset, props, ports, doc);
    }

    static Port port(Module top, String name, String role) {
        Signal s = top.port(name);
        if (s == null) {
            throw new IllegalStateException("the bridge has no port " + name);
        }
        String dir = s.kind() == Signal.Kind.OUTPUT ? "output" : "input";
        return new Port(name, role, dir, s.width());
    }
}
