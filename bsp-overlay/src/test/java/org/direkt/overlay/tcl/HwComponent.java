// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.tcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.overlay.Templates;

/** What a rendered {@code _hw.tcl} declared, read back from the stand-in's log. */
record HwComponent(QsysStub.Run run, String text, Map<String, String> moduleProperties, Map<String, Iface> interfaces,
        Map<String, List<FileEntry>> filesets, Map<String, Map<String, String>> filesetProperties) {

    record Port(String iface, String name, String role, String direction, int width) {
    }

    record Iface(String name, String type, String direction, Map<String, String> properties, List<Port> ports) {
    }

    record FileEntry(String name, String kind, String source, String path, List<String> attributes) {
    }

    /** Renders direkt_bridge_hw.tcl for {@code d}, runs it under the stand-in (it must succeed) and reads it back. */
    static HwComponent of(QsysStub.Design d, Path dir) throws Exception {
        String text = Templates.render("direkt_bridge_hw.tcl.vm", d.model());
        QsysStub.Run run = QsysStub.run(dir, "direkt_bridge_hw.tcl", text, null);
        assertEquals(0, run.exit(), () -> "the hw.tcl must run cleanly under the stand-in\n" + run.describe() + "\n--- script:\n" + text);
        Map<String, String> module = new LinkedHashMap<>();
        Map<String, Iface> ifaces = new LinkedHashMap<>();
        Map<String, List<FileEntry>> filesets = new LinkedHashMap<>();
        Map<String, Map<String, String>> fsProps = new LinkedHashMap<>();
        String currentFileset = null;
        for (QsysStub.Call c : run.calls()) {
            switch (c.cmd()) {
                case "set_module_property" -> assertNull(module.put(c.arg(0), c.arg(1)), "module property set twice: " + c);
                case "add_fileset" -> {
                    currentFileset = c.arg(0);
                    filesets.put(currentFileset, new ArrayList<>());
                    fsProps.put(currentFileset, new LinkedHashMap<>());
                }
                case "set_fileset_property" -> fsProps.get(c.arg(0)).put(c.arg(1), c.arg(2));
                case "add_fileset_file" -> filesets.get(currentFileset).add(
                        new FileEntry(c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.args().subList(4, c.args().size())));
                case "add_interface" -> ifaces.put(c.arg(0),
                        new Iface(c.arg(0), c.arg(1), c.arg(2), new LinkedHashMap<>(), new ArrayList<>()));
                case "set_interface_property" -> {
                    Iface i = ifaces.get(c.arg(0));
                    assertNotNull(i, "property of an undeclared interface: " + c);
                    assertNull(i.properties().put(c.arg(1), c.arg(2)), "interface property set twice: " + c);
                }
                case "add_interface_port" -> ifaces.get(c.arg(0)).ports().add(
                        new Port(c.arg(0), c.arg(1), c.arg(2), c.arg(3), Integer.parseInt(c.arg(4))));
                default -> {
                    // package require and messages: checked by the tests that care
                }
            }
        }
        return new HwComponent(run, text, module, ifaces, filesets, fsProps);
    }
}
