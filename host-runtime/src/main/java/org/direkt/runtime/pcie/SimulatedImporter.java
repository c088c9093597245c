// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link BusAddressImporter} without hardware, for tests and benchmarks: it places each imported
 * range's 64 KB pages in a simulated GPU BAR aperture ({@code apertureBase}, {@code apertureSize},
 * the BAR1 budget) and keeps track of what is mapped.
 *
 * <p>Placement: the first page of a range goes to the lowest free page of the aperture (to a random
 * free page when fragmentation is above 0). Each following page, with probability
 * {@code fragmentation}, goes to a random free page that is not the next one; otherwise to the page
 * right after the previous one if that is free, else to the next free page above it (wrapping
 * around). With fragmentation 0 and an unfragmented aperture a range is one contiguous run; with 1
 * every page starts a new run where the free space allows. The generator is seeded, so a seed
 * reproduces the same addresses for the same sequence of calls.
 *
 * <p>An import that does not fit in the free pages of the aperture fails with
 * {@link ApertureExhaustedException}. {@link #refuseImports} plays an exporter that refuses
 * peer-to-peer for the FPGA (GPU and FPGA under different root complexes, say): every import fails
 * with {@link ImportRefusedException} and that reason until {@link #acceptImports}. {@link #revoke} plays the exporter invalidating a mapping: its
 * pages return to the aperture at once, listeners are told, and the owner still releases it.
 * File descriptors are not checked beyond being non-negative (there is no dma-buf behind them).
 *
 * <p>Thread-safe; listeners are called outside the importer's lock, on the revoking thread.
 */
public final class SimulatedImporter implements BusAddressImporter {
    private static final long PAGE = AddressTable.PAGE_SIZE;

    private final long apertureBase;
    private final long apertureSize;
    private final double fragmentation;
    private final int slots;
    private final Random random;
    private final BitSet used;
    private final Map<Long, Live> live = new HashMap<>();
    private final List<RevocationListener> listeners = new CopyOnWriteArrayList<>();
    private String refusal;
    private long refused;
    private long nextHandle = 1;
    private long mappedBytes;
    private long imports;
    private long releases;
    private long revocations;

    private static final class Live {
        final ImportedRange range;
        final int[] slots;
        boolean revoked;

        Live(ImportedRange range, int[] slots) {
            this.range = range;
            this.slots = slots;
        }
    }

    /** An unfragmented aperture: ranges are placed first-fit and contiguous where the space allows. */
    public SimulatedImporter(long apertureBase, long apertureSize) {
        this(apertureBase, apertureSize, 0.0, 0L);
    }

    /**
     * @param apertureBase bus address of the aperture, 64 KB aligned
     * @param apertureSize bytes of the aperture (the BAR1 budget), a positive multiple of 64 KB
     * @param fragmentation probability, in [0, 1], that a page is not placed after the previous one
     * @param seed seed of the placement generator
     */
    public SimulatedImporter(long apertureBase, long apertureSize, double fragmentation, long seed) {
        if (apertureBase % PAGE != 0) {
            throw new IllegalArgumentException("aperture base " + Bytes.hex(apertureBase) + " must be 64 KB aligned");
        }
        if (apertureSize <= 0 || apertureSize % PAGE != 0) {
            throw new IllegalArgumentException("aperture size " + Bytes.size(apertureSize)
                    + " must be a positive multiple of 64 KB");
        }
        if (apertureSize / PAGE > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("aperture size " + Bytes.size(apertureSize) + " exceeds the simulator's "
                    + Integer.MAX_VALUE + " pages");
        }
        if (Long.compareUnsigned(apertureBase + apertureSize - 1, apertureBase) < 0) {
            throw new IllegalArgumentException("aperture at " + Bytes.hex(apertureBase) + " of " + Bytes.size(apertureSize)
                    + " runs past the end of the 64-bit bus address space (2^64)");
        }
        if (!(fragmentation >= 0.0 && fragmentation <= 1.0)) {
            throw new IllegalArgumentException("fragmentation " + fragmentation + " must be a probability in [0, 1]");
        }
        this.apertureBase = apertureBase;
        this.apertureSize = apertureSize;
        this.fragmentation = fragmentation;
        this.slots = (int) (apertureSize / PAGE);
        this.random = new Random(seed);
        this.used = new BitSet(slots);
    }

    @Override
    public ImportedRange importDmaBuf(int fd, long offset, long length) {
        ImportedRange.checkDmaBufRange(fd, offset, length);
        synchronized (this) {
            if (refusal != null) {
                refused++;
                throw new ImportRefusedException(refusal);
            }
            long free = apertureSize - mappedBytes;
            if (length > free) {
                throw new ApertureExhaustedException(length, free, apertureSize);
            }
            int n = (int) (length / PAGE);
            int[] placed = new int[n];
            long[] bus = new long[n];
            for (int i = 0; i < n; i++) {
                int slot = i == 0 ? firstSlot() : nextSlot(placed[i - 1]);
                used.set(slot);
                placed[i] = slot;
                bus[i] = apertureBase + slot * PAGE;
            }
            ImportedRange range = new ImportedRange(nextHandle++, fd, offset, length, bus);
            live.put(range.handle(), new Live(range, placed));
            mappedBytes += length;
            imports++;
            return range;
        }
    }

    private int firstSlot() {
        return fragmentation > 0 ? freeFrom(random.nextInt(slots)) : freeFrom(0);
    }

    private int nextSlot(int previous) {
        int adjacent = previous + 1;
        if (fragmentation > 0 && random.nextDouble() < fragmentation) {
            int s = freeFrom(random.nextInt(slots));
            if (s == adjacent) {
                int other = freeFrom(s + 1 == slots ? 0 : s + 1);
                return other; // equals s when it is the only free page
            }
            return s;
        }
        return freeFrom(adjacent == slots ? 0 : adjacent);
    }

    /** The first free slot at or above {@code from}, wrapping around; the caller knows one is free. */
    private int freeFrom(int from) {
        int s = used.nextClearBit(from);
        return s < slots ? s : used.nextClearBit(0);
    }

    @Override
    public void release(ImportedRange range) {
        synchronized (this) {
            Live l = live.get(range.handle());
            if (l == null || l.range != range) {
                throw new IllegalArgumentException(range + " is not mapped by this importer (released already, or "
                        + "imported by another)");
            }
            live.remove(range.handle());
            if (!l.revoked) {
                free(l);
            }
            releases++;
        }
    }

    /**
     * From now on every import fails with {@link ImportRefusedException} carrying {@code reason}, as
     * when the exporter refuses to map its memory for the FPGA; nothing is mapped. Live imports stay.
     */
    public synchronized void refuseImports(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a refusal says why the exporter refuses (the reason is blank)");
        }
        this.refusal = reason;
    }

    /** Imports succeed again (where the aperture has room) after {@link #refuseImports}. */
    public synchronized void acceptImports() {
        this.refusal = null;
    }

    /** Imports refused since construction ({@link #refuseImports}). */
    public synchronized long refusals() {
        return refused;
    }

    /** Revokes with the reason "the exporter moved the memory (simulated move_notify)". */
    public boolean revoke(ImportedRange range) {
        return revoke(range, "the exporter moved the memory (simulated move_notify)");
    }

    /**
     * Plays the exporter invalidating a mapping: its pages go back to the aperture and every
     * listener is told. The range stays live until its owner releases it.
     *
     * @return false if the range is not mapped here or was revoked already (nothing is told)
     */
    public boolean revoke(ImportedRange range, String reason) {
        synchronized (this) {
            Live l = live.get(range.handle());
            if (l == null || l.range != range || l.revoked) {
                return false;
            }
            l.revoked = true;
            free(l);
            revocations++;
        }
        for (RevocationListener listener : listeners) {
            listener.revoked(range, reason);
        }
        return true;
    }

    private void free(Live l) {
        for (int s : l.slots) {
            used.clear(s);
        }
        mappedBytes -= l.range.length();
    }

    /** Whether the range is live here and revoked (not yet released). */
    public synchronized boolean isRevoked(ImportedRange range) {
        Live l = live.get(range.handle());
        return l != null && l.range == range && l.revoked;
    }

    /** The live (unreleased) imports, revoked ones included, in no particular order. */
    public synchronized List<ImportedRange> liveImports() {
        List<ImportedRange> out = new ArrayList<>(live.size());
        for (Live l : live.values()) {
            out.add(l.range);
        }
        return out;
    }

    /** Bytes of the aperture occupied by live, unrevoked imports. */
    public synchronized long mappedBytes() {
        return mappedBytes;
    }

    public synchronized long freeBytes() {
        return apertureSize - mappedBytes;
    }

    /** Imports made, releases done and revocations made since construction. */
    public synchronized long imports() {
        return imports;
    }

    public synchronized long releases() {
        return releases;
    }

    public synchronized long revocations() {
        return revocations;
    }

    public long apertureBase() {
        return apertureBase;
    }

    public long apertureSize() {
        return apertureSize;
    }

    @Override
    public void addRevocationListener(RevocationListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeRevocationListener(RevocationListener listener) {
        listeners.remove(listener);
    }

    @Override
    public synchronized String toString() {
        return "SimulatedImporter[aperture " + Bytes.hex(apertureBase) + " +" + Bytes.human(apertureSize) + ", fragmentation "
                + fragmentation + ", " + Bytes.human(mappedBytes) + " mapped" + (refusal != null ? ", refusing imports" : "") + "]";
    }
}
