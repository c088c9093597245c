// SPDX-License-Identifier: Apache-2.0
package org.direkt.contract;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import org.direkt.contract.BridgeModes.Addressing;
import org.direkt.contract.BridgeModes.IdMode;
import org.direkt.contract.BridgeModes.StatusMode;
import org.direkt.contract.BridgeModes.WordOrder;

/**
 * What host software needs to know of a generated bridge: its modes, the size of its window or
 * region tables, how many descriptors it keeps in flight, the FPGA memory it reaches, and whether
 * it has counters and bring-up registers. The generators hold the whole parameter set (FIFO
 * depths, arbitration, clocking); this is the part the CSR map, the header and the runtime follow
 * from, read from an overlay's manifest ({@link OverlayManifest}) or derived from the generator's
 * parameters.
 *
 * @param idMode        who picks descriptor IDs
 * @param statusMode    what a kernel reads back as status
 * @param wordOrder     where the descriptor's first word sits on the channel
 * @param addressing    raw bus addresses in windows, or regions of GPU pages
 * @param windowEntries entries of the window table (raw addressing)
 * @param inflight      descriptors in flight per direction
 * @param syncStages    synchroniser stages of the clock crossing
 * @param fpgaMemBytes  FPGA memory the bridge's descriptors may name
 * @param counters      whether the CSR has the event counters
 * @param bringup       whether the CSR has the bring-up registers (last descriptor, mover status)
 * @param regions       regions a kernel may name (regions addressing)
 * @param regionPages   page-table entries (regions addressing)
 * @param ports         kernel ports
 */
public record BridgeSpec(IdMode idMode, StatusMode statusMode, WordOrder wordOrder, Addressing addressing, int windowEntries,
        int inflight, int syncStages, long fpgaMemBytes, boolean counters, boolean bringup, int regions, int regionPages,
        int ports) {

    /**
     * Each setting {@link #setting} names, by the generator's parameter name, in order: what the
     * bridge's CONFIG register reports, and so what a bring-up compares with a bitstream.
     */
    private static final Map<String, Function<BridgeSpec, String>> SETTINGS = settings();

    /** The names of {@link #SETTINGS}, in order. */
    public static final List<String> CONFIG_SETTINGS = List.copyOf(SETTINGS.keySet());

    private static Map<String, Function<BridgeSpec, String>> settings() {
        Map<String, Function<BridgeSpec, String>> m = new LinkedHashMap<>();
        m.put("windows", s -> Integer.toString(s.windowEntries));
        m.put("inflight", s -> Integer.toString(s.inflight));
        m.put("id_mode", s -> text(s.idMode));
        m.put("status_mode", s -> text(s.statusMode));
        m.put("word_order", s -> text(s.wordOrder));
        m.put("sync_stages", s -> Integer.toString(s.syncStages));
        m.put("counters", s -> Boolean.toString(s.counters));
        m.put("bringup", s -> Boolean.toString(s.bringup));
        return Collections.unmodifiableMap(m);
    }

    public BridgeSpec {
        if (idMode == null || statusMode == null || wordOrder == null || addressing == null) {
            throw new IllegalArgumentException("bridge: id_mode, status_mode, word_order and addressing are all needed");
        }
        positive("window_entries", windowEntries);
        positive("inflight", inflight);
        positive("sync_stages", syncStages);
        positive("regions", regions);
        positive("region_pages", regionPages);
        positive("ports", ports);
        if (fpgaMemBytes < 4096) {
            throw new IllegalArgumentException("bridge fpga_mem_bytes = " + fpgaMemBytes + ": must be at least 4096");
        }
    }

    private static void positive(String key, long v) {
        if (v < 1) {
            throw new IllegalArgumentException("bridge " + key + " = " + v + ": must be at least 1");
        }
    }

    /** Whether kernels name GPU memory by region (and the CSR holds the page table, not windows). */
    public boolean regionsAddressing() {
        return addressing == Addressing.REGIONS;
    }

    /** The CSR register map of this bridge ({@link Layout#csrMap}). */
    public List<Layout.CsrReg> csrMap() {
        return Layout.csrMap(windowEntries, counters, bringup, regionsAddressing());
    }

    /**
     * Setting {@code name} (one of {@link #CONFIG_SETTINGS}) as a {@code key=value} argument writes
     * it: {@code x0_low}, {@code tagged}, {@code 4}, {@code true}.
     */
    public String setting(String name) {
        Function<BridgeSpec, String> f = SETTINGS.get(name);
        if (f == null) {
            throw new IllegalArgumentException("bridge setting '" + name + "': one of " + CONFIG_SETTINGS);
        }
        return f.apply(this);
    }

    /** This bridge with status mode {@code m} (how a host that believes another mode is modelled). */
    public BridgeSpec withStatusMode(StatusMode m) {
        return new BridgeSpec(idMode, m, wordOrder, addressing, windowEntries, inflight, syncStages, fpgaMemBytes, counters,
                bringup, regions, regionPages, ports);
    }

    /** This bridge with word order {@code o}. */
    public BridgeSpec withWordOrder(WordOrder o) {
        return new BridgeSpec(idMode, statusMode, o, addressing, windowEntries, inflight, syncStages, fpgaMemBytes, counters,
                bringup, regions, regionPages, ports);
    }

    /** Text {@code value} as a constant of {@code type} ({@link #text} reversed); another text is refused naming {@code key} and the choices. */
    public static <E extends Enum<E>> E parse(String key, Class<E> type, String value) {
        for (E e : type.getEnumConstants()) {
            if (text(e).equals(value)) {
                return e;
            }
        }
        throw new IllegalArgumentException(key + " = " + value + ": one of "
                + java.util.Arrays.stream(type.getEnumConstants()).map(BridgeSpec::text).toList());
    }

    /** An enum constant as parameters and manifests write it: lower case ({@code x0_high}, {@code cycles}). */
    public static String text(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
