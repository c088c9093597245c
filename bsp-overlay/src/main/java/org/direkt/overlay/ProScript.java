// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.overlay.system.SystemEdit;
import org.direkt.overlay.system.SystemModel;

/**
 * The Platform Designer script of a {@link HardIpPlan}: one step per {@link SystemEdit}, in the
 * plan's order, for the edition the system is in (Pro: the hard IP's {@code .ip} changed with
 * {@code load_component}/{@code set_component_parameter_value}/{@code save_component}; Standard: the
 * instance parameter). Before it changes anything the script checks that the system is the one
 * planned on: every instance and interface the steps name exists, nothing direkt adds exists yet.
 */
public final class ProScript {
    private ProScript() {
    }

    /** The Tcl command lines of one edit. */
    static List<String> commands(SystemEdit e, SystemModel.Edition edition) {
        return switch (e) {
            case SystemEdit.RemoveConnection r -> List.of("direkt_disconnect " + r.start() + " " + r.end());
            case SystemEdit.SetParameter s -> {
                List<String> l = new ArrayList<>(edition == SystemModel.Edition.PRO
                        ? List.of("direkt_say {" + s.instance() + ": " + s.name() + " = " + s.value() + " (in its .ip file)}",
                                "load_component " + s.instance(), "set_component_parameter_value " + s.name() + " " + tclWord(s.value()),
                                "save_component")
                        : List.of("direkt_say {" + s.instance() + ": " + s.name() + " = " + s.value() + "}",
                                "set_instance_parameter_value " + s.instance() + " " + s.name() + " " + tclWord(s.value())));
                // the interfaces the change brings must be there before anything is connected to them
                if (!s.addsInterfaces().isEmpty()) {
                    l.add("direkt_expect_interfaces " + s.instance() + " {" + String.join(" ", s.addsInterfaces().stream()
                            .map(org.direkt.overlay.system.Interface::name).toList()) + "} {" + s.name() + " = " + s.value() + "}");
                }
                yield l;
            }
            case SystemEdit.AddInstance a -> List.of("direkt_say {adding " + a.kind() + " as instance " + a.name() + "}",
                    "add_instance " + a.name() + " " + a.kind());
            case SystemEdit.AddConnection c -> {
                List<String> l = new ArrayList<>();
                l.add("direkt_connect " + c.start() + " " + c.end());
                new TreeMap<>(c.parameters()).forEach((k, v) -> l.add("set_connection_parameter_value " + c.start() + "/" + c.end()
                        + " " + k + " " + v));
                yield l;
            }
            case SystemEdit.AddExport x -> List.of("direkt_say {exporting " + x.internal() + " as " + x.name() + "}",
                    "add_interface " + x.name() + " " + x.type() + " " + x.dir(),
                    "set_interface_property " + x.name() + " EXPORT_OF " + x.internal());
        };
    }

    /** A parameter value as one Tcl word: as it is when it has no space or Tcl special character, else in braces. */
    static String tclWord(String v) {
        return v.matches("[A-Za-z0-9_.:/+-]+") ? v : "{" + v + "}";
    }

    /**
     * The script. {@code system}: the system file relative to the board directory; {@code qsysVersion}:
     * the release {@code package require} asks for.
     */
    public static String render(HardIpPlan.Result plan, SystemModel before, String system, String qsysVersion, String component,
            String instance, Map<String, Object> overlayModel) {
        SystemModel.Edition ed = before.edition();
        List<String> steps = new ArrayList<>();
        List<String> endpoints = new ArrayList<>();
        List<String> removals = new ArrayList<>();
        List<String> exports = new ArrayList<>();
        for (SystemEdit e : plan.edits()) {
            steps.addAll(commands(e, ed));
            switch (e) {
                case SystemEdit.RemoveConnection r -> removals.add(r.start() + "/" + r.end());
                case SystemEdit.AddConnection c -> {
                    for (String end : List.of(c.start(), c.end())) {
                        if (!end.startsWith(instance + ".") && !plan.aperture().map(a -> end.startsWith(a.instance() + ".")).orElse(false)
                                && before.iface(end).isPresent() && !endpoints.contains(end)) {
                            endpoints.add(end);
                        }
                    }
                }
                case SystemEdit.AddExport x -> exports.add(x.name());
                default -> {
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>(overlayModel);
        m.put("pro", ed == SystemModel.Edition.PRO);
        m.put("system", system);
        m.put("qsysVersion", qsysVersion);
        m.put("component", component);
        m.put("instance", instance);
        m.put("hardIp", plan.hardIp());
        m.put("steps", steps);
        m.put("endpoints", endpoints);
        m.put("removals", removals);
        m.put("exports", exports);
        m.put("csrHost", plan.csrHost());
        m.put("csrBase", String.format("0x%X", plan.csrBase()));
        m.put("csrBar", plan.csrBar());
        m.put("aperture", plan.aperture().map(a -> {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("instance", a.instance());
            am.put("bar", a.bar());
            am.put("barSize", org.direkt.overlay.system.Units.size(a.barBytes()));
            am.put("fpgaBase", String.format("0x%X", a.fpgaBase()));
            am.put("rxMaster", a.rxMaster());
            am.put("target", a.target().agent());
            return (Object) am;
        }).orElse(false));
        return Templates.render("direkt_integrate_pro.tcl.vm", m);
    }
}
