// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.direkt.runtime.MasterTable.Cost;
import org.direkt.runtime.MasterTable.Crossover;
import org.direkt.runtime.MasterTable.Direction;
import org.junit.jupiter.api.Test;

/** The table that picks a copy's master by direction and size, and how its crossovers follow from the figures. */
class MasterTableTest {

    @Test
    void theCrossoverIsWhereTheTwoTimesMeet() {
        // FPGA master: 30 us + bytes at 4 GB/s; GPU master: 10 us + bytes at 2 GB/s: equal where 20 us = b/2000 - b/4000 = b/4000, b = 80,000
        Crossover c = Crossover.between(new Cost(30, 4), new Cost(10, 2));
        assertEquals(new Crossover(80_000, Master.GPU_MASTER), c);
        assertEquals(Master.GPU_MASTER, c.at(79_999));
        assertEquals(Master.FPGA_MASTER, c.at(80_000));
        Cost fpga = new Cost(30, 4);
        Cost gpu = new Cost(10, 2);
        assertTrue(gpu.micros(79_999) < fpga.micros(79_999) && gpu.micros(80_001) > fpga.micros(80_001));
    }

    @Test
    void aMasterFasterAtEverySizeTakesThemAll() {
        assertEquals(new Crossover(Long.MAX_VALUE, Master.FPGA_MASTER), Crossover.between(new Cost(1, 7), new Cost(10, 2)));
        assertEquals(new Crossover(Long.MAX_VALUE, Master.GPU_MASTER), Crossover.between(new Cost(30, 2), new Cost(10, 2)));
        assertEquals(Master.FPGA_MASTER, Crossover.between(new Cost(1, 7), new Cost(10, 2)).at(Long.MAX_VALUE - 1));
        // the GPU master faster only for large copies: below the crossover the FPGA master
        Crossover late = Crossover.between(new Cost(5, 2), new Cost(15, 4));
        assertEquals(Master.FPGA_MASTER, late.below());
        assertEquals(40_000, late.bytes());
        assertEquals(Master.GPU_MASTER, late.at(40_000));
    }

    @Test
    void theMeasuredTableSendsSmallCopiesToTheGpuAndLargeOnesToTheFpga() {
        MasterTable t = MasterTable.MEASURED;
        for (Direction d : Direction.values()) {
            Crossover c = t.crossover(d);
            assertEquals(Master.GPU_MASTER, c.below(), d + ": " + c);
            assertEquals(Master.GPU_MASTER, t.choose(d, 4096), d + " 4 KB");
            assertEquals(Master.FPGA_MASTER, t.choose(d, 4L << 20), d + " 4 MB");
            assertEquals(Master.GPU_MASTER, t.choose(d, c.bytes() - 1), d.toString());
            assertEquals(Master.FPGA_MASTER, t.choose(d, c.bytes()), d.toString());
        }
        assertEquals(Crossover.between(new Cost(MasterTable.HOST_LAUNCH_MICROS + 1.08, 4.1), new Cost(MasterTable.GPU_COPY_MICROS,
                2.36)), t.gpuToFpga(), "GPU -> FPGA from its figures");
        assertEquals(Crossover.between(new Cost(MasterTable.HOST_LAUNCH_MICROS + 0.24, 6.9), new Cost(MasterTable.GPU_COPY_MICROS,
                1.04)), t.fpgaToGpu(), "FPGA -> GPU from its figures");
        assertTrue(t.fpgaToGpu().bytes() < t.gpuToFpga().bytes(), "GPU reads of a BAR are slower than its writes: " + t);
    }

    @Test
    void aCallerNamesItsOwnCrossovers() {
        MasterTable t = MasterTable.crossovers(64 << 10, 0);
        assertEquals(Master.GPU_MASTER, t.choose(Direction.GPU_TO_FPGA, (64 << 10) - 4));
        assertEquals(Master.FPGA_MASTER, t.choose(Direction.GPU_TO_FPGA, 64 << 10));
        assertEquals(Master.FPGA_MASTER, t.choose(Direction.FPGA_TO_GPU, 4), "a crossover at 0: the FPGA master at every size");
        assertEquals("GPU -> FPGA: the GPU master below 65536 B (64 KB), the FPGA master from there on; FPGA -> GPU: the GPU master"
                + " below 0 B, the FPGA master from there on", t.toString());
    }

    @Test
    void nonsenseFiguresAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Cost(-1, 4));
        assertThrows(IllegalArgumentException.class, () -> new Cost(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Cost(Double.NaN, 4));
        assertThrows(IllegalArgumentException.class, () -> new Crossover(-1, Master.GPU_MASTER));
    }
}
