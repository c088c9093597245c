// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.ffi.ClBuffer;
import org.direkt.runtime.ffi.ClContext;
import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.pcie.Bytes;

/**
 * What only a board has, standing in for it beside a {@link BoardDevice} on PoCL: the bridge's
 * registers as memory that behaves as the bridge's where a session or a bring-up needs it (MAGIC,
 * VERSION, CONFIG, the window entries, the page and region tables by their write sequences, the
 * bring-up registers), the kernels' channels as the header's emulated channels (buffers after the
 * kernel's own arguments, {@link #SLOTS} descriptors each), and the bridge's checks and data movers,
 * which take each descriptor or region request the kernel wrote, check it in the order of
 * {@link Layout.Error}, move its bytes between the PCIe memory the session mapped and FPGA memory
 * (the device's buffer), and answer a status. The bitstream it plays ({@link StandInBitstream}) is
 * the overlay's unless {@link #built} or {@link #channel} says otherwise.
 *
 * <p>In emulation a kernel's wait returns what the host put in the status channel before the
 * launch; the stand-in puts a marker naming the direction and slot there, checks that the kernel
 * handed each marker back through its status argument (so the argument and the channel are wired)
 * for each descriptor it wrote, and answers, in the order the kernel handed them back, the
 * statuses the launch reports after the kernel ran.
 */
public final class BridgeStandIn implements CsrAccess, Fabric {
    /** Descriptors each emulated channel holds in a launch: a binary for the stand-in is built with DIREKT_EMU_SLOTS at most this. */
    public static final int SLOTS = 4;
    /** A status marker's bits above the direction and slot: no status of either layout reads as it. */
    private static final long MARKED = 0xFFFF_FFFF_FFFF_FF00L;
    private static final int DESC_BYTES = Layout.CLDESC.bits() / 8;
    private static final long PAGE = 1L << Layout.PAGE_BITS;

    private final OverlayManifest manifest;
    private final Map<String, Long> registers = new HashMap<>();
    /** The bridge's register names by their byte offsets in the CSR. */
    private final Map<Long, String> names = new HashMap<>();
    private final long[] pages;
    private final long[] regionBytes;
    private final long[] regionCtrl;
    private final TreeMap<Long, BusRange> mapped = new TreeMap<>();
    private final List<long[]> descriptors = new ArrayList<>();
    private ClContext cl;
    private ClBuffer fpgaMemory;
    private final ClBuffer[] channels = new ClBuffer[4];
    private long pageIndex;
    private long pageLo;
    private int select;
    private long bytes;
    private boolean refused;
    private boolean closed;
    private StandInBitstream bitstream;
    private final long[] completions = new long[2];

    public BridgeStandIn(OverlayManifest manifest) {
        this.manifest = manifest;
        manifest.registers().keySet().forEach(n -> names.put(manifest.byteOffset(n), n));
        registers.put("MAGIC", Layout.CSR_MAGIC);
        registers.put("VERSION", (long) Layout.VERSION);
        pages = new long[manifest.bridge().regionPages()];
        regionBytes = new long[manifest.bridge().regions()];
        regionCtrl = new long[manifest.bridge().regions()];
        play(StandInBitstream.of(manifest.bridge()));
    }

    /** Plays a bitstream whose bridge was built with {@code params} (another overlay's), kernels still putting x0 where it takes it. */
    public BridgeStandIn built(BridgeSpec params) {
        return play(StandInBitstream.of(params));
    }

    /** Kernels put cldesc word x0 at the channel's {@code x0} end, wherever the bridge takes it (another kernel compiler's layout). */
    public BridgeStandIn channel(BridgeModes.WordOrder x0) {
        return play(new StandInBitstream(bitstream.built(), x0));
    }

    private BridgeStandIn play(StandInBitstream b) {
        bitstream = b;
        registers.put("CONFIG", b.config());
        return this;
    }

    /** Sets a register as a bitstream would have it (another MAGIC, another VERSION). */
    public BridgeStandIn with(String name, long value) {
        registers.put(name, value);
        return this;
    }

    /** Every descriptor the kernels wrote into the channels, as 8 words, in order. */
    public List<long[]> descriptors() {
        return List.copyOf(descriptors);
    }

    public boolean closed() {
        return closed;
    }

    // ---------------------------------------------------------------- the registers

    @Override
    public String where() {
        return "the bridge stand-in's registers";
    }

    @Override
    public Optional<String> standIn() {
        return Optional.of("the bridge's registers, channels, checks and data movers (BridgeStandIn, in this process:"
                + " the kernel runs on PoCL with emulated channels)");
    }

    private String name(long offset) {
        String name = names.get(offset);
        if (name == null) {
            throw new CsrWindowException(CsrWindowException.Reason.OUTSIDE_THE_WINDOW, CsrDevice.ERANGE, "register "
                    + Bytes.hex(offset) + " is not one of the bridge's");
        }
        return name;
    }

    @Override
    public int read32(long offset) {
        String name = name(offset);
        return (int) switch (name) {
            case "PAGE_INDEX" -> pageIndex;
            case "REGION_LENGTH" -> regionBytes[select];
            case "REGION_CTRL" -> regionCtrl[select];
            case "REGION_STATUS" -> refused ? 1 : 0;
            default -> registers.getOrDefault(name, 0L);
        };
    }

    @Override
    public void write32(long offset, int value) {
        long v = Integer.toUnsignedLong(value);
        switch (name(offset)) {
            case "PAGE_INDEX" -> pageIndex = v;
            case "PAGE_LO" -> pageLo = v;
            case "PAGE_HI" -> {
                if (refused || pageIndex >= pages.length) {
                    refused = true;
                } else {
                    pages[(int) pageIndex++] = v << 32 | pageLo;
                }
            }
            case "REGION_SELECT" -> select = (int) v;
            case "REGION_BYTES" -> bytes = v;
            case "REGION_CTRL" -> {
                regionBytes[select] = bytes;
                regionCtrl[select] = v;
            }
            case "REGION_STATUS" -> refused = false;
            default -> registers.put(name(offset), v);
        }
    }

    // ---------------------------------------------------------------- the channels

    @Override
    public void attach(ClContext context, ClBuffer memory) {
        this.cl = context;
        this.fpgaMemory = memory;
        for (int i = 0; i < 4; i++) {
            channels[i] = context.buffer((long) SLOTS * (i % 2 == 0 ? DESC_BYTES : 8));  // rd desc, rd status, wr desc, wr status
        }
    }

    /** What status slot {@code slot} of direction {@code wr} holds before a launch. */
    private static long marker(int wr, int slot) {
        return MARKED | (long) wr << 4 | slot;
    }

    @Override
    public List<ClBuffer> channelArgs(KernelCall call) {
        byte[] marks = new byte[SLOTS * DESC_BYTES];
        Arrays.fill(marks, (byte) 0xFF);
        long[] status = new long[SLOTS];
        for (int d = 0; d < 2; d++) {
            cl.write(channels[2 * d], MemorySegment.ofArray(marks));
            for (int slot = 0; slot < SLOTS; slot++) {
                status[slot] = marker(d, slot);
            }
            cl.write(channels[2 * d + 1], MemorySegment.ofArray(status));
        }
        return List.of(channels);
    }

    @Override
    public long[] statuses(KernelCall call, long[] written) {
        long[][][] sent = {sent(channels[0]), sent(channels[2])};
        long[] answers = new long[written.length];
        for (int i = 0; i < written.length; i++) {
            long w = written[i];
            int d = (int) (w >>> 4 & 0xF);
            int slot = (int) (w & 0xF);
            if ((w & MARKED) != MARKED || d > 1 || slot >= SLOTS || sent[d][slot] == null) {
                throw new AssertionError(call.kernel() + " handed back " + Long.toHexString(w) + " in status_out[" + i
                        + "], not a status its channels held for a descriptor it wrote");
            }
            descriptors.add(sent[d][slot]);
            answers[i] = execute(d == 0, sent[d][slot]);
            sent[d][slot] = null;
        }
        for (long[][] dir : sent) {
            if (Arrays.stream(dir).anyMatch(x -> x != null)) {
                throw new AssertionError(call.kernel() + " wrote a descriptor whose status it did not hand back");
            }
        }
        return answers;
    }

    /** The descriptors a kernel wrote into channel {@code b}, by slot; null where it wrote none. */
    private long[][] sent(ClBuffer b) {
        MemorySegment s = MemorySegment.ofArray(new byte[SLOTS * DESC_BYTES]);
        cl.read(b, s);
        long[][] out = new long[SLOTS][];
        for (int slot = 0; slot < SLOTS; slot++) {
            long[] w = new long[Layout.CLDESC_WORDS];
            for (int i = 0; i < w.length; i++) {
                w[i] = Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN),
                        (long) slot * DESC_BYTES + 4L * i));
            }
            out[slot] = Arrays.stream(w).allMatch(x -> x == 0xFFFF_FFFFL) ? null : w;  // untouched: as channelArgs left it
        }
        return out;
    }

    @Override
    public void map(List<BusRange> ranges) {
        ranges.forEach(r -> mapped.put(r.bus(), r));
    }

    @Override
    public void unmap(List<BusRange> ranges) {
        ranges.forEach(r -> mapped.remove(r.bus()));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (ClBuffer b : channels) {
                if (b != null) {
                    b.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------- the checks and the movers

    /**
     * The descriptor the kernel wrote as {@code written}, on the channel (LAST_DESC) and as the
     * bridge reads it: its checks, its bytes moved when it passes them (LAST_MOVER_STATUS), and its
     * status, whose elapsed count is made up (1 + a cycle per 64 bytes): not a timing.
     */
    private long execute(boolean toFpga, long[] written) {
        String dir = toFpga ? "RD" : "WR";
        long[] onChannel = bitstream.onChannel(written);
        for (int i = 0; i < onChannel.length; i++) {
            registers.put(dir + "_LAST_DESC_" + i, onChannel[i]);
        }
        long[] words = bitstream.asRead(onChannel);
        BigInteger value = BigInteger.ZERO;
        for (int i = words.length - 1; i >= 0; i--) {
            value = value.shiftLeft(32).or(BigInteger.valueOf(words[i]));
        }
        boolean regions = manifest.bridge().regionsAddressing();
        Map<String, BigInteger> f = (regions ? Layout.CLDESC_REGION : Layout.CLDESC).unpack(value);
        long tag = f.get("tag").longValue();
        Layout.Error error = regions ? region(toFpga, f) : raw(toFpga, f);
        long moved = 0;
        if (error == Layout.Error.OK) {
            moved = (regions ? f.get("bytes") : f.get("dwords").shiftLeft(2)).longValue();
            int id = regions ? Layout.KERNEL_ID_FIRST : bitstream.moverId(f, completions[toFpga ? 0 : 1]++);
            registers.put(dir + "_LAST_MOVER_STATUS", StandInBitstream.moverStatus(id));
        }
        return bitstream.status(tag, error, 1 + moved / 64);
    }

    private Layout.Error raw(boolean toFpga, Map<String, BigInteger> f) {
        long src = f.get("src_hi").longValue() << 32 | f.get("src_lo").longValue();
        long dst = f.get("dst_hi").longValue() << 32 | f.get("dst_lo").longValue();
        long n = f.get("dwords").longValue() * 4;
        long gpu = toFpga ? src : dst;
        long fpga = toFpga ? dst : src;
        Layout.Error first = bitstream.firstChecks(f);
        if (first != Layout.Error.OK) {
            return first;
        } else if (((src | dst) & 3) != 0) {
            return Layout.Error.UNALIGNED;
        } else if (!inWindow(gpu, n, toFpga)) {
            return Layout.Error.WINDOW;
        } else if (fpga + n > fpgaBytes()) {
            return Layout.Error.FPGA_RANGE;
        }
        move(toFpga, gpu, fpga, n);
        return Layout.Error.OK;
    }

    /** Inside an enabled window that allows the direction: equal to its base in every bit from its size up. */
    private boolean inWindow(long gpu, long n, boolean toFpga) {
        for (List<String> entry : manifest.windows().orElseThrow().names()) {
            long ctrl = registers.getOrDefault(entry.get(3), 0L);
            long base = registers.getOrDefault(entry.get(1), 0L) << 32 | registers.getOrDefault(entry.get(0), 0L);
            int log2 = (int) Math.min(Layout.WINDOW_MAX_LOG2, Math.max(Layout.WINDOW_MIN_LOG2,
                    registers.getOrDefault(entry.get(2), 0L) & 0x3F));
            boolean allowed = (ctrl & 1) != 0 && (ctrl & (toFpga ? 2 : 4)) != 0;
            if (allowed && gpu >>> log2 == base >>> log2 && (gpu + n - 1) >>> log2 == base >>> log2) {
                return true;
            }
        }
        return false;
    }

    private Layout.Error region(boolean toFpga, Map<String, BigInteger> f) {
        int r = f.get("region").intValue();
        long offset = f.get("offset").longValue();
        long n = f.get("bytes").longValue();
        long fpga = f.get("fpga_hi").longValue() << 32 | f.get("fpga_lo").longValue();
        if (f.get("reserved_x4").signum() != 0 || f.get("reserved_x6").signum() != 0 || f.get("reserved").signum() != 0) {
            return Layout.Error.RESERVED;
        } else if (f.get("kind").intValue() != Layout.KIND_REGION) {
            return Layout.Error.KIND;
        }
        Map<String, BigInteger> ctrl = r < regionCtrl.length ? Layout.CSR_REGION_CTRL.unpack(BigInteger.valueOf(regionCtrl[r])) : null;
        if (ctrl == null || regionBytes[r] == 0 || ctrl.get(toFpga ? "allow_rd" : "allow_wr").signum() == 0) {
            return Layout.Error.REGION;
        } else if (offset + n > regionBytes[r]) {
            return Layout.Error.REGION_RANGE;
        } else if (fpga + n > fpgaBytes()) {
            return Layout.Error.FPGA_RANGE;
        }
        int first = ctrl.get("first").intValue();
        for (long at = 0; at < n; ) {
            long inRegion = offset + at;
            long piece = Math.min(n - at, PAGE - inRegion % PAGE);
            move(toFpga, pages[first + (int) (inRegion / PAGE)] + inRegion % PAGE, fpga + at, piece);
            at += piece;
        }
        return Layout.Error.OK;
    }

    private long fpgaBytes() {
        return Math.min(manifest.bridge().fpgaMemBytes(), fpgaMemory.size());
    }

    /** {@code n} bytes between bus address {@code bus} and FPGA address {@code fpga}, through what the session mapped. */
    private void move(boolean toFpga, long bus, long fpga, long n) {
        MemorySegment data = MemorySegment.ofArray(new byte[(int) n]);
        if (toFpga) {
            bus(bus, data, false);
            cl.write(fpgaMemory, fpga, data);
        } else {
            cl.read(fpgaMemory, fpga, data);
            bus(bus, data, true);
        }
    }

    private void bus(long bus, MemorySegment data, boolean write) {
        for (long pos = 0; pos < data.byteSize(); ) {
            Map.Entry<Long, BusRange> e = mapped.floorEntry(bus + pos);
            if (e == null || !e.getValue().holds(bus + pos, 1)) {
                throw new AssertionError("the data movers reached bus address " + Bytes.hex(bus + pos) + ", which is not mapped");
            }
            BusRange r = e.getValue();
            long off = bus + pos - r.bus();
            MemorySegment part = data.asSlice(pos, Math.min(data.byteSize() - pos, r.size() - off));
            if (write) {
                r.backing().write(r.offset() + off, part);
            } else {
                r.backing().read(r.offset() + off, part);
            }
            pos += part.byteSize();
        }
    }
}
