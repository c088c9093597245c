// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.Manifest;
import org.direkt.hdl.Module;

/**
 * What the overlay's templates see. Every value comes from the bridge's parameters, the
 * {@link Layout} or the elaborated Verilog top; templates hold wording, never a bit position.
 *
 * <ul>
 * <li>{@code manifest}: the manifest tree ({@link Manifest#tree}).</li>
 * <li>{@code bridge}: the manifest's bridge section (instance, modes, channels, clocks).</li>
 * <li>{@code interfaces}: {@link PlatformInterfaces} as maps (name, type, end, clock, reset,
 *     properties, ports[name, role, direction, width], doc, terminated: the interface is declared
 *     disabled with its ports terminated).</li>
 * <li>{@code channels}: per direction and role: {@code rd_desc}, {@code rd_status}, {@code wr_desc},
 *     {@code wr_status} (and per further port {@code rd_p1_desc}, ...) -> the manifest channel map (chan_id,
 *     port, type, width, ...); {@code portNames}: rd, wr, rd_p1, wr_p1, ...</li>
 * <li>{@code cldesc}: fields of the kernel descriptor as {name, word, shift, width, mask} (word =
 *     index of the 32-bit word x0..x7, shift = bit within it); {@code cldescRegion}: the same for
 *     the region request.</li>
 * <li>{@code regions} (addressing=regions), {@code regionCount}, {@code regionPages},
 *     {@code pageBytes}, {@code kindRaw}/{@code kindRegion} (the request kinds in x6).</li>
 * <li>{@code statusTagged}, {@code statusCycles}, {@code moverStatus}: fields as {name, lsb, width,
 *     mask} with mask a hex string of the field's width.</li>
 * <li>{@code errors}: [{name, code, meaning}]; {@code tagged} (status mode), {@code managedIds};
 *     {@code maxBytes} (largest descriptor, bytes); {@code kernelIdFirst}/{@code kernelIdLast};
 *     {@code layoutVersion}; {@code top} (Verilog top module); {@code files} (Verilog files, sorted);
 *     {@code bsp} (filled by the planner: board, system, qsysVersion and qsysVersionSource, manualSteps,
 *     mode {@code script}/{@code manual}/{@code portable}, kind, evidence, refusalFound/refusalMissing, ...).</li>
 * </ul>
 */
public final class OverlayModel {
    private OverlayModel() {
    }

    public static Map<String, Object> of(Bridge.Params p, Module top, List<String> verilogFiles, Map<String, Object> bsp) {
        return of(p, top, verilogFiles, bsp, PlatformInterfaces.of(p, top));
    }

    /** The same with the top's interfaces given ({@link ControllerInterfaces} for direkt's descriptor controller). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> of(Bridge.Params p, Module top, List<String> verilogFiles, Map<String, Object> bsp,
            List<PlatformInterfaces.Interface> interfaces) {
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> manifest = Manifest.tree(p);
        Map<String, Object> bridge = (Map<String, Object>) manifest.get("bridge");
        m.put("manifest", manifest);
        m.put("bridge", bridge);
        m.put("interfaces", interfaces.stream().map(PlatformInterfaces.Interface::toMap).toList());
        Map<String, Object> channels = new LinkedHashMap<>();
        for (Object o : (List<Object>) bridge.get("channels")) {
            Map<String, Object> c = (Map<String, Object>) o;
            Object k = c.get("kernel_port");
            channels.put(c.get("direction") + (k == null || ((Number) k).intValue() == 0 ? "" : "_p" + k) + "_" + c.get("role"), c);
        }
        m.put("channels", channels);
        // per direction, its ports' names as the header's functions carry them: rd, rd_p1, ...
        List<String> portNames = new ArrayList<>();
        for (int k = 0; k < p.ports(); k++) {
            for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
                portNames.add(Bridge.Params.portPrefix(d, k));
            }
        }
        m.put("portNames", portNames);
        m.put("kernelPorts", p.ports());
        List<Map<String, Object>> cl = wordFields(Layout.resolve(Layout.CLDESC));
        m.put("cldesc", cl);
        m.put("cldescRegion", wordFields(Layout.resolve(Layout.CLDESC_REGION)));
        m.put("regions", p.regionsAddressing());
        m.put("regionCount", p.regions());
        m.put("regionPages", p.regionPages());
        m.put("pageBytes", 1L << Layout.PAGE_BITS);
        m.put("regionMaxBytes", String.format("0x%X", Layout.CLDESC_REGION.field("bytes").mask().longValue() & ~3L));
        m.put("kindRaw", Layout.KIND_RAW);
        m.put("kindRegion", Layout.KIND_REGION);
        m.put("statusTagged", fields(Layout.resolve(Layout.KERNEL_STATUS_TAGGED)));
        m.put("statusCycles", fields(Layout.resolve(Layout.KERNEL_STATUS_CYCLES)));
        m.put("moverStatus", fields(Layout.resolve(Layout.MOVER_STATUS)));
        List<Map<String, Object>> errors = new ArrayList<>();
        for (Layout.Error e : Layout.Error.values()) {
            Map<String, Object> em = new LinkedHashMap<>();
            em.put("name", e.name());
            em.put("code", e.code());
            em.put("meaning", e.meaning);
            errors.add(em);
        }
        m.put("errors", errors);
        m.put("tagged", p.statusMode() == BridgeModes.StatusMode.TAGGED);
        m.put("managedIds", p.idMode() == BridgeModes.IdMode.MANAGED);
        m.put("maxBytes", (long) Layout.MAX_DWORDS * 4);
        m.put("kernelIdFirst", Layout.KERNEL_ID_FIRST);
        m.put("kernelIdLast", Layout.KERNEL_ID_LAST);
        m.put("layoutVersion", Layout.VERSION);
        m.put("top", top.name());
        m.put("files", List.copyOf(verilogFiles));
        m.put("policy", p.policy().name().toLowerCase(Locale.ROOT));
        m.put("bsp", bsp);
        return m;
    }

    /** A channel word's fields as {name, word, shift, width, mask, doc}: word is the 32-bit word x0..x7 the field lies in. */
    private static List<Map<String, Object>> wordFields(Layout.Word w) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Layout.Field f : w.fields()) {
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("name", f.name());
            fm.put("word", f.lsb() / 32);
            fm.put("shift", f.lsb() % 32);
            fm.put("width", f.width());
            fm.put("mask", mask(f.width()));
            fm.put("doc", f.doc());
            out.add(fm);
        }
        return out;
    }

    private static List<Map<String, Object>> fields(Layout.Word w) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Layout.Field f : w.fields()) {
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("name", f.name());
            fm.put("lsb", f.lsb());
            fm.put("width", f.width());
            fm.put("mask", mask(f.width()));
            fm.put("doc", f.doc());
            out.add(fm);
        }
        return out;
    }

    /** The all-ones mask of a field, as a C hex literal with the suffix its width needs. */
    static String mask(int width) {
        if (width >= 64) {
            return "0xFFFFFFFFFFFFFFFFUL";
        }
        String hex = Long.toHexString((1L << width) - 1).toUpperCase(Locale.ROOT);
        return "0x" + hex + (width > 32 ? "UL" : "U");
    }
}
