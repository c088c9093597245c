// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code board_spec.xml}: the exact source text plus a typed view of the parts direkt
 * uses. Instances are immutable; {@link #edit()} starts an edit that yields a new instance.
 *
 * <p>The root must be {@code <board>} with a non-empty {@code name}. Children read:
 * {@code <global_mem>} (with {@code <interface>} children), {@code <interfaces>} (its {@code
 * <interface>} children; {@code <kernel_clk_reset>} and others are kept in the text but not
 * modelled) and {@code <channels>} (its {@code <interface>} children become {@link Channel}s; when
 * a file has several {@code <channels>} elements their channels are concatenated and edits go to the
 * first). Anything else ({@code <compile>}, {@code <device>}, {@code <host>}, ...) is carried
 * through untouched.
 */
public final class BoardSpec {

    private static final Pattern ENCODING = Pattern.compile("encoding\\s*=\\s*[\"']([A-Za-z][A-Za-z0-9._-]*)[\"']");

    private final String text;
    private final String sourceName;
    private final Charset charset;
    private final LineMap lines;
    private final XmlElement root;
    private final List<GlobalMemory> globalMemories = new ArrayList<>();
    private final List<InterfaceEntry> interfaces = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private final List<XmlElement> channelElements = new ArrayList<>();
    private final List<XmlElement> channelsSections = new ArrayList<>();
    private final XmlElement interfacesSection;

    private BoardSpec(String text, String sourceName, Charset charset) throws BoardSpecException {
        this.text = text;
        this.sourceName = sourceName;
        this.charset = charset;
        this.lines = new LineMap(text);
        this.root = XmlParser.parse(text, sourceName, lines);
        if (!root.name.equals("board")) {
            throw error(root.start, "root element is <" + root.name + ">; a board_spec.xml has the root element <board>");
        }
        XmlAttribute name = root.attribute("name");
        if (name == null) {
            throw error(root.start, "<board> has no name attribute");
        }
        if (name.value().isBlank()) {
            throw error(name.nameStart(), "<board> has an empty name attribute");
        }
        XmlElement firstInterfaces = null;
        XmlElement defaultMemory = defaultMemory(root.children("global_mem"));
        for (XmlElement child : root.children) {
            switch (child.name) {
                case "global_mem" -> {
                    List<InterfaceEntry> ifs = new ArrayList<>();
                    for (XmlElement i : child.children("interface")) {
                        ifs.add(interfaceEntry(i));
                    }
                    globalMemories.add(new GlobalMemory(child.value("name"), child.value("max_bandwidth"), child == defaultMemory,
                            child.attributeMap(), ifs, region(child)));
                }
                case "interfaces" -> {
                    if (firstInterfaces == null) {
                        firstInterfaces = child;
                    }
                    for (XmlElement i : child.children("interface")) {
                        interfaces.add(interfaceEntry(i));
                    }
                }
                case "channels" -> {
                    channelsSections.add(child);
                    for (XmlElement i : child.children("interface")) {
                        channelElements.add(i);
                        channels.add(new Channel(i.value("name"), i.value("port"), i.value("type"), i.value("width"),
                                i.value("chan_id"), i.attributeMap(), region(i)));
                    }
                }
                default -> {
                    // compile, device, host and others are kept verbatim in the text and not modelled.
                }
            }
        }
        this.interfacesSection = firstInterfaces;
    }

    /**
     * The board's default memory, the one buffers live in unless a kernel names another with
     * {@code buffer_location}: the {@code <global_mem>} marked {@code default="1"}, else the first
     * (the SDK's rule; SDK 14.x files, with a single unnamed {@code <global_mem>}, rely on it).
     */
    private static XmlElement defaultMemory(List<XmlElement> memories) {
        for (XmlElement g : memories) {
            if ("1".equals(g.value("default"))) {
                return g;
            }
        }
        return memories.isEmpty() ? null : memories.getFirst();
    }

    /**
     * Reads and parses a file. The encoding is UTF-8 (a UTF-8 byte-order mark is kept) unless the
     * XML declaration names another ASCII-compatible one; bytes that do not decode are an error, so
     * that {@link #bytes()} reproduces the file exactly.
     *
     * @param file the board_spec.xml; its path as given is the source name in messages
     * @return the parsed board
     * @throws IOException         when the file cannot be read
     * @throws BoardSpecException  when it does not decode, is not well-formed XML or is not a board
     */
    public static BoardSpec parse(Path file) throws IOException, BoardSpecException {
        byte[] bytes = Files.readAllBytes(file);
        String source = file.toString();
        Charset cs = declaredCharset(bytes, source);
        String text = decode(bytes, cs, source);
        if (!Arrays.equals(text.getBytes(cs), bytes)) {
            throw new BoardSpecException(source, 1, 1, "the file does not round-trip through its encoding " + cs.name()
                    + " byte for byte, so it cannot be edited safely");
        }
        return new BoardSpec(text, source, cs);
    }

    /**
     * Parses text held in memory, taken to be UTF-8 for {@link #bytes()}, byte spans and writing.
     *
     * @param text       the whole document
     * @param sourceName the name used in messages (usually the path)
     * @return the parsed board
     * @throws BoardSpecException when it is not well-formed XML or not a board
     */
    public static BoardSpec parse(String text, String sourceName) throws BoardSpecException {
        return new BoardSpec(text, sourceName, StandardCharsets.UTF_8);
    }

    /** Re-parses edited text with the same source name and encoding. */
    BoardSpec reparse(String newText) throws BoardSpecException {
        return new BoardSpec(newText, sourceName, charset);
    }

    private static Charset declaredCharset(byte[] bytes, String source) throws BoardSpecException {
        if (bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB && (bytes[2] & 0xFF) == 0xBF) {
            return StandardCharsets.UTF_8;
        }
        String head = new String(bytes, 0, Math.min(bytes.length, 256), StandardCharsets.ISO_8859_1);
        if (!head.startsWith("<?xml")) {
            return StandardCharsets.UTF_8;
        }
        int close = head.indexOf("?>");
        Matcher m = ENCODING.matcher(close < 0 ? head : head.substring(0, close));
        if (!m.find()) {
            return StandardCharsets.UTF_8;
        }
        String name = m.group(1);
        int column = m.start(1) + 1;
        try {
            Charset cs = Charset.forName(name);
            byte[] probe = "<?xml".getBytes(cs);
            if (!Arrays.equals(probe, Arrays.copyOf(bytes, probe.length))) {
                throw new BoardSpecException(source, 1, column, "encoding \"" + name + "\" is not supported (only ASCII-compatible encodings are)");
            }
            return cs;
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            throw new BoardSpecException(source, 1, column, "encoding \"" + name + "\" is not supported");
        }
    }

    private static String decode(byte[] bytes, Charset cs, String source) throws BoardSpecException {
        CharsetDecoder decoder = cs.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(Math.max(16, (int) (bytes.length * (double) decoder.maxCharsPerByte()) + 1));
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            int bad = in.position();
            String before = out.flip().toString();
            LineMap map = new LineMap(before);
            throw new BoardSpecException(source, map.line(before.length()), map.column(before.length()),
                    String.format("not %s text: byte 0x%02X at byte offset %d cannot be decoded (is this a binary file?)",
                            cs.name(), bytes[bad] & 0xFF, bad));
        }
        if (r.isOverflow()) {
            // Cannot happen: the buffer holds maxCharsPerByte characters for every byte.
            throw new IllegalStateException(new CharacterCodingException());
        }
        return out.flip().toString();
    }

    private InterfaceEntry interfaceEntry(XmlElement e) {
        return new InterfaceEntry(e.value("name"), e.value("port"), e.value("type"), e.value("width"), e.attributeMap(), region(e));
    }

    private Region region(XmlElement e) {
        return new Region(lines.line(e.start), lines.column(e.start), new Span(e.start, e.end),
                new Span(byteOffset(e.start), byteOffset(e.end)));
    }

    private int byteOffset(int charOffset) {
        return text.substring(0, charOffset).getBytes(charset).length;
    }

    private BoardSpecException error(int offset, String message) {
        return new BoardSpecException(sourceName, lines.line(offset), lines.column(offset), message);
    }

    /** The whole document, exactly as read or as edited. */
    public String text() {
        return text;
    }

    /** {@link #text()} encoded in the file's encoding: for an unedited file, its exact bytes. */
    public byte[] bytes() {
        return text.getBytes(charset);
    }

    /** The name used in messages: the path given to {@link #parse(Path)} or the name given with the text. */
    public String sourceName() {
        return sourceName;
    }

    /** The encoding used for {@link #bytes()} and writing: UTF-8 unless the XML declaration names another. */
    public Charset charset() {
        return charset;
    }

    /** The {@code version} of {@code <board>} (the SDK generation, e.g. {@code 21.1}, {@code 2024.0}), if present. */
    public Optional<String> version() {
        return Optional.ofNullable(root.value("version"));
    }

    /** The {@code name} of {@code <board>}; never empty. */
    public String name() {
        return root.value("name");
    }

    /** Position and span of the {@code <board>} element. */
    public Region boardRegion() {
        return region(root);
    }

    /** The {@code <global_mem>} elements in source order. */
    public List<GlobalMemory> globalMemories() {
        return Collections.unmodifiableList(globalMemories);
    }

    /** The default memory ({@link GlobalMemory#isDefault()}), or empty when the board has no {@code <global_mem>}. */
    public Optional<GlobalMemory> defaultMemory() {
        return globalMemories.stream().filter(GlobalMemory::isDefault).findFirst();
    }

    /** The {@code <interface>} children of {@code <interfaces>} in source order. */
    public List<InterfaceEntry> interfaces() {
        return Collections.unmodifiableList(interfaces);
    }

    /** The {@code <interface>} children of {@code <channels>} in source order; empty when there is no {@code <channels>}. */
    public List<Channel> channels() {
        return Collections.unmodifiableList(channels);
    }

    /** The channels whose {@code chan_id} is {@code chanId} (more than one only in a file that validation refuses). */
    public List<Channel> channelsWithId(String chanId) {
        return channels.stream().filter(c -> chanId.equals(c.chanId())).toList();
    }

    /** The channels whose {@code name} (owning instance) is {@code instanceName}. */
    public List<Channel> channelsOfInstance(String instanceName) {
        return channels.stream().filter(c -> instanceName.equals(c.name())).toList();
    }

    /** Position and span of the first {@code <channels>} element, or empty when the file has none. */
    public Optional<Region> channelsRegion() {
        return channelsSections.isEmpty() ? Optional.empty() : Optional.of(region(channelsSections.getFirst()));
    }

    /** Position and span of the first {@code <interfaces>} element, or empty when the file has none. */
    public Optional<Region> interfacesRegion() {
        return interfacesSection == null ? Optional.empty() : Optional.of(region(interfacesSection));
    }

    /**
     * The line ending new lines get: {@code "\r\n"}, {@code "\n"} or {@code "\r"}, whichever ends most
     * lines of the file ({@code "\n"} for a file of one line or a tie).
     */
    public String lineEnding() {
        int crlf = 0;
        int lf = 0;
        int cr = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    crlf++;
                    i++;
                } else {
                    cr++;
                }
            } else if (c == '\n') {
                lf++;
            }
        }
        if (crlf > lf && crlf >= cr) {
            return "\r\n";
        }
        if (cr > lf && cr > crlf) {
            return "\r";
        }
        return "\n";
    }

    /**
     * One level of indentation as this file writes it: the most common indentation of the lines that
     * open a child of {@code <board>}, less the indentation of {@code <board>} itself. Falls back to a
     * tab when some line is indented with a tab, else to two spaces.
     */
    public String indentUnit() {
        String boardIndent = lines.onlyBlankBefore(root.start) ? lines.indentOf(root.start) : "";
        Map<String, Integer> counts = new HashMap<>();
        for (XmlElement child : root.children) {
            if (lines.onlyBlankBefore(child.start)) {
                String indent = lines.indentOf(child.start);
                if (indent.length() > boardIndent.length() && indent.startsWith(boardIndent)) {
                    counts.merge(indent.substring(boardIndent.length()), 1, Integer::sum);
                }
            }
        }
        Optional<String> best = counts.entrySet().stream()
                .max(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(e -> -e.getKey().length()))
                .map(Map.Entry::getKey);
        if (best.isPresent()) {
            return best.get();
        }
        return text.contains("\n\t") || text.contains("\r\t") ? "\t" : "  ";
    }

    /**
     * Checks the board for what the SDK and direkt rely on.
     *
     * <ul>
     *   <li>{@code <board>}: {@code version} present; {@code name} equal to {@code boardDirName} when given.</li>
     *   <li>{@code <global_mem>}: {@code name} present when the board has more than one (error: kernels
     *       tell memories apart by it), non-empty and unique when present (error); a board's only
     *       {@code <global_mem>} may go without, as SDK 14.x files have it, and is then the default
     *       memory. {@code max_bandwidth} present (warning). At most one {@code default="1"} (error).
     *       Each {@code <interface>} has {@code name}, {@code port}, {@code type}, {@code width}.</li>
     *   <li>{@code <interfaces>}: each {@code <interface>} has {@code name}, {@code port}, {@code type}.</li>
     *   <li>{@code <channels>}: each {@code <interface>} has non-empty {@code name}, {@code port},
     *       {@code type}, {@code width}, {@code chan_id}; {@code type} is {@code streamsource} or
     *       {@code streamsink}; {@code width} is a positive multiple of 8 written in decimal;
     *       {@code chan_id} is unique. Other elements inside {@code <channels>} and a second
     *       {@code <channels>} are warnings.</li>
     * </ul>
     *
     * @param boardDirName the name of the directory holding this board, when known
     * @return the findings ordered by position; empty when all is well
     */
    public List<Diagnostic> validate(Optional<String> boardDirName) {
        List<Diagnostic> out = new ArrayList<>();
        if (root.attribute("version") == null) {
            out.add(diag(Diagnostic.Severity.ERROR, root.start, "<board> has no version attribute"));
        }
        if (boardDirName.isPresent() && !boardDirName.get().equals(name())) {
            out.add(diag(Diagnostic.Severity.ERROR, root.attribute("name").nameStart(),
                    "board name=\"" + name() + "\" does not match its directory name \"" + boardDirName.get() + "\""));
        }
        List<XmlElement> memories = root.children("global_mem");
        Map<String, XmlAttribute> memoryNames = new HashMap<>();
        XmlAttribute firstDefault = null;
        for (XmlElement child : root.children) {
            switch (child.name) {
                case "global_mem" -> {
                    String where = child.value("name") == null ? "<global_mem>" : "<global_mem name=\"" + child.value("name") + "\">";
                    XmlAttribute name = child.attribute("name");
                    if (name == null && memories.size() > 1) {
                        out.add(diag(Diagnostic.Severity.ERROR, child.start, "<global_mem> has no name attribute; a board with "
                                + memories.size() + " <global_mem> elements must name each (kernels choose one by name with buffer_location)"));
                    } else if (name != null && name.value().isBlank()) {
                        out.add(diag(Diagnostic.Severity.ERROR, name.nameStart(), "<global_mem> has an empty name attribute"));
                    } else if (name != null) {
                        XmlAttribute first = memoryNames.putIfAbsent(name.value(), name);
                        if (first != null) {
                            out.add(diag(Diagnostic.Severity.ERROR, name.nameStart(), "duplicate <global_mem name=\"" + name.value()
                                    + "\"> (first at " + pos(first.nameStart()) + ")"));
                        }
                    }
                    XmlAttribute isDefault = child.attribute("default");
                    if (isDefault != null && "1".equals(isDefault.value())) {
                        if (firstDefault != null) {
                            out.add(diag(Diagnostic.Severity.ERROR, isDefault.nameStart(), where
                                    + " is marked default=\"1\" as well (the first default memory is at " + pos(firstDefault.nameStart()) + ")"));
                        } else {
                            firstDefault = isDefault;
                        }
                    }
                    if (child.attribute("max_bandwidth") == null) {
                        out.add(diag(Diagnostic.Severity.WARNING, child.start, where + " has no max_bandwidth attribute"));
                    }
                    for (XmlElement i : child.children("interface")) {
                        requireAttributes(out, i, "<interface> in " + where, "name", "port", "type", "width");
                    }
                }
                case "interfaces" -> {
                    for (XmlElement i : child.children("interface")) {
                        requireAttributes(out, i, "<interface> in <interfaces>", "name", "port", "type");
                    }
                }
                case "channels" -> validateChannels(out, child);
                default -> {
                    // not checked
                }
            }
        }
        out.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        return List.copyOf(out);
    }

    /**
     * The part of {@link #validate(Optional)} about {@code <channels>}: what a kernel lint needs of a
     * board (every channel with its attributes, a known type, a width that is a positive multiple of 8,
     * a unique chan_id).
     *
     * @return the findings ordered by position; empty when all is well
     */
    public List<Diagnostic> validateChannels() {
        List<Diagnostic> out = new ArrayList<>();
        for (XmlElement section : channelsSections) {
            validateChannels(out, section);
        }
        out.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        return List.copyOf(out);
    }

    private void validateChannels(List<Diagnostic> out, XmlElement section) {
        if (section != channelsSections.getFirst()) {
            out.add(diag(Diagnostic.Severity.WARNING, section.start,
                    "second <channels> element (the first is at " + pos(channelsSections.getFirst().start) + ")"));
        }
        Map<String, XmlAttribute> firstIds = new HashMap<>();
        for (XmlElement other : channelsSections) {
            if (other == section) {
                break;
            }
            for (XmlElement i : other.children("interface")) {
                XmlAttribute id = i.attribute("chan_id");
                if (id != null) {
                    firstIds.putIfAbsent(id.value(), id);
                }
            }
        }
        for (XmlElement e : section.children) {
            if (!e.name.equals("interface")) {
                out.add(diag(Diagnostic.Severity.WARNING, e.start, "unexpected element <" + e.name + "> inside <channels>"));
                continue;
            }
            String who = describeChannel(e);
            for (String required : List.of("name", "port", "type", "width", "chan_id")) {
                XmlAttribute a = e.attribute(required);
                if (a == null) {
                    out.add(diag(Diagnostic.Severity.ERROR, e.start, who + ": required attribute " + required + " is missing"));
                } else if (a.value().isBlank()) {
                    out.add(diag(Diagnostic.Severity.ERROR, a.nameStart(), who + ": attribute " + required + " is empty"));
                }
            }
            XmlAttribute type = e.attribute("type");
            if (type != null && !type.value().isBlank()
                    && !type.value().equals(Channel.STREAMSOURCE) && !type.value().equals(Channel.STREAMSINK)) {
                out.add(diag(Diagnostic.Severity.ERROR, type.nameStart(),
                        who + ": type=\"" + type.value() + "\" is neither streamsource nor streamsink"));
            }
            XmlAttribute width = e.attribute("width");
            if (width != null && !width.value().isBlank() && !isPositiveMultipleOf8(width.value())) {
                out.add(diag(Diagnostic.Severity.ERROR, width.nameStart(),
                        who + ": width=\"" + width.value() + "\" is not a positive multiple of 8"));
            }
            XmlAttribute id = e.attribute("chan_id");
            if (id != null && !id.value().isBlank()) {
                XmlAttribute first = firstIds.putIfAbsent(id.value(), id);
                if (first != null) {
                    out.add(diag(Diagnostic.Severity.ERROR, id.nameStart(),
                            "duplicate chan_id=\"" + id.value() + "\" (first used at " + pos(first.nameStart()) + ")"));
                }
            }
        }
    }

    private static boolean isPositiveMultipleOf8(String width) {
        if (width.isEmpty() || width.length() > 9 || !width.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        int w = Integer.parseInt(width);
        return w > 0 && w % 8 == 0;
    }

    /** {@code channel chan_id="x"}, else {@code channel port="p"}, else {@code channel <interface>}. */
    static String describeChannel(XmlElement e) {
        String id = e.value("chan_id");
        if (id != null && !id.isBlank()) {
            return "channel chan_id=\"" + id + "\"";
        }
        String port = e.value("port");
        if (port != null && !port.isBlank()) {
            return "channel port=\"" + port + "\"";
        }
        return "channel <interface>";
    }

    private void requireAttributes(List<Diagnostic> out, XmlElement e, String who, String... names) {
        for (String n : names) {
            if (e.attribute(n) == null) {
                out.add(diag(Diagnostic.Severity.ERROR, e.start, who + " has no " + n + " attribute"));
            }
        }
    }

    private Diagnostic diag(Diagnostic.Severity severity, int offset, String message) {
        return new Diagnostic(severity, sourceName, lines.line(offset), lines.column(offset), message);
    }

    /** {@code line:col} of an offset in {@link #text()}. */
    String pos(int offset) {
        return lines.line(offset) + ":" + lines.column(offset);
    }

    /** Starts an edit of the channel interfaces; see {@link BoardSpecEditor}. */
    public BoardSpecEditor edit() {
        return new BoardSpecEditor(this);
    }

    /**
     * Writes {@link #bytes()} to {@code target} atomically (see {@link AtomicWriter#write(Path, byte[])}).
     *
     * @param target the file to create or replace
     * @throws IOException when writing or the final move fails; the target is then unchanged
     */
    public void write(Path target) throws IOException {
        AtomicWriter.write(target, bytes());
    }

    // Package-private access for the editor.

    LineMap lineMap() {
        return lines;
    }

    XmlElement rootElement() {
        return root;
    }

    List<XmlElement> channelElements() {
        return Collections.unmodifiableList(channelElements);
    }

    XmlElement firstChannelsSection() {
        return channelsSections.isEmpty() ? null : channelsSections.getFirst();
    }

    XmlElement interfacesSection() {
        return interfacesSection;
    }

    /** A short description: source, board name and channel count. */
    @Override
    public String toString() {
        return "BoardSpec[" + sourceName + ", name=" + name() + ", " + channels.size() + " channels]";
    }
}
