// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading the Platform Designer release a BSP's files state, and choosing the one the Tcl files ask for. */
class QsysVersionTest {

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "\"{0}\" -> \"{1}\"")
    @CsvSource(value = {"18.0, 18.0", "20.4, 20.4", "19.2.0, 19.2", "23.4.1, 23.4", "24.1, 24.1", "14.0, 14.0", "'11.0', 11.0",
            "2024.0, -", "1.0, -", "10.1, -", "'', -", "abc, -", "20, -", "20.4b, -"}, nullValues = "-")
    void releasesAreMajorMinorFrom11On(String text, String expected) {
        assertEquals(Optional.ofNullable(expected), QsysVersion.release(text));
    }

    private Path file(String name, String text) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aClassicSystemStatesItsReleaseInItsConnectionsElseItsIntelModules() throws Exception {
        Path sys = file("a.qsys", """
                <?xml version="1.0" encoding="UTF-8"?>
                <system name="board">
                 <module name="pcie" kind="altera_pcie_a10_hip" version="19.1" enabled="1"/>
                 <module name="mine" kind="my_component" version="99.0" enabled="1"/>
                 <connection kind="avalon" version="19.1" start="a.m0" end="pcie.txs"/>
                 <connection kind="clock" version="19.1" start="c.clk" end="pcie.clk"/>
                </system>
                """);
        assertEquals(Optional.of("19.1"), QsysVersion.statedBy(sys));
        Path modulesOnly = file("b.qsys", """
                <system name="board">
                 <module name="mine" kind="my_component" version="2.0"/>
                 <module name="pll" kind="altera_iopll" version="17.1"/>
                 <module name="emif" kind="intel_emif" version="17.1.0"/>
                </system>
                """);
        assertEquals(Optional.of("17.1"), QsysVersion.statedBy(modulesOnly), "third-party component versions are not releases");
        assertEquals(Optional.empty(), QsysVersion.statedBy(file("c.qsys", "<system name=\"board\"><module name=\"m\" kind=\"x\"/></system>")));
    }

    @Test
    void ipXactFilesStateItInIntelBusTypes() throws Exception {
        Path ip = file("k.ip", """
                <?xml version="1.0" ?>
                <ipxact:component xmlns:ipxact="http://www.accellera.org/XMLSchema/IPXACT/1685-2014">
                  <ipxact:version>1.0</ipxact:version>
                  <ipxact:busInterfaces><ipxact:busInterface>
                    <ipxact:busType vendor="intel" library="intel" name="clock" version="22.4"></ipxact:busType>
                    <ipxact:abstractionTypes><ipxact:abstractionType>
                      <ipxact:abstractionRef vendor="intel" library="intel" name="clock" version="22.4"></ipxact:abstractionRef>
                    </ipxact:abstractionType></ipxact:abstractionTypes>
                  </ipxact:busInterface><ipxact:busInterface>
                    <ipxact:busType vendor="example.com" library="x" name="y" version="30.0"></ipxact:busType>
                  </ipxact:busInterface></ipxact:busInterfaces>
                </ipxact:component>
                """);
        assertEquals(Optional.of("22.4"), QsysVersion.statedBy(ip));
    }

    @Test
    void aFileThatIsNotXmlIsReportedWithItsPosition() throws Exception {
        Path bad = file("bad.ip", "<?xml version=\"1.0\"?>\n<ipxact:component>\n  <unclosed>\n");
        QsysVersion.UnreadableException e = assertThrows(QsysVersion.UnreadableException.class, () -> QsysVersion.statedBy(bad));
        assertTrue(e.getMessage().matches("\\d+:\\d+: not readable XML: .*"), e.getMessage());
    }

    @Test
    void theFilesWinThenBoardSpecsVersionThenTheAssumedRelease() {
        QsysVersion stated = new QsysVersion("21.3", QsysVersion.Origin.SYSTEM_FILE, "hardware/b/board.qsys");
        assertEquals(stated, QsysVersion.choose(Optional.of(stated), Optional.of("20.4")));
        assertEquals(new QsysVersion("14.0", QsysVersion.Origin.BOARD_SPEC, "board_spec.xml's version=\"14.0\""),
                QsysVersion.choose(Optional.empty(), Optional.of("14.0")));
        QsysVersion assumed = QsysVersion.choose(Optional.empty(), Optional.of("2024.0"));
        assertEquals(QsysVersion.ASSUMED, assumed.version());
        assertEquals(QsysVersion.Origin.ASSUMED, assumed.origin());
        assertEquals("board_spec.xml's version=\"2024.0\" is not a Quartus release", assumed.source());
        assertEquals(Optional.of(new QsysVersion("23.4", QsysVersion.Origin.SYSTEM_FILE, "b")), QsysVersion.newest(List.of(
                new QsysVersion("21.3", QsysVersion.Origin.SYSTEM_FILE, "a"), new QsysVersion("23.4", QsysVersion.Origin.SYSTEM_FILE, "b"),
                new QsysVersion("23.4", QsysVersion.Origin.SYSTEM_FILE, "c"), new QsysVersion("9.1", QsysVersion.Origin.SYSTEM_FILE, "d"))));
    }
}
