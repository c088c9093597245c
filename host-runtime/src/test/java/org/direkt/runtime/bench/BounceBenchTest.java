// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The bounce bench's file names and statistics, without a GPU. */
class BounceBenchTest {
    @Test
    void theFileIsNamedAfterTheGpuModel() {
        assertEquals("h100", BounceBench.deviceSlug("NVIDIA H100 80GB HBM3"));
        assertEquals("h200", BounceBench.deviceSlug("NVIDIA H200"));
        assertEquals("a100", BounceBench.deviceSlug("NVIDIA A100-SXM4-80GB"));
        assertEquals("l40s", BounceBench.deviceSlug("NVIDIA L40S"));
        assertEquals("nvidia-geforce-rtx-4090", BounceBench.deviceSlug("NVIDIA GeForce RTX 4090"));
    }

    @Test
    void latencyIsMedianAndNinetyNinthPercentileAndBandwidthIsAtTheMedian() {
        long[] ns = new long[100];
        for (int i = 0; i < ns.length; i++) {
            ns[(i * 37) % ns.length] = (i + 1) * 1000L;  // 1 .. 100 us, out of order
        }
        Map<String, Double> s = BounceBench.stats(ns, 51_000);
        assertEquals(51.0, s.get("median_us"));
        assertEquals(99.0, s.get("p99_us"));
        assertEquals(1.0, s.get("min_us"));
        assertEquals(1.0, s.get("gb_per_s"));  // 51,000 bytes in 51 us: 10^9 bytes per second
    }
}
