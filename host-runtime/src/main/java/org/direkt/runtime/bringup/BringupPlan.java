// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.runtime.Descriptors;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.WindowBlock;
import org.direkt.runtime.sim.Direction;

/**
 * The known descriptors of a bring-up and what to read afterwards, for one overlay's configuration
 * and one target's buffers. The bring-up kernel ({@code examples/kernels/direkt_bringup.cl}) builds
 * exactly these descriptors from {@link #kernelArgs()} with the overlay's header (BringupKernelTest
 * checks it bit for bit on PoCL); this class is the host's copy of its rules.
 *
 * <p>Per direction (GPU->FPGA first), {@value #PER_DIRECTION} descriptors of {@value #BYTES} bytes,
 * each issued once the previous one has its status, slot {@code i} moving bytes
 * {@code [i * BYTES, (i + 1) * BYTES)} of the FPGA buffer from or to the GPU buffer (GPU->FPGA from its first
 * {@value #PER_DIRECTION} slots, FPGA->GPU into the next {@value #PER_DIRECTION}):
 * <ol start="0">
 * <li>{@link Kind#FIRST}: tag {@code TAG_BASE + 16 * direction + slot};</li>
 * <li>{@link Kind#TAG_ZERO}: tag 0, which a bridge of either status mode takes;</li>
 * <li>{@link Kind#REVERSED}: tagged as the first, written with its eight words in reverse order: the
 *     bridge reads it as written only when the channel's word order is the other one than its own,
 *     and otherwise rejects it (RESERVED: its source address lands in x6/x7);</li>
 * <li>{@link Kind#LAST}: tagged as the first, the direction's last: LAST_DESC shows it, and when the bridge
 *     completes it its mover status is LAST_MOVER_STATUS.</li>
 * </ol>
 * ID and tag go where the overlay's header puts them: the ID ({@code 128 + slot}) only in paper ID
 * mode, the tag only in tagged status mode.
 *
 * @param config       the configuration the descriptors are built for
 * @param buffers      the target's buffers
 * @param window       the window entry 0 is opened on: the smallest block holding the GPU buffer's probed bytes
 * @param windowWrites the CSR writes that open it, in order
 * @param probes       the descriptors, in issue order
 * @param reads        the registers read after the descriptors, by name
 */
public record BringupPlan(BridgeConfig config, BringupTarget.Buffers buffers, WindowBlock window, List<RegisterWrite> windowWrites,
                          List<Probe> probes, List<String> reads) {

    public static final int PER_DIRECTION = 4;
    public static final int BYTES = 256;
    public static final long TAG_BASE = 0xB0D0_0000L;
    /** The window entry the bring-up opens. */
    public static final int WINDOW = 0;

    public BringupPlan {
        windowWrites = List.copyOf(windowWrites);
        probes = List.copyOf(probes);
        reads = List.copyOf(reads);
    }

    /** What each of a direction's descriptors is for (in slot order). */
    public enum Kind {
        FIRST("first"),
        TAG_ZERO("tag 0"),
        REVERSED("words reversed"),
        LAST("last");

        public final String describe;

        Kind(String describe) {
            this.describe = describe;
        }

        static Kind ofSlot(int slot) {
            return values()[slot];
        }
    }

    /**
     * One descriptor.
     *
     * @param index     its position in the plan (and of its status in the observation)
     * @param slot      its position in its direction, 0..{@value #PER_DIRECTION} - 1
     * @param words     the eight 32-bit words as the kernel writes them, x0 first (reversed for {@link Kind#REVERSED})
     */
    public record Probe(int index, Direction direction, int slot, Kind kind, long src, long dst, int bytes, int id, long tag,
                        long[] words) {
        public Probe {
            words = words.clone();
        }

        @Override
        public long[] words() {
            return words.clone();
        }

        public String describe() {
            return direction.tag() + " #" + slot + " (" + kind.describe + ")";
        }
    }

    /** A CSR write: the register's name, its offset, a 32-bit value. */
    public record RegisterWrite(String name, int offset, long value) {
    }

    /** The bring-up kernel's arguments (its {@code gpu_paddr}, {@code fpga_addr}, {@code bytes}, {@code tag_base}). */
    public record KernelArgs(long gpuPaddr, long fpgaAddr, int bytes, long tagBase) {
    }

    /** The register names of direction {@code d}'s LAST_DESC_0..7 (register i holds channel bits [32i+31:32i]). */
    public static List<String> lastDesc(Direction d) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Layout.CSR_LAST_DESC_REGS; i++) {
            names.add(prefix(d) + "_LAST_DESC_" + i);
        }
        return names;
    }

    public static String lastMoverStatus(Direction d) {
        return prefix(d) + "_LAST_MOVER_STATUS";
    }

    private static String prefix(Direction d) {
        return d.tag().toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * The plan for {@code config} on {@code buffers}.
     *
     * @throws IllegalArgumentException the bridge has no bring-up registers, or the buffers cannot hold
     *                                  the descriptors (the message says which and why)
     */
    public static BringupPlan of(BridgeConfig config, BringupTarget.Buffers buffers) {
        BridgeSpec p = config.params();
        requireBringup(config);
        long fpgaSpan = (long) PER_DIRECTION * BYTES;
        long gpuSpan = 2 * fpgaSpan;
        // A reversed descriptor is rejected only because its source lands in x6/x7: every source must be non-zero.
        if (buffers.gpuBus() <= 0 || (buffers.gpuBus() & 3) != 0 || buffers.gpuBytes() < gpuSpan) {
            throw new IllegalArgumentException("GPU buffer at bus address " + Bytes.hex(buffers.gpuBus()) + " of " + buffers.gpuBytes()
                    + " bytes: the bring-up needs a non-zero, 4-byte aligned address and " + gpuSpan + " bytes");
        }
        if (buffers.fpgaAddress() <= 0 || (buffers.fpgaAddress() & 3) != 0 || buffers.fpgaBytes() < fpgaSpan
                || buffers.fpgaAddress() + fpgaSpan > p.fpgaMemBytes()) {
            throw new IllegalArgumentException("FPGA buffer at " + Bytes.hex(buffers.fpgaAddress()) + " of " + buffers.fpgaBytes()
                    + " bytes: the bring-up needs a non-zero, 4-byte aligned address and " + fpgaSpan + " bytes inside the bridge's "
                    + p.fpgaMemBytes() + " bytes of FPGA memory");
        }
        WindowBlock w = smallestWindow(buffers.gpuBus(), buffers.gpuBus() + gpuSpan - 1);
        List<RegisterWrite> writes = new ArrayList<>();
        String win = "WIN" + WINDOW + "_";
        writes.add(write(config, win + "BASE_LO", w.base() & 0xFFFF_FFFFL));
        writes.add(write(config, win + "BASE_HI", w.base() >>> 32));
        writes.add(write(config, win + "SIZE", Layout.CSR_WINDOW_SIZE.pack(Map.of("log2", w.log2())).longValueExact()));
        writes.add(write(config, win + "CTRL",
                Layout.CSR_WINDOW_CTRL.pack(Map.of("enable", 1, "allow_rd", 1, "allow_wr", 1)).longValueExact()));

        KernelArgs args = new KernelArgs(buffers.gpuBus(), buffers.fpgaAddress(), BYTES, TAG_BASE);
        List<Probe> probes = new ArrayList<>();
        for (Direction d : Direction.values()) {
            for (int slot = 0; slot < PER_DIRECTION; slot++) {
                probes.add(probe(p, args, d, slot, probes.size()));
            }
        }
        List<String> reads = new ArrayList<>(List.of("MAGIC", "VERSION", "CONFIG"));
        for (Direction d : Direction.values()) {
            reads.addAll(lastDesc(d));
            reads.add(lastMoverStatus(d));
        }
        reads.forEach(config::offset);
        return new BringupPlan(config, buffers, w, writes, probes, reads);
    }

    /**
     * Refuses an overlay whose bridge has no bring-up registers, before any target is opened for it.
     *
     * @throws IllegalArgumentException naming the manifest and the fix
     */
    public static void requireBringup(BridgeConfig config) {
        if (!config.params().bringup()) {
            throw new IllegalArgumentException(config.manifest() + ": the bridge has no bring-up registers (bringup=false): "
                    + "regenerate the overlay with bringup=true (the paper and lean presets leave them out) and rebuild the bitstream");
        }
    }

    private static RegisterWrite write(BridgeConfig config, String name, long value) {
        return new RegisterWrite(name, config.offset(name), value);
    }

    /** The kernel's rule for direction {@code d}'s slot {@code slot}. */
    private static Probe probe(BridgeSpec p, KernelArgs a, Direction d, int slot, int index) {
        long off = (long) slot * a.bytes();
        long gpu = a.gpuPaddr() + off + (d == Direction.WR ? (long) PER_DIRECTION * a.bytes() : 0);
        long fpga = a.fpgaAddr() + off;
        long src = d == Direction.RD ? gpu : fpga;
        long dst = d == Direction.RD ? fpga : gpu;
        Kind kind = Kind.ofSlot(slot);
        long tag = kind == Kind.TAG_ZERO || p.statusMode() == BridgeModes.StatusMode.CYCLES ? 0
                : (a.tagBase() + 16L * d.ordinal() + slot) & 0xFFFF_FFFFL;
        int id = p.idMode() == BridgeModes.IdMode.PAPER ? Layout.KERNEL_ID_FIRST + slot : 0;
        long[] words = Layout.cldescWords(Descriptors.cldesc(src, dst, a.bytes(), id, tag));
        return new Probe(index, d, slot, kind, src, dst, a.bytes(), id, tag, kind == Kind.REVERSED ? reversed(words) : words);
    }

    /** The words in the other order: x0 where x7 was. */
    public static long[] reversed(long[] words) {
        long[] r = new long[words.length];
        for (int i = 0; i < words.length; i++) {
            r[i] = words[words.length - 1 - i];
        }
        return r;
    }

    /** The smallest window (an aligned power-of-two block, at least the smallest the bridge has) holding {@code [first, last]}. */
    static WindowBlock smallestWindow(long first, long last) {
        int log2 = Layout.WINDOW_MIN_LOG2;
        while (log2 < Layout.WINDOW_MAX_LOG2 && (first >>> log2) != (last >>> log2)) {
            log2++;
        }
        long base = first & -(1L << log2);
        return WindowBlock.of(base, base + (1L << log2) - 1, Layout.WINDOW_MIN_LOG2, Layout.WINDOW_MAX_LOG2);
    }

    /** The arguments the bring-up kernel is launched with. */
    public KernelArgs kernelArgs() {
        return new KernelArgs(buffers.gpuBus(), buffers.fpgaAddress(), BYTES, TAG_BASE);
    }

    /** Direction {@code d}'s descriptors, in slot order. */
    public List<Probe> probes(Direction d) {
        return probes.stream().filter(x -> x.direction() == d).toList();
    }
}
