// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.nio.file.Path;

/** Where something stands in a Platform Designer file: the file and its 1-based line (0: unknown). */
public record Where(Path file, int line) {
    @Override
    public String toString() {
        return line > 0 ? file + ":" + line : file.toString();
    }
}
