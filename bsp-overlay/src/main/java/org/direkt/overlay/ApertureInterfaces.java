// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.generators.aperture.Aperture;
import org.direkt.hdl.Module;
import org.direkt.overlay.PlatformInterfaces.Interface;
import org.direkt.overlay.PlatformInterfaces.Port;

/**
 * The aperture's top ({@link Aperture}, {@code direkt_aperture}) as Platform Designer interfaces, in
 * {@link PlatformInterfaces}' form:
 *
 * <ul>
 * <li>{@code pcie_clk} / {@code pcie_rst}: the hard IP's application clock and reset, those of its RX
 *     masters; {@code mem_clk} / {@code mem_rst}: the clock and reset of what {@code m} drives.</li>
 * <li>{@code s}: the burst agent the BAR's bursting RX master drives (byte addresses across the whole
 *     BAR, bursts of up to {@code max_burst} words as its burstcount width says, up to
 *     {@link org.direkt.generators.aperture.ApertureFront.Params#outstandingReads} read bursts pending).</li>
 * <li>{@code m}: the burst host onto FPGA memory, byte addresses.</li>
 * <li>{@code pcie_status} ({@code reserved_beats}) and {@code mem_status} ({@code overrun}): bring-up
 *     outputs, declared disabled with their ports terminated, so that the system gains no export.</li>
 * </ul>
 */
public final class ApertureInterfaces {
    private ApertureInterfaces() {
    }

    /** The interfaces whose ports are terminated (left unconnected in the system). */
    public static final List<String> TERMINATED = List.of("pcie_status", "mem_status");

    public static List<Interface> of(Aperture.Params p, Module top) {
        List<Interface> out = new ArrayList<>();
        out.add(clock(top, "pcie_clk", "the hard IP's application clock: its RX masters' clock"));
        out.add(reset(top, "pcie_rst", "pcie_clk", "the hard IP's application reset, synchronous to pcie_clk"));
        out.add(clock(top, "mem_clk", "FPGA memory's clock: the clock of what m drives"));
        out.add(reset(top, "mem_rst", "mem_clk", "the reset of what m drives, synchronous to mem_clk"));

        Map<String, String> s = new LinkedHashMap<>();
        s.put("addressUnits", "SYMBOLS");
        s.put("burstcountUnits", "WORDS");
        s.put("burstOnBurstBoundariesOnly", "false");
        s.put("linewrapBursts", "false");
        s.put("constantBurstBehavior", "false");
        s.put("readLatency", "0");
        s.put("maximumPendingReadTransactions", Integer.toString(p.front().outstandingReads()));
        s.put("readWaitTime", "0");
        s.put("writeWaitTime", "0");
        out.add(new Interface("s", "avalon", true, "pcie_clk", "pcie_rst", s, List.of(
                PlatformInterfaces.port(top, "s_address", "address"), PlatformInterfaces.port(top, "s_read", "read"),
                PlatformInterfaces.port(top, "s_write", "write"), PlatformInterfaces.port(top, "s_burstcount", "burstcount"),
                PlatformInterfaces.port(top, "s_writedata", "writedata"), PlatformInterfaces.port(top, "s_byteenable", "byteenable"),
                PlatformInterfaces.port(top, "s_waitrequest", "waitrequest"), PlatformInterfaces.port(top, "s_readdata", "readdata"),
                PlatformInterfaces.port(top, "s_readdatavalid", "readdatavalid")),
                "the BAR's bursting RX master: " + p.barBytes() + " bytes, bursts of up to " + p.maxBurst() + " words (its burstcount"
                        + " width), up to " + p.front().outstandingReads() + " read bursts pending"));

        Map<String, String> m = new LinkedHashMap<>();
        m.put("addressUnits", "SYMBOLS");
        m.put("burstcountUnits", "WORDS");
        m.put("linewrapBursts", "false");
        m.put("constantBurstBehavior", "false");
        out.add(new Interface("m", "avalon", false, "mem_clk", "mem_rst", m, List.of(
                PlatformInterfaces.port(top, "m_address", "address"), PlatformInterfaces.port(top, "m_read", "read"),
                PlatformInterfaces.port(top, "m_write", "write"), PlatformInterfaces.port(top, "m_burstcount", "burstcount"),
                PlatformInterfaces.port(top, "m_writedata", "writedata"), PlatformInterfaces.port(top, "m_byteenable", "byteenable"),
                PlatformInterfaces.port(top, "m_waitrequest", "waitrequest"), PlatformInterfaces.port(top, "m_readdata", "readdata"),
                PlatformInterfaces.port(top, "m_readdatavalid", "readdatavalid")),
                String.format("FPGA memory from byte address 0x%x on: the BAR's offset 0 lands there", p.fpgaBase())));

        out.add(status(top, "pcie_status", "pcie_clk", "reserved_beats",
                "bring-up: response buffer beats reserved for read bursts in flight (terminated)"));
        out.add(status(top, "mem_status", "mem_clk", "overrun",
                "bring-up: sticky, set if the response buffer was ever full when read data came (terminated)"));
        return out;
    }

    /** The maps the _hw.tcl template sees: {@link Interface#toMap()}, with {@code terminated} set for the status conduits. */
    public static List<Map<String, Object>> toMaps(List<Interface> interfaces) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Interface i : interfaces) {
            Map<String, Object> m = i.toMap();
            m.put("terminated", TERMINATED.contains(i.name()));
            out.add(m);
        }
        return out;
    }

    /** The interfaces the system sees: the terminated status conduits left out. */
    public static List<Interface> inSystem(List<Interface> interfaces) {
        return interfaces.stream().filter(i -> !TERMINATED.contains(i.name())).toList();
    }

    private static Interface clock(Module top, String name, String doc) {
        return new Interface(name, "clock", true, null, null, new LinkedHashMap<>(), List.of(PlatformInterfaces.port(top, name, "clk")), doc);
    }

    private static Interface reset(Module top, String name, String clock, String doc) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("synchronousEdges", "DEASSERT");
        return new Interface(name, "reset", true, clock, null, props, List.of(PlatformInterfaces.port(top, name, "reset")), doc);
    }

    private static Interface status(Module top, String name, String clock, String port, String doc) {
        Port p = PlatformInterfaces.port(top, port, port);
        return new Interface(name, "conduit", true, clock, null, new LinkedHashMap<>(), List.of(p), doc);
    }
}
