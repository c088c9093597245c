// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/** Formatting of byte counts and addresses for error messages, shared by the runtime's packages. */
public final class Bytes {
    private Bytes() {
    }

    /** {@code 1048576 (1 MB)}, {@code 1048572 (1023.996 KB)}: the exact count, then a readable size. */
    public static String size(long bytes) {
        if (bytes < 1024 && bytes > -1024) {
            return bytes + " B";
        }
        return bytes + " B (" + human(bytes) + ")";
    }

    /** A readable size: 64 KB, 1 MB, 1.5 GB (binary units, at most three decimals). */
    public static String human(long bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        String s = String.format(java.util.Locale.ROOT, "%.3f", v).replaceAll("\\.?0+$", "");
        return s + " " + units[u];
    }

    /** An address as unsigned hexadecimal: {@code 0x7f0000010000}. */
    public static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
