// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.boardspec.BoardSpec;
import org.direkt.generators.Json;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.HostDescController;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.Module;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.Interface;
import org.direkt.overlay.system.Port;
import org.direkt.overlay.system.SystemCheck;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.Where;

/**
 * The overlay of a board whose PCIe hard IP runs its internal descriptor controller: the plan on the
 * system model ({@link HardIpPlan}), the Platform Designer script rendered from it ({@link ProScript}),
 * the kernel wrapper chain edited ({@link KernelWrapper}), the manifest saying where the bridge's CSR
 * went, and what an in-place run must keep so that {@code direkt revert} restores every byte, also
 * after the script has run.
 */
record ControllerIntegration(HardIpPlan.Result plan, String script, Map<String, byte[]> bspFiles, String manifest, String inPlaceDir,
        List<String> keptForRevert, List<String> createdByScript, int descReadyLatency) {

    /** Where an in-place overlay goes in a Pro board: under ip/, which Platform Designer Pro searches for components. */
    static final String PRO_IN_PLACE_DIR = "ip/direkt";

    private static final Pattern KERNEL_CLK_RESET = Pattern.compile("<kernel_clk_reset\\b[^>]*>");

    static ControllerIntegration plan(BspScanner.BspInfo info, BoardSpec spec, HostDescController.Params cp, Module top,
            List<PlatformInterfaces.Interface> interfaces, String boardInstance, Map<String, Object> model, QsysVersion qsys)
            throws OverlayException {
        SystemModel sys = info.model().orElseThrow();
        Instance hip = sys.instance(info.dmaInstance()).orElseThrow();
        Bridge.Params p = cp.bridge();
        Path boardDir = info.boardSpec().getParent();
        boolean pro = sys.edition() == SystemModel.Edition.PRO;
        String inPlaceDir = pro ? PRO_IN_PLACE_DIR : OverlayWriter.IN_PLACE_DIR;

        List<HardIpPlan.Channel> channels = new ArrayList<>();
        List<KernelWrapper.Channel> wrapperChannels = new ArrayList<>();
        for (ChannelPort.Channel c : p.channelList()) {
            boolean kernelWrites = c.type() == ChannelPort.Type.STREAMSINK;
            channels.add(new HardIpPlan.Channel(c.port(), p.boardPort(c), kernelWrites));
            wrapperChannels.add(new KernelWrapper.Channel(p.boardPort(c), c.width(), kernelWrites));
        }
        List<Interface> ifs = interfaces.stream().map(i -> toSystem(i, top.name())).toList();
        BigInteger csrSpan = ifs.stream().filter(i -> i.name().equals("csr")).findFirst().flatMap(Interface::span)
                .orElseThrow(() -> new IllegalStateException("the controller's csr states no span"));
        HardIpPlan.Controller ctl = new HardIpPlan.Controller(top.name(), top.name(), ifs, channels, cp.descReadyLatency(), csrSpan);

        String[] kernel = kernelClockReset(spec, boardInstance);
        Path scriptPath = Path.of(inPlaceDir, Overlay.INTEGRATE_TCL);
        HardIpPlan.Result plan = HardIpPlan.plan(sys, hip, ctl, kernel[0], kernel[1], scriptPath);
        List<SystemCheck.Result> failed = plan.checks().stream().filter(c -> !c.ok()).toList();
        if (!failed.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.BSP, info.root() + ": the integration planned on "
                    + info.root().relativize(info.system()) + " fails its model check, so nothing was written:\n  "
                    + String.join("\n  ", failed.stream().map(SystemCheck.Result::toString).toList()));
        }
        String system = boardDir.relativize(info.system()).toString().replace('\\', '/');
        String script = ProScript.render(plan, sys, system, qsys.version(), top.name(), top.name(), model);

        // the kernel wrapper chain: freeze_wrapper.v and the top level that instantiates it
        Map<String, byte[]> bspFiles = new LinkedHashMap<>();
        List<String> kept = new ArrayList<>();
        Optional<Path> wrapper = info.kernelWrappers().stream().filter(w -> w.getFileName().toString().startsWith("freeze_wrapper"))
                .filter(w -> w.startsWith(boardDir)).findFirst();
        if (wrapper.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.BSP, boardDir + ": no freeze_wrapper.v under the board directory: the kernel"
                    + " channels cannot reach the kernel system (a10_ref-derived boards list its ports by hand in ip/freeze_wrapper.v)");
        }
        String wrapperText = read(wrapper.get());
        String edited = KernelWrapper.editWrapper(wrapperText, wrapper.get(), wrapperChannels);
        String wrapperRel = boardDir.relativize(wrapper.get()).toString().replace('\\', '/');
        bspFiles.put(Overlay.BOARD_EDITS + wrapperRel, edited.getBytes(StandardCharsets.ISO_8859_1));
        kept.add(wrapperRel);
        Path topFile = topLevel(boardDir, wrapper.get());
        String topRel = boardDir.relativize(topFile).toString().replace('\\', '/');
        bspFiles.put(Overlay.BOARD_EDITS + topRel, KernelWrapper.editTop(read(topFile), topFile, sys.name(), wrapperChannels)
                .getBytes(StandardCharsets.ISO_8859_1));
        kept.add(topRel);
        // what the script changes when the user runs it: the system and, in Pro, the hard IP's .ip
        kept.add(system);
        hip.ipFile().ifPresent(ip -> kept.add(boardDir.relativize(ip.toAbsolutePath().normalize()).toString().replace('\\', '/')));
        List<String> created = new ArrayList<>();
        if (pro) {
            created.add("ip/" + sys.name() + "/" + sys.name() + "_" + top.name() + ".ip");
        }

        Map<String, Object> manifest = new LinkedHashMap<>(HostDescController.manifest(cp));
        Map<String, Object> board = new LinkedHashMap<>();
        board.put("system", system);
        board.put("hard_ip", hip.name());
        board.put("controller", "direkt");
        Map<String, Object> csr = new LinkedHashMap<>();
        csr.put("bar", plan.csrBar());
        csr.put("offset", String.format("0x%X", plan.csrBase()));
        csr.put("bytes", csrSpan.longValueExact());
        csr.put("host", plan.csrHost());
        board.put("csr", csr);
        Map<String, Object> regs = new LinkedHashMap<>();
        regs.put("bar", 0);
        regs.put("rd", "0x000");
        regs.put("wr", "0x100");
        board.put("descriptor_controller", regs);
        Map<String, Object> dts = new LinkedHashMap<>();
        plan.dtsBases().forEach((k, v) -> dts.put(k, String.format("0x%016X", v)));
        board.put("table_agents", dts);
        manifest.put("board", board);
        return new ControllerIntegration(plan, script, bspFiles, Json.write(manifest), inPlaceDir, kept, created, cp.descReadyLatency());
    }

    /** What OVERLAY.md says of the integration (the template's {@code bsp.controller}). */
    Map<String, Object> describe(BspScanner.BspInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        Path boardDir = info.boardSpec().getParent();
        m.put("system", boardDir.relativize(info.system()).toString().replace('\\', '/'));
        m.put("hardIp", plan.hardIp());
        m.put("inPlaceDir", inPlaceDir);
        m.put("csrBar", plan.csrBar());
        m.put("csrOffset", String.format("0x%X", plan.csrBase()));
        m.put("csrHost", plan.csrHost());
        m.put("rdDts", String.format("0x%X", plan.dtsBases().get("rd")));
        m.put("wrDts", String.format("0x%X", plan.dtsBases().get("wr")));
        m.put("bspFiles", bspFiles.keySet().stream().map(k -> k.substring(Overlay.BOARD_EDITS.length())).toList());
        m.put("checks", plan.checks().stream().map(c -> c.what()).toList());
        m.put("kernelClock", plan.kernelClock());
        m.put("dmaClock", plan.dmaClock());
        m.put("descReadyLatency", descReadyLatency);
        return m;
    }

    /** board_spec.xml's kernel clock and reset, as the system's export names ({@code board.kernel_clk} -> {@code kernel_clk}). */
    static String[] kernelClockReset(BoardSpec spec, String boardInstance) {
        String clk = "kernel_clk";
        String reset = "kernel_reset";
        Matcher m = KERNEL_CLK_RESET.matcher(spec.text());
        if (m.find()) {
            clk = attr(m.group(), "clk").orElse(clk);
            reset = attr(m.group(), "reset").orElse(reset);
        }
        return new String[] {strip(clk, boardInstance), strip(reset, boardInstance)};
    }

    private static Optional<String> attr(String tag, String name) {
        Matcher m = Pattern.compile("\\b" + name + "\\s*=\\s*\"([^\"]*)\"").matcher(tag);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static String strip(String v, String instance) {
        return v.startsWith(instance + ".") ? v.substring(instance.length() + 1) : v;
    }

    /** The Verilog file of the board directory (outside ip/ and direkt's output) that instantiates the kernel wrapper. */
    private static Path topLevel(Path boardDir, Path wrapper) throws OverlayException {
        List<Path> found = new ArrayList<>();
        try (Stream<Path> s = Files.walk(boardDir, 2)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().toList()) {
                String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
                if ((n.endsWith(".v") || n.endsWith(".sv")) && !f.equals(wrapper) && !boardDir.relativize(f).toString().startsWith(".")
                        && KernelWrapper.instantiatesWrapper(read(f))) {
                    found.add(f);
                }
            }
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, boardDir + ": cannot list: " + e.getMessage());
        }
        if (found.size() != 1) {
            throw new OverlayException(OverlayException.Kind.BSP, boardDir + ": " + (found.isEmpty() ? "no Verilog file"
                    : found.size() + " Verilog files (" + String.join(", ", found.stream().map(f -> boardDir.relativize(f).toString()).toList())
                            + ")") + " instantiate freeze_wrapper; direkt needs exactly one top level to carry the channels through");
        }
        return found.getFirst();
    }

    private static String read(Path f) throws OverlayException {
        try {
            return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, f + ": cannot read: " + e.getMessage());
        }
    }

    /** A component interface as the system model holds one: clock and reset as associations, an agent's span from its address port. */
    static Interface toSystem(PlatformInterfaces.Interface i, String component) {
        Map<String, String> props = new LinkedHashMap<>(i.properties());
        if (i.clock() != null && !i.clock().isEmpty()) {
            props.put("associatedClock", i.clock());
        }
        if (i.reset() != null && !i.reset().isEmpty()) {
            props.put("associatedReset", i.reset());
        }
        List<Port> ports = i.ports().stream().map(x -> new Port(x.name(), x.role(), x.direction(), x.width())).toList();
        Optional<BigInteger> span = Optional.empty();
        if (i.type().equals("avalon") && i.end()) {
            int addr = i.ports().stream().filter(x -> x.role().equals("address")).mapToInt(PlatformInterfaces.Port::width).findFirst().orElse(0);
            int data = i.ports().stream().filter(x -> x.role().equals("writedata") || x.role().equals("readdata"))
                    .mapToInt(PlatformInterfaces.Port::width).findFirst().orElse(8);
            boolean words = "WORDS".equalsIgnoreCase(props.getOrDefault("addressUnits", "SYMBOLS"));
            span = Optional.of(BigInteger.ONE.shiftLeft(addr).multiply(BigInteger.valueOf(words ? Math.max(1, data / 8) : 1)));
        }
        return new Interface(i.name(), i.type(), !i.end(), ports, props, span, new Where(Path.of(component + "_hw.tcl"), 0));
    }
}
