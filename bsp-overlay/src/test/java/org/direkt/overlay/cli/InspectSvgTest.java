// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.Channel;
import org.direkt.boardspec.GlobalMemory;
import org.direkt.boardspec.InterfaceEntry;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code direkt inspect --svg}: the picture parses as SVG and shows every memory, interface and channel. */
class InspectSvgTest {

    @TempDir
    Path tmp;

    /** The three sample boards as they are, and the example board after an overlay (direkt's channels shaded). */
    @ParameterizedTest
    @ValueSource(strings = {Cli.A10, Cli.D5005, Cli.N6001, "overlaid example"})
    void drawsEveryPartOfTheBoard(String which) throws Exception {
        Path file;
        if (which.equals("overlaid example")) {
            Path out = tmp.resolve("out");
            Cli.ok("overlay", "--bsp", Cli.exampleCopy(tmp.resolve("bsp")), "--out", out);
            file = out.resolve("board_spec.xml");
        } else {
            file = Cli.samplesDir().resolve(which);
        }
        Path svg = tmp.resolve("board.svg");
        Cli.Run r = Cli.ok("inspect", file, "--svg", svg);
        assertTrue(r.out().contains(svg.toString()), r.show());
        Document doc = parse(Files.readAllBytes(svg));
        Element root = doc.getDocumentElement();
        assertEquals("svg", root.getLocalName());
        assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI());
        assertTrue(Integer.parseInt(root.getAttribute("width")) > 0 && Integer.parseInt(root.getAttribute("height")) > 0);

        BoardSpec b = BoardSpec.parse(file);
        List<String> texts = texts(doc);
        assertTrue(texts.stream().anyMatch(t -> t.contains(b.name())), "board name drawn");
        for (GlobalMemory g : b.globalMemories()) {
            if (g.name() != null && !g.name().isBlank()) {
                assertTrue(texts.stream().anyMatch(t -> t.contains("global_mem " + g.name())), "memory " + g.name());
            }
            for (InterfaceEntry i : g.interfaces()) {
                assertTrue(texts.contains(i.name() + "." + i.port()), "memory interface " + i.name() + "." + i.port());
            }
        }
        for (InterfaceEntry i : b.interfaces()) {
            assertTrue(texts.contains(i.name() + "." + i.port()), "interface " + i.name() + "." + i.port());
        }
        // every channel is a box of its own, and the boxes marked direkt's are exactly direkt's channels
        List<String> marked = new ArrayList<>();
        NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        for (int k = 0; k < groups.getLength(); k++) {
            Element g = (Element) groups.item(k);
            if (g.getAttribute("class").equals("direkt")) {
                marked.add(g.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text").item(0).getTextContent());
            }
        }
        List<String> direkts = new ArrayList<>();
        for (Channel c : b.channels()) {
            assertTrue(texts.contains(c.chanId()), "channel " + c.chanId());
            if (c.chanId().startsWith("direkt_")) {
                direkts.add(c.chanId());
            }
        }
        assertEquals(direkts, marked);
        if (which.equals("overlaid example")) {
            assertEquals(List.of("direkt_rd_desc", "direkt_rd_status", "direkt_wr_desc", "direkt_wr_status"), marked.stream().sorted().toList());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Cli.A10})
    void toStandardOutputWithDash(String which) throws Exception {
        Cli.Run r = Cli.ok("inspect", Cli.samplesDir().resolve(which), "--svg", "-");
        assertEquals("svg", parse(r.out().getBytes(StandardCharsets.UTF_8)).getDocumentElement().getLocalName());
    }

    @ParameterizedTest
    @ValueSource(strings = {Cli.A10})
    void unwritableTargetExits5AndLeavesNothing(String which) throws Exception {
        Path dir = tmp.resolve("no-such-dir");
        Cli.Run r = Cli.run("inspect", Cli.samplesDir().resolve(which), "--svg", dir.resolve("board.svg"));
        assertEquals(5, r.exit(), r.show());
        assertTrue(r.err().contains("cannot write"), r.show());
        assertFalse(Files.exists(dir));
    }

    private static Document parse(byte[] svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg));
    }

    private static List<String> texts(Document doc) {
        List<String> out = new ArrayList<>();
        NodeList n = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        for (int k = 0; k < n.getLength(); k++) {
            out.add(n.item(k).getTextContent());
        }
        return out;
    }
}
