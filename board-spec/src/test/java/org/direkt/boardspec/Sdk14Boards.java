// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/**
 * The project's own board_spec.xml fixtures written the way SDK 14.x board files are (test resources
 * under {@code sdk14/}): tab indentation, one {@code <global_mem>} without {@code name} or
 * {@code config_addr}, master/slave types, attributes in those files' orders; {@link #CHANNELS} also
 * has CRLF line ends, two I/O channels already declared and no newline after {@code </board>}.
 */
final class Sdk14Boards {

    static final String SINGLE = "sdk14_single.board_spec.xml";
    static final String CHANNELS = "sdk14_channels.board_spec.xml";

    private Sdk14Boards() {
    }

    /** The fixture's file on the test class path. */
    static Path file(String name) {
        URL url = Sdk14Boards.class.getResource("sdk14/" + name);
        if (url == null) {
            throw new AssertionError("missing test resource sdk14/" + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** The board name a fixture carries: its file name less {@code .board_spec.xml}. */
    static String boardName(String fileName) {
        return BspSamples.boardName(fileName);
    }
}
