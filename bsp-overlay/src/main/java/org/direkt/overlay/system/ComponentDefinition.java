// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.overlay.OverlayException;

/**
 * What a Pro system's {@code componentDefinition} CDATA says about one generic component: the real
 * IP class and release ({@code originalModuleInfo}), and its interfaces ({@code boundary}) with ports,
 * parameters and, for agents, the address span the system infos supply ({@code ADDRESS_MAP}, else
 * {@code ADDRESS_WIDTH}), else the interface's own {@code addressSpan}.
 */
record ComponentDefinition(Optional<String> className, Optional<String> version, List<Interface> interfaces) {

    /** One agent in an {@code ADDRESS_MAP} value: {@code <slave name='s' start='0x0' end='0x8' .../>}. */
    private static final Pattern SLAVE = Pattern.compile("<slave\\b([^>]*)>");
    private static final Pattern ATTR = Pattern.compile("(\\w+)\\s*=\\s*['\"]([^'\"]*)['\"]");

    static ComponentDefinition parse(String cdata, Path file, int firstLine, String module) throws OverlayException {
        XmlTree root = XmlTree.parse(cdata, file, firstLine, "the componentDefinition of module '" + module + "'");
        Optional<XmlTree> info = root.child("originalModuleInfo");
        Optional<String> className = info.map(i -> i.childText("className")).filter(s -> !s.isEmpty());
        Optional<String> version = info.map(i -> i.childText("version")).filter(s -> !s.isEmpty());

        Map<String, Optional<BigInteger>> spans = systemInfoSpans(root);
        List<Interface> interfaces = new ArrayList<>();
        for (XmlTree i : root.at("boundary", "interfaces").map(x -> x.all("interface")).orElse(List.of())) {
            String name = i.childText("name");
            if (name.isEmpty()) {
                throw new OverlayException(OverlayException.Kind.BSP, file + ":" + i.line() + ": an interface without a name in module '" + module + "'");
            }
            List<Port> ports = new ArrayList<>();
            for (XmlTree p : i.child("ports").map(x -> x.all("port")).orElse(List.of())) {
                ports.add(new Port(p.childText("name"), p.childText("role"), p.childText("direction").toLowerCase(Locale.ROOT),
                        width(p.childText("width"), file, p.line())));
            }
            Map<String, String> properties = new LinkedHashMap<>();
            for (XmlTree e : i.at("parameters", "parameterValueMap").map(x -> x.all("entry")).orElse(List.of())) {
                properties.put(e.childText("key"), e.childText("value"));
            }
            boolean start = i.childText("isStart").equals("true");
            Optional<BigInteger> span = Optional.empty();
            if (!start) {
                span = spans.getOrDefault(name, Optional.empty());
                if (span.isEmpty()) {
                    span = positive(properties.get("addressSpan"));
                }
            }
            interfaces.add(new Interface(name, i.childText("type"), start, ports, properties, span, new Where(file, i.line())));
        }
        return new ComponentDefinition(className, version, interfaces);
    }

    /** Each interface's span from {@code systemInfos/connPtSystemInfos}' supplied ADDRESS_MAP or ADDRESS_WIDTH. */
    private static Map<String, Optional<BigInteger>> systemInfoSpans(XmlTree root) {
        Map<String, Optional<BigInteger>> spans = new HashMap<>();
        for (XmlTree e : root.at("systemInfos", "connPtSystemInfos").map(x -> x.all("entry")).orElse(List.of())) {
            String ifc = e.childText("key");
            Map<String, String> supplied = new HashMap<>();
            for (XmlTree s : e.at("value", "suppliedSystemInfos").map(x -> x.all("entry")).orElse(List.of())) {
                supplied.put(s.childText("key"), s.childText("value"));
            }
            Optional<BigInteger> span = addressMapSpan(supplied.getOrDefault("ADDRESS_MAP", ""));
            if (span.isEmpty()) {
                span = positive(supplied.get("ADDRESS_WIDTH")).filter(w -> w.bitLength() <= 7).map(w -> BigInteger.ONE.shiftLeft(w.intValue()));
            }
            spans.put(ifc, span);
        }
        return spans;
    }

    /** The bytes an address map covers: from its lowest start to its highest end (ends are exclusive). */
    static Optional<BigInteger> addressMapSpan(String map) {
        BigInteger lo = null;
        BigInteger hi = null;
        Matcher m = SLAVE.matcher(map);
        while (m.find()) {
            Map<String, String> a = new HashMap<>();
            Matcher am = ATTR.matcher(m.group(1));
            while (am.find()) {
                a.put(am.group(1), am.group(2));
            }
            Optional<BigInteger> s = number(a.get("start"));
            Optional<BigInteger> e = number(a.get("end"));
            if (s.isEmpty() || e.isEmpty() || e.get().compareTo(s.get()) <= 0) {
                continue;
            }
            lo = lo == null || s.get().compareTo(lo) < 0 ? s.get() : lo;
            hi = hi == null || e.get().compareTo(hi) > 0 ? e.get() : hi;
        }
        return lo == null ? Optional.empty() : Optional.of(hi.subtract(lo));
    }

    /** A decimal or 0x-hex number. */
    static Optional<BigInteger> number(String s) {
        if (s == null || s.isBlank()) {
            return Optional.empty();
        }
        String t = s.strip().toLowerCase(Locale.ROOT).replace("_", "");
        try {
            return Optional.of(t.startsWith("0x") ? new BigInteger(t.substring(2), 16) : new BigInteger(t));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<BigInteger> positive(String s) {
        return number(s).filter(v -> v.signum() > 0);
    }

    /** A port's width; a port stated without one is one bit wide, as Platform Designer takes it. */
    private static int width(String s, Path file, int line) throws OverlayException {
        if (s.isBlank()) {
            return 1;
        }
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new OverlayException(OverlayException.Kind.BSP, file + ":" + line + ": port width '" + s + "' is not a number");
        }
    }
}
