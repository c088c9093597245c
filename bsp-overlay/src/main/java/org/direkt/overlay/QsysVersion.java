// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The Platform Designer release the generated {@code _hw.tcl} and {@code direkt_integrate.tcl} ask
 * for ({@code package require -exact qsys <version>}), and where it comes from.
 *
 * <p>A BSP states its release in its Platform Designer files. A classic {@code .qsys} ({@code
 * <system>} root) gives each {@code <connection>} the version of the interface type, which is the
 * release that saved it, and each Intel IP {@code <module>} (kind {@code altera_*}, {@code intel_*})
 * the release of that IP. The IP-XACT files of Quartus Prime Pro ({@code .ip}, and {@code .qsys} with
 * an {@code ipxact:design} root) name Intel's interface types as {@code ipxact:busType} /
 * {@code ipxact:abstractionRef} with {@code vendor="intel"} and the release as their {@code version}.
 * Versions are cut to major.minor ({@code 19.2.0} -> {@code 19.2}); releases are 11.0 and later.
 *
 * @param version major.minor, e.g. {@code 20.4}
 * @param origin  how it was found
 * @param source  the file or attribute that states it (relative to the BSP root), or the reason it is assumed
 */
public record QsysVersion(String version, Origin origin, String source) {

    /** How a version was found. */
    public enum Origin {
        /** Stated by a Platform Designer file of the BSP. */
        SYSTEM_FILE,
        /** Taken from board_spec.xml's {@code version}, the SDK release the board was written for. */
        BOARD_SPEC,
        /** Nothing in the BSP states one. */
        ASSUMED
    }

    /**
     * Used when nothing in the BSP states a release: the release the component was first written
     * against. Every use is named as a manual step in OVERLAY.md.
     */
    public static final String ASSUMED = "18.0";

    private static final Pattern RELEASE = Pattern.compile("(\\d{1,2})\\.(\\d{1,2})(?:\\.\\d+)*");

    /** {@code text} as major.minor when it is a Quartus / Platform Designer release (11.0 or later), else empty. */
    static Optional<String> release(String text) {
        Matcher m = RELEASE.matcher(text == null ? "" : text.strip());
        if (!m.matches() || Integer.parseInt(m.group(1)) < 11) {
            return Optional.empty();
        }
        return Optional.of(Integer.parseInt(m.group(1)) + "." + Integer.parseInt(m.group(2)));
    }

    private static final Comparator<String> NEWEST = Comparator
            .<String>comparingInt(v -> Integer.parseInt(v.substring(0, v.indexOf('.'))))
            .thenComparingInt(v -> Integer.parseInt(v.substring(v.indexOf('.') + 1)));

    /** Thrown when a Platform Designer file is not readable XML. */
    static final class UnreadableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableException(String message) {
            super(message);
        }
    }

    /**
     * The release one Platform Designer file states: the newest interface-type version it names
     * (connections, or Intel bus types), else the newest Intel IP module version, else empty.
     *
     * @throws UnreadableException when the file is not well-formed XML (the message holds line:col)
     * @throws IOException         when it cannot be read
     */
    static Optional<String> statedBy(Path file) throws UnreadableException, IOException {
        String interfaces = null;
        String modules = null;
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        try (InputStream in = Files.newInputStream(file)) {
            XMLStreamReader r = f.createXMLStreamReader(in);
            while (r.hasNext()) {
                if (r.next() != XMLStreamConstants.START_ELEMENT) {
                    continue;
                }
                String el = r.getLocalName();
                String version = r.getAttributeValue(null, "version");
                Optional<String> v = release(version);
                if (v.isEmpty()) {
                    continue;
                }
                switch (el) {
                    case "connection" -> interfaces = newer(interfaces, v.get());
                    case "busType", "abstractionRef" -> {
                        String vendor = String.valueOf(r.getAttributeValue(null, "vendor")).toLowerCase(Locale.ROOT);
                        if (vendor.equals("intel") || vendor.equals("altera")) {
                            interfaces = newer(interfaces, v.get());
                        }
                    }
                    case "module" -> {
                        String kind = String.valueOf(r.getAttributeValue(null, "kind"));
                        if (kind.startsWith("altera_") || kind.startsWith("intel_")) {
                            modules = newer(modules, v.get());
                        }
                    }
                    default -> {
                        // other elements carry versions of their own (components, parameters)
                    }
                }
            }
        } catch (XMLStreamException e) {
            var loc = e.getLocation();
            throw new UnreadableException((loc == null ? "" : loc.getLineNumber() + ":" + loc.getColumnNumber() + ": ")
                    + "not readable XML: " + e.getMessage().replaceAll("^ParseError.*\\n.*: ", ""));
        }
        return Optional.ofNullable(interfaces != null ? interfaces : modules);
    }

    private static String newer(String a, String b) {
        return a == null || NEWEST.compare(b, a) > 0 ? b : a;
    }

    /** The newest of the stated versions, the first file stating it winning a tie; empty when none states one. */
    static Optional<QsysVersion> newest(List<QsysVersion> stated) {
        QsysVersion best = null;
        for (QsysVersion v : stated) {
            if (best == null || NEWEST.compare(v.version(), best.version()) > 0) {
                best = v;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The version to use: the one the BSP's Platform Designer files state; else board_spec.xml's
     * {@code version} when it is a Quartus release (SDK for OpenCL releases carry Quartus's numbers);
     * else {@link #ASSUMED}.
     */
    static QsysVersion choose(Optional<QsysVersion> fromFiles, Optional<String> boardVersion) {
        if (fromFiles.isPresent()) {
            return fromFiles.get();
        }
        Optional<String> board = boardVersion.flatMap(QsysVersion::release);
        if (board.isPresent()) {
            return new QsysVersion(board.get(), Origin.BOARD_SPEC, "board_spec.xml's version=\"" + boardVersion.get() + "\"");
        }
        return new QsysVersion(ASSUMED, Origin.ASSUMED, boardVersion.isPresent()
                ? "board_spec.xml's version=\"" + boardVersion.get() + "\" is not a Quartus release"
                : "board_spec.xml has no version");
    }
}
