// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.direkt.contract.Layout;
import org.direkt.runtime.Descriptors;

/**
 * The simulated device from its host's side (tag {@code sim}): memory that lasts from one run to
 * the next, host memory served while a run lasts, refusals that leave the device usable, and an
 * illegal access that stops it, named. A {@link org.direkt.runtime.Session}'s use of it is
 * {@code SessionTest}'s.
 */
@Tag("sim")
class SimulatedDeviceTest {
    static final long HOST = 0x20_0000_0000L;
    static final long GPU = 0x38_0000_0000L;

    /** Host memory: one byte array per mapped range, as a host keeps it. */
    static final class Memory implements SimulatedDevice.HostMemory {
        final Map<Long, byte[]> ranges;
        int reads;
        int writes;

        Memory(Map<Long, byte[]> ranges) {
            this.ranges = ranges;
        }

        private Map.Entry<Long, byte[]> find(long bus, int n) {
            return ranges.entrySet().stream().filter(e -> e.getKey() <= bus && bus + n <= e.getKey() + e.getValue().length)
                    .findFirst().orElseThrow(() -> new IllegalStateException("no range holds " + Long.toHexString(bus)));
        }

        @Override
        public void read(long bus, byte[] into) {
            var e = find(bus, into.length);
            System.arraycopy(e.getValue(), (int) (bus - e.getKey()), into, 0, into.length);
            reads++;
        }

        @Override
        public void write(long bus, byte[] data) {
            var e = find(bus, data.length);
            System.arraycopy(data, 0, e.getValue(), (int) (bus - e.getKey()), data.length);
            writes++;
        }
    }

    static SimulatedDevice start() {
        return SimulatedBridge.locate().device("default", Map.of());
    }

    @Test
    void fpgaMemoryAndRegistersLastFromOneRunToTheNext() {
        byte[] in = new byte[65_536];
        new Random(3).nextBytes(in);
        byte[] out = new byte[65_536];
        byte[] gpu = new byte[65_536];
        Memory memory = new Memory(Map.of(HOST, in, HOST + 0x10_0000, out, GPU, gpu));
        try (SimulatedDevice d = start()) {
            assertEquals("tagged", d.bridge().path("status_mode").asText());
            d.map(List.of(new SimulatedDevice.Range(HOST, in.length, "in"), new SimulatedDevice.Range(HOST + 0x10_0000,
                    out.length, "out"), new SimulatedDevice.Range(GPU, gpu.length, "gpu page")));
            SimulatedDevice.Run r = d.run(List.of(), List.of(new ReplayJob.HostDescriptor(Direction.RD, HOST, 0x4000, in.length)),
                    memory);
            assertTrue(r.hostStatuses().getFirst().completed());
            assertTrue(r.dmaCycles() >= in.length / 64, r.toString());
            assertEquals(1, memory.reads, "one read of host memory per descriptor");

            // Another run: the kernel path, through a window the host opens by register name.
            d.csrWrite("WIN0_BASE_LO", 0);
            d.csrWrite("WIN0_BASE_HI", GPU >>> 32);
            d.csrWrite("WIN0_SIZE", Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", 20)).longValueExact());
            d.csrWrite("WIN0_CTRL", Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact());
            r = d.run(List.of(ReplayJob.Descriptor.of(Direction.WR, Descriptors.cldesc(0x4000 + 4096, GPU, 8192, 77))), List.of(),
                    memory);
            assertTrue(r.statuses().getFirst().ok(), r.statuses().toString());
            assertEquals(77, r.statuses().getFirst().tag());
            assertArrayEquals(Arrays.copyOfRange(in, 4096, 4096 + 8192), Arrays.copyOf(gpu, 8192));
            assertEquals(GPU >>> 32, d.csrRead("WIN0_BASE_HI"));

            d.unmap(List.of(GPU));
            r = d.run(List.of(), List.of(new ReplayJob.HostDescriptor(Direction.WR, 0x4000, HOST + 0x10_0000, in.length)), memory);
            assertArrayEquals(in, out, "FPGA memory written two runs before");
        }
    }

    @Test
    void aRefusedRequestLeavesTheDeviceUsableAndAnIllegalAccessStopsIt() throws Exception {
        Memory memory = new Memory(Map.of(HOST, new byte[4096]));
        SimulatedDevice d = start();
        try {
            d.map(List.of(new SimulatedDevice.Range(HOST, 4096, "pinned buffer")));
            SimulationException e = assertThrows(SimulationException.class,
                    () -> d.map(List.of(new SimulatedDevice.Range(HOST + 2048, 4096, "another"))));
            assertTrue(e.getMessage().contains("refused map") && e.getMessage().contains("overlaps pinned buffer"), e.getMessage());
            e = assertThrows(SimulationException.class, () -> d.run(List.of(),
                    List.of(new ReplayJob.HostDescriptor(Direction.RD, HOST + 4096, 0, 64)), memory));
            assertTrue(e.getMessage().contains("not inside mapped host or GPU memory"), e.getMessage());
            e = assertThrows(SimulationException.class, () -> d.csrWrite("NO_SUCH_REGISTER", 1));
            assertTrue(e.getMessage().contains("no CSR register 'NO_SUCH_REGISTER'"), e.getMessage());
            assertTrue(d.usable());

            // A window over memory nobody mapped: the bridge lets the descriptor through, the mover refuses it.
            d.csrWrite("WIN0_BASE_HI", GPU >>> 32);
            d.csrWrite("WIN0_SIZE", Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", 20)).longValueExact());
            d.csrWrite("WIN0_CTRL", Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact());
            e = assertThrows(SimulationException.class, () -> d.run(
                    List.of(ReplayJob.Descriptor.of(Direction.RD, Descriptors.cldesc(GPU, 0, 4096, 1))), List.of(), memory));
            assertTrue(e.getMessage().contains("stopped during run") && e.getMessage().contains("not inside mapped memory")
                    && e.getMessage().contains("device.log"), e.getMessage());
            assertFalse(d.usable());
            e = assertThrows(SimulationException.class, () -> d.csrRead("WIN0_CTRL"));
            assertTrue(e.getMessage().contains("is gone") && e.getMessage().contains("not inside mapped memory"), e.getMessage());
        } finally {
            d.close();
            assertTrue(Files.isRegularFile(d.directory().resolve("device.log")), "a device that stopped keeps its log");
            try (var files = Files.walk(d.directory())) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
