// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.BoardSpecException;
import org.direkt.boardspec.Channel;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Manifest;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.Module;
import org.direkt.overlay.kernel.ChannelDecl;
import org.direkt.overlay.kernel.KernelChannels;
import org.direkt.overlay.kernel.KernelLint;
import org.direkt.overlay.kernel.KernelSyntaxException;
import org.direkt.overlay.verilog.Direction;
import org.direkt.overlay.verilog.ImportedModule;
import org.direkt.overlay.verilog.Port;
import org.direkt.overlay.verilog.VerilogHeaders;
import org.direkt.overlay.verilog.VerilogSyntaxException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The check that runs before anything is written: the generated Verilog's ports, read back from
 * the text with the Verilog importer, must equal the hw.tcl's interface ports; the board_spec.xml
 * channels must equal the manifest's channels and the Verilog's channel ports; the header must
 * declare exactly those channels with types of the right width. Any mismatch aborts the overlay
 * with a message naming both sides.
 */
public final class Consistency {
    private Consistency() {
    }

    private static final Pattern PORT_LINE = Pattern.compile(
            "^\\s*add_interface_port\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(Input|Output|Bidir)\\s+(\\d+)", Pattern.MULTILINE);

    /** Widths of the header's struct types, for the channel type check. */
    public static final Map<String, Integer> HEADER_TYPES = Map.of("cldesc_t", 256, "direkt_status_t", 64);

    public static void check(Bridge.Params p, Module top, Map<String, byte[]> files) throws OverlayException {
        List<String> problems = new ArrayList<>();

        // 1. Verilog (as written) = hw.tcl
        Map<String, String> vPorts = componentPorts(top.name(), files, problems);

        // 2. board_spec.xml channels = manifest channels = Verilog channel ports
        Set<String> boardChannels = new TreeSet<>();
        try {
            BoardSpec edited = BoardSpec.parse(new String(files.get(Overlay.BOARD_SPEC), StandardCharsets.UTF_8), Overlay.BOARD_SPEC);
            java.util.Set<String> ids = new java.util.HashSet<>(p.channelIds());
            for (Channel c : edited.channels()) {
                if (ids.contains(c.chanId())) {
                    boardChannels.add(c.port() + " " + c.type() + " " + c.width() + " " + c.chanId());
                }
            }
        } catch (BoardSpecException e) {
            problems.add("the edited board_spec.xml does not parse: " + e.getMessage());
        }
        Set<String> manifestChannels = new TreeSet<>();
        try {
            JsonNode root = new ObjectMapper().readTree(files.get(Manifest.FILE_NAME));
            for (JsonNode c : root.path("bridge").path("channels")) {
                manifestChannels.add(c.path("board_port").asText() + " " + c.path("type").asText()
                        + " " + c.path("width").asInt() + " " + c.path("chan_id").asText());
            }
        } catch (java.io.IOException e) {
            problems.add("the manifest does not parse: " + e.getMessage());
        }
        if (!boardChannels.equals(manifestChannels)) {
            problems.add("board_spec.xml channels " + boardChannels + " differ from the manifest's " + manifestChannels);
        }
        for (ChannelPort.Channel c : p.channelList()) {
            boolean sink = c.type() == ChannelPort.Type.STREAMSINK;
            expectPort(problems, vPorts, c.port() + "_data", (sink ? "Input " : "Output ") + c.width(), c.chanId());
            expectPort(problems, vPorts, c.port() + "_valid", (sink ? "Input " : "Output ") + 1, c.chanId());
            expectPort(problems, vPorts, c.port() + "_ready", (sink ? "Output " : "Input ") + 1, c.chanId());
        }

        // 3. the header declares exactly the channels, with types of the board's widths
        try {
            KernelChannels k = KernelChannels.parse(text(files, Overlay.HEADER), Overlay.HEADER);
            Map<String, Integer> declared = new TreeMap<>();
            for (ChannelDecl d : k.declarations()) {
                if (d.ioId() != null) {
                    var bits = KernelLint.typeBits(d.type(), HEADER_TYPES);
                    declared.put(d.ioId(), bits.isPresent() ? bits.getAsInt() : -1);
                }
            }
            Map<String, Integer> wanted = new TreeMap<>();
            p.channelList().forEach(c -> wanted.put(c.chanId(), c.width()));
            if (!declared.equals(wanted)) {
                problems.add(Overlay.HEADER + " declares io channels " + declared + " (chan_id=bits), the bridge has " + wanted);
            }
        } catch (KernelSyntaxException e) {
            problems.add("the generated header does not parse: " + e.getMessage());
        }

        if (!problems.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "generated files disagree (nothing was written):\n  "
                    + String.join("\n  ", problems));
        }
    }

    /**
     * Another Platform Designer component of the overlay (the aperture): its Verilog top {@code ip/<top>.v},
     * read back, declares exactly the ports of {@code <top>_hw.tcl}, each once.
     */
    public static void checkComponent(String top, Map<String, byte[]> files) throws OverlayException {
        List<String> problems = new ArrayList<>();
        componentPorts(top, files, problems);
        if (!problems.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "generated files disagree (nothing was written):\n  "
                    + String.join("\n  ", problems));
        }
    }

    /** The top's Verilog ports as written (name -> "Input 32"), compared with its hw.tcl's into {@code problems}. */
    private static Map<String, String> componentPorts(String top, Map<String, byte[]> files, List<String> problems) throws OverlayException {
        String topFile = Overlay.IP_DIR + "/" + top + ".v";
        ImportedModule verilog;
        try {
            verilog = VerilogHeaders.parse(text(files, topFile), topFile).stream()
                    .filter(m -> m.name().equals(top)).findFirst().orElse(null);
        } catch (VerilogSyntaxException e) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "the generated Verilog does not read back: " + e.getMessage());
        }
        if (verilog == null) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, topFile + " does not define module " + top);
        }
        Map<String, String> vPorts = new TreeMap<>();
        for (Port port : verilog.ports()) {
            vPorts.put(port.name(), (port.direction() == Direction.IN ? "Input" : port.direction() == Direction.OUT ? "Output" : "Bidir")
                    + " " + port.width());
        }
        Map<String, String> tclPorts = new TreeMap<>();
        String hwTcl = Overlay.hwTcl(top);
        Matcher m = PORT_LINE.matcher(text(files, hwTcl));
        while (m.find()) {
            if (tclPorts.put(m.group(2), m.group(4) + " " + m.group(5)) != null) {
                problems.add(hwTcl + " declares port " + m.group(2) + " twice");
            }
        }
        compare(problems, "Verilog " + topFile, vPorts, hwTcl, tclPorts);
        return vPorts;
    }

    private static void expectPort(List<String> problems, Map<String, String> vPorts, String name, String want, String chanId) {
        String got = vPorts.get(name);
        if (!want.equals(got)) {
            problems.add("channel " + chanId + " needs Verilog port " + name + " " + want + ", the Verilog has "
                    + (got == null ? "no such port" : got));
        }
    }

    private static void compare(List<String> problems, String aName, Map<String, String> a, String bName, Map<String, String> b) {
        for (var e : a.entrySet()) {
            String other = b.get(e.getKey());
            if (other == null) {
                problems.add(aName + " has port " + e.getKey() + " (" + e.getValue() + "), " + bName + " does not");
            } else if (!other.equals(e.getValue())) {
                problems.add("port " + e.getKey() + ": " + aName + " says " + e.getValue() + ", " + bName + " says " + other);
            }
        }
        for (var e : b.entrySet()) {
            if (!a.containsKey(e.getKey())) {
                problems.add(bName + " has port " + e.getKey() + " (" + e.getValue() + "), " + aName + " does not");
            }
        }
    }

    private static String text(Map<String, byte[]> files, String name) throws OverlayException {
        byte[] b = files.get(name);
        if (b == null) {
            throw new OverlayException(OverlayException.Kind.CONSISTENCY, "no " + name + " was generated");
        }
        return new String(b, StandardCharsets.UTF_8);
    }
}
