// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;

/**
 * What the host believes about the bridge: the configuration an overlay's manifest
 * ({@code direkt-overlay.json}, read by {@link OverlayManifest}) records, its bridge as a
 * {@link BridgeSpec}, the generator parameters it was built from, and the CSR map by name. The
 * manifest speaks this runtime's {@link Layout} version and its CSR map is the one the Layout gives
 * for its bridge, so every offset and field the bring-up uses is the Layout's.
 *
 * @param manifest        the file it was read from
 * @param params          the bridge as the overlay records it (or as a mis-configured host believes it)
 * @param generatorParams the generator parameters over the default preset that build the overlay's bridge
 * @param registers       every CSR register's offset, by name
 */
public record BridgeConfig(Path manifest, BridgeSpec params, Map<String, Object> generatorParams, Map<String, Integer> registers) {

    public BridgeConfig {
        generatorParams = Map.copyOf(generatorParams);
        registers = Map.copyOf(registers);
    }

    /** Reads {@code overlayDir/direkt-overlay.json} ({@link OverlayManifest#read}, which says why it refuses one). */
    public static BridgeConfig read(Path overlayDir) throws IOException {
        OverlayManifest m = OverlayManifest.read(overlayDir);
        return new BridgeConfig(m.file(), m.bridge(), m.generatorParams(), m.registers());
    }

    /** The offset of register {@code name}; a register the map lacks is an error naming it. */
    public int offset(String name) {
        Integer at = registers.get(name);
        if (at == null) {
            throw new IllegalArgumentException(manifest + ": the bridge has no CSR register " + name);
        }
        return at;
    }

    /** {@code name}'s value in this bridge, as a {@code key=value} argument writes it ({@link BridgeSpec#setting}). */
    public String setting(String name) {
        return params.setting(name);
    }

    /** The same manifest, believed to say {@code other} (how a mis-configured host is modelled); the hardware stays the overlay's. */
    public BridgeConfig believing(BridgeSpec other) {
        return new BridgeConfig(manifest, other, generatorParams, registers);
    }
}
