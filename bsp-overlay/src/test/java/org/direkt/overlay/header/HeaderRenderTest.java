// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.bridge.Bridge;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code direkt_dma.h} renders for both presets, with the configured channels and nothing left unresolved. */
class HeaderRenderTest {

    @ParameterizedTest
    @EnumSource(Preset.class)
    void rendersDeterministicallyWithTheConfiguredChannels(Preset preset) throws Exception {
        String h = preset.header();
        assertEquals(h, preset.header(), "two renders differ");
        HeaderFiles.write(HeaderFiles.dir("render-" + preset.name().toLowerCase(java.util.Locale.ROOT)), "direkt_dma.h", h);

        assertFalse(h.contains("$"), "an unresolved Velocity reference is left: " + around(h, "$"));
        assertFalse(h.contains("#error"), "the header carries an #error: " + around(h, "#error"));
        assertFalse(h.contains("\r"), "CR in the header");
        assertFalse(h.contains("\n\n\n"), "two empty lines in a row at: " + around(h, "\n\n\n"));
        assertTrue(h.contains("#ifndef DIREKT_DMA_H\n#define DIREKT_DMA_H\n"), "include guard");
        assertTrue(h.trim().endsWith("#endif /* DIREKT_DMA_H */"), "include guard end");
        assertTrue(h.contains("#define DIREKT_LAYOUT_VERSION " + Layout.VERSION + "\n"));
        assertTrue(h.contains("#define DIREKT_MAX_BYTES " + (long) Layout.MAX_DWORDS * 4 + "U\n"));
        for (Layout.Error e : Layout.Error.values()) {
            assertTrue(h.contains("#define DIREKT_ERR_" + e.name() + " " + e.code() + " "), "error " + e);
        }
        Bridge.Params p = preset.params();
        for (BridgeModes.Direction d : BridgeModes.Direction.values()) {
            String desc = p.descChannel(d);
            String status = p.statusChannel(d);
            assertTrue(h.contains("\nchannel cldesc_t " + desc + " __attribute__((depth(0))) __attribute__((io(\"" + desc + "\")));\n"),
                    "descriptor channel " + desc);
            assertTrue(h.contains("\nchannel ulong " + status + " __attribute__((depth(0))) __attribute__((io(\"" + status + "\")));\n"),
                    "status channel " + status);
            assertTrue(h.contains("write_channel_intel(" + desc + ", d);"), "submit on " + desc);
            assertTrue(h.contains("read_channel_intel(" + status + ");"), "wait on " + status);
            assertTrue(h.contains("io(\"" + desc + "\")") && h.contains("io(\"" + status + "\")"), "configuration comment");
        }
        assertTrue(h.contains("#pragma OPENCL EXTENSION cl_intel_channels : enable\n"));
        assertTrue(h.contains("typedef struct {\n    uint x0;"), "cldesc_t");
        assertTrue(h.contains("} cldesc_t;\n"), "cldesc_t");
        assertTrue(h.contains("typedef ulong direkt_status_t;\n"));
        boolean managed = p.idMode() == BridgeModes.IdMode.MANAGED;
        boolean tagged = p.statusMode() == BridgeModes.StatusMode.TAGGED;
        assertTrue(h.contains("#define DIREKT_ID_MODE_MANAGED " + (managed ? 1 : 0) + "\n"));
        assertTrue(h.contains("#define DIREKT_ID_MODE_PAPER " + (managed ? 0 : 1) + "\n"));
        assertTrue(h.contains("#define DIREKT_STATUS_MODE_TAGGED " + (tagged ? 1 : 0) + "\n"));
        assertTrue(h.contains("#define DIREKT_STATUS_MODE_CYCLES " + (tagged ? 0 : 1) + "\n"));
        assertTrue(h.contains("direkt_desc_gpu_to_fpga(ulong gpu_paddr, __global void *fpga_dst, uint bytes, uint tag"
                + (managed ? ")" : ", uchar id)")), "gpu_to_fpga signature");
        assertTrue(h.contains("direkt_desc_fpga_to_gpu(__global const void *fpga_src, ulong gpu_paddr, uint bytes, uint tag"
                + (managed ? ")" : ", uchar id)")), "fpga_to_gpu signature");
        assertTrue(h.contains("direkt_desc_make(ulong src, ulong dst, uint bytes, uint id_or_0, uint tag)"));
        for (Layout.Field f : Layout.CLDESC.fields()) {
            assertTrue(h.contains("direkt_cldesc_get_" + f.name() + "(cldesc_t d)"), "getter " + f.name());
            assertTrue(h.contains("direkt_cldesc_set_" + f.name() + "(cldesc_t d, uint v)"), "setter " + f.name());
            String m = "DIREKT_CLDESC_" + f.name().toUpperCase(java.util.Locale.ROOT);
            assertTrue(h.contains("#define " + m + "_WORD " + f.lsb() / 32 + "\n"), m);
            assertTrue(h.contains("#define " + m + "_SHIFT " + f.lsb() % 32 + "\n"), m);
            assertTrue(h.contains("#define " + m + "_WIDTH " + f.width() + "\n"), m);
        }
        Layout.Word status = tagged ? Layout.KERNEL_STATUS_TAGGED : Layout.KERNEL_STATUS_CYCLES;
        Layout.Word other = tagged ? Layout.KERNEL_STATUS_CYCLES : Layout.KERNEL_STATUS_TAGGED;
        for (Layout.Field f : status.fields()) {
            assertTrue(h.contains(" direkt_status_" + f.name() + "(direkt_status_t s)"), "decoder " + f.name());
            assertTrue(h.contains("#define DIREKT_STATUS_" + f.name().toUpperCase(java.util.Locale.ROOT) + "_LSB " + f.lsb() + "\n"));
        }
        for (Layout.Field f : other.fields()) {
            assertFalse(h.contains(" direkt_status_" + f.name() + "(direkt_status_t s)"), "other mode's decoder " + f.name());
        }
        assertTrue(h.contains("direkt_status_ok(direkt_status_t s)"));
        for (String s : List.of("DIREKT_KERNEL_ARGS", "DIREKT_KERNEL_ARGS_ONLY", "DIREKT_BEGIN")) {
            assertEquals(2, count(h, "#define " + s + " ") + count(h, "#define " + s + "\n"), s + " in both modes");
        }
        assertTrue(h.contains("#ifndef DIREKT_EMULATION\n"), "hardware/emulation switch");
    }

    /** cldesc_t lists each word's fields with their bit ranges, as the Layout has them. */
    @ParameterizedTest
    @EnumSource(Preset.class)
    void cldescListsEveryFieldWithItsBits(Preset preset) {
        String h = preset.header();
        for (int x = 0; x < Layout.CLDESC_WORDS; x++) {
            StringBuilder want = new StringBuilder("    uint x" + x + "; /* ");
            String sep = "";
            for (Layout.Field f : Layout.CLDESC.fields()) {
                if (f.lsb() / 32 == x) {
                    int shift = f.lsb() % 32;
                    want.append(sep).append(f.name()).append(" [").append(shift + f.width() - 1).append(':').append(shift).append(']');
                    sep = ", ";
                }
            }
            assertTrue(h.contains(want + " */\n"), "cldesc_t word x" + x + ": " + want);
        }
    }

    private static int count(String s, String sub) {
        int n = 0;
        for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) {
            n++;
        }
        return n;
    }

    private static String around(String h, String what) {
        int i = h.indexOf(what);
        if (i < 0) {
            return "";
        }
        return "..." + h.substring(Math.max(0, i - 80), Math.min(h.length(), i + 80)) + "...";
    }
}
