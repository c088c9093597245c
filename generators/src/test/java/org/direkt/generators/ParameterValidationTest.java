// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Stream;

import org.direkt.generators.aperture.Aperture;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.generators.fifo.SyncFifo;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.generators.stream.ReadyLatencyAdapter;
import org.direkt.hdl.lib.SkidBuffer;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every generator refuses impossible parameters, naming the parameter, the value and the rule. */
class ParameterValidationTest {

    private static ChannelPort.Channel channel(String port, int width, String chanId) {
        return new ChannelPort.Channel("direkt", port, ChannelPort.Type.STREAMSINK, width, chanId);
    }

    static Stream<Arguments> impossible() {
        return Stream.of(
                Arguments.of((Executable) () -> new Aperture.Params(3L << 20, 0, 33, 256, 16, 256),
                        "Aperture barBytes = 3145728: must be a power of two of at least 4096 (a PCIe BAR's size)"),
                Arguments.of((Executable) () -> new Aperture.Params(1L << 20, 1L << 19, 33, 256, 16, 256),
                        "Aperture fpgaBase = 524288: must be a multiple of barBytes (1048576) with the window inside FPGA memory (8589934592 bytes)"),
                Arguments.of((Executable) () -> new Aperture.Params(1L << 20, 16L << 20, 24, 256, 16, 256),
                        "Aperture fpgaBase = 16777216: must be a multiple of barBytes (1048576) with the window inside FPGA memory (16777216 bytes)"),
                Arguments.of((Executable) () -> new Aperture.Params(1L << 30, 0, 33, 256, 16, 16),
                        "ApertureFront responseBeats = 16: must be a power of two in 32..4096 (a longest burst and 16 beats of crossing lag)"),
                Arguments.of((Executable) () -> new Aperture.Params(1L << 30, 0, 33, 48, 16, 256),
                        "ApertureFront dataBits = 48: must be a power of two in 32..1024"),
                Arguments.of((Executable) () -> new SyncFifo.Params(0, 16, true, false, 16),
                        "SyncFifo width = 0: must be in 1..4096"),
                Arguments.of((Executable) () -> SyncFifo.Params.of(8, 12),
                        "SyncFifo depth = 12: must be a power of two in 2..65536"),
                Arguments.of((Executable) () -> SyncFifo.Params.of(8, 1),
                        "SyncFifo depth = 1: must be a power of two in 2..65536"),
                Arguments.of((Executable) () -> SyncFifo.Params.of(8, 16).withAlmostFull(17),
                        "SyncFifo almostFull = 17: must be in 1..depth (16)"),
                Arguments.of((Executable) () -> new SyncFifo.Params(8, 16, false, false, 16),
                        "SyncFifo registeredOutput = false: must be true when showAhead is false (the word comes from a register a cycle after m_ready)"),
                Arguments.of((Executable) () -> SyncFifo.Params.of(8, 2).withRegisteredOutput(true),
                        "SyncFifo depth = 2: must be >= 4 with a registered show-ahead output (two words are in flight at full rate)"),
                Arguments.of((Executable) () -> new AsyncFifo.Params(160, 24, 2, true),
                        "AsyncFifo depth = 24: must be a power of two in 2..65536 (Gray pointers need a power-of-two lap)"),
                Arguments.of((Executable) () -> new AsyncFifo.Params(160, 16, 1, true),
                        "AsyncFifo syncStages = 1: must be in 2..8 (at least two flops against metastability)"),
                Arguments.of((Executable) () -> new AsyncFifo.Params(-4, 16, 2, true),
                        "AsyncFifo width = -4: must be in 1..4096"),
                Arguments.of((Executable) () -> new SkidBuffer.Params(0),
                        "SkidBuffer width = 0: must be >= 1"),
                Arguments.of((Executable) () -> new ReadyLatencyAdapter.Params(0, ReadyLatencyAdapter.Direction.RL0_TO_RL1),
                        "ReadyLatencyAdapter width = 0: must be in 1..4096"),
                Arguments.of((Executable) () -> new ReadyLatencyAdapter.Params(8, null),
                        "ReadyLatencyAdapter direction = null: must be RL0_TO_RL1 or RL1_TO_RL0"),
                Arguments.of((Executable) () -> Arbiter.Params.fixed(1),
                        "Arbiter requesters = 1: must be in 2..32"),
                Arguments.of((Executable) () -> Arbiter.Params.roundRobin(33),
                        "Arbiter requesters = 33: must be in 2..32"),
                Arguments.of((Executable) () -> new Arbiter.Params(3, Arbiter.Policy.WEIGHTED, List.of(1, 2)),
                        "Arbiter weights = [1, 2]: WEIGHTED needs one weight per requester (3)"),
                Arguments.of((Executable) () -> Arbiter.Params.weighted(1, 0),
                        "Arbiter weights = [1, 0]: every weight must be in 1..255"),
                Arguments.of((Executable) () -> new Arbiter.Params(2, Arbiter.Policy.ROUND_ROBIN, List.of(1, 1)),
                        "Arbiter weights = [1, 1]: only the WEIGHTED policy takes weights"),
                Arguments.of((Executable) () -> new Arbiter.Params(2, null, List.of()),
                        "Arbiter policy = null: must be FIXED_PRIORITY, ROUND_ROBIN or WEIGHTED"),
                Arguments.of((Executable) () -> channel("rdcldesc", 250, "rdcldesc"),
                        "ChannelPort width = 250: must be a positive multiple of 8 (channels carry 8-bit symbols), at most 4096"),
                Arguments.of((Executable) () -> channel("rd-desc", 256, "rdcldesc"),
                        "ChannelPort port = rd-desc: must be a legal Verilog identifier"),
                Arguments.of((Executable) () -> channel("rdcldesc", 256, ""),
                        "ChannelPort chanId = : must be a non-empty identifier (it is what kernels name in io(\"...\"))"),
                Arguments.of((Executable) () -> new ChannelPort.Channel("direkt", "p", null, 8, "p"),
                        "ChannelPort type = null: must be streamsource or streamsink"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("impossible")
    void refusedWithParameterValueAndRule(Executable construct, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct);
        assertEquals(message, e.getMessage());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badCommandLines")
    void commandLineParametersAreCheckedToo(String generator, String key, String value, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Catalog.build(generator, java.util.Map.of(key, value)));
        assertEquals(message, e.getMessage());
    }

    static Stream<Arguments> badCommandLines() {
        return Stream.of(
                Arguments.of("sync_fifo", "depth", "sixteen", "sync_fifo depth = sixteen: must be an integer"),
                Arguments.of("async_fifo", "registered", "maybe", "async_fifo registered = maybe: must be true or false"),
                Arguments.of("arbiter", "policy", "lottery", "arbiter policy = lottery: must be one of [fixed_priority, round_robin, weighted]"),
                Arguments.of("sync_fifo", "dpeth", "16", "sync_fifo: unknown parameter 'dpeth' (known: [depth, show_ahead, width, registered, almost_full])"));
    }
}
