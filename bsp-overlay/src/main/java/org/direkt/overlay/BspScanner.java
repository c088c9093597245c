// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.direkt.generators.bridge.Manifest;
import org.direkt.overlay.system.Connection;
import org.direkt.overlay.system.Instance;
import org.direkt.overlay.system.SystemModel;
import org.direkt.overlay.system.SystemReader;

/**
 * Finds what the overlay needs in a BSP tree and says what kind of BSP it is ({@link Kind}): the
 * board_spec.xml; in an Intel FPGA SDK for OpenCL BSP, the Platform Designer system next to it that
 * holds the PCIe hard IP with Avalon-MM DMA and the descriptor controller feeding its data movers;
 * the kernel wrapper; the Platform Designer release the BSP's files state. A directory holding only a
 * board_spec.xml is valid: the Platform Designer integration then becomes a manual step.
 *
 * <p>BSPs whose host DMA is not that hard IP are told by their characteristic files: an OFS oneAPI ASP
 * by the Platform Interface Manager's AFU top ({@code module ofs_plat_afu}), a CCI-P based BSP by the
 * CCI-P AFU top ({@code module ccip_std_afu}). For them, and for a system whose hard IP uses its
 * internal descriptor controller or that has no hard IP, {@link BspInfo#refusal()} says what was found
 * and what is missing. Scanning itself refuses nothing (revert scans too); the planner decides.
 */
public final class BspScanner {
    private BspScanner() {
    }

    /** What kind of BSP a tree is. */
    public enum Kind {
        PLATFORM_DESIGNER("an Intel FPGA SDK for OpenCL BSP with a Platform Designer system"),
        BOARD_SPEC_ONLY("a board_spec.xml without a Platform Designer system"),
        OFS_ASP("an OFS oneAPI ASP"),
        CCIP("a CCI-P based BSP"),
        SOFT_DMA("an Intel FPGA SDK for OpenCL BSP whose host DMA is the soft acl_dma");

        /** An indefinite noun phrase, for messages and OVERLAY.md. */
        public final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    /**
     * Why the bridge has no place in this BSP: what was found and what is missing, each a sentence
     * without a final period, with paths relative to the BSP root.
     */
    public record Refusal(String found, String missing) {
    }

    /**
     * What was found. {@code system} is null, and {@code dmaInstance}/{@code descInstance} empty, when
     * no Platform Designer system next to board_spec.xml holds a usable hard IP. {@code evidence}
     * lists the files that tell the kind (relative to {@code root}); {@code refusal} is null when the
     * bridge can go in (or be integrated by hand); {@code qsysVersion} is what the BSP's Platform
     * Designer files state, empty when none does; {@code kernelWrappers} are the kernel wrapper files
     * of the board directory.
     */
    public record BspInfo(Path root, Path boardSpec, String boardDir, Kind kind, List<String> evidence, Path system,
            String dmaInstance, String descInstance, List<String> moverInterfaces, Refusal refusal,
            Optional<QsysVersion> qsysVersion, List<Path> kernelWrappers, List<String> notes, Optional<SystemModel> model,
            boolean internalController) {
        public BspInfo {
            evidence = List.copyOf(evidence);
            moverInterfaces = List.copyOf(moverInterfaces);
            kernelWrappers = List.copyOf(kernelWrappers);
            notes = List.copyOf(notes);
        }
    }

    /** The hard IP's descriptor sinks, as Platform Designer names them (Arria 10 / Stratix 10). */
    private static final Pattern MOVER_DESC_IF = Pattern.compile("(rd|wr)_ast_rx|(rd|wr)dmarx|(rd|wr)_dma_rx", Pattern.CASE_INSENSITIVE);
    /** The PCIe hard IP's kinds; the separate DMA descriptor controller (altera_pcie_dma_desc_controller) is not one. */
    private static final Pattern HARD_IP_KIND = Pattern.compile("(?!.*(desc|controller)).*pcie.*(hip|dma).*", Pattern.CASE_INSENSITIVE);
    /** The soft DMA of Stratix V BSPs (de5net and kin): it, not a hard IP's data movers, moves the host's data. */
    private static final Pattern SOFT_DMA_KIND = Pattern.compile("acl_dma", Pattern.CASE_INSENSITIVE);
    /** OFS oneAPI ASP board directories name these files even before their setup script copies the ASP's common RTL in. */
    private static final Pattern OFS_ASP_FILE = Pattern.compile("oneapi_afu\\.json|ofs_asp\\.vh");

    /** The module declarations that tell a BSP's kind, and what each module is. */
    private static final Pattern KIND_MODULE = Pattern.compile("^[ \\t]*module[ \\t\\r\\n]+(ofs_plat_afu|ccip_std_afu)\\b", Pattern.MULTILINE);
    private static final List<Kind> MARKED_KINDS = List.of(Kind.OFS_ASP, Kind.CCIP);

    private static String moduleOf(Kind kind) {
        return kind == Kind.OFS_ASP ? "ofs_plat_afu" : "ccip_std_afu";
    }

    private static String moduleRole(Kind kind) {
        return kind == Kind.OFS_ASP ? "the AFU top of the OFS Platform Interface Manager" : "the CCI-P AFU top";
    }

    private static String hostDma(Kind kind) {
        return kind == Kind.OFS_ASP
                ? "its host DMA is soft logic in the ASP on the FIM's PCIe subsystem"
                : "its host DMA is soft logic that reaches host memory through CCI-P";
    }

    /** Kernel wrappers that list the kernel system's ports by hand (freeze_wrapper.v in the SDK's reference BSPs). */
    private static final Pattern KERNEL_WRAPPER = Pattern.compile("(freeze|kernel)_wrapper\\.s?v");
    /** Source files larger than this are not searched for the module declarations (generated netlists). */
    private static final long MAX_SOURCE_BYTES = 2L << 20;
    private static final int MAX_DEPTH = 12;

    public static BspInfo scan(Path given, String board) throws OverlayException {
        // Normalised once, so names (the board directory) and containment checks see real components.
        Path bsp = given.toAbsolutePath().normalize();
        if (!Files.exists(bsp)) {
            throw new OverlayException(OverlayException.Kind.INPUT, bsp + ": no such BSP directory");
        }
        if (!Files.isDirectory(bsp)) {
            throw new OverlayException(OverlayException.Kind.INPUT, bsp + ": not a directory (give the BSP's root or a directory holding board_spec.xml)");
        }
        Path spec = findBoardSpec(bsp, board);
        Path boardDir = spec.getParent();
        String boardName = boardDir.getFileName().toString();
        List<String> notes = new ArrayList<>();
        Tree tree = Tree.walk(bsp, boardDir, notes);
        List<Path> systems;
        try (Stream<Path> s = Files.list(boardDir)) {
            systems = s.filter(p -> p.getFileName().toString().endsWith(".qsys") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, boardDir + ": cannot list: " + e.getMessage());
        }

        Refusal systemRefusal = null;
        List<String> looked = new ArrayList<>();
        Kind systemKind = Kind.PLATFORM_DESIGNER;
        for (Path sys : systems) {
            SystemModel model = SystemReader.read(sys);
            Optional<Instance> softDma = model.instances().stream().filter(i -> SOFT_DMA_KIND.matcher(i.kind()).matches()).findFirst();
            if (softDma.isPresent()) {
                systemKind = Kind.SOFT_DMA;
                systemRefusal = new Refusal(Kind.SOFT_DMA.description + ": " + softDma.get().where() + ": instance '"
                        + softDma.get().name() + "' (" + softDma.get().kind() + ")", "its host DMA is soft logic (acl_dma) beside a"
                        + " PCIe hard IP without Avalon-MM DMA data movers, so there is no descriptor stream for the bridge to join");
                continue;
            }
            Optional<Instance> found = model.instances().stream().filter(i -> HARD_IP_KIND.matcher(i.kind()).matches()).findFirst();
            if (found.isEmpty()) {
                looked.add(bsp.relativize(sys) + " (no PCIe hard IP instance)");
                continue;
            }
            Instance hipInst = found.get();
            String hip = hipInst.name();
            Optional<QsysVersion> version = tree.stated(bsp, sys, notes);
            boolean internal = hipInst.parameter(HardIpPlan.INTERNAL_CONTROLLER).map(v -> v.trim().equals("1") || v.trim().equalsIgnoreCase("true"))
                    .orElse(false) || hipInst.iface("rd_dts_slave").isPresent();
            if (internal) {
                List<String> evidence = List.of(hipInst.where() + ": PCIe hard IP '" + hip + "' (" + hipInst.kind()
                        + ") runs its internal descriptor controller (" + HardIpPlan.INTERNAL_CONTROLLER + " = "
                        + hipInst.parameter(HardIpPlan.INTERNAL_CONTROLLER).orElse("?") + hipInst.parameterWhere()
                        .getOrDefault(HardIpPlan.INTERNAL_CONTROLLER, hipInst.where()).toString().transform(w -> ", " + w) + ")");
                return new BspInfo(bsp, spec, boardName, Kind.PLATFORM_DESIGNER, evidence, sys, hip, "", List.of(), null,
                        version, tree.wrappers, notes, Optional.of(model), true);
            }
            List<String> moverIfs = new ArrayList<>();
            String controller = "";
            for (Connection c : model.connections()) {
                if (c.endInstance().equals(hip) && MOVER_DESC_IF.matcher(c.endInterface()).matches()) {
                    moverIfs.add(c.endInterface());
                    controller = c.startInstance();
                }
            }
            if (moverIfs.isEmpty()) {
                systemRefusal = new Refusal(bsp.relativize(sys) + ": PCIe hard IP instance '" + hip + "' (" + hipInst.kind()
                        + ") has no Avalon-ST descriptor interface (rd_ast_rx / wr_ast_rx) connected",
                        "neither an internal descriptor controller direkt can replace nor an external one feeds its data movers,"
                                + " so there is no descriptor stream for the bridge to join");
                continue;
            }
            List<String> evidence = List.of(bsp.relativize(sys) + ": PCIe hard IP '" + hip + "', descriptor controller '" + controller + "'");
            return new BspInfo(bsp, spec, boardName, Kind.PLATFORM_DESIGNER, evidence, sys, hip, controller, moverIfs, null,
                    version, tree.wrappers, notes, Optional.of(model), false);
        }

        Optional<QsysVersion> version = tree.stated(bsp, null, notes);
        for (Kind k : MARKED_KINDS) {
            List<Path> marks = tree.marks(k);
            if (!marks.isEmpty()) {
                // a module declaration tells more than a board file: it comes first
                List<Path> ordered = new ArrayList<>(marks.stream().filter(p -> !OFS_ASP_FILE.matcher(p.getFileName().toString()).matches()).toList());
                marks.stream().filter(p -> OFS_ASP_FILE.matcher(p.getFileName().toString()).matches()).forEach(ordered::add);
                List<String> evidence = ordered.stream()
                        .map(p -> OFS_ASP_FILE.matcher(p.getFileName().toString()).matches()
                                ? bsp.relativize(p) + " is an OFS oneAPI ASP board file (the ASP's common RTL, which its setup script"
                                        + " copies in, is not there yet)"
                                : bsp.relativize(p) + " declares module " + moduleOf(k) + " (" + moduleRole(k) + ")").toList();
                Refusal r = new Refusal(k.description + ": " + evidence.getFirst(), hostDma(k) + ", not the PCIe hard IP with"
                        + " Avalon-MM DMA, and no Platform Designer system next to " + bsp.relativize(spec) + " holds that hard IP,"
                        + " whose data movers the bridge sits in front of");
                return new BspInfo(bsp, spec, boardName, k, evidence, null, "", "", List.of(), r, version, tree.wrappers, notes,
                        Optional.empty(), false);
            }
        }
        if (!systems.isEmpty()) {
            Refusal r = systemRefusal != null ? systemRefusal : new Refusal("Platform Designer systems " + String.join(", ", looked),
                    "no Platform Designer system next to " + bsp.relativize(spec) + " holds a PCIe DMA hard IP");
            List<String> evidence = systems.stream().map(s -> bsp.relativize(s).toString()).toList();
            return new BspInfo(bsp, spec, boardName, systemKind, evidence, null, "", "", List.of(), r, version,
                    tree.wrappers, notes, Optional.empty(), false);
        }
        notes.add("no Platform Designer system (*.qsys) next to " + bsp.relativize(spec)
                + ": the bridge must be added to the BSP's system by hand (see OVERLAY.md)");
        return new BspInfo(bsp, spec, boardName, Kind.BOARD_SPEC_ONLY, List.of(), null, "", "", List.of(), null, version,
                tree.wrappers, notes, Optional.empty(), false);
    }

    /**
     * What one walk of the BSP tree finds: the files declaring a kind's module (anywhere under the
     * root), and the Platform Designer files and kernel wrappers of the board directory. Hidden
     * directories and direkt's own overlay output are not entered.
     */
    private static final class Tree {
        final List<Path> ofs = new ArrayList<>();
        final List<Path> ccip = new ArrayList<>();
        final List<Path> designerFiles = new ArrayList<>();
        final List<Path> wrappers = new ArrayList<>();

        List<Path> marks(Kind k) {
            return k == Kind.OFS_ASP ? ofs : ccip;
        }

        static Tree walk(Path root, Path boardDir, List<String> notes) throws OverlayException {
            Tree t = new Tree();
            try {
                Files.walkFileTree(root, EnumSet.noneOf(java.nio.file.FileVisitOption.class), MAX_DEPTH, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        if (!dir.equals(root) && (dir.getFileName().toString().startsWith(".")
                                || Files.isRegularFile(dir.resolve(Manifest.FILE_NAME)))) {
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (!attrs.isRegularFile()) {
                            return FileVisitResult.CONTINUE;
                        }
                        String name = file.getFileName().toString();
                        String lower = name.toLowerCase(Locale.ROOT);
                        boolean inBoard = file.startsWith(boardDir);
                        if (inBoard && (lower.endsWith(".qsys") || lower.endsWith(".ip"))) {
                            t.designerFiles.add(file);
                        }
                        if (inBoard && KERNEL_WRAPPER.matcher(name).matches()) {
                            t.wrappers.add(file);
                        }
                        if (OFS_ASP_FILE.matcher(name).matches() && !t.ofs.contains(file)) {
                            t.ofs.add(file);
                        }
                        if ((lower.endsWith(".sv") || lower.endsWith(".v")) && attrs.size() <= MAX_SOURCE_BYTES) {
                            t.declarations(file, root, notes);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        notes.add(root.relativize(file) + ": cannot read (" + e.getMessage() + "), not searched");
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, root + ": cannot list: " + e.getMessage());
            }
            for (List<Path> l : List.of(t.ofs, t.ccip, t.designerFiles, t.wrappers)) {
                l.sort(null);
            }
            return t;
        }

        private void declarations(Path file, Path root, List<String> notes) {
            String text;
            try {
                text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                notes.add(root.relativize(file) + ": cannot read (" + e.getMessage() + "), not searched");
                return;
            }
            Matcher m = KIND_MODULE.matcher(text);
            while (m.find()) {
                List<Path> into = m.group(1).equals("ofs_plat_afu") ? ofs : ccip;
                if (!into.contains(file)) {
                    into.add(file);
                }
            }
        }

        /**
         * The Platform Designer release the board's files state: {@code system}'s when it states one,
         * else the newest any of the board directory's {@code .qsys}/{@code .ip} files states. A file
         * that is not readable XML is skipped with a note.
         */
        Optional<QsysVersion> stated(Path root, Path system, List<String> notes) {
            List<Path> order = new ArrayList<>();
            if (system != null) {
                order.add(system);
            }
            designerFiles.stream().filter(p -> !p.equals(system)).forEach(order::add);
            List<QsysVersion> found = new ArrayList<>();
            for (Path f : order) {
                try {
                    Optional<String> v = QsysVersion.statedBy(f);
                    if (v.isPresent()) {
                        found.add(new QsysVersion(v.get(), QsysVersion.Origin.SYSTEM_FILE, root.relativize(f).toString()));
                        if (f.equals(system)) {
                            return Optional.of(found.getFirst());
                        }
                    }
                } catch (QsysVersion.UnreadableException e) {
                    notes.add(root.relativize(f) + ":" + e.getMessage() + " (skipped when looking for the Platform Designer version)");
                } catch (IOException e) {
                    notes.add(root.relativize(f) + ": cannot read (" + e.getMessage() + "), skipped when looking for the Platform Designer version");
                }
            }
            return QsysVersion.newest(found);
        }
    }

    /**
     * The board_spec.xml of a BSP or board directory: the directory's own, else {@code hardware/<board>/}
     * or {@code <board>/} for {@code --board}, else the one board under {@code hardware/}.
     */
    public static Path findBoardSpec(Path bsp, String board) throws OverlayException {
        Path direct = bsp.resolve("board_spec.xml");
        if (board == null && Files.isRegularFile(direct)) {
            return direct;
        }
        Path hw = bsp.resolve("hardware");
        if (board != null) {
            for (Path c : List.of(hw.resolve(board).resolve("board_spec.xml"), bsp.resolve(board).resolve("board_spec.xml"))) {
                if (Files.isRegularFile(c)) {
                    return c;
                }
            }
            if (Files.isRegularFile(direct) && bsp.getFileName() != null && bsp.getFileName().toString().equals(board)) {
                return direct;
            }
            throw new OverlayException(OverlayException.Kind.INPUT, bsp + ": no board '" + board
                    + "' (looked for hardware/" + board + "/board_spec.xml and " + board + "/board_spec.xml)");
        }
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(hw)) {
            try (Stream<Path> s = Files.list(hw)) {
                s.sorted().forEach(d -> {
                    if (Files.isRegularFile(d.resolve("board_spec.xml"))) {
                        found.add(d.resolve("board_spec.xml"));
                    }
                });
            } catch (IOException e) {
                throw new OverlayException(OverlayException.Kind.INPUT, hw + ": cannot list: " + e.getMessage());
            }
        }
        if (found.size() == 1) {
            return found.getFirst();
        }
        if (found.isEmpty()) {
            throw new OverlayException(OverlayException.Kind.INPUT, bsp + ": no board_spec.xml (looked in " + bsp
                    + " and hardware/*/)");
        }
        throw new OverlayException(OverlayException.Kind.INPUT, bsp + " has " + found.size() + " boards ("
                + String.join(", ", found.stream().map(p -> p.getParent().getFileName().toString()).toList())
                + "): choose one with --board");
    }
}
