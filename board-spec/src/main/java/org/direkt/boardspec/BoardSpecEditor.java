// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Edits the channel interfaces of a {@link BoardSpec} by splicing text at the offsets the parser
 * recorded, so that every byte outside the edited lines stays as it was. Each operation re-parses
 * the spliced text at once (so offsets stay exact and a broken result cannot go unnoticed) and
 * returns this editor for chaining; {@link #result()} and {@link #text()} give the outcome.
 *
 * <p>Layout of new text:
 * <ul>
 *   <li>A new channel is one line, {@code <interface name=".." port=".." type=".." width=".."
 *       chan_id=".."/>}, placed on the line after the last {@code <interface>} of the first
 *       {@code <channels>} and indented like it; when {@code <channels>} holds no interface, it goes
 *       on a new line just before {@code </channels>}, indented one unit deeper than {@code <channels>}.</li>
 *   <li>A file without {@code <channels>} gets one as a child of {@code <board>} on the lines right
 *       after {@code </interfaces>} (where the SDK's own BSPs put it), indented like
 *       {@code <interfaces>}; without {@code <interfaces>}, just before {@code </board>}. No blank
 *       line is added, so {@link #removeChannelsElementIfEmpty()} can take it out again leaving the
 *       original bytes.</li>
 *   <li>Line ends are {@link BoardSpec#lineEnding()} and one indentation level is {@link BoardSpec#indentUnit()}.</li>
 *   <li>Replacing rewrites only the element's own span (its line's indentation and anything after
 *       it on the line stay); a channel whose attributes already equal the new ones is left untouched.</li>
 *   <li>Removing takes out the element's whole lines when nothing else shares them, else only the
 *       element. Removing the last channel leaves an empty {@code <channels>} element; call
 *       {@link #removeChannelsElementIfEmpty()} to take that out too.</li>
 * </ul>
 */
public final class BoardSpecEditor {

    private final BoardSpec original;
    private BoardSpec current;

    BoardSpecEditor(BoardSpec spec) {
        this.original = spec;
        this.current = spec;
    }

    /** The board as edited so far. */
    public BoardSpec result() {
        return current;
    }

    /** The document text as edited so far. */
    public String text() {
        return current.text();
    }

    /** Whether the text differs from the board the edit started from. */
    public boolean changed() {
        return !current.text().equals(original.text());
    }

    /**
     * Adds a channel.
     *
     * @param def the channel to add
     * @return this editor
     * @throws BoardSpecException when a channel with the same {@code chan_id} exists (the exception
     *                            points at that channel)
     */
    public BoardSpecEditor addChannel(ChannelDefinition def) throws BoardSpecException {
        List<Channel> same = current.channelsWithId(def.chanId());
        if (!same.isEmpty()) {
            throw duplicate(same.getFirst());
        }
        insert(def);
        return this;
    }

    /**
     * Replaces the channel with {@code def}'s {@code chan_id} in place, whoever owns it, or adds
     * {@code def} when there is none. Applying the same definition twice gives identical text.
     *
     * @param def the channel wanted
     * @return this editor
     * @throws BoardSpecException when the file already holds that {@code chan_id} more than once
     */
    public BoardSpecEditor putChannel(ChannelDefinition def) throws BoardSpecException {
        List<Channel> same = current.channelsWithId(def.chanId());
        if (same.size() > 1) {
            Channel second = same.get(1);
            throw refuse(second, "chan_id=\"" + def.chanId() + "\" is already used by " + same.size()
                    + " channels (first at " + same.getFirst().region().position() + "); fix the file before replacing it");
        }
        if (same.isEmpty()) {
            insert(def);
        } else {
            replace(elementOf(same.getFirst()), def);
        }
        return this;
    }

    /**
     * Makes the channels owned by {@code instanceName} (their {@code name} attribute) exactly
     * {@code defs}: channels of the instance whose {@code chan_id} is in {@code defs} are replaced in
     * place, the instance's other channels are removed, and the rest of {@code defs} is added in order.
     * Channels of other instances are not touched. Applying the same call twice gives identical text.
     *
     * @param instanceName the owning instance
     * @param defs         the channels it should have; every one must name {@code instanceName}, and
     *                     their {@code chan_id}s must differ
     * @return this editor
     * @throws BoardSpecException       when a {@code chan_id} of {@code defs} is used by a channel of
     *                                  another instance (nothing is changed then)
     * @throws IllegalArgumentException when {@code defs} name another instance or repeat a {@code chan_id}
     */
    public BoardSpecEditor replaceInstanceChannels(String instanceName, List<ChannelDefinition> defs) throws BoardSpecException {
        Set<String> ids = new HashSet<>();
        for (ChannelDefinition d : defs) {
            if (!d.name().equals(instanceName)) {
                throw new IllegalArgumentException("channel chan_id=\"" + d.chanId() + "\" names instance \"" + d.name()
                        + "\", not \"" + instanceName + "\"");
            }
            if (!ids.add(d.chanId())) {
                throw new IllegalArgumentException("chan_id \"" + d.chanId() + "\" appears twice in the new channels");
            }
        }
        for (ChannelDefinition d : defs) {
            List<Channel> same = current.channelsWithId(d.chanId());
            for (Channel c : same) {
                if (!instanceName.equals(c.name())) {
                    throw duplicate(c);
                }
            }
            if (same.size() > 1) {
                throw refuse(same.get(1), "chan_id=\"" + d.chanId() + "\" is already used by " + same.size()
                        + " channels (first at " + same.getFirst().region().position() + "); fix the file before replacing it");
            }
        }
        while (true) {
            Channel stale = current.channelsOfInstance(instanceName).stream()
                    .filter(c -> c.chanId() == null || !ids.contains(c.chanId()))
                    .findFirst().orElse(null);
            if (stale == null) {
                break;
            }
            remove(elementOf(stale));
        }
        for (ChannelDefinition d : defs) {
            putChannel(d);
        }
        return this;
    }

    /**
     * Removes every channel with this {@code chan_id}; does nothing when there is none.
     *
     * @param chanId the channel's {@code chan_id}
     * @return this editor
     */
    public BoardSpecEditor removeChannel(String chanId) {
        while (!current.channelsWithId(chanId).isEmpty()) {
            remove(elementOf(current.channelsWithId(chanId).getFirst()));
        }
        return this;
    }

    /**
     * Removes every channel owned by {@code instanceName}; does nothing when there is none.
     *
     * @param instanceName the {@code name} attribute of the channels to remove
     * @return this editor
     */
    public BoardSpecEditor removeInstanceChannels(String instanceName) {
        while (!current.channelsOfInstance(instanceName).isEmpty()) {
            remove(elementOf(current.channelsOfInstance(instanceName).getFirst()));
        }
        return this;
    }

    /**
     * Removes the first {@code <channels>} element when it holds nothing but whitespace (a comment
     * counts as content and keeps it); does nothing otherwise.
     *
     * @return this editor
     */
    public BoardSpecEditor removeChannelsElementIfEmpty() {
        XmlElement section = current.firstChannelsSection();
        if (section != null && (section.selfClosing
                || current.text().substring(section.startTagEnd, section.closeTagStart).isBlank())) {
            remove(section);
        }
        return this;
    }

    private XmlElement elementOf(Channel c) {
        return current.channelElements().get(current.channels().indexOf(c));
    }

    private BoardSpecException duplicate(Channel existing) {
        return refuse(existing, "duplicate chan_id=\"" + existing.chanId() + "\": already used here by <interface name=\""
                + existing.name() + "\" port=\"" + existing.port() + "\">");
    }

    private BoardSpecException refuse(Channel at, String message) {
        return new BoardSpecException(current.sourceName(), at.line(), at.column(), message);
    }

    private void replace(XmlElement e, ChannelDefinition def) {
        if (e.attributeMap().equals(def.attributes())) {
            return;
        }
        splice(e.start, e.end, def.toXml());
    }

    private void remove(XmlElement e) {
        LineMap lines = current.lineMap();
        if (lines.onlyBlankBefore(e.start) && lines.onlyBlankAfter(e.end)) {
            splice(lines.lineStart(e.start), lines.nextLineStart(e.end), "");
        } else {
            splice(e.start, e.end, "");
        }
    }

    private void insert(ChannelDefinition def) {
        LineMap lines = current.lineMap();
        String eol = current.lineEnding();
        String unit = current.indentUnit();
        XmlElement section = current.firstChannelsSection();
        if (section == null) {
            createSection(def, lines, eol, unit);
            return;
        }
        String sectionIndent = lines.onlyBlankBefore(section.start) ? lines.indentOf(section.start) : boardChildIndent(lines, unit);
        List<XmlElement> items = section.children("interface");
        XmlElement last = items.isEmpty() ? null : items.getLast();
        String itemIndent = last != null && lines.onlyBlankBefore(last.start) ? lines.indentOf(last.start) : sectionIndent + unit;
        String line = itemIndent + def.toXml();
        if (last != null && lines.onlyBlankAfter(last.end) && lines.hasTerminator(last.end)) {
            int at = lines.nextLineStart(last.end);
            splice(at, at, line + eol);
        } else if (section.selfClosing) {
            splice(section.startTagEnd - 2, section.startTagEnd, ">" + eol + line + eol + sectionIndent + "</channels>");
        } else if (lines.onlyBlankBefore(section.closeTagStart)) {
            int at = lines.lineStart(section.closeTagStart);
            splice(at, at, line + eol);
        } else {
            splice(section.closeTagStart, section.closeTagStart, eol + line + eol + sectionIndent);
        }
    }

    private void createSection(ChannelDefinition def, LineMap lines, String eol, String unit) {
        XmlElement root = current.rootElement();
        XmlElement ifs = current.interfacesSection();
        String sectionIndent = ifs != null && lines.onlyBlankBefore(ifs.start) ? lines.indentOf(ifs.start) : boardChildIndent(lines, unit);
        String block = sectionIndent + "<channels>" + eol
                + sectionIndent + unit + def.toXml() + eol
                + sectionIndent + "</channels>" + eol;
        if (ifs != null) {
            if (lines.onlyBlankAfter(ifs.end) && lines.hasTerminator(ifs.end)) {
                int at = lines.nextLineStart(ifs.end);
                splice(at, at, block);
            } else {
                splice(ifs.end, ifs.end, eol + block);
            }
            return;
        }
        String boardIndent = lines.onlyBlankBefore(root.start) ? lines.indentOf(root.start) : "";
        if (root.selfClosing) {
            splice(root.startTagEnd - 2, root.startTagEnd, ">" + eol + block + boardIndent + "</board>");
        } else if (lines.onlyBlankBefore(root.closeTagStart)) {
            int at = lines.lineStart(root.closeTagStart);
            splice(at, at, block);
        } else {
            splice(root.closeTagStart, root.closeTagStart, eol + block + boardIndent);
        }
    }

    private String boardChildIndent(LineMap lines, String unit) {
        XmlElement root = current.rootElement();
        return (lines.onlyBlankBefore(root.start) ? lines.indentOf(root.start) : "") + unit;
    }

    private void splice(int start, int end, String replacement) {
        String t = current.text();
        String edited = t.substring(0, start) + replacement + t.substring(end);
        try {
            current = current.reparse(edited);
        } catch (BoardSpecException e) {
            throw new IllegalStateException("internal error: the edited board_spec.xml does not parse: " + e.getMessage(), e);
        }
    }
}
