// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class DirektVersionTest {
    /** The version the tool reports is the root pom's, not a copy that can drift from it. */
    @Test
    void isTheRootPomsVersion() throws Exception {
        Path pom = Path.of("..", "pom.xml");
        String text = Files.readString(pom);
        // the root project's own coordinates: artifactId direkt, then its version
        Matcher m = Pattern.compile("<artifactId>direkt</artifactId>\\s*<version>([^<]+)</version>").matcher(text);
        assertTrue(m.find(), "no <artifactId>direkt</artifactId><version> in " + pom);
        assertEquals(m.group(1), DirektVersion.get());
    }
}
