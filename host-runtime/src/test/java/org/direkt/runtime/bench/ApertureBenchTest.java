// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The aperture bench's file names, without a GPU: the device's whole name, as the GPU bench's results are named. */
class ApertureBenchTest {
    @Test
    void theFileIsNamedAfterTheWholeDeviceName() {
        assertEquals("aperture-gpu-nvidia-h100-80gb-hbm3.json", ApertureBench.fileName("NVIDIA H100 80GB HBM3"));
        assertEquals("aperture-gpu-nvidia-h200.json", ApertureBench.fileName("NVIDIA H200"));
        assertEquals("aperture-gpu-nvidia-a100-sxm4-80gb.json", ApertureBench.fileName(" NVIDIA A100-SXM4-80GB "));
    }
}
