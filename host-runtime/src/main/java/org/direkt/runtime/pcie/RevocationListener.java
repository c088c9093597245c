// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * Told when an importer revokes a mapping: the exporter moved or freed the memory (dma-buf
 * {@code move_notify}), so the range's bus addresses must not be used again. The range still has
 * to be released by its owner; the listener runs on the importer's thread and must not block on
 * work that waits for the importer.
 */
@FunctionalInterface
public interface RevocationListener {
    void revoked(ImportedRange range, String reason);
}
