// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.util.Optional;

/**
 * The bridge's registers on a board, as a {@link BoardDevice} reads and writes them: 32-bit words
 * at byte offsets from the CSR's start (MAGIC at 0, VERSION at 4). {@link #of(CsrWindow)} is the
 * board's, through the importer module; a test gives registers of its own.
 */
public interface CsrAccess extends AutoCloseable {

    /** Where the registers are, for messages ({@code 0000:3b:00.0 BAR 4 [0x20000, +512 B)}). */
    String where();

    /** The register at byte {@code offset}. */
    int read32(long offset);

    /** {@code value} to the register at byte {@code offset}. */
    void write32(long offset, int value);

    @Override
    void close();

    /** What stands in for the bridge's registers on a board, for reports; empty for a board's own ({@link #of}). */
    default Optional<String> standIn() {
        return Optional.empty();
    }

    /** The registers behind an open {@link CsrWindow}; closing closes the window. */
    static CsrAccess of(CsrWindow window) {
        return new CsrAccess() {
            @Override
            public String where() {
                return window.range().toString();
            }

            @Override
            public int read32(long offset) {
                return window.read32(offset);
            }

            @Override
            public void write32(long offset, int value) {
                window.write32(offset, value);
            }

            @Override
            public void close() {
                window.close();
            }
        };
    }
}
