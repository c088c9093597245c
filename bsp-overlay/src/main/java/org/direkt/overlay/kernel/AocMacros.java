// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The macros the offline compiler defines before it reads a kernel, so that a kernel's
 * {@code #if} branches are taken as they are in a real compile.
 *
 * <ul>
 *   <li>OpenCL C 1.2, as aoc runs its clang ({@code -cl-std=CL1.2}, a {@code spir64} target):
 *       {@code __OPENCL_VERSION__} and {@code __OPENCL_C_VERSION__} 120, {@code CL_VERSION_1_0} 100,
 *       {@code CL_VERSION_1_1} 110, {@code CL_VERSION_1_2} 120, {@code CL_VERSION_2_0} 200,
 *       {@code __ENDIAN_LITTLE__}, {@code __SPIR__} and {@code __SPIR64__} 1.</li>
 *   <li>For a board: {@code INTELFPGA_CL}, the SDK version the board is made for as Intel's guide
 *       describes it ({@code #if INTELFPGA_CL >= 191}): {@code <board version="19.1">} gives 191; a
 *       board older than 17.1 (the Altera SDK, which did not define it) leaves it undefined, one
 *       whose version is missing or of another form gets 1 (aoc's driver passes a bare
 *       {@code -DINTELFPGA_CL}). {@code AOCL_BOARD_<name>} and {@code ACL_BOARD_<name>} 1, with the
 *       board's {@code name}, as aoc's driver defines them.</li>
 * </ul>
 * The emulator's {@code __FPGA_EMULATION_X86__} ({@code aoc -march=emulator}) is not defined: a
 * lint checks the hardware compile; pass {@code -D __FPGA_EMULATION_X86__} to lint the emulator's
 * branch.
 */
public final class AocMacros {

    private static final Pattern VERSION = Pattern.compile("(\\d{1,2})\\.(\\d)(?:\\.\\d+)*");
    private static final Pattern IDENTIFIER_TAIL = Pattern.compile("[A-Za-z0-9_]+");

    private AocMacros() {
    }

    /** The OpenCL C 1.2 macros of aoc's clang, in definition order. */
    public static Map<String, String> openCl() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("__OPENCL_VERSION__", "120");
        m.put("__OPENCL_C_VERSION__", "120");
        m.put("CL_VERSION_1_0", "100");
        m.put("CL_VERSION_1_1", "110");
        m.put("CL_VERSION_1_2", "120");
        m.put("CL_VERSION_2_0", "200");
        m.put("__ENDIAN_LITTLE__", "1");
        m.put("__SPIR__", "1");
        m.put("__SPIR64__", "1");
        return m;
    }

    /**
     * {@link #openCl()} plus the board's macros.
     *
     * @param boardName the {@code name} of {@code <board>}
     * @param version   its {@code version}, if it has one
     */
    public static Map<String, String> forBoard(String boardName, Optional<String> version) {
        Map<String, String> m = openCl();
        Optional<String> sdk = version.isEmpty() ? Optional.of("1") : intelFpgaCl(version.get());
        sdk.ifPresent(v -> m.put("INTELFPGA_CL", v));
        if (IDENTIFIER_TAIL.matcher(boardName).matches()) {
            m.put("AOCL_BOARD_" + boardName, "1");
            m.put("ACL_BOARD_" + boardName, "1");
        }
        return m;
    }

    /** 191 for "19.1", empty before 17.1, "1" for a version of another form. */
    private static Optional<String> intelFpgaCl(String version) {
        Matcher v = VERSION.matcher(version.strip());
        if (!v.matches()) {
            return Optional.of("1");
        }
        int number = Integer.parseInt(v.group(1)) * 10 + Integer.parseInt(v.group(2));
        return number < 171 ? Optional.empty() : Optional.of(Integer.toString(number));
    }
}
