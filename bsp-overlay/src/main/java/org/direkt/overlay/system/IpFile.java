// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.direkt.overlay.OverlayException;

/**
 * The parameters a Pro system keeps in an instance's own {@code .ip} file, an IP-XACT component with
 * Intel's extensions: {@code component/vendorExtensions/altera_module_parameters/parameters/parameter}
 * with {@code name} and {@code value}, in either schema Quartus Prime Pro writes (SPIRIT 1685-2009
 * up to 17.x, IP-XACT 1685-2014 from 18.x; the structure is the same, only the namespace differs).
 * {@code ipType} is the IP's class ({@code altera:entity_info/name}) when the file states it.
 */
record IpFile(Path file, Map<String, String> parameters, Map<String, Where> where, Optional<String> ipType) {

    static final String SPIRIT_2009 = "http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009";
    static final String IPXACT_2014 = "http://www.accellera.org/XMLSchema/IPXACT/1685-2014";

    static IpFile read(Path file) throws OverlayException {
        XmlTree root = XmlTree.parse(file);
        String ns = root.namespace();
        if (!root.name().equals("component") || !(ns.equals(SPIRIT_2009) || ns.equals(IPXACT_2014))) {
            throw new OverlayException(OverlayException.Kind.BSP, file + ":" + root.line() + ": not an IP parameters file direkt reads: root element <"
                    + root.name() + ">" + (ns.isEmpty() ? " without a namespace" : " in namespace " + ns)
                    + "; expected <spirit:component> (SPIRIT 1685-2009) or <ipxact:component> (IP-XACT 1685-2014)");
        }
        Map<String, String> params = new LinkedHashMap<>();
        Map<String, Where> where = new LinkedHashMap<>();
        Optional<XmlTree> list = root.at("vendorExtensions", "altera_module_parameters", "parameters");
        for (XmlTree p : list.map(l -> l.all("parameter")).orElse(java.util.List.of())) {
            String name = p.childText("name");
            if (name.isEmpty()) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + p.line() + ": a module parameter without a name");
            }
            Optional<XmlTree> value = p.child("value");
            params.put(name, value.map(v -> v.text().strip()).orElse(""));
            where.put(name, new Where(file, value.map(XmlTree::line).orElse(p.line())));
        }
        Optional<String> type = root.at("vendorExtensions", "entity_info").map(e -> e.childText("name")).filter(s -> !s.isEmpty());
        return new IpFile(file, params, where, type);
    }
}
