// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.direkt.generators.bridge.Bridge;
import org.direkt.generators.bridge.BridgeParam;
import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.device.OverlayManifest;

/**
 * What the host believes about the bridge: the configuration an overlay's manifest
 * ({@code direkt-overlay.json}, read by {@link OverlayManifest}) records, its bridge parameters read
 * back through {@link BridgeParam}, and the CSR map by name. The manifest speaks this runtime's
 * {@link Layout} version and its CSR map is the one the Layout gives for its parameters, so every
 * offset and field the bring-up uses is the Layout's.
 *
 * @param manifest  the file it was read from
 * @param params    the bridge's parameters as the overlay records them
 * @param registers every CSR register's offset, by name
 */
public record BridgeConfig(Path manifest, Bridge.Params params, Map<String, Integer> registers) {

    public BridgeConfig {
        registers = Map.copyOf(registers);
    }

    /** Reads {@code overlayDir/direkt-overlay.json} ({@link OverlayManifest#read}, which says why it refuses one). */
    public static BridgeConfig read(Path overlayDir) throws IOException {
        OverlayManifest m = OverlayManifest.read(overlayDir);
        return new BridgeConfig(m.file(), m.bridge(), m.registers());
    }

    /** The offset of register {@code name}; a register the map lacks is an error naming it. */
    public int offset(String name) {
        Integer at = registers.get(name);
        if (at == null) {
            throw new IllegalArgumentException(manifest + ": the bridge has no CSR register " + name);
        }
        return at;
    }

    /** {@link OverlayManifest#generatorParams(Bridge.Params)}. */
    public static Map<String, Object> generatorParams(Bridge.Params p) {
        return OverlayManifest.generatorParams(p);
    }

    /** {@code name}'s value in these parameters, as a {@code key=value} argument writes it ({@code x0_low}, {@code tagged}, ...). */
    public String setting(String name) {
        return BridgeParam.named(name).orElseThrow().text(params);
    }

    /** The same manifest, believed to say {@code other} parameters (how a mis-configured host is modelled). */
    public BridgeConfig believing(Bridge.Params other) {
        return new BridgeConfig(manifest, other, registers);
    }
}
