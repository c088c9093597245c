// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A channel interface to write into {@code <channels>}:
 * {@code <interface name="NAME" port="PORT" type="TYPE" width="WIDTH" chan_id="CHAN_ID"/>}, in that
 * attribute order (the order the SDK's own BSPs use).
 *
 * @param name   owning Platform Designer instance (non-blank)
 * @param port   conduit of that instance (non-blank)
 * @param type   direction seen from the kernel
 * @param width  data width in bits: positive and a multiple of 8
 * @param chanId the name kernels use in {@code io("...")} (non-blank)
 */
public record ChannelDefinition(String name, String port, Type type, int width, String chanId) {

    /** The direction of a channel as the SDK names it. */
    public enum Type {
        /** The board feeds the kernel ({@code type="streamsource"}). */
        STREAMSOURCE(Channel.STREAMSOURCE),
        /** The kernel writes to the board ({@code type="streamsink"}). */
        STREAMSINK(Channel.STREAMSINK);

        private final String xml;

        Type(String xml) {
            this.xml = xml;
        }

        /** The attribute value: {@code streamsource} or {@code streamsink}. */
        public String xmlName() {
            return xml;
        }
    }

    /** Checks every field; a bad one throws {@link IllegalArgumentException}. */
    public ChannelDefinition {
        Objects.requireNonNull(type, "type");
        requireText("name", name);
        requireText("port", port);
        requireText("chan_id", chanId);
        if (width <= 0 || width % 8 != 0) {
            throw new IllegalArgumentException("width " + width + " is not a positive multiple of 8");
        }
    }

    private static void requireText(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (!value.strip().equals(value)) {
            throw new IllegalArgumentException(what + " \"" + value + "\" has leading or trailing whitespace");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i)) || Character.isSurrogate(value.charAt(i))) {
                throw new IllegalArgumentException(what + " \"" + value + "\" holds a control character");
            }
        }
    }

    /** The attributes as they will be written, in order. */
    public Map<String, String> attributes() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("port", port);
        m.put("type", type.xmlName());
        m.put("width", Integer.toString(width));
        m.put("chan_id", chanId);
        return m;
    }

    /** The element on one line, without indentation or line end; values are escaped. */
    public String toXml() {
        StringBuilder b = new StringBuilder("<interface");
        attributes().forEach((k, v) -> b.append(' ').append(k).append("=\"").append(escape(v)).append('"'));
        return b.append("/>").toString();
    }

    private static String escape(String v) {
        return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
