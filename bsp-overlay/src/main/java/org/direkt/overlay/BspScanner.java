package org.direkt.overlay;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Finds what the overlay needs in a BSP tree: the board_spec.xml, and, in a full BSP, the
 * Platform Designer system holding the PCIe DMA hard IP and the descriptor controller that feeds
 * its movers. A directory holding only a board_spec.xml is valid: the Platform Designer
 * integration then becomes a manual step.
 */
public final class BspScanner {
    private BspScanner() {
    }

    /** What was found. {@code system} is null when the tree has no Platform Designer system. */
    public record BspInfo(Path root, Path boardSpec, String boardDir, Path system, String dmaInstance,
            String descInstance, List<String> moverInterfaces, List<String> notes) {
    }

    /** The hard IP's descriptor sinks, as Platform Designer names them (Arria 10 / Stratix 10). */
    private static final Pattern MOVER_DESC_IF = Pattern.compile("(rd|wr)_ast_rx|(rd|wr)dmarx|(rd|wr)_dma_rx", Pattern.CASE_INSENSITIVE);
    private static final Pattern HARD_IP_KIND = Pattern.compile(".*pcie.*(hip|dma).*", Pattern.CASE_INSENSITIVE);

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
        List<String> notes = new ArrayList<>();
        List<Path> systems;
        try (Stream<Path> s = Files.list(boardDir)) {
            systems = s.filter(p -> p.getFileName().toString().endsWith(".qsys")).sorted().toList();
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, boardDir + ": cannot list: " + e.getMessage());
        }
        if (systems.isEmpty()) {
            notes.add("no Platform Designer system (*.qsys) next to " + bsp.relativize(spec)
                    + ": the bridge must be added to the BSP's system by hand (see OVERLAY.md)");
            return new BspInfo(bsp, spec, boardDir.getFileName().toString(), null, "", "", List.of(), notes);
        }
        List<String> looked = new ArrayList<>();
        for (Path sys : systems) {
            Qsys q = readQsys(sys);
            String hip = "";
            for (String[] mod : q.modules) {
                if (HARD_IP_KIND.matcher(mod[1]).matches()) {
                    hip = mod[0];
                    break;
                }
            }
            if (hip.isEmpty()) {
                looked.add(bsp.relativize(sys) + " (no PCIe hard IP instance)");
                continue;
            }
            List<String> moverIfs = new ArrayList<>();
            String controller = "";
            for (String[] c : q.connections) {
                String[] end = c[1].split("\\.", 2);
                if (end.length == 2 && end[0].equals(hip) && MOVER_DESC_IF.matcher(end[1]).matches()) {
                    moverIfs.add(end[1]);
                    controller = c[0].split("\\.", 2)[0];
                }
            }
            if (moverIfs.isEmpty()) {
                throw new OverlayException(OverlayException.Kind.BSP, bsp.relativize(sys) + ": PCIe hard IP instance '" + hip
                        + "' has no Avalon-ST descriptor interface (rd_ast_rx / wr_ast_rx) connected: the BSP uses the hard IP's"
                        + " internal descriptor controller, so there is no place to insert the bridge. Enable the external"
                        + " descriptor controller in the hard IP, or overlay a directory holding only board_spec.xml.");
            }
            return new BspInfo(bsp, spec, boardDir.getFileName().toString(), sys, hip, controller, moverIfs, notes);
        }
        throw new OverlayException(OverlayException.Kind.BSP, "no Platform Designer system with a PCIe DMA hard IP in "
                + bsp + ": looked at " + String.join(", ", looked));
    }

    private static Path findBoardSpec(Path bsp, String board) throws OverlayException {
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

    /** Modules ({name, kind}) and connections ({start, end}) of a Platform Designer system file. */
    record Qsys(List<String[]> modules, List<String[]> connections) {
    }

    static Qsys readQsys(Path file) throws OverlayException {
        List<String[]> modules = new ArrayList<>();
        List<String[]> connections = new ArrayList<>();
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        try (InputStream in = Files.newInputStream(file)) {
            XMLStreamReader r = f.createXMLStreamReader(in);
            while (r.hasNext()) {
                if (r.next() == XMLStreamConstants.START_ELEMENT) {
                    String el = r.getLocalName().toLowerCase(Locale.ROOT);
                    if (el.equals("module")) {
                        modules.add(new String[] {attr(r, "name"), attr(r, "kind")});
                    } else if (el.equals("connection")) {
                        connections.add(new String[] {attr(r, "start"), attr(r, "end")});
                    }
                }
            }
        } catch (XMLStreamException e) {
            var loc = e.getLocation();
            throw new OverlayException(OverlayException.Kind.BSP, file + (loc == null ? "" : ":" + loc.getLineNumber() + ":"
                    + loc.getColumnNumber()) + ": not a readable Platform Designer system: " + e.getMessage().replaceAll("^ParseError.*\\n.*: ", ""));
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        }
        return new Qsys(modules, connections);
    }

    private static String attr(XMLStreamReader r, String name) {
        String v = r.getAttributeValue(null, name);
        return v == null ? "" : v;
    }
}
