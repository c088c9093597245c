// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.io.IOException;
import java.io.ByteArrayInputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

import org.direkt.overlay.OverlayException;

/**
 * A Platform Designer file as a small element tree with the real line of every element and of
 * every element's text. StAX with DTDs and external entities off: the files are third-party input.
 * A Pro system keeps whole XML documents in CDATA ({@code componentDefinition}); {@link #parse(String,
 * Path, int)} reads one of those with its lines shifted to where the CDATA stands in the file.
 */
record XmlTree(String name, String namespace, Map<String, String> attributes, String text, int line, int textLine,
        List<XmlTree> children) {

    /** The first child element called {@code name} (local name). */
    Optional<XmlTree> child(String name) {
        for (XmlTree c : children) {
            if (c.name.equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** The child elements called {@code name}, in file order. */
    List<XmlTree> all(String name) {
        List<XmlTree> out = new ArrayList<>();
        for (XmlTree c : children) {
            if (c.name.equals(name)) {
                out.add(c);
            }
        }
        return out;
    }

    /** The element at the end of a path of child names, if every step exists. */
    Optional<XmlTree> at(String... path) {
        Optional<XmlTree> n = Optional.of(this);
        for (String p : path) {
            n = n.flatMap(x -> x.child(p));
        }
        return n;
    }

    /** The trimmed text of child {@code name}; empty string when it is missing or empty. */
    String childText(String name) {
        return child(name).map(c -> c.text.strip()).orElse("");
    }

    /** The attribute of this local name (any namespace), or empty string. */
    String attribute(String name) {
        return attributes.getOrDefault(name, "");
    }

    private static final XMLInputFactory FACTORY = factory();

    private static XMLInputFactory factory() {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        return f;
    }

    /**
     * Reads a whole file. A file that is missing or unreadable is bad input ({@code INPUT}); one that
     * is not well-formed XML is a broken BSP file ({@code BSP}), reported at its line.
     */
    static XmlTree parse(Path file) throws OverlayException {
        try {
            byte[] bytes = Files.readAllBytes(file);
            XMLStreamReader r;
            synchronized (FACTORY) {
                r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(bytes));
            }
            // Line ends are the same bytes in every encoding these files use; only they are counted.
            return build(r, file, 1, "", rootLine(new String(bytes, StandardCharsets.ISO_8859_1)));
        } catch (NoSuchFileException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": no such file");
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        } catch (XMLStreamException e) {
            throw notXml(file, 1, e, "not well-formed XML");
        }
    }

    /**
     * Reads an XML document held as text in {@code file}, whose first character stands on line
     * {@code firstLine}; {@code what} names it in errors.
     */
    static XmlTree parse(String text, Path file, int firstLine, String what) throws OverlayException {
        // An XML declaration must come first: the whitespace before it goes, its lines counted.
        int skip = 0;
        int lines = 0;
        while (skip < text.length() && Character.isWhitespace(text.charAt(skip))) {
            lines += text.charAt(skip++) == '\n' ? 1 : 0;
        }
        firstLine += lines;
        String xml = text.substring(skip);
        try (Reader in = new StringReader(xml)) {
            XMLStreamReader r;
            synchronized (FACTORY) {
                r = FACTORY.createXMLStreamReader(in);
            }
            return build(r, file, firstLine, what, rootLine(xml));
        } catch (IOException e) {
            throw new OverlayException(OverlayException.Kind.INPUT, file + ": cannot read: " + e.getMessage());
        } catch (XMLStreamException e) {
            throw notXml(file, firstLine, e, what + " is not XML");
        }
    }

    private static OverlayException notXml(Path file, int firstLine, XMLStreamException e, String what) {
        int line = e.getLocation() == null ? 0 : firstLine + e.getLocation().getLineNumber() - 1;
        // The JDK's message starts "ParseError at [row,col]:[r,c]\nMessage: "; the line is given already.
        String msg = String.valueOf(e.getMessage()).replaceFirst("(?s)^ParseError at \\[row,col\\]:\\[\\d+,\\d+\\]\\s*Message:\\s*", "");
        return new OverlayException(OverlayException.Kind.BSP, file + (line > 0 ? ":" + line : "") + ": " + what + ": " + msg.strip());
    }

    /** An element being read: its start, its text so far and its children. */
    private static final class Open {
        final String name;
        final String namespace;
        final Map<String, String> attributes;
        final int line;
        final StringBuilder text = new StringBuilder();
        int textLine;
        final List<XmlTree> children = new ArrayList<>();

        Open(String name, String namespace, Map<String, String> attributes, int line) {
            this.name = name;
            this.namespace = namespace;
            this.attributes = attributes;
            this.line = line;
        }

        XmlTree close() {
            return new XmlTree(name, namespace, Map.copyOf(attributes), text.toString(), line, textLine == 0 ? line : textLine,
                    List.copyOf(children));
        }
    }

    /**
     * The line of the root element's start tag: the reader does not report the whitespace before it,
     * so it is found past the prolog (declaration, comments, processing instructions, DOCTYPE).
     */
    static int rootLine(String text) {
        int i = 0;
        int n = text.length();
        while (i < n) {
            if (Character.isWhitespace(text.charAt(i))) {
                i++;
            } else if (text.startsWith("<?", i)) {
                i = after(text, i, "?>");
            } else if (text.startsWith("<!--", i)) {
                i = after(text, i, "-->");
            } else if (text.startsWith("<!", i)) {
                int depth = 0;
                while (i < n && !(text.charAt(i) == '>' && depth == 0)) {
                    depth += text.charAt(i) == '[' ? 1 : text.charAt(i) == ']' ? -1 : 0;
                    i++;
                }
                i++;
            } else {
                break;
            }
        }
        int line = 1;
        for (int k = 0; k < Math.min(i, n); k++) {
            line += text.charAt(k) == '\n' ? 1 : 0;
        }
        return line;
    }

    private static int after(String text, int from, String end) {
        int at = text.indexOf(end, from);
        return at < 0 ? text.length() : at + end.length();
    }

    private static XmlTree build(XMLStreamReader r, Path file, int firstLine, String what, int rootLine) throws XMLStreamException, OverlayException {
        List<Open> stack = new ArrayList<>();
        // The reader's location is where an event ends; an event starts where the one before it ended.
        int ended = 1;
        XmlTree root = null;
        try {
            while (r.hasNext()) {
                int event = r.next();
                int start = firstLine + ended - 1;
                ended = r.getLocation().getLineNumber();
                switch (event) {
                    case XMLStreamConstants.START_ELEMENT -> {
                        Map<String, String> attrs = new HashMap<>();
                        for (int i = 0; i < r.getAttributeCount(); i++) {
                            attrs.put(r.getAttributeLocalName(i), r.getAttributeValue(i));
                        }
                        String ns = r.getNamespaceURI();
                        int line = stack.isEmpty() && root == null ? firstLine + rootLine - 1 : start;
                        stack.add(new Open(r.getLocalName(), ns == null ? "" : ns, attrs, line));
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        XmlTree done = stack.removeLast().close();
                        if (stack.isEmpty()) {
                            root = done;
                        } else {
                            stack.getLast().children.add(done);
                        }
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                        if (!stack.isEmpty()) {
                            Open o = stack.getLast();
                            if (o.text.isEmpty()) {
                                o.textLine = start;
                            }
                            o.text.append(r.getText());
                        }
                    }
                    default -> {
                        // comments, processing instructions, the document's start and end
                    }
                }
            }
        } finally {
            r.close();
        }
        if (root == null) {
            throw new OverlayException(OverlayException.Kind.BSP, file + ":" + firstLine + ": " + (what.isEmpty() ? "no XML element" : what + " holds no XML element"));
        }
        return root;
    }
}
