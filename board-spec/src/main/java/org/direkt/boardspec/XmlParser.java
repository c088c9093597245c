// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small, strict scanner for the XML that board_spec.xml files use. It checks well-formedness
 * (characters, names, quoting, references, tag nesting, one root) and builds an element tree that
 * keeps the offsets of every tag and attribute. Comments, processing instructions, CDATA sections
 * and a DOCTYPE are recognised and skipped; text content is checked but not kept.
 */
final class XmlParser {

    private final String text;
    private final String source;
    private final LineMap lines;
    private final int len;
    private int pos;

    private XmlParser(String text, String source, LineMap lines) {
        this.text = text;
        this.source = source;
        this.lines = lines;
        this.len = text.length();
    }

    /** Scans {@code text} and returns its root element. */
    static XmlElement parse(String text, String source, LineMap lines) throws BoardSpecException {
        return new XmlParser(text, source, lines).document();
    }

    private BoardSpecException error(int offset, String message) {
        return new BoardSpecException(source, lines.line(offset), lines.column(offset), message);
    }

    private String at(int offset) {
        return lines.line(offset) + ":" + lines.column(offset);
    }

    private XmlElement document() throws BoardSpecException {
        if (len == 0) {
            throw error(0, "file is empty");
        }
        checkCharacters();
        pos = text.charAt(0) == '\uFEFF' ? 1 : 0;
        if (isXmlDeclaration(pos)) {
            skipProcessingInstruction(true);
        }
        XmlElement root = null;
        boolean sawDoctype = false;
        while (true) {
            skipBlank();
            if (pos >= len) {
                break;
            }
            if (text.startsWith("<!--", pos)) {
                skipComment();
            } else if (text.startsWith("<?", pos)) {
                skipProcessingInstruction(false);
            } else if (text.startsWith("<!DOCTYPE", pos)) {
                if (root != null || sawDoctype) {
                    throw error(pos, "a DOCTYPE is only allowed once, before the root element");
                }
                sawDoctype = true;
                skipDoctype();
            } else if (text.charAt(pos) == '<' && pos + 1 < len && isNameStart(text.charAt(pos + 1))) {
                if (root != null) {
                    throw error(pos, "only one root element is allowed; <" + root.name + "> ended at " + at(root.end));
                }
                root = elementTree();
            } else if (text.charAt(pos) == '<') {
                throw error(pos, "'<' not followed by an element name");
            } else {
                throw error(pos, root == null
                        ? "text is not allowed before the root element"
                        : "text is not allowed after the end of the root element");
            }
        }
        if (root == null) {
            throw error(len, "no root element");
        }
        return root;
    }

    private void checkCharacters() throws BoardSpecException {
        for (int i = 0; i < len; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c <= 0xD7FF || c == '\t' || c == '\n' || c == '\r' || c >= 0xE000 && c <= 0xFFFD) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
                continue;
            }
            throw error(i, String.format("character U+%04X is not allowed in an XML document", (int) c));
        }
    }

    private boolean isXmlDeclaration(int p) {
        return text.startsWith("<?xml", p) && p + 5 < len && (isBlank(text.charAt(p + 5)) || text.charAt(p + 5) == '?');
    }

    private XmlElement elementTree() throws BoardSpecException {
        XmlElement root = startTag(null);
        Deque<XmlElement> open = new ArrayDeque<>();
        if (!root.selfClosing) {
            open.push(root);
        }
        while (!open.isEmpty()) {
            XmlElement top = open.peek();
            while (pos < len && text.charAt(pos) != '<') {
                if (text.charAt(pos) == '&') {
                    reference();
                } else if (text.startsWith("]]>", pos)) {
                    throw error(pos, "']]>' is not allowed in text outside a CDATA section");
                } else {
                    pos++;
                }
            }
            if (pos >= len) {
                throw error(len, "unexpected end of file: <" + top.name + "> opened at " + at(top.start) + " is not closed");
            }
            if (text.startsWith("</", pos)) {
                int tagStart = pos;
                pos += 2;
                if (pos >= len || !isNameStart(text.charAt(pos))) {
                    throw error(pos, "'</' not followed by an element name");
                }
                String name = name();
                skipBlank();
                if (pos >= len) {
                    throw error(len, "unexpected end of file inside the end tag </" + name + ">");
                }
                if (text.charAt(pos) != '>') {
                    throw error(pos, "end tag </" + name + "> is not closed with '>'");
                }
                pos++;
                if (!name.equals(top.name)) {
                    throw error(tagStart, "end tag </" + name + "> does not match <" + top.name + "> opened at " + at(top.start));
                }
                top.closeTagStart = tagStart;
                top.end = pos;
                open.pop();
            } else if (text.startsWith("<!--", pos)) {
                skipComment();
            } else if (text.startsWith("<![CDATA[", pos)) {
                int start = pos;
                int close = text.indexOf("]]>", pos + 9);
                if (close < 0) {
                    throw error(start, "CDATA section is not closed with ']]>'");
                }
                pos = close + 3;
            } else if (text.startsWith("<?", pos)) {
                skipProcessingInstruction(false);
            } else if (text.startsWith("<!", pos)) {
                throw error(pos, "markup declaration '<!' is not allowed inside an element");
            } else if (pos + 1 < len && isNameStart(text.charAt(pos + 1))) {
                XmlElement child = startTag(top);
                top.children.add(child);
                if (!child.selfClosing) {
                    open.push(child);
                }
            } else {
                throw error(pos, "'<' not followed by an element name");
            }
        }
        return root;
    }

    /** Scans a start tag at {@code pos} (which holds '<'). */
    private XmlElement startTag(XmlElement parent) throws BoardSpecException {
        int start = pos;
        pos++;
        String name = name();
        XmlElement e = new XmlElement(name, start);
        while (true) {
            boolean blank = skipBlank();
            if (pos >= len) {
                throw error(len, "unexpected end of file inside the start tag <" + name + "> opened at " + at(start));
            }
            char c = text.charAt(pos);
            if (c == '>') {
                pos++;
                break;
            }
            if (c == '/') {
                if (pos + 1 < len && text.charAt(pos + 1) == '>') {
                    pos += 2;
                    e.selfClosing = true;
                    break;
                }
                throw error(pos, "'/' in the start tag <" + name + "> must be followed by '>'");
            }
            if (c == '<') {
                throw error(pos, "start tag <" + name + "> opened at " + at(start) + " is not closed with '>' or '/>'");
            }
            if (!isNameStart(c)) {
                throw error(pos, "unexpected character '" + c + "' in the start tag <" + name + ">");
            }
            if (!blank) {
                throw error(pos, "attributes in the start tag <" + name + "> must be separated by whitespace");
            }
            e.attributes.add(attribute(e));
        }
        e.startTagEnd = pos;
        if (e.selfClosing) {
            e.end = pos;
        }
        return e;
    }

    private XmlAttribute attribute(XmlElement e) throws BoardSpecException {
        int nameStart = pos;
        String name = name();
        if (e.attribute(name) != null) {
            throw error(nameStart, "attribute " + name + " appears twice in <" + e.name + ">");
        }
        skipBlank();
        if (pos >= len || text.charAt(pos) != '=') {
            throw error(pos, "attribute " + name + " of <" + e.name + "> has no '=' and value");
        }
        pos++;
        skipBlank();
        if (pos >= len || text.charAt(pos) != '"' && text.charAt(pos) != '\'') {
            throw error(pos, "the value of attribute " + name + " of <" + e.name + "> must be quoted");
        }
        char quote = text.charAt(pos++);
        int valueStart = pos;
        StringBuilder value = new StringBuilder();
        while (true) {
            if (pos >= len) {
                throw error(valueStart - 1, "the value of attribute " + name + " of <" + e.name + "> is not closed with " + quote);
            }
            char c = text.charAt(pos);
            if (c == quote) {
                break;
            }
            if (c == '<') {
                throw error(pos, "'<' is not allowed in the value of attribute " + name + " of <" + e.name + ">");
            }
            if (c == '&') {
                value.append(reference());
            } else {
                if (c == '\r' && pos + 1 < len && text.charAt(pos + 1) == '\n') {
                    pos++;
                }
                value.append(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
                pos++;
            }
        }
        int valueEnd = pos;
        pos++;
        return new XmlAttribute(name, value.toString(), nameStart, valueStart, valueEnd);
    }

    /** Scans an entity or character reference at {@code pos} (which holds '&') and returns its text. */
    private String reference() throws BoardSpecException {
        int start = pos;
        int semi = text.indexOf(';', pos);
        int limit = Math.min(len, pos + 40);
        if (semi < 0 || semi > limit) {
            throw error(start, "'&' must start an entity reference such as &amp;");
        }
        String body = text.substring(pos + 1, semi);
        pos = semi + 1;
        if (body.startsWith("#")) {
            int cp;
            try {
                cp = body.startsWith("#x") ? Integer.parseInt(body.substring(2), 16) : Integer.parseInt(body.substring(1), 10);
            } catch (NumberFormatException ex) {
                throw error(start, "malformed character reference &" + body + ";");
            }
            boolean legal = cp == 0x9 || cp == 0xA || cp == 0xD || cp >= 0x20 && cp <= 0xD7FF
                    || cp >= 0xE000 && cp <= 0xFFFD || cp >= 0x10000 && cp <= 0x10FFFF;
            if (!legal) {
                throw error(start, "character reference &" + body + "; is not a legal XML character");
            }
            return new String(Character.toChars(cp));
        }
        return switch (body) {
            case "lt" -> "<";
            case "gt" -> ">";
            case "amp" -> "&";
            case "quot" -> "\"";
            case "apos" -> "'";
            default -> throw error(start, body.isEmpty() || !isNameStart(body.charAt(0))
                    ? "'&' must start an entity reference such as &amp;"
                    : "undefined entity &" + body + ";");
        };
    }

    private void skipComment() throws BoardSpecException {
        int start = pos;
        int close = text.indexOf("-->", pos + 4);
        if (close < 0) {
            throw error(start, "comment is not closed with '-->'");
        }
        pos = close + 3;
    }

    private void skipProcessingInstruction(boolean declarationAllowed) throws BoardSpecException {
        int start = pos;
        if (!declarationAllowed && isXmlDeclaration(pos)) {
            throw error(start, "the XML declaration is only allowed at the very start of the file");
        }
        int close = text.indexOf("?>", pos + 2);
        if (close < 0) {
            throw error(start, "processing instruction is not closed with '?>'");
        }
        pos = close + 2;
    }

    private void skipDoctype() throws BoardSpecException {
        int start = pos;
        int depth = 0;
        pos += 9;
        while (pos < len) {
            char c = text.charAt(pos);
            if (c == '"' || c == '\'') {
                int close = text.indexOf(c, pos + 1);
                if (close < 0) {
                    break;
                }
                pos = close + 1;
                continue;
            }
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == '>' && depth <= 0) {
                pos++;
                return;
            }
            pos++;
        }
        throw error(start, "DOCTYPE is not closed with '>'");
    }

    private String name() {
        int start = pos;
        pos++;
        while (pos < len && isNameChar(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos);
    }

    private boolean skipBlank() {
        int start = pos;
        while (pos < len && isBlank(text.charAt(pos))) {
            pos++;
        }
        return pos > start;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static boolean isNameStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80 && c != '\uFEFF';
    }

    private static boolean isNameChar(char c) {
        return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.';
    }
}
