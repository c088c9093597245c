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
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.generators.Json;
import org.direkt.generators.aperture.Aperture;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.HostDescController;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.Interface;
import org.direkt.overlay.system.Port;
import org.direkt.overlay.system.SystemCheck;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.Units;
import org.direkt.overlay.system.Where;

/**
 * The overlay of a board whose PCIe hard IP runs its internal descriptor controller: the plan on the
 * system model ({@link HardIpPlan}), the Platform Designer script rendered from it ({@link ProScript}),
 * the kernel wrapper chain edited ({@link KernelWrapper}), the manifest saying where the bridge's CSR
 * went, and what an in-place run must keep so that {@code direkt revert} restores every byte, also
 * after the script has run. With {@code --aperture}, the GPU-master aperture rides along: its files
 * (Verilog and {@code _hw.tcl}, beside the controller's), its edits in the same plan and script, and
 * the manifest's {@code aperture} section.
 */
record ControllerIntegration(HardIpPlan.Result plan, String script, Map<String, byte[]> bspFiles, String manifest, String inPlaceDir,
        List<String> keptForRevert, List<String> createdByScript, int descReadyLatency, Map<String, byte[]> apertureFiles,
        Map<String, Object> aperture) {

    /** The aperture's instance, named after its top module, as the controller's is. */
    static final String APERTURE_INSTANCE = "direkt_aperture";

    /** Where an in-place overlay goes in a Pro board: under ip/, which Platform Designer Pro searches for components. */
    static final String PRO_IN_PLACE_DIR = "ip/direkt";

    private static final Pattern KERNEL_CLK_RESET = Pattern.compile("<kernel_clk_reset\\b[^>]*>");

    static ControllerIntegration plan(BspScanner.BspInfo info, BoardSpec spec, HostDescController.Params cp, Module top,
            List<PlatformInterfaces.Interface> interfaces, String boardInstance, Map<String, Object> model, QsysVersion qsys)
            throws OverlayException {
        return plan(info, spec, cp, top, interfaces, boardInstance, model, qsys, null);
    }

    /** The same, with the GPU-master aperture {@code aperture} (null: none) on the hard IP's bursting BAR2. */
    static ControllerIntegration plan(BspScanner.BspInfo info, BoardSpec spec, HostDescController.Params cp, Module top,
            List<PlatformInterfaces.Interface> interfaces, String boardInstance, Map<String, Object> model, QsysVersion qsys,
            ApertureOption aperture) throws OverlayException {
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
        ApertureBuild ap = aperture == null ? null : ApertureBuild.of(info, spec, sys, hip, p, aperture, model);
        HardIpPlan.Result plan = HardIpPlan.plan(sys, hip, ctl, kernel[0], kernel[1], scriptPath,
                Optional.ofNullable(ap).map(ApertureBuild::spec));
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
            if (ap != null) {
                created.add("ip/" + sys.name() + "/" + sys.name() + "_" + APERTURE_INSTANCE + ".ip");
            }
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
        Map<String, Object> apertureSection = ap == null ? Map.of() : Aperture.manifest(ap.params(), HardIpPlan.APERTURE_BAR);
        if (ap != null) {
            manifest.put("aperture", apertureSection);
        }
        return new ControllerIntegration(plan, script, bspFiles, Json.write(manifest), inPlaceDir, kept, created, cp.descReadyLatency(),
                ap == null ? Map.of() : ap.files(), apertureSection);
    }

    /**
     * The aperture for a run with {@code --aperture}: where it goes on the hard IP, the window checked
     * against the board's FPGA memory, the generator's parameters, its elaborated top, and its files
     * for the overlay directory (the Verilog under ip/, its _hw.tcl beside the controller's, rendered by
     * the same template).
     */
    record ApertureBuild(HardIpPlan.ApertureSpec spec, Aperture.Params params, Module top, Map<String, byte[]> files) {

        static ApertureBuild of(BspScanner.BspInfo info, BoardSpec spec, SystemModel sys, Instance hip, Bridge.Params bridge,
                ApertureOption option, Map<String, Object> model) throws OverlayException {
            HardIpPlan.ApertureSite site = HardIpPlan.apertureSite(sys, hip);
            HardIpPlan.MemoryTarget target = site.target();
            // the board's FPGA memory: what board_spec.xml says, what the bridge is configured for, what the read mover reaches
            List<String> said = new ArrayList<>();
            BigInteger limit = null;
            String limitSource = null;
            Optional<GlobalMemory> mem = spec.globalMemories().stream().filter(GlobalMemory::isDefault).findFirst();
            Optional<BigInteger> boardBytes = mem.flatMap(ControllerIntegration::memoryBytes);
            if (boardBytes.isPresent()) {
                String src = "board_spec.xml's global memory " + mem.get().name();
                said.add(src + " holds " + ApertureOption.describe(boardBytes.get().longValueExact()));
                limit = boardBytes.get();
                limitSource = src;
            }
            BigInteger bridgeBytes = BigInteger.valueOf(bridge.fpgaMemBytes());
            said.add("the bridge's fpga_mem_bytes is " + ApertureOption.describe(bridge.fpgaMemBytes()));
            if (limit == null || bridgeBytes.compareTo(limit) < 0) {
                limit = bridgeBytes;
                limitSource = "the bridge's fpga_mem_bytes";
            }
            if (target.memorySpan().isPresent()) {
                BigInteger reached = target.memorySpan().get();
                said.add(hip.name() + ".dma_rd_master reaches " + Units.size(reached) + " of it at " + target.memory());
                if (reached.compareTo(limit) < 0) {
                    limit = reached;
                    limitSource = "what " + hip.name() + ".dma_rd_master reaches at " + target.memory();
                }
            }
            if (option.end().compareTo(limit) > 0) {
                String end = "0x" + option.end().toString(16).toUpperCase(Locale.ROOT);
                throw new OverlayException(OverlayException.Kind.INPUT, info.boardSpec() + ": --aperture "
                        + ApertureOption.describe(option.bytes()) + " from --aperture-base " + ApertureOption.hex(option.fpgaBase())
                        + " ends at " + end + ", past the board's FPGA memory: " + String.join("; ", said) + "; nothing was written");
            }
            int memBits = Math.max(12, limit.subtract(BigInteger.ONE).bitLength());
            Aperture.Params params;
            Module top;
            try {
                Aperture.Params d = Aperture.Params.defaults();
                params = new Aperture.Params(option.bytes(), option.fpgaBase(), memBits, site.dataBits(), site.maxBurst(),
                        d.responseBeats());
                top = new Aperture().elaborate(params);
            } catch (IllegalArgumentException | ElaborationException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, "--aperture " + ApertureOption.describe(option.bytes())
                        + ": the aperture does not elaborate for this board: " + e.getMessage());
            }
            List<PlatformInterfaces.Interface> ifs = ApertureInterfaces.of(params, top);
            Map<String, byte[]> files = new LinkedHashMap<>();
            Map<String, String> verilog = new TreeMap<>(VerilogEmitter.emit(top));
            List<String> names = verilog.keySet().stream().map(n -> n + ".v").toList();
            verilog.forEach((name, text) -> files.put(Overlay.IP_DIR + "/" + name + ".v", text.getBytes(StandardCharsets.UTF_8)));
            Map<String, Object> hw = new LinkedHashMap<>();
            hw.put("top", top.name());
            hw.put("layoutVersion", model.get("layoutVersion"));
            hw.put("bsp", model.get("bsp"));
            hw.put("files", names);
            hw.put("interfaces", ApertureInterfaces.toMaps(ifs));
            Map<String, Object> what = new LinkedHashMap<>();
            what.put("what", "aperture");
            what.put("displayName", "direkt aperture");
            what.put("description", "GPU-master aperture: " + Units.size(BigInteger.valueOf(params.barBytes())) + " of FPGA memory from "
                    + ApertureOption.hex(params.fpgaBase()) + " on a bursting PCIe BAR, up to " + params.front().outstandingReads()
                    + " read bursts in flight");
            what.put("maxBurst", params.maxBurst());
            what.put("burstcountBits", params.front().burstBits());
            hw.put("hwComponent", what);
            files.put(Overlay.hwTcl(top.name()), Templates.render("direkt_bridge_hw.tcl.vm", hw).getBytes(StandardCharsets.UTF_8));
            List<Interface> inSystem = ApertureInterfaces.inSystem(ifs).stream().map(i -> toSystem(i, top.name())).toList();
            HardIpPlan.ApertureSpec s = new HardIpPlan.ApertureSpec(APERTURE_INSTANCE, top.name(), inSystem,
                    BigInteger.valueOf(option.bytes()), BigInteger.valueOf(option.fpgaBase()), site, limit, limitSource);
            return new ApertureBuild(s, params, top, files);
        }
    }

    /** A global memory's size: the sum of its interfaces' {@code size} attributes, when each states one. */
    static Optional<BigInteger> memoryBytes(GlobalMemory g) {
        BigInteger sum = BigInteger.ZERO;
        if (g.interfaces().isEmpty()) {
            return Optional.empty();
        }
        for (var i : g.interfaces()) {
            String v = i.attributes().get("size");
            if (v == null) {
                return Optional.empty();
            }
            try {
                String t = v.strip().toLowerCase(Locale.ROOT);
                sum = sum.add(t.startsWith("0x") ? new BigInteger(t.substring(2), 16) : new BigInteger(t));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return sum.signum() > 0 ? Optional.of(sum) : Optional.empty();
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
        m.put("aperture", plan.aperture().map(a -> {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("instance", a.instance());
            am.put("component", Overlay.hwTcl(a.instance()));
            am.put("bar", a.bar());
            am.put("barSize", Units.size(a.barBytes()));
            am.put("fpgaBase", String.format("0x%X", a.fpgaBase()));
            am.put("fpgaEnd", String.format("0x%X", a.fpgaBase().add(a.barBytes())));
            am.put("rxMaster", a.rxMaster());
            am.put("target", a.target().agent());
            am.put("targetBase", String.format("0x%X", a.target().connectionBase()));
            am.put("memory", a.target().memory());
            am.put("memClock", a.target().clock());
            am.put("pcieClock", a.pcieClock());
            am.put("outstandingReads", aperture.get("outstanding_reads"));
            am.put("maxReadBytes", aperture.get("max_read_bytes"));
            return (Object) am;
        }).orElse(false));
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
