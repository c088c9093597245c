// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every bit the kernel, the bridge, the data movers and the host agree on, defined once. The
 * generators build their logic from these fields, the manifest ({@code direkt-overlay.json})
 * carries them to the test benches, the OpenCL header and the host runtime, and {@link #pack} /
 * {@link #unpack} are the reference packing those are checked against.
 *
 * <ul>
 * <li>{@link #CLDESC}: what a kernel writes to a descriptor channel, eight 32-bit words x0..x7
 *     (x0/x1 source, x2/x3 destination, x4 length in dwords and ID as in the published kernel,
 *     x5 the kernel's tag, x6 flags, x7 reserved). Word xi sits at bits [32i+31:32i] of the
 *     channel word unless the bridge is generated with the other word order.</li>
 * <li>{@link #MOVER_DESC}: the data movers' 160-bit descriptor.</li>
 * <li>{@link #MOVER_STATUS}: the movers' 32-bit status word. Its format comes from an older
 *     public source and is NOT confirmed against the current user guide; the bridge reads it
 *     only through these fields, so a correction is made here once.</li>
 * <li>{@link #KERNEL_STATUS_TAGGED} and {@link #KERNEL_STATUS_CYCLES}: the 64-bit status a kernel
 *     reads back, in the two status modes.</li>
 * </ul>
 */
public final class Layout {
    private Layout() {
    }

    private static final ThreadLocal<Map<String, Word>> MOVED = ThreadLocal.withInitial(Map::of);

    /**
     * The word in force for {@code w}: {@code w} itself, or the word of the same name that a
     * {@link #withWords} scope put in its place. Every reader of a position (the generators through
     * their word helpers, the manifest, the header model) asks here, so moving a field moves it
     * everywhere at once.
     */
    public static Word resolve(Word w) {
        return MOVED.get().getOrDefault(w.name(), w);
    }

    /**
     * Runs {@code body} with each of {@code replacements} in force in place of the word of the same
     * name (same width; the fields may sit anywhere), on this thread. Used to show that a moved field
     * reaches the Verilog, the manifest and the header together.
     */
    public static <T> T withWords(List<Word> replacements, java.util.function.Supplier<T> body) {
        Map<String, Word> moved = new LinkedHashMap<>(MOVED.get());
        for (Word r : replacements) {
            Word original = byName(r.name());
            if (original.bits() != r.bits()) {
                throw new IllegalArgumentException(r.name() + " is " + original.bits() + " bits; the replacement is " + r.bits());
            }
            moved.put(r.name(), r);
        }
        Map<String, Word> before = MOVED.get();
        MOVED.set(Map.copyOf(moved));
        try {
            return body.get();
        } finally {
            MOVED.set(before);
        }
    }

    private static Word byName(String name) {
        for (Word w : allWords()) {
            if (w.name().equals(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("no Layout word named '" + name + "'");
    }

    private static List<Word> allWords() {
        return List.of(CLDESC, MOVER_DESC, MOVER_STATUS, KERNEL_STATUS_TAGGED, KERNEL_STATUS_CYCLES, DESC_ID, STAMP_TAGGED,
                CSR_CONFIG, CSR_LAST_ERROR, CSR_ALARMS, CSR_CONTROL, CSR_LEVEL, CSR_WINDOW_BASE_LO, CSR_WINDOW_BASE_HI,
                CSR_WINDOW_SIZE, CSR_WINDOW_CTRL, CLDESC_REGION, REGION_REQ, REGION_ENTRY, PAGE_ENTRY, CSR_PAGE_LO, CSR_REGION_CTRL,
                CSR_REGION_STATUS);
    }

    /** Bumped whenever a field below moves; the manifest carries it and readers refuse others. */
    public static final int VERSION = 2;

    /** A named bit range {@code [lsb + width - 1 : lsb]} of a word. */
    public record Field(String name, int lsb, int width, String doc) {
        public int msb() {
            return lsb + width - 1;
        }

        public BigInteger mask() {
            return BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
        }

        public BigInteger get(BigInteger word) {
            return word.shiftRight(lsb).and(mask());
        }

        public long getLong(BigInteger word) {
            return get(word).longValueExact();
        }
    }

    /** A word made of fields; fields never overlap and every bit belongs to one. */
    public record Word(String name, int bits, List<Field> fields) {
        public Word {
            fields = List.copyOf(fields);
            boolean[] used = new boolean[bits];
            for (Field f : fields) {
                for (int b = f.lsb(); b <= f.msb(); b++) {
                    if (b >= bits || used[b]) {
                        throw new IllegalStateException(name + "." + f.name() + " overlaps or leaves the word at bit " + b);
                    }
                    used[b] = true;
                }
            }
            for (int b = 0; b < bits; b++) {
                if (!used[b]) {
                    throw new IllegalStateException(name + " bit " + b + " belongs to no field");
                }
            }
        }

        public Field field(String fieldName) {
            for (Field f : fields) {
                if (f.name().equals(fieldName)) {
                    return f;
                }
            }
            throw new IllegalArgumentException(name + " has no field '" + fieldName + "' (it has "
                    + fields.stream().map(Field::name).toList() + ")");
        }

        /** Packs named values; a field not named is zero; a value too wide for its field is refused. */
        public BigInteger pack(Map<String, ? extends Number> values) {
            BigInteger w = BigInteger.ZERO;
            for (Map.Entry<String, ? extends Number> e : values.entrySet()) {
                Field f = field(e.getKey());
                // A Java long names a 64-bit address: read it as unsigned for a 64-bit field.
                BigInteger v = e.getValue() instanceof BigInteger b ? b
                        : f.width() == 64 ? new BigInteger(Long.toUnsignedString(e.getValue().longValue()))
                        : BigInteger.valueOf(e.getValue().longValue());
                if (v.signum() < 0 || v.bitLength() > f.width()) {
                    throw new IllegalArgumentException(name + "." + f.name() + " = " + v + " does not fit in " + f.width() + " bits");
                }
                w = w.or(v.shiftLeft(f.lsb()));
            }
            return w;
        }

        public Map<String, BigInteger> unpack(BigInteger word) {
            Map<String, BigInteger> out = new LinkedHashMap<>();
            for (Field f : fields) {
                out.put(f.name(), f.get(word));
            }
            return out;
        }
    }

    private static Field f(String name, int lsb, int width, String doc) {
        return new Field(name, lsb, width, doc);
    }

    // ------------------------------------------------------------------ kernel descriptor

    public static final int CLDESC_WORDS = 8;
    /** Bits of one cldesc word xi: word i sits at {@code [CLDESC_WORD_BITS * (i + 1) - 1 : CLDESC_WORD_BITS * i]}. */
    public static final int CLDESC_WORD_BITS = 32;

    /** x4 as the published kernel packs it: {@code (id << 18) | (bytes >> 2)}. */
    public static final Word CLDESC = new Word("cldesc", 256, List.of(
            f("src_lo", 0, 32, "x0: source address [31:0] (GPU->FPGA: PCIe address; FPGA->GPU: FPGA memory address)"),
            f("src_hi", 32, 32, "x1: source address [63:32]"),
            f("dst_lo", 64, 32, "x2: destination address [31:0]"),
            f("dst_hi", 96, 32, "x3: destination address [63:32]"),
            f("dwords", 128, 18, "x4[17:0]: length in dwords (bytes / 4), 1 .. 262143"),
            f("id", 146, 8, "x4[25:18]: descriptor ID, 128..255 (paper ID mode); must be 0 in managed ID mode"),
            f("len_overflow", 154, 6, "x4[31:26]: must be 0; set when a length of 1 MB or more spilled over"),
            f("tag", 160, 32, "x5: the kernel's tag, returned in the status (tagged status mode); must be 0 in cycles status mode"),
            f("flags", 192, 32, "x6: flags, none defined yet: must be 0"),
            f("reserved", 224, 32, "x7: reserved, must be 0")));

    // ------------------------------------------------------------------ mover descriptor and status

    /** Largest legal mover length: 18 bits of dwords, 1 MB - 4 B. */
    public static final int MAX_DWORDS = (1 << 18) - 1;

    public static final Word MOVER_DESC = new Word("mover_desc", 160, List.of(
            f("src", 0, 64, "source address (read mover: PCIe; write mover: Avalon)"),
            f("dst", 64, 64, "destination address (read mover: Avalon; write mover: PCIe)"),
            f("dwords", 128, 18, "length in dwords, 1 .. 262143"),
            f("id", 146, 8, "descriptor ID: 0..127 host, 128..255 kernel"),
            f("reserved", 154, 6, "reserved, 0")));

    public static final Word MOVER_STATUS = new Word("mover_status", 32, List.of(
            f("id", 0, 8, "ID of the descriptor this status reports"),
            f("completed", 8, 1, "the descriptor finished"),
            f("busy", 9, 1, "the mover is busy"),
            f("paused", 10, 1, "the mover is paused"),
            f("aborted", 11, 1, "the descriptor was aborted"),
            f("flushed", 12, 1, "the descriptor was flushed"),
            f("flush_count", 13, 5, "descriptors flushed"),
            f("reserved", 18, 14, "reserved")));

    /** True while the mover status format is an assumption (see the class comment). */
    public static final boolean MOVER_STATUS_CONFIRMED = false;

    // ------------------------------------------------------------------ kernel status

    public static final int ELAPSED_BITS = 28;

    public static final Word KERNEL_STATUS_TAGGED = new Word("kernel_status_tagged", 64, List.of(
            f("tag", 0, 32, "the tag the kernel put in x5"),
            f("error", 32, 4, "0 = done; otherwise an error code (see errors)"),
            f("elapsed", 36, ELAPSED_BITS, "dma_clk cycles from issue to completion, saturating")));

    /**
     * The published design's status, the elapsed cycles, in the low word; the high word, 0 in the
     * published design, marks a failed descriptor (so a failed status reads as a huge count).
     */
    public static final Word KERNEL_STATUS_CYCLES = new Word("kernel_status_cycles", 64, List.of(
            f("cycles", 0, 32, "dma_clk cycles from admission to the status (modulo 2^32)"),
            f("failed", 32, 32, "all ones when the descriptor failed (rejected or aborted), 0 when it completed")));

    // ------------------------------------------------------------------ error codes

    /** Error codes in the tagged kernel status; the order is the order the checks are applied in. */
    public enum Error {
        OK("the descriptor completed"),
        RESERVED("x6 or x7 (or, in cycles status mode, x5) is not zero; regions addressing: x4[31:10], x6[31:4] or x7 is "
                + "not zero"),
        TOO_LONG("length of 1 MB or more (x4 bits above the length field set)"),
        ZERO_LENGTH("length of zero dwords"),
        BAD_ID("paper ID mode: the ID is not in the kernel range 128..255, or is one of the IDs kept for table fetches (table_fetch_ids)"),
        UNALIGNED("source or destination address not a multiple of 4"),
        WINDOW("PCIe range not inside an enabled window that allows this direction"),
        FPGA_RANGE("FPGA memory range beyond the configured memory"),
        ABORTED("the data mover reported the descriptor aborted or flushed"),
        REGION("region request: the region number is beyond the table, or the region is closed, lies beyond the page table, "
                + "or does not allow this direction"),
        REGION_RANGE("region request: bytes outside the region (offset + length beyond the region's length)"),
        KIND("the request kind in x6[3:0] is not one this bridge takes (raw addressing: descriptors, x6 = 0; "
                + "regions addressing: region requests, kind 1)");

        public final String meaning;

        Error(String meaning) {
            this.meaning = meaning;
        }

        public int code() {
            return ordinal();
        }
    }

    // ------------------------------------------------------------------ regions (GPU memory translated on the FPGA)

    /** A region's pages are 64 KB, as GPU memory is pinned and mapped. */
    public static final int PAGE_BITS = 16;

    /** The request kinds x6[3:0] names: a raw descriptor ({@link #CLDESC}, x6 = 0) or a region request ({@link #CLDESC_REGION}). */
    public static final int KIND_RAW = 0;
    public static final int KIND_REGION = 1;

    /**
     * A region request as a kernel writes it to the descriptor channel of a bridge with regions
     * addressing: eight 32-bit words, x6 telling it from a raw descriptor ({@link #CLDESC}).
     *
     * <p>One request may be several entries written one after the other: every entry but the last
     * has {@code more} set, all name the same region, and the request completes with one status
     * (the first entry's tag; the first error). A check entry ({@code check}) is checked as any
     * entry and moves nothing. Ranges start at 0, so a request whose entries all end at or before
     * its check entry's end, in the region and in FPGA memory, is inside both when the check entry
     * is: a strided or vectored request that opens with such a check entry is rejected before any
     * of its entries moves. The header's builders write such requests.
     */
    public static final Word CLDESC_REGION = new Word("cldesc_region", 256, List.of(
            f("fpga_lo", 0, 32, "x0: FPGA memory address of the first byte [31:0] (a multiple of 4)"),
            f("fpga_hi", 32, 32, "x1: FPGA memory address [63:32]"),
            f("offset", 64, 32, "x2: byte offset inside the region (a multiple of 4)"),
            f("bytes", 96, 32, "x3: length in bytes, 4 .. 4 GB - 4 (a multiple of 4)"),
            f("region", 128, 8, "x4[7:0]: region number"),
            f("more", 136, 1, "x4[8]: another entry of this request follows"),
            f("check", 137, 1, "x4[9]: a check entry: checked, nothing moves"),
            f("reserved_x4", 138, 22, "x4[31:10]: must be 0"),
            f("tag", 160, 32, "x5: the kernel's tag, returned in the status (a request's first entry's)"),
            f("kind", 192, 4, "x6[3:0]: request kind, 1 (region request)"),
            f("reserved_x6", 196, 28, "x6[31:4]: must be 0"),
            f("reserved", 224, 32, "x7: must be 0")));

    /**
     * A region request as the region walker takes it (what crosses into dma_clk): the channel
     * word's fields, its reserved bits folded into one flag.
     */
    public static final Word REGION_REQ = new Word("region_req", 178, List.of(
            f("fpga", 0, 64, "FPGA memory address of the first byte (a multiple of 4)"),
            f("offset", 64, 32, "byte offset inside the region (a multiple of 4)"),
            f("bytes", 96, 32, "length in bytes, 4 .. 4 GB - 4 (a multiple of 4)"),
            f("region", 128, 8, "region number"),
            f("kind", 136, 4, "request kind; the walker takes 1 (region request)"),
            f("reserved", 140, 4, "must be 0 (bit 0: a reserved bit of the channel word is set)"),
            f("tag", 144, 32, "the kernel's tag, returned in the status"),
            f("more", 176, 1, "another entry of this request follows"),
            f("check", 177, 1, "a check entry: checked, nothing moves")));

    /** A region's entry in the region table, as the host writes it. */
    public static final Word REGION_ENTRY = new Word("region_entry", 64, List.of(
            f("bytes", 0, 32, "the region's length in bytes; 0: the region is closed"),
            f("first", 32, 16, "page table index of the region's first page; its pages are first .. first + ceil(bytes / 64 KB) - 1"),
            f("allow_rd", 48, 1, "GPU->FPGA requests may read the region"),
            f("allow_wr", 49, 1, "FPGA->GPU requests may write the region"),
            f("reserved", 50, 14, "0")));

    /** A page table entry: the bus address of one 64 KB page, without its 16 low bits. */
    public static final Word PAGE_ENTRY = new Word("page_entry", 48, List.of(
            f("frame", 0, 48, "bus address [63:16] of the page")));

    // ------------------------------------------------------------------ IDs

    public static final int HOST_ID_FIRST = 0;
    public static final int HOST_ID_LAST = 127;
    public static final int KERNEL_ID_FIRST = 128;
    public static final int KERNEL_ID_LAST = 255;

    /**
     * A descriptor ID (the mover descriptor's and status's {@code id} field): the top bit tells a
     * kernel's ID (128..255) from the host's (0..127); the rest is the slot (managed IDs) or the
     * kernel's own number.
     */
    public static final Word DESC_ID = new Word("desc_id", 8, List.of(
            f("slot", 0, 7, "managed IDs: the bridge's slot; paper IDs: the kernel's number; host IDs: the host's"),
            f("kernel", 7, 1, "1: a kernel's descriptor (128..255), 0: the host's (0..127)")));

    /** The bridge's stamp table entry, tagged status: the kernel's tag beside the stamp. */
    public static final Word STAMP_TAGGED = new Word("stamp_tagged", 64, List.of(
            f("stamp", 0, 32, "dma_clk cycle count the cycle before admission"),
            f("tag", 32, 32, "the kernel's tag (x5)")));

    // ------------------------------------------------------------------ CSR map (32-bit registers, word addresses)

    /**
     * One CSR register: word offset, access (ro, rw, wc: a write clears, w1: write-only action, wo: write-only value, reads 0), and
     * the {@link Word} that gives its fields ({@code null}: one 32-bit value).
     */
    public record CsrReg(String name, int offset, String access, String doc, Word word) {
        /** The register's fields as in force: its word's, or one field {@code value} of 32 bits. */
        public List<Field> fields() {
            return word == null ? List.of(new Field("value", 0, 32, doc)) : resolve(word).fields();
        }
    }

    /**
     * Cycles from a read command to its data ({@code readdatavalid}): the first cycle selects the
     * register (a counter's RAM word and pre-counter separately), the second adds a counter's two parts.
     */
    public static final int CSR_READ_LATENCY = 2;

    public static final long CSR_MAGIC = 0x4452_4B54L; // "DRKT"
    public static final int CSR_MAGIC_OFFSET = 0x00;
    public static final int CSR_VERSION_OFFSET = 0x01;
    public static final int CSR_CONFIG_OFFSET = 0x02;
    public static final int CSR_FPGA_MEM_LO_OFFSET = 0x03;
    public static final int CSR_FPGA_MEM_HI_OFFSET = 0x04;
    public static final int CSR_LAST_ERROR_OFFSET = 0x05;
    public static final int CSR_CONTROL_OFFSET = 0x06;
    public static final int CSR_ALARMS_OFFSET = 0x07;

    /** CONTROL (write only, generated with the counters). */
    public static final Word CSR_CONTROL = new Word("csr_control", 32, List.of(
            f("clear_counters", 0, 1, "write 1: clear every event counter"),
            f("reserved", 1, 31, "write 0")));

    /** RD_/WR_OUTSTANDING and RD_/WR_HOST_BUFFERED: a live count. */
    public static final Word CSR_LEVEL = new Word("csr_level", 32, List.of(
            f("count", 0, 8, "the count"),
            f("reserved", 8, 24, "0")));

    /** WINi_BASE_LO: window base address [31:0]; bits below the smallest window are not kept. */
    public static final Word CSR_WINDOW_BASE_LO = new Word("csr_window_base_lo", 32, List.of(
            f("ignored", 0, 20, "reads 0: below the smallest window (WINDOW_MIN_LOG2)"),
            f("base", 20, 12, "base address [31:20]")));

    /** WINi_BASE_HI: window base address [63:32]. */
    public static final Word CSR_WINDOW_BASE_HI = new Word("csr_window_base_hi", 32, List.of(
            f("base", 0, 32, "base address [63:32]")));
    /** Counters of direction d (0 = rd, 1 = wr) start at {@code 0x10 + 0x10 * d}. */
    public static final int CSR_COUNTERS_OFFSET = 0x10;
    public static final int CSR_COUNTERS_STRIDE = 0x10;

    /** The first register of direction d's block (0 = rd, 1 = wr): its counters, levels and last mover status. */
    public static int csrBlock(int d) {
        return CSR_COUNTERS_OFFSET + CSR_COUNTERS_STRIDE * d;
    }
    /** Within a direction's block: the live count of kernel descriptors awaiting their status. */
    public static final int CSR_OUTSTANDING_INDEX = 0x0F;
    /** Within a direction's block: host descriptors waiting in the bridge's host buffer. */
    public static final int CSR_HOST_BUFFERED_INDEX = 0x0E;
    /**
     * Within a direction's block, with the bring-up registers: the last mover status word of this
     * direction (host or kernel ID) exactly as the mover returned it ({@link #MOVER_STATUS} is the
     * format the bridge assumes).
     */
    public static final int CSR_LAST_MOVER_STATUS_INDEX = 0x0D;
    /**
     * With the bring-up registers: the last descriptor channel word of direction d (0 = rd, 1 = wr)
     * as it was on the channel, before the word order is applied, {@link #CSR_LAST_DESC_REGS}
     * registers from {@code CSR_LAST_DESC_OFFSET + CSR_LAST_DESC_REGS * d}; register i holds channel
     * bits {@code [32i+31:32i]}.
     */
    public static final int CSR_LAST_DESC_OFFSET = 0x30;
    public static final int CSR_LAST_DESC_REGS = CLDESC_WORDS;
    public static final int CSR_WINDOW_OFFSET = 0x40;
    public static final int CSR_WINDOW_STRIDE = 8;

    /** Counted events per direction, in register order (what must never happen is flagged in ALARMS instead). */
    public static final List<String> CSR_EVENTS = List.of("kernel_issued", "completed", "rejected", "aborted",
            "host_issued", "host_completed", "spurious");

    private static final Map<String, String> EVENT_DOC = Map.of(
            "kernel_issued", "kernel descriptors handed to the mover",
            "completed", "kernel statuses from the mover (aborted ones included)",
            "rejected", "kernel descriptors rejected by the checks",
            "aborted", "kernel descriptors the mover aborted or flushed",
            "host_issued", "host descriptors handed to the mover",
            "host_completed", "host statuses passed back to the descriptor controller",
            "spurious", "mover statuses with a kernel ID that was not outstanding (dropped)");

    public static final Word CSR_CONFIG = new Word("csr_config", 32, List.of(
            f("window_entries", 0, 8, "address windows in the table"),
            f("inflight", 8, 8, "kernel descriptors in flight per direction, at most"),
            f("paper_ids", 16, 1, "1: the kernel's IDs go to the mover (paper mode)"),
            f("cycles_status", 17, 1, "1: the kernel status is the elapsed cycles alone (paper mode)"),
            f("x0_high", 18, 1, "1: cldesc word x0 sits at channel bits [255:224]"),
            f("sync_stages", 19, 4, "synchroniser stages of the clock crossings"),
            f("counters", 23, 1, "1: the event counters are present"),
            f("bringup", 24, 1, "1: the bring-up registers (last descriptor word, last mover status) are present"),
            f("regions", 25, 1, "1: regions addressing: kernels write region requests, the region registers replace the windows"),
            f("reserved", 26, 6, "0")));

    public static final Word CSR_LAST_ERROR = new Word("csr_last_error", 32, List.of(
            f("code", 0, 4, "error code of the last rejected kernel descriptor"),
            f("wr", 4, 1, "0: GPU->FPGA (rd), 1: FPGA->GPU (wr)"),
            f("reserved", 5, 26, "0"),
            f("valid", 31, 1, "a rejection happened since the last write to this register")));

    /** Sticky flags of what the design rules out; present with or without counters. */
    public static final Word CSR_ALARMS = new Word("csr_alarms", 32, List.of(
            f("rd_overflow", 0, 1, "GPU->FPGA: a kernel status met a full status FIFO (the credit scheme rules it out)"),
            f("rd_host_overflow", 1, 1, "GPU->FPGA: a host descriptor arrived while the host buffer was full (controller ignored ready latency 1)"),
            f("wr_overflow", 2, 1, "FPGA->GPU: as rd_overflow"),
            f("wr_host_overflow", 3, 1, "FPGA->GPU: as rd_host_overflow"),
            f("reserved", 4, 28, "0")));

    public static final Word CSR_WINDOW_CTRL = new Word("csr_window_ctrl", 32, List.of(
            f("enable", 0, 1, "the window is open"),
            f("allow_rd", 1, 1, "GPU->FPGA descriptors (the PCIe range is their source) may use it"),
            f("allow_wr", 2, 1, "FPGA->GPU descriptors (the PCIe range is their destination) may use it"),
            f("reserved", 3, 29, "0")));

    /**
     * Registers of window entry i, relative to {@code CSR_WINDOW_OFFSET + CSR_WINDOW_STRIDE * i}. A
     * window is the naturally aligned block of {@code 2^SIZE} bytes that holds {@code BASE}: an
     * address is inside when it equals BASE in every bit from SIZE up, which the bridge checks with
     * XOR and AND, no carry chain (see {@link #WINDOW_MIN_LOG2}).
     */
    public static final List<String> CSR_WINDOW_REGS = List.of("BASE_LO", "BASE_HI", "SIZE", "CTRL");

    /**
     * Smallest window: 1 MB, the mover's largest transfer rounded up, so a transfer crosses at most
     * one boundary of a window's size and that is told by one carry (address bits below are never compared).
     */
    public static final int WINDOW_MIN_LOG2 = 20;
    /**
     * Largest window: 2^48 bytes (256 TB). Address bits from 48 up are always compared (bit 63 too,
     * so an address range that wraps past 2^64 is outside), and only bits [47:20] have a mask.
     */
    public static final int WINDOW_MAX_LOG2 = 48;

    public static final Word CSR_WINDOW_SIZE = new Word("csr_window_size", 32, List.of(
            f("log2", 0, 6, "log2 of the window's size in bytes, 20..48; a smaller value acts as 20, a larger as 48"),
            f("reserved", 6, 26, "0")));

    // ------------------------------------------------------------------ region registers (regions addressing, in place of the windows)

    /**
     * With regions addressing the region registers sit where the windows would: the page table
     * (both directions' copies, written together) and the region table. A page is written by
     * PAGE_INDEX, PAGE_LO, then PAGE_HI, whose write stores it and steps PAGE_INDEX on; a region by
     * REGION_SELECT, REGION_BYTES, then REGION_CTRL, whose write stores the entry.
     */
    public static final int CSR_REGION_OFFSET = CSR_WINDOW_OFFSET;
    public static final List<String> CSR_REGION_REGS = List.of("PAGE_INDEX", "PAGE_LO", "PAGE_HI", "REGION_SELECT", "REGION_BYTES",
            "REGION_CTRL", "REGION_LENGTH", "REGION_STATUS");

    public static final Word CSR_PAGE_LO = new Word("csr_page_lo", 32, List.of(
            f("ignored", 0, PAGE_BITS, "reads 0: inside the 64 KB page"),
            f("addr", PAGE_BITS, 32 - PAGE_BITS, "the page's bus address [31:16]")));

    public static final Word CSR_REGION_CTRL = new Word("csr_region_ctrl", 32, List.of(
            f("first", 0, 16, "page table index of the region's first page"),
            f("allow_rd", 16, 1, "GPU->FPGA requests may read the region"),
            f("allow_wr", 17, 1, "FPGA->GPU requests may write the region"),
            f("reserved", 18, 14, "0")));

    public static final Word CSR_REGION_STATUS = new Word("csr_region_status", 32, List.of(
            f("refused", 0, 1, "sticky: a page write was refused (its entry lies in a walk's range or beyond the table, or it "
                    + "came in the cycle right after another PAGE_HI write); while it is set PAGE_HI writes store nothing; "
                    + "any write to REGION_STATUS clears it"),
            f("busy", 1, 1, "live: a request naming the selected region is in a walker and its last piece has not reported"),
            f("reserved", 2, 30, "0")));

    /** The whole register map, with or without the event counters and the bring-up registers. */
    public static List<CsrReg> csrMap(int windowEntries, boolean counters, boolean bringup) {
        return csrMap(windowEntries, counters, bringup, false);
    }

    /** The whole register map; with {@code regions} the region registers take the windows' place. */
    public static List<CsrReg> csrMap(int windowEntries, boolean counters, boolean bringup, boolean regions) {
        List<CsrReg> regs = new ArrayList<>();
        regs.add(new CsrReg("MAGIC", CSR_MAGIC_OFFSET, "ro", "0x44524B54 (\"DRKT\")", null));
        regs.add(new CsrReg("VERSION", CSR_VERSION_OFFSET, "ro", "Layout version", null));
        regs.add(new CsrReg("CONFIG", CSR_CONFIG_OFFSET, "ro", "generated configuration (csr_config fields)", CSR_CONFIG));
        regs.add(new CsrReg("FPGA_MEM_LO", CSR_FPGA_MEM_LO_OFFSET, "ro", "configured FPGA memory bytes [31:0]", null));
        regs.add(new CsrReg("FPGA_MEM_HI", CSR_FPGA_MEM_HI_OFFSET, "ro", "configured FPGA memory bytes [63:32]", null));
        regs.add(new CsrReg("LAST_ERROR", CSR_LAST_ERROR_OFFSET, "wc", "last rejection (csr_last_error fields); any write clears it", CSR_LAST_ERROR));
        if (counters) {
            regs.add(new CsrReg("CONTROL", CSR_CONTROL_OFFSET, "w1", "csr_control fields: write clear_counters = 1 to clear every counter", CSR_CONTROL));
        }
        regs.add(new CsrReg("ALARMS", CSR_ALARMS_OFFSET, "wc", "csr_alarms fields, sticky; any write clears them", CSR_ALARMS));
        for (int d = 0; d < 2; d++) {
            String dir = d == 0 ? "RD" : "WR";
            int base = csrBlock(d);
            for (int i = 0; counters && i < CSR_EVENTS.size(); i++) {
                String ev = CSR_EVENTS.get(i);
                regs.add(new CsrReg(dir + "_" + ev.toUpperCase(java.util.Locale.ROOT), base + i, "ro",
                        EVENT_DOC.get(ev) + " (32-bit, wraps)", null));
            }
            if (bringup) {
                regs.add(new CsrReg(dir + "_LAST_MOVER_STATUS", base + CSR_LAST_MOVER_STATUS_INDEX, "ro",
                        "bring-up: the last mover status word of this direction, raw (0 until the first)", null));
            }
            regs.add(new CsrReg(dir + "_HOST_BUFFERED", base + CSR_HOST_BUFFERED_INDEX, "ro",
                    "host descriptors waiting in the bridge's host buffer", CSR_LEVEL));
            regs.add(new CsrReg(dir + "_OUTSTANDING", base + CSR_OUTSTANDING_INDEX, "ro",
                    "kernel descriptors admitted whose status is not yet pushed", CSR_LEVEL));
        }
        for (int d = 0; bringup && d < 2; d++) {
            String dir = d == 0 ? "RD" : "WR";
            for (int i = 0; i < CSR_LAST_DESC_REGS; i++) {
                int lo = CLDESC_WORD_BITS * i;
                regs.add(new CsrReg(dir + "_LAST_DESC_" + i, CSR_LAST_DESC_OFFSET + CSR_LAST_DESC_REGS * d + i, "ro",
                        "bring-up: channel bits [" + (lo + CLDESC_WORD_BITS - 1) + ":" + lo + "] of the last descriptor word "
                                + "the bridge took, as on the channel (0 until the first)", null));
            }
        }
        if (regions) {
            for (int r = 0; r < CSR_REGION_REGS.size(); r++) {
                String reg = CSR_REGION_REGS.get(r);
                String doc = switch (reg) {
                    case "PAGE_INDEX" -> "page table entry the next PAGE_HI write stores; steps on by one after a stored page, "
                            + "stays at a refused one";
                    case "PAGE_LO" -> "csr_page_lo fields: the page's bus address [31:16]";
                    case "PAGE_HI" -> "the page's bus address [63:32]; a write stores the page at PAGE_INDEX (both directions' tables)";
                    case "REGION_SELECT" -> "region the REGION_* registers name";
                    case "REGION_BYTES" -> "the length the next REGION_CTRL write stores; 0 closes the region";
                    case "REGION_CTRL" -> "csr_region_ctrl fields; a write stores the selected region's entry (with REGION_BYTES); "
                            + "a read gives the entry as stored";
                    case "REGION_LENGTH" -> "the selected region's length as stored";
                    default -> "csr_region_status fields";
                };
                Word word = switch (reg) {
                    case "PAGE_LO" -> CSR_PAGE_LO;
                    case "REGION_CTRL" -> CSR_REGION_CTRL;
                    case "REGION_STATUS" -> CSR_REGION_STATUS;
                    default -> null;
                };
                // The staging registers (a page's address, a region's length) are written, not read back:
                // what they stored reads back from the table (REGION_CTRL, REGION_LENGTH).
                String access = switch (reg) {
                    case "REGION_LENGTH" -> "ro";
                    case "REGION_STATUS" -> "wc";
                    case "PAGE_LO", "PAGE_HI", "REGION_BYTES" -> "wo";
                    default -> "rw";
                };
                regs.add(new CsrReg(reg, CSR_REGION_OFFSET + r, access, doc, word));
            }
            return regs;
        }
        for (int w = 0; w < windowEntries; w++) {
            int base = CSR_WINDOW_OFFSET + CSR_WINDOW_STRIDE * w;
            for (int r = 0; r < CSR_WINDOW_REGS.size(); r++) {
                String reg = CSR_WINDOW_REGS.get(r);
                String doc = switch (reg) {
                    case "BASE_LO", "BASE_HI" -> "a PCIe byte address inside the window (bits below SIZE are not compared)";
                    case "SIZE" -> "csr_window_size fields; 20 (1 MB) after reset";
                    default -> "csr_window_ctrl fields; 0 after reset (closed)";
                };
                Word word = switch (reg) {
                    case "BASE_LO" -> CSR_WINDOW_BASE_LO;
                    case "BASE_HI" -> CSR_WINDOW_BASE_HI;
                    case "SIZE" -> CSR_WINDOW_SIZE;
                    default -> CSR_WINDOW_CTRL;
                };
                regs.add(new CsrReg("WIN" + w + "_" + reg, base + r, "rw", doc, word));
            }
        }
        return regs;
    }

    // ------------------------------------------------------------------ reference packing

    /** Packs a cldesc from its fields; see {@link #CLDESC}. */
    public static BigInteger pack(Word w, Map<String, ? extends Number> values) {
        return resolve(w).pack(values);
    }

    public static Map<String, BigInteger> unpack(Word w, BigInteger value) {
        return resolve(w).unpack(value);
    }

    /** The eight 32-bit words of a cldesc value, x0 first. */
    public static long[] cldescWords(BigInteger cldesc) {
        long[] x = new long[CLDESC_WORDS];
        for (int i = 0; i < CLDESC_WORDS; i++) {
            x[i] = cldesc.shiftRight(CLDESC_WORD_BITS * i).and(BigInteger.ONE.shiftLeft(CLDESC_WORD_BITS).subtract(BigInteger.ONE))
                    .longValue();
        }
        return x;
    }

    /** The CSR registers' words, as in force, for the manifest. */
    public static List<Word> csrWords() {
        List<Word> out = new ArrayList<>();
        for (Word w : List.of(CSR_CONFIG, CSR_LAST_ERROR, CSR_WINDOW_CTRL, CSR_WINDOW_SIZE, CSR_ALARMS, CSR_CONTROL, CSR_LEVEL,
                CSR_WINDOW_BASE_LO, CSR_WINDOW_BASE_HI, CSR_PAGE_LO, CSR_REGION_CTRL, CSR_REGION_STATUS)) {
            out.add(resolve(w));
        }
        return out;
    }

    /** Every word, for the manifest. */
    public static List<Word> words() {
        List<Word> out = new ArrayList<>();
        for (Word w : List.of(CLDESC, MOVER_DESC, MOVER_STATUS, KERNEL_STATUS_TAGGED, KERNEL_STATUS_CYCLES, DESC_ID, CLDESC_REGION,
                REGION_REQ, REGION_ENTRY, PAGE_ENTRY)) {
            out.add(resolve(w));
        }
        return out;
    }
}
