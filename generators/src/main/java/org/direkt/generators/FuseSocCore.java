// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.util.Collection;
import java.util.List;

import org.direkt.hdl.DirektVersion;
import org.direkt.hdl.GeneratedLicence;

/**
 * A FuseSoC core description (CAPI2) for one emitted top module and the modules under it, so the IP
 * can be used from FuseSoC like any other core: {@code fusesoc --cores-root DIR run --target=lint
 * direkt:ip:TOP} lints it with Verilator ({@code -Wall}, as direkt's own lint does) and
 * {@code --target=sim} elaborates and runs it with Icarus. The modules are emitted with every
 * setting fixed, so a core has no parameters: another configuration is another emission.
 */
public final class FuseSocCore {
    private FuseSocCore() {
    }

    /** The core's VLNV name without its version: {@code direkt:ip:TOP}. */
    public static String name(String top) {
        return "direkt:ip:" + top;
    }

    /**
     * FuseSoC's version of direkt's: the release numbers alone ({@code 0.1.0-SNAPSHOT} becomes
     * {@code 0.1.0}; FuseSoC's solver takes digits and dots only).
     */
    public static String version() {
        String v = DirektVersion.get();
        int cut = v.indexOf('-');
        String release = cut < 0 ? v : v.substring(0, cut);
        if (!release.matches("\\d+(\\.\\d+)*")) {
            throw new IllegalStateException("direkt's version '" + v + "' has no release number FuseSoC can take");
        }
        return release;
    }

    /** The core of reference top {@code top} in ip/ (make ip writes it beside its files). */
    public static String referenceIp(String top, Collection<String> files) {
        return core(top, files, "direkt reference IP " + top + " and the modules under it");
    }

    /**
     * The {@code .core} text for {@code top}, whose Verilog files (file names, in the same directory
     * as the core) are {@code files}; {@code what} is one line saying what the IP is.
     */
    public static String core(String top, Collection<String> files, String what) {
        if (!files.contains(top + ".v")) {
            throw new IllegalArgumentException("the files of " + top + " do not include " + top + ".v: " + files);
        }
        if (what.contains("\n") || what.contains("\"")) {
            throw new IllegalArgumentException("a core's description is one line without quotes: " + what);
        }
        List<String> sorted = files.stream().sorted().toList();
        StringBuilder s = new StringBuilder();
        s.append("CAPI=2:\n");
        s.append("# ").append(GeneratedLicence.SPDX_LINE).append('\n');
        s.append("# ").append(GeneratedLicence.NOTE).append('\n');
        s.append("# Written by direkt ").append(DirektVersion.get()).append(" with the Verilog beside it.\n");
        s.append("name: ").append(name(top)).append(':').append(version()).append('\n');
        s.append("description: \"").append(what).append(" (direkt ").append(DirektVersion.get())
                .append("; emitted with every setting fixed, so no parameters)\"\n\n");
        s.append("filesets:\n");
        s.append("  rtl:\n");
        s.append("    file_type: verilogSource\n");
        s.append("    files:\n");
        for (String f : sorted) {
            s.append("      - ").append(f).append('\n');
        }
        s.append('\n');
        s.append("targets:\n");
        s.append("  default: &default\n");
        s.append("    filesets: [rtl]\n");
        s.append("    toplevel: ").append(top).append('\n');
        s.append("  lint:\n");
        s.append("    <<: *default\n");
        s.append("    description: Verilator, every warning on (-Wall), as direkt lints what it emits\n");
        s.append("    flow: lint\n");
        s.append("    flow_options:\n");
        s.append("      tool: verilator\n");
        s.append("      verilator_options: [-Wall]\n");
        s.append("  sim:\n");
        s.append("    <<: *default\n");
        s.append("    description: Icarus Verilog elaborates and runs the top (no stimulus; the test benches are direkt's)\n");
        s.append("    flow: sim\n");
        s.append("    flow_options:\n");
        s.append("      tool: icarus\n");
        s.append("      iverilog_options: [-Wall]\n");
        return s.toString();
    }
}
