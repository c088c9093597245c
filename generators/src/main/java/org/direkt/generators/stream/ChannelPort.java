// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.stream;

import static org.direkt.generators.Check.require;

import java.util.regex.Pattern;

import org.direkt.generators.Names;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Unit;
import org.direkt.hdl.lib.SkidBuffer;

/**
 * The BSP end of one OpenCL I/O channel. Its kernel-facing Avalon-ST port carries exactly the
 * names the OpenCL kernel system gives the channel ({@code <port>_data}, {@code <port>_valid},
 * {@code <port>_ready}, ready latency 0, kernel clock domain); its other port, {@code core}, faces
 * the bridge. A {@code streamsink} channel is written by the kernel, so the port takes words; a
 * {@code streamsource} channel feeds the kernel, so it offers them. Optionally a register slice
 * sits in between to cut timing paths at the kernel boundary.
 */
public final class ChannelPort extends Unit<ChannelPort.Params, ChannelPort.Io> {

    /** The channel as the kernel system names it, and the bridge's side of it ({@code core}). */
    public record Io(Stream kernel, Stream core) {
    }

    /** Direction as board_spec.xml names it, seen from the kernel. */
    public enum Type {
        /** The kernel reads it: the BSP is the source. */
        STREAMSOURCE,
        /** The kernel writes it: the BSP is the sink. */
        STREAMSINK;

        public String xmlName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** One channel as a {@code <channels><interface .../>} entry of board_spec.xml describes it. */
    public record Channel(String instance, String port, Type type, int width, String chanId) {
        public Channel {
            require(instance != null && IDENT.matcher(instance).matches(), "ChannelPort", "instance", instance,
                    "must be a Platform Designer instance name (letters, digits, '_')");
            require(port != null && IDENT.matcher(port).matches(), "ChannelPort", "port", port,
                    "must be a legal Verilog identifier");
            require(type != null, "ChannelPort", "type", type, "must be streamsource or streamsink");
            require(width >= 8 && width % 8 == 0 && width <= 4096, "ChannelPort", "width", width,
                    "must be a positive multiple of 8 (channels carry 8-bit symbols), at most 4096");
            require(chanId != null && IDENT.matcher(chanId).matches(), "ChannelPort", "chanId", chanId,
                    "must be a non-empty identifier (it is what kernels name in io(\"...\"))");
        }
    }

    public record Params(Channel channel, ClockDomain kernelDomain, boolean registered) {
        public Params {
            require(channel != null, "ChannelPort", "channel", channel, "must be given");
            require(kernelDomain != null && kernelDomain.kind() == ClockDomain.ResetKind.SYNC, "ChannelPort", "kernelDomain",
                    kernelDomain, "must be given, with a synchronous reset");
        }

        /** The kernel clock domain as OpenCL BSPs wire it: {@code kernel_clk}, active-low {@code kernel_resetn}. */
        public static Params of(Channel channel) {
            return new Params(channel, KERNEL, true);
        }
    }

    public static final ClockDomain KERNEL = new ClockDomain("kernel", "kernel_clk", "kernel_resetn",
            ClockDomain.ResetPolarity.ACTIVE_LOW, ClockDomain.ResetKind.SYNC);

    /**
     * The channel id, width and register slice, then a hash ({@link Names#hashed}) of what the
     * contents depend on beyond them: the port's name and direction, and with a register slice the
     * kernel domain (its clock and reset). Not the instance, which names nothing inside.
     */
    @Override
    public String moduleName(Params p) {
        Channel c = p.channel();
        ClockDomain k = p.kernelDomain();
        String canonical = "port=" + c.port() + " type=" + c.type().xmlName() + " width=" + c.width() + " registered="
                + p.registered() + (p.registered() ? " kernel=" + String.join(",", k.name(), k.clock(), k.reset(),
                        k.polarity().name(), k.kind().name()) : "");
        return Names.hashed("direkt_chan_" + c.chanId() + "_w" + c.width() + (p.registered() ? "_r" : ""), canonical);
    }

    @Override
    protected Io ports(Ports at, Params p) {
        // Unregistered, the port is a plain connection: it keeps the kernel domain but needs no clock.
        ClockDomain cd = p.registered() ? at.domain(p.kernelDomain()) : at.passThrough(p.kernelDomain());
        Channel c = p.channel();
        AvalonSt word = AvalonSt.source(c.width());
        return c.type() == Type.STREAMSINK
                ? new Io(at.sink(c.port(), word, cd), at.source("core", word, cd))
                : new Io(at.source(c.port(), word, cd), at.sink("core", word, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = p.kernelDomain();
        Channel c = p.channel();
        boolean kernelWrites = c.type() == Type.STREAMSINK;
        Stream kernel = io.kernel();
        Stream core = io.core();
        Stream from = kernelWrites ? kernel : core;
        Stream to = kernelWrites ? core : kernel;
        if (!p.registered()) {
            m.connect(from, to);
            return;
        }
        Instance slice = m.instance("u_slice", new SkidBuffer(), new SkidBuffer.Params(c.width(), cd.polarity()));
        slice.clock(cd);
        m.connect(from, slice.stream("s"));
        m.connect(slice.stream("m"), to);
    }
}
