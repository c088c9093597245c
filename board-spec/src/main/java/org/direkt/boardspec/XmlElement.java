// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An element as scanned: name, attributes, element children and the offsets of its tags. */
final class XmlElement {

    final String name;
    /** Offset of {@code <}. */
    final int start;
    final List<XmlAttribute> attributes = new ArrayList<>();
    final List<XmlElement> children = new ArrayList<>();
    /** Offset just past the start tag's {@code >}. */
    int startTagEnd;
    /** Offset of {@code </} of the end tag; -1 for an empty-element tag. */
    int closeTagStart = -1;
    /** Offset just past the last {@code >} of the element. */
    int end;
    boolean selfClosing;

    XmlElement(String name, int start) {
        this.name = name;
        this.start = start;
    }

    XmlAttribute attribute(String attrName) {
        for (XmlAttribute a : attributes) {
            if (a.name().equals(attrName)) {
                return a;
            }
        }
        return null;
    }

    String value(String attrName) {
        XmlAttribute a = attribute(attrName);
        return a == null ? null : a.value();
    }

    Map<String, String> attributeMap() {
        Map<String, String> m = new LinkedHashMap<>();
        for (XmlAttribute a : attributes) {
            m.put(a.name(), a.value());
        }
        return m;
    }

    List<XmlElement> children(String childName) {
        List<XmlElement> out = new ArrayList<>();
        for (XmlElement c : children) {
            if (c.name.equals(childName)) {
                out.add(c);
            }
        }
        return out;
    }
}
