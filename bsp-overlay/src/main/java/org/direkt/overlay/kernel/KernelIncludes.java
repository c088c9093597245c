// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.overlay.OverlayException;

/**
 * Whether a kernel takes its I/O channels from the overlay's header, and where that header is.
 * The header declares the bridge's four channels unless the kernel defines
 * {@code DIREKT_NO_CHANNELS} (it declares its own) or {@code DIREKT_EMULATION} (buffers stand in)
 * before including it; a lint that read the kernel alone would then see no channels at all and call
 * any kernel clean.
 */
public final class KernelIncludes {
    /** The header the overlay writes (include/direkt_dma.h). */
    public static final String HEADER = "direkt_dma.h";

    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern INCLUDE = Pattern.compile("(?m)^[ \\t]*#[ \\t]*include[ \\t]*[\"<]" + Pattern.quote(HEADER) + "[\">]");
    private static final Pattern OWN_CHANNELS = Pattern.compile("(?m)^[ \\t]*#[ \\t]*define[ \\t]+DIREKT_(NO_CHANNELS|EMULATION)\\b");

    private KernelIncludes() {
    }

    /** True when the kernel includes the header with its channels (no DIREKT_NO_CHANNELS or DIREKT_EMULATION defined before). */
    public static boolean headerChannelsNeeded(String kernelText) {
        String code = blankComments(kernelText);
        Matcher inc = INCLUDE.matcher(code);
        if (!inc.find()) {
            return false;
        }
        Matcher own = OWN_CHANNELS.matcher(code);
        return !(own.find() && own.start() < inc.start());
    }

    /**
     * The header a quoted include finds: the kernel's own folder first, then each of
     * {@code includeDirs}; with none given, the overlay's {@code include/} beside the board_spec.xml
     * (an overlay written with --out) or its {@code direkt/include/} (one made in place).
     *
     * @throws OverlayException naming every place looked in, when none holds the header
     */
    public static Path findHeader(Path kernel, Path board, List<Path> includeDirs) throws OverlayException {
        Set<Path> tried = new LinkedHashSet<>();
        Path kernelDir = kernel.toAbsolutePath().getParent();
        if (kernelDir != null) {
            tried.add(kernelDir.resolve(HEADER));
        }
        if (includeDirs.isEmpty()) {
            Path boardDir = board.toAbsolutePath().getParent();
            if (boardDir != null) {
                tried.add(boardDir.resolve("include").resolve(HEADER));
                tried.add(boardDir.resolve("direkt").resolve("include").resolve(HEADER));
            }
        } else {
            for (Path d : includeDirs) {
                tried.add(d.resolve(HEADER));
            }
        }
        for (Path p : tried) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        List<String> where = new ArrayList<>();
        for (Path p : tried) {
            where.add(p.toString());
        }
        throw new OverlayException(OverlayException.Kind.INPUT, kernel + ": includes " + HEADER + " and uses its channels"
                + " (no DIREKT_NO_CHANNELS or DIREKT_EMULATION defined before the include), but no " + HEADER + " is at "
                + String.join(", ", where) + "; pass the overlay's include folder with --include");
    }

    /** The text with each comment replaced by spaces (newlines kept), so that positions stay. */
    private static String blankComments(String text) {
        Matcher m = COMMENT.matcher(text);
        StringBuilder b = new StringBuilder(text.length());
        int at = 0;
        while (m.find()) {
            b.append(text, at, m.start());
            for (char c : m.group().toCharArray()) {
                b.append(c == '\n' ? '\n' : ' ');
            }
            at = m.end();
        }
        return b.append(text.substring(at)).toString();
    }
}
