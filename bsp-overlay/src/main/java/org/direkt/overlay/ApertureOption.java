// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.overlay.system.Units;

/**
 * {@code direkt overlay --aperture SIZE [--aperture-base ADDRESS]}: a flat, 64-bit prefetchable BAR
 * of {@code bytes} onto FPGA memory from {@code fpgaBase}, which a GPU's copy engine reads and writes
 * as bus master (FACTS section 10). The size is a PCIe BAR's: a power of two of at least 4 KiB; the
 * base a multiple of it (the BAR maps an aligned window).
 */
public record ApertureOption(long bytes, long fpgaBase) {

    /** A PCIe memory BAR's smallest size that direkt accepts (one page). */
    public static final long MIN_BYTES = 4096;

    private static final Pattern SIZE = Pattern.compile("(?i)(0x[0-9a-f]+|[0-9]+)\\s*([kmgt]?)(i?b)?");

    /**
     * The option as given: {@code size} from {@code --aperture} (1G, 256M, 64K, 4096, 0x40000000),
     * {@code base} from {@code --aperture-base} (null: 0). Refused with exit code 2 and the rule it breaks.
     */
    public static ApertureOption parse(String size, String base) throws OverlayException {
        long bytes = number("--aperture", size);
        if (bytes < MIN_BYTES || Long.bitCount(bytes) != 1) {
            throw new OverlayException(OverlayException.Kind.INPUT, "--aperture " + size + ": " + describe(bytes)
                    + " is no PCIe BAR size: the aperture's size must be a power of two of at least 4 KB");
        }
        long at = base == null ? 0 : number("--aperture-base", base);
        if (at % bytes != 0) {
            throw new OverlayException(OverlayException.Kind.INPUT, "--aperture-base " + base + ": FPGA memory address " + hex(at)
                    + " is not a multiple of the aperture's size, " + describe(bytes) + ": the BAR maps an aligned window");
        }
        return new ApertureOption(bytes, at);
    }

    /** The first FPGA memory address past the window. */
    public BigInteger end() {
        return BigInteger.valueOf(fpgaBase).add(BigInteger.valueOf(bytes));
    }

    /** The BAR's decode width: its size is 2^addressBits bytes. */
    public int addressBits() {
        return Long.numberOfTrailingZeros(bytes);
    }

    /** {@code 1 GB (0x40000000 bytes)}, for messages. */
    static String describe(long bytes) {
        String size = Units.size(BigInteger.valueOf(bytes));
        return size.startsWith("0x") ? size + " bytes" : size + " (" + hex(bytes) + " bytes)";
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v).toUpperCase(Locale.ROOT);
    }

    /** A byte count or address: decimal or 0x hex, optionally with a binary unit (K, M, G, T; KB, KiB, ...). */
    private static long number(String option, String text) throws OverlayException {
        Matcher m = SIZE.matcher(text == null ? "" : text.strip());
        if (!m.matches()) {
            throw new OverlayException(OverlayException.Kind.INPUT, option + " " + text + ": not a byte count; give e.g. 1G, 256M, 64K,"
                    + " 4096 or 0x40000000");
        }
        BigInteger v = m.group(1).toLowerCase(Locale.ROOT).startsWith("0x") ? new BigInteger(m.group(1).substring(2), 16)
                : new BigInteger(m.group(1));
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        v = v.shiftLeft(shift);
        if (v.bitLength() > 62) {
            throw new OverlayException(OverlayException.Kind.INPUT, option + " " + text + ": too large for FPGA memory");
        }
        return v.longValueExact();
    }
}
