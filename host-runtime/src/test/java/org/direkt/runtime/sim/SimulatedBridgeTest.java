// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.direkt.contract.Layout;
import org.direkt.runtime.Descriptors;

/**
 * Simulation tests (tag {@code sim}): kernel descriptors built here with {@link Layout#CLDESC} run
 * through the emitted bridge in the cocotb bench ({@code sim/tb/bridge_replay}) via
 * {@link SimulatedBridge}. They need {@code make setup} and run in {@code make test} (never skipped).
 */
@Tag("sim")
class SimulatedBridgeTest {
    static final long PAGE = 64 * 1024;
    static final long BUS = 0x38_0000_0000L;
    /** The window: 16 pages of 64 KB at BUS, an aligned 1 MB block (a bridge window is an aligned power-of-two block >= 1 MB). */
    static final int SPAN_PAGES = 16;
    /** Bus slots of GPU pages 0..9: no two neighbours adjacent, so every page boundary is a discontinuity. */
    static final int[] SLOTS = {11, 2, 7, 14, 0, 9, 4, 13, 1, 6};
    /** A GPU page mapped outside the window. */
    static final long CLOSED_PAGE = BUS + 2L * SPAN_PAGES * PAGE;
    static final int N = 256 * 1024 + 4;
    static final long SRC_OFF = 0x3000;            // pages 0..4
    static final long DST_OFF = 5 * PAGE + 0x1000; // pages 5..9
    static final long FPGA = 0x10_0040;
    static final int GUARD = 4096;
    static final long FPGA_UNTOUCHED = 0x40_0000;

    record Setup(GpuPages gpu, ReplayJob.Builder job, byte[] fpgaInit, byte[] closedInit, int rdPieces, int wrPieces) {
    }

    /** The round trip GPU -> FPGA -> GPU, tags 1.., optionally a barrier before the first wr descriptor. */
    static Setup roundTrip(ReplayJob.Builder job, boolean barrier) {
        long[] bus = new long[SLOTS.length];
        for (int i = 0; i < SLOTS.length; i++) {
            bus[i] = BUS + SLOTS[i] * PAGE;
        }
        GpuPages gpu = new GpuPages(PAGE, bus, 42);
        for (int i = 0; i < bus.length; i++) {
            job.gpuPage(bus[i], gpu.data[i]);
        }
        Random rng = new Random(7);
        byte[] closed = new byte[(int) PAGE];
        rng.nextBytes(closed);
        job.gpuPage(CLOSED_PAGE, closed);
        byte[] fpgaInit = new byte[N + 2 * GUARD];
        rng.nextBytes(fpgaInit);
        job.fpga(FPGA - GUARD, fpgaInit);
        job.window(BUS, BUS + SPAN_PAGES * PAGE - 1, true, true);

        long tag = 1;
        List<GpuPages.Piece> rd = gpu.split(SRC_OFF, N, FPGA, GpuPages.MAX_BYTES);
        for (GpuPages.Piece p : rd) {
            job.descriptor(Direction.RD, Descriptors.cldesc(p.bus(), p.fpga(), p.bytes(), tag++));
        }
        List<GpuPages.Piece> wr = gpu.split(DST_OFF, N, FPGA, GpuPages.MAX_BYTES);
        for (GpuPages.Piece p : wr) {
            ReplayJob.Descriptor d = ReplayJob.Descriptor.of(Direction.WR, Descriptors.cldesc(p.fpga(), p.bus(), p.bytes(), tag++));
            job.descriptor(barrier && p == wr.get(0) ? d.afterAll() : d);
        }
        job.readBackFpga(FPGA - GUARD, fpgaInit.length);
        for (int i = 5; i < 10; i++) {
            job.readBackGpu(bus[i], (int) PAGE);
        }
        return new Setup(gpu, job, fpgaInit, closed, rd.size(), wr.size());
    }

    static void checkRoundTrip(Setup s, ReplayResult r) {
        // FPGA memory: the GPU source, guards untouched
        byte[] fpga = r.fpga(FPGA - GUARD);
        byte[] want = s.fpgaInit().clone();
        System.arraycopy(s.gpu().read(SRC_OFF, N), 0, want, GUARD, N);
        assertBytes(want, fpga, "FPGA memory after GPU->FPGA");
        // GPU pages 5..9: the destination replaced, the rest as it was
        byte[] gpuNow = new byte[(int) (5 * PAGE)];
        for (int i = 5; i < 10; i++) {
            System.arraycopy(r.gpu(s.gpu().bus[i]), 0, gpuNow, (int) ((i - 5) * PAGE), (int) PAGE);
        }
        byte[] gpuWant = s.gpu().read(5 * PAGE, (int) (5 * PAGE));
        System.arraycopy(s.gpu().read(SRC_OFF, N), 0, gpuWant, (int) (DST_OFF - 5 * PAGE), N);
        assertBytes(gpuWant, gpuNow, "GPU memory after FPGA->GPU");
        int n = s.rdPieces() + s.wrPieces();
        for (int i = 0; i < n; i++) {
            ReplayResult.Status st = r.status(i);
            assertEquals(i < s.rdPieces() ? Direction.RD : Direction.WR, st.direction());
            assertEquals(Layout.Error.OK, st.error(), st.toString());
            assertTrue(st.ok() && st.elapsed() > 0, st.toString());
            assertEquals(i + 1, st.tag(), st.toString());
        }
        assertEquals(s.rdPieces(), r.mover(Direction.RD).kernelDescriptors());
        assertEquals(s.wrPieces(), r.mover(Direction.WR).kernelDescriptors());
        assertEquals(N, r.mover(Direction.RD).bytes());
        assertEquals(N, r.mover(Direction.WR).bytes());
    }

    static void assertBytes(byte[] want, byte[] got, String what) {
        assertEquals(want.length, got.length, what + ": length");
        int i = Arrays.mismatch(want, got);
        assertEquals(-1, i, () -> what + ": byte " + i + " is " + got[i] + ", expected " + want[i]);
    }

    @Test
    void roundTripAndRejectedDescriptors() {
        Setup s = roundTrip(ReplayJob.builder(), false);
        ReplayJob.Builder job = s.job();
        // Rejected: rd from below the window, wr into a mapped page outside it.
        byte[] untouched = new byte[256];
        Arrays.fill(untouched, (byte) 0x5A);
        job.fpga(FPGA_UNTOUCHED, untouched);
        job.descriptor(Direction.RD, Descriptors.cldesc(BUS - 0x1000, FPGA_UNTOUCHED, 256, 0xBAD1));
        job.descriptor(Direction.WR, Descriptors.cldesc(FPGA, CLOSED_PAGE + 0x100, 256, 0xBAD2));
        job.readBackFpga(FPGA_UNTOUCHED, 256).readBackGpu(CLOSED_PAGE, (int) PAGE);

        SimulatedBridge bridge = SimulatedBridge.locate();
        ReplayResult r = bridge.run(job.build());
        System.out.printf("replay (%s): %d descriptors, %d kernel cycles, %.1f us simulated, bench %d ms, whole run %d ms%n",
                bridge.simulator(), r.statuses().size(), r.kernelCycles(), r.simTimePs() / 1e6, r.benchTime().toMillis(),
                r.runTime().toMillis());

        assertEquals("tagged", r.statusMode());
        checkRoundTrip(s, r);
        int n = s.rdPieces() + s.wrPieces();
        assertTrue(s.rdPieces() >= 5 && s.wrPieces() >= 5, "split at every page discontinuity");
        assertEquals(n + 2, r.statuses().size());
        for (int k = 0; k < 2; k++) {
            ReplayResult.Status st = r.status(n + k);
            assertEquals(k == 0 ? Direction.RD : Direction.WR, st.direction());
            assertEquals(Layout.Error.WINDOW, st.error(), st.toString());
            assertEquals(Layout.Error.WINDOW.code(), st.errorCode());
            assertEquals(k == 0 ? 0xBAD1 : 0xBAD2, st.tag());
            assertTrue(st.failed());
        }
        assertArrayEquals(untouched, r.fpga(FPGA_UNTOUCHED), "FPGA memory of the rejected rd descriptor");
        assertArrayEquals(s.closedInit(), r.gpu(CLOSED_PAGE), "GPU page of the rejected wr descriptor");
        for (Direction d : Direction.values()) {
            assertEquals(1, r.counter(d, "rejected"), d + " rejected counter");
            assertEquals(d == Direction.RD ? s.rdPieces() : s.wrPieces(), r.counter(d, "kernel_issued"));
            assertEquals(r.counter(d, "kernel_issued"), r.counter(d, "completed"));
        }
        assertTrue(r.alarms().containsKey("rd_overflow") && r.alarms().containsKey("wr_host_overflow"), r.alarms().toString());
        assertTrue(!r.anyAlarm(), "ALARMS after the job: " + r.alarms());
    }

    @Test
    void aFailedReplaySaysWhy() {
        // The window (1 MB) covers bus space with no page behind it: the bridge lets the descriptor through
        // and the mover model fails the run on the unmapped access; the exception carries the bench's words.
        ReplayJob job = ReplayJob.builder().gpuPage(BUS, new byte[16]).window(BUS, BUS + (1L << 20) - 1, true, true)
                .descriptor(Direction.RD, Descriptors.cldesc(BUS + 2 * PAGE, 0x1000, 64, 1)).build();
        SimulationException e = assertThrows(SimulationException.class, () -> SimulatedBridge.locate().run(job));
        assertTrue(e.getMessage().contains("the replay bench failed"), e.getMessage());
        assertTrue(e.getMessage().contains("not inside mapped memory"), e.getMessage());
    }

    @Test
    void pipelinedOtherWordOrder() {
        // Another configuration: x0 in the channel word's top bits, 4 in flight; descriptors pipelined.
        Setup s = roundTrip(ReplayJob.builder().param("word_order", "x0_high").param("inflight", 4)
                .clocks(7000, 5000).pipelined(0), true);
        int wrLastDesc7 = Layout.CSR_LAST_DESC_OFFSET + 2 * Layout.CSR_LAST_DESC_REGS - 1;
        s.job().csrRead("CONFIG").csrReadAt(wrLastDesc7);
        ReplayJob job = s.job().build();
        ReplayResult r = SimulatedBridge.locate().run(job);
        // CSR reads after the job: CONFIG by name says x0_high; by offset, WR_LAST_DESC_7 (channel bits
        // [255:224]) holds x0 of the last wr descriptor.
        assertEquals(1, Layout.CSR_CONFIG.field("x0_high").getLong(java.math.BigInteger.valueOf(r.csr("CONFIG"))));
        assertEquals(job.descriptors().getLast().words()[0], r.csrAt(wrLastDesc7));
        assertEquals(2, r.csrReads().size());
        System.out.printf("pipelined replay: %d descriptors, %d kernel cycles, bench %d ms, whole run %d ms%n",
                r.statuses().size(), r.kernelCycles(), r.benchTime().toMillis(), r.runTime().toMillis());
        checkRoundTrip(s, r);
        // more than one descriptor in flight at some point
        List<ReplayResult.Status> rd = new ArrayList<>(r.statuses().subList(0, s.rdPieces()));
        assertTrue(rd.get(1).issuedKernelCycle() < rd.get(0).statusKernelCycle(), "rd descriptors overlapped");
    }
}
