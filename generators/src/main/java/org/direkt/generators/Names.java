// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Module names for generators whose contents depend on more than a readable name can say.
 *
 * <p>Distinct parameters must give distinct module names: two variants of an IP (two bridge
 * configurations, say) that end up in one Quartus project or one simulator library share one
 * namespace of modules, and a submodule name standing for two different contents would silently
 * give one variant the other's logic. IP generators solve this by their catalog's convention: a
 * variant's top carries the user's variant name, its submodules a hash of their parameters. direkt
 * does the same: such a module keeps its readable name and gets {@code _h} and 8 hex digits of the
 * SHA-256 of a canonical string of exactly the parameters its contents depend on (so two variants
 * that differ only where a submodule does not look share that submodule). Modules whose readable
 * name already encodes every parameter that matters (the FIFOs, the arbiters) need no hash.
 * ModuleNamesTest checks the rule over every preset, every parameter example and the reference IP.
 */
public final class Names {
    private Names() {
    }

    /** {@code readable} with {@code _h<8 hex digits>} of {@code canonical}, the parameters the contents depend on. */
    public static String hashed(String readable, String canonical) {
        return readable + "_h" + hash(canonical);
    }

    /** The first 8 lowercase hex digits of the SHA-256 of {@code canonical} (as UTF-8). */
    public static String hash(String canonical) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
