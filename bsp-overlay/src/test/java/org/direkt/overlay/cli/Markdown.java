// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.commonmark.node.Block;
import org.commonmark.node.Code;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.ListItem;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.Text;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

/** A generated Markdown document as a CommonMark parser reads it: its headings, sections and numbered steps. */
final class Markdown {

    private static final Parser PARSER = Parser.builder().includeSourceSpans(IncludeSourceSpans.BLOCKS).build();
    private static final Pattern ITEM_NUMBER = Pattern.compile("^ {0,3}(\\d+)\\. ");

    private final String source;
    private final List<String> lines;
    private final Node document;

    private Markdown(String source) {
        this.source = source;
        this.lines = source.lines().toList();
        this.document = PARSER.parse(source);
    }

    static Markdown parse(String source) {
        return new Markdown(source);
    }

    /** One heading: its level and its text with inline markup (code spans, emphasis) reduced to text. */
    record Title(int level, String text) {
        @Override
        public String toString() {
            return "#".repeat(level) + " " + text;
        }
    }

    /** Every heading in document order. */
    List<Title> headings() {
        List<Title> out = new ArrayList<>();
        for (Node n = document.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Heading h) {
                out.add(new Title(h.getLevel(), text(h)));
            }
        }
        return out;
    }

    /** The top-level blocks under the heading titled {@code title}, up to the next heading of its level or higher. */
    List<Node> section(String title) {
        for (Node n = document.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Heading h && text(h).equals(title)) {
                List<Node> out = new ArrayList<>();
                for (Node b = n.getNext(); b != null && !(b instanceof Heading next && next.getLevel() <= h.getLevel()); b = b.getNext()) {
                    out.add(b);
                }
                return out;
            }
        }
        throw new AssertionError("no heading \"" + title + "\" in:\n" + source);
    }

    /**
     * The steps of section {@code title}: it must hold exactly one ordered list, numbered 1, 2, 3, ...
     * as written in the source; returns each item's text.
     */
    List<String> steps(String title) {
        List<OrderedList> lists = section(title).stream().filter(OrderedList.class::isInstance).map(OrderedList.class::cast).toList();
        assertEquals(1, lists.size(), () -> "section \"" + title + "\" holds one numbered list:\n" + source);
        OrderedList list = lists.getFirst();
        List<String> out = new ArrayList<>();
        int expected = 1;
        for (Node n = list.getFirstChild(); n != null; n = n.getNext()) {
            Node item = n;
            assertTrue(item instanceof ListItem, () -> "a list item: " + item);
            String first = lines.get(item.getSourceSpans().getFirst().getLineIndex());
            Matcher m = ITEM_NUMBER.matcher(first);
            assertTrue(m.find(), () -> "a numbered item: " + first);
            assertEquals(expected, Integer.parseInt(m.group(1)), () -> "steps are numbered 1, 2, 3, ...: " + first + "\n" + source);
            expected++;
            out.add(text(item));
        }
        return out;
    }

    /** The text of a node: text and code spans, line breaks and block boundaries as spaces, markup left out. */
    static String text(Node node) {
        StringBuilder b = new StringBuilder();
        collect(node, b);
        return b.toString().strip();
    }

    private static void collect(Node node, StringBuilder b) {
        for (Node c = node.getFirstChild(); c != null; c = c.getNext()) {
            switch (c) {
                case Text t -> b.append(t.getLiteral());
                case Code code -> b.append(code.getLiteral());
                case SoftLineBreak s -> b.append(' ');
                case HardLineBreak h -> b.append(' ');
                case Block block -> {
                    collect(block, b);
                    b.append(' ');
                }
                default -> collect(c, b);
            }
        }
    }
}
