// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.direkt.overlay.OverlayException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a system's files can be broken gives one error {@code file:line: what is wrong}, at the
 * line where it is (inside a CDATA too), without a stack trace. Each test breaks a copy of direkt's
 * own Pro 18.1 system.
 */
class SystemReaderErrorsTest {

    @TempDir
    Path tmp;

    Path dir;
    Path qsys;

    @BeforeEach
    void copy() throws Exception {
        dir = Trees.copy("pro181_ref", tmp.resolve("board dir"));
        qsys = dir.resolve("board.qsys");
    }

    private OverlayException fails(Path file) {
        return assertThrows(OverlayException.class, () -> SystemReader.read(file));
    }

    /** The message starts with {@code file:line: }, holds each of {@code said}, and names no Java class. */
    private static void says(OverlayException e, Path file, int line, List<String> said) {
        String m = e.getMessage();
        assertTrue(m.startsWith(file + ":" + line + ": "), () -> "expected " + file + ":" + line + ": ..., got: " + m);
        for (String s : said) {
            assertTrue(m.contains(s), () -> "expected '" + s + "' in: " + m);
        }
        assertFalse(m.contains("Exception") || m.contains("javax.") || m.contains("ParseError"), m);
        assertFalse(m.contains("\n"), m);
    }

    private void edit(Path file, String from, String to) throws Exception {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(text.contains(from), from);
        Files.writeString(file, text.replaceFirst(java.util.regex.Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to)));
    }

    @Test
    void aMalformedSystemIsReportedAtItsLine() throws Exception {
        // The ddr module loses its end tag: the parser notices at </system>.
        edit(qsys, " </module>\n <module\n   name=\"pcie\"", "\n <module\n   name=\"pcie\"");
        OverlayException e = fails(qsys);
        assertEquals(OverlayException.Kind.BSP, e.kind());
        says(e, qsys, Trees.lineOf(qsys, null, "</system>"), List.of("not well-formed XML", "module"));
    }

    @Test
    void aMissingIpFileNamesTheModuleAndTheLineThatNamesIt() throws Exception {
        Files.delete(dir.resolve("ip/board files/board_dma_ctrl.ip"));
        OverlayException e = fails(qsys);
        assertEquals(OverlayException.Kind.BSP, e.kind());
        says(e, qsys, Trees.lineOf(qsys, null, "ip/board files/board_dma_ctrl.ip"),
                List.of("module 'dma_ctrl'", "ip/board files/board_dma_ctrl.ip", "does not exist"));
    }

    @Test
    void anIpFileInAnUnknownSchemaSaysWhichItReads() throws Exception {
        Path ip = dir.resolve("ip/board/board_kernel_pll.ip");
        edit(ip, "http://www.accellera.org/XMLSchema/IPXACT/1685-2014", "http://www.spiritconsortium.org/XMLSchema/SPIRIT/1.5");
        OverlayException e = fails(qsys);
        says(e, ip, Trees.lineOf(ip, null, "<ipxact:component"),
                List.of("SPIRIT/1.5", "SPIRIT 1685-2009", "IP-XACT 1685-2014"));
    }

    @Test
    void anIpFileThatIsNotAComponent() throws Exception {
        Path ip = dir.resolve("ip/board/board_kernel_pll.ip");
        Files.writeString(ip, "<?xml version=\"1.0\"?>\n<design/>\n");
        says(fails(qsys), ip, 2, List.of("root element <design> without a namespace"));
    }

    @Test
    void aMalformedIpFileUnderADirectoryWithASpace() throws Exception {
        Path ip = dir.resolve("ip/board files/board_dma_ctrl.ip");
        edit(ip, "</ipxact:name>\n          <ipxact:displayName>ENABLE_MSI", "\n          <ipxact:displayName>ENABLE_MSI");
        OverlayException e = fails(qsys);
        says(e, ip, Trees.lineOf(ip, "<ipxact:name>ENABLE_MSI", "</ipxact:parameter>"), List.of("not well-formed XML"));
    }

    /** A broken element inside the componentDefinition is reported at its line in the .qsys, not in the CDATA. */
    @Test
    void aComponentDefinitionThatIsNotXmlIsReportedAtTheSystemsLine() throws Exception {
        String broken = "<name>rxm_bar2</name>";
        int line = Trees.lineOf(qsys, null, broken);
        edit(qsys, broken, "<name>rxm_bar2</nam>");
        OverlayException e = fails(qsys);
        says(e, qsys, line, List.of("the componentDefinition of module 'pcie' is not XML"));
    }

    @Test
    void aComponentDefinitionThatIsPlainText() throws Exception {
        String cdata = "<parameter name=\"componentDefinition\"><![CDATA[<componentDefinition>\n    <boundary>";
        int line = Trees.lineOf(qsys, "name=\"kernel_pll\"", "<parameter name=\"componentDefinition\">");
        String text = Files.readString(qsys);
        int at = text.indexOf(cdata, text.indexOf("name=\"kernel_pll\""));
        int end = text.indexOf("]]>", at);
        Files.writeString(qsys, text.substring(0, at) + "<parameter name=\"componentDefinition\"><![CDATA[element kernel_pll { datum x }" + text.substring(end));
        says(fails(qsys), qsys, line, List.of("the componentDefinition of module 'kernel_pll' is not XML"));
    }

    @Test
    void aPortWidthThatIsNotANumber() throws Exception {
        int line = Trees.lineOf(qsys, "name=\"kernel_pll\"", "<port>");
        edit(qsys, "<name>refclk</name>\n                        <role>clk</role>\n                        <direction>Input</direction>\n                        <width>1</width>",
                "<name>refclk</name>\n                        <role>clk</role>\n                        <direction>Input</direction>\n                        <width>WIDTH</width>");
        says(fails(qsys), qsys, line, List.of("port width 'WIDTH' is not a number"));
    }

    @Test
    void aFileThatIsNotASystem() throws Exception {
        Files.writeString(qsys, "<?xml version=\"1.0\"?>\n<!-- not a system -->\n<board name=\"x\"/>\n");
        says(fails(qsys), qsys, 3, List.of("not a Platform Designer system", "<board>"));
    }

    @Test
    void aSystemSavedAsAnIpXactDesign() throws Exception {
        Files.writeString(qsys, "<?xml version=\"1.0\" ?>\n<ipxact:design xmlns:ipxact=\"http://www.accellera.org/XMLSchema/IPXACT/1685-2014\">\n"
                + "  <ipxact:name>board</ipxact:name>\n</ipxact:design>\n");
        says(fails(qsys), qsys, 2, List.of("IP-XACT design", "<system>"));
    }

    @Test
    void twoModulesOfOneName() throws Exception {
        String text = Files.readString(qsys);
        Files.writeString(qsys, text.replace("</system>", " <module name=\"ddr\" kind=\"acl_ddr4_a10\" version=\"1.0\" enabled=\"1\" />\n</system>"));
        says(fails(qsys), qsys, Trees.lineOf(qsys, null, "<module name=\"ddr\" kind=\"acl_ddr4_a10\" version=\"1.0\" enabled=\"1\" />"),
                List.of("a second module named 'ddr'", "line " + Trees.lineOf(qsys, null, "<module name=\"ddr\"")));
    }

    @Test
    void aConnectionWithoutAnEnd() throws Exception {
        String c = "<connection kind=\"clock\" version=\"18.1\" start=\"kernel_pll.outclk0\" end=\"kernel_clk_bridge.in_clk\" />";
        int line = Trees.lineOf(qsys, null, c);
        edit(qsys, c, "<connection kind=\"clock\" version=\"18.1\" start=\"kernel_pll.outclk0\" />");
        says(fails(qsys), qsys, line, List.of("a <connection> without end"));
    }

    @Test
    void aMissingSystemIsBadInput() {
        Path none = tmp.resolve("none.qsys");
        OverlayException e = fails(none);
        assertEquals(OverlayException.Kind.INPUT, e.kind());
        assertEquals(none + ": no such file", e.getMessage());
    }

    /** A DOCTYPE's external entity is not fetched or expanded: the third-party file stays data. */
    @Test
    void noExternalEntities() throws Exception {
        Path secret = tmp.resolve("secret.txt");
        Files.writeString(secret, "SECRET");
        Files.writeString(qsys, "<?xml version=\"1.0\"?>\n<!DOCTYPE system [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<system name=\"&x;\"/>\n");
        OverlayException e = fails(qsys);
        assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
        says(e, qsys, 3, List.of("not well-formed XML"));
    }
}
