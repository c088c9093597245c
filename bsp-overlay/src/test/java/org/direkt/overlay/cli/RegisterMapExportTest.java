// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overlay's register map exports: the SystemRDL file and FuseSoC core always; the HTML reference
 * and C header through the PeakRDL program it is given (here a stand-in that writes what PeakRDL's
 * html and c-header write, with the time stamps that must not reach the overlay). make rdl-check
 * runs the real PeakRDL and systemrdl-compiler.
 */
class RegisterMapExportTest {

    @TempDir
    Path tmp;

    /** A stand-in for peakrdl: html writes an index with time stamps and a binary font, c-header a header; FAIL=1 fails. */
    private Path fakePeakrdl(boolean fail) throws IOException {
        Path p = tmp.resolve(fail ? "peakrdl-failing" : "peakrdl");
        String script = """
                #!/bin/sh
                %s
                cmd=$1; src=$2; out=$4
                [ -f "$src" ] || { echo "no source $src"; exit 2; }
                case "$cmd" in
                  html) mkdir -p "$out/fonts"; ts=$(date +%%s%%N)
                        printf '<html><script>var BUILD_TS = %%s;</script><script src="data/data_index.js?ts=%%s"></script></html>\\n' "$ts" "$ts" > "$out/index.html"
                        printf 'MAGIC WIN0_CTRL\\n' > "$out/data.js"
                        printf '\\000\\001\\377glyphs' > "$out/fonts/x.ttf" ;;
                  c-header) printf '#define DIREKT_BRIDGE_CSR__MAGIC__VALUE_reset 0x44524b54\\n' > "$out" ;;
                  *) echo "unknown command $cmd"; exit 2 ;;
                esac
                """.formatted(fail ? "echo 'boom: the renderer broke'; exit 3" : "");
        Files.writeString(p, script);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void withoutPeakrdlTheRdlAndCoreAreWrittenAndOverlayMdSaysHowToRender() throws IOException {
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", Cli.exampleCopy(tmp.resolve("bsp")), "--out", out, "--no-peakrdl");
        String rdl = Cli.read(out.resolve("direkt_bridge_csr.rdl"));
        assertTrue(rdl.contains("addrmap direkt_bridge_csr {"), rdl);
        assertTrue(rdl.contains("} MAGIC @ 0x0;"), rdl);
        String core = Cli.read(out.resolve("ip/direkt_bridge.core"));
        assertTrue(core.startsWith("CAPI=2:\n") && core.contains("    toplevel: direkt_bridge\n"), core);
        try (var ip = Files.list(out.resolve("ip"))) {
            for (Path v : ip.filter(f -> f.toString().endsWith(".v")).toList()) {
                assertTrue(core.contains("      - " + v.getFileName() + "\n"), "the core names " + v.getFileName());
            }
        }
        assertFalse(Files.exists(out.resolve("doc/registers")));
        assertFalse(Files.exists(out.resolve("include/direkt_bridge_csr.h")));
        assertTrue(r.out().contains("register reference and C header not rendered (--no-peakrdl)"), r.show());
        Markdown md = Markdown.parse(Cli.read(out.resolve("OVERLAY.md")));
        assertTrue(md.steps("What to do by hand").stream().anyMatch(s -> s.startsWith("Render the register reference")
                && s.contains("peakrdl html direkt_bridge_csr.rdl -o doc/registers")), md.steps("What to do by hand").toString());
    }

    @Test
    void withPeakrdlTheReferenceAndHeaderAreWrittenByteStable() throws IOException {
        Path out = tmp.resolve("out");
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path peakrdl = fakePeakrdl(false);
        Cli.Run first = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--peakrdl", peakrdl);
        String index = Cli.read(out.resolve("doc/registers/index.html"));
        CRC32 crc = new CRC32();
        crc.update(Files.readAllBytes(out.resolve("direkt_bridge_csr.rdl")));
        assertTrue(index.contains("var BUILD_TS = " + crc.getValue() + ";") && index.contains("data_index.js?ts=" + crc.getValue() + "\""),
                "time stamps replaced by the RDL's checksum: " + index);
        assertTrue(Files.exists(out.resolve("doc/registers/fonts/x.ttf")), first.show());
        String header = Cli.read(out.resolve("include/direkt_bridge_csr.h"));
        assertTrue(header.startsWith("// SPDX-License-Identifier: 0BSD\n"), header);
        assertTrue(header.contains("#define DIREKT_BRIDGE_CSR__MAGIC__VALUE_reset 0x44524b54"), header);
        Markdown md = Markdown.parse(Cli.read(out.resolve("OVERLAY.md")));
        assertTrue(md.steps("What to do by hand").stream().noneMatch(s -> s.startsWith("Render the register reference")));
        String changed = String.join(" ", md.section("What changed").stream().map(Markdown::text).toList());
        assertTrue(changed.contains("doc/registers/index.html") && changed.contains("include/direkt_bridge_csr.h"), changed);

        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--peakrdl", peakrdl);
        assertTrue(again.out().contains("0 files written"), "a second run changes nothing: " + again.show());

        // a dry run against a tree without the reference: the binary file is named, not printed
        Path empty = tmp.resolve("empty");
        Cli.Run dry = Cli.ok("overlay", "--bsp", bsp, "--out", empty, "--peakrdl", peakrdl, "--dry-run");
        assertTrue(dry.out().contains("Binary files /dev/null and b/doc/registers/fonts/x.ttf differ\n"), dry.show());
        assertTrue(dry.out().contains("+++ b/doc/registers/index.html\n"), dry.show());
        assertFalse(dry.out().contains("glyphs"), "no binary content in the diff");
        assertFalse(Files.exists(empty));
    }

    @Test
    void aFailingOrMissingPeakrdlWritesNothing() throws IOException {
        Path out = tmp.resolve("out");
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Cli.Run failing = Cli.run("overlay", "--bsp", bsp, "--out", out, "--peakrdl", fakePeakrdl(true));
        assertEquals(4, failing.exit(), failing.show());
        assertTrue(failing.err().contains("peakrdl html failed (exit 3") && failing.err().contains("boom: the renderer broke"),
                failing.show());
        assertFalse(Files.exists(out), "nothing written");

        Path missing = tmp.resolve("no/peakrdl");
        Cli.Run absent = Cli.run("overlay", "--bsp", bsp, "--out", out, "--peakrdl", missing);
        assertEquals(2, absent.exit(), absent.show());
        assertTrue(absent.err().contains(missing + ": no such program"), absent.show());
        assertFalse(Files.exists(out));

        Cli.Run both = Cli.run("overlay", "--bsp", bsp, "--out", out, "--peakrdl", missing, "--no-peakrdl");
        assertEquals(2, both.exit(), both.show());
        assertTrue(both.err().contains("give at most one of --peakrdl and --no-peakrdl"), both.show());
        assertEquals(new String(Files.readAllBytes(bsp.resolve("hardware/direkt_ref/board_spec.xml")), StandardCharsets.UTF_8),
                Cli.read(Cli.exampleCopy(tmp.resolve("fresh")).resolve("hardware/direkt_ref/board_spec.xml")), "the BSP is untouched");
    }
}
