// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import java.util.List;
import java.util.Map;

import org.direkt.generators.bridge.Bridge;
import org.direkt.overlay.OverlayModel;
import org.direkt.overlay.Templates;

/** The two bridge presets the header is tested with. */
enum Preset {
    DEFAULT, PAPER;

    Bridge.Params params() {
        return this == DEFAULT ? Bridge.Params.defaults() : Bridge.Params.paper();
    }

    Map<String, Object> model() {
        Bridge.Params p = params();
        return OverlayModel.of(p, new Bridge().elaborate(p), List.of(), Map.of());
    }

    String header() {
        return Templates.render("direkt_dma.h.vm", model());
    }
}
