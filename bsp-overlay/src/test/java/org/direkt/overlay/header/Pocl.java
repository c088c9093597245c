// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds and runs OpenCL C under PoCL through a small C driver ({@code src/test/c/direkt_cl_driver.c})
 * compiled with gcc at test time. A missing tool fails the test, naming what to install: these
 * tests never skip.
 */
final class Pocl {
    private static final String SETUP = " (make setup installs it; Debian packages gcc, opencl-c-headers, ocl-icd-opencl-dev, pocl-opencl-icd)";
    /** The C compiler; a test of this class's own failure message may point it elsewhere. */
    private static final String CC = System.getProperty("direkt.test.cc", "gcc");
    private static Path driver;

    private Pocl() {
    }

    /** The output of a process that ended. */
    record Result(int exitCode, String output) {
    }

    /** The compiled driver (compiled once per JVM). */
    static synchronized Path driver() {
        if (driver != null) {
            return driver;
        }
        Path src = HeaderFiles.module().resolve("src/test/c/direkt_cl_driver.c");
        if (!Files.isRegularFile(src)) {
            fail("the OpenCL test driver source is missing: " + src);
        }
        Path dir = HeaderFiles.dir("driver");
        Path exe = dir.resolve("direkt_cl_driver");
        Result r;
        try {
            r = run(dir, List.of(CC, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(), src.toString(), "-lOpenCL"));
        } catch (IOException e) {
            return fail(CC + " is missing: cannot run it (" + e.getMessage() + ")" + SETUP);
        }
        if (r.exitCode() != 0) {
            String o = r.output();
            String what = o.contains("CL/cl.h") ? "the OpenCL C headers (CL/cl.h) are missing: install opencl-c-headers"
                    : o.contains("lOpenCL") ? "the OpenCL ICD loader library (libOpenCL.so) is missing: install ocl-icd-opencl-dev"
                    : "gcc could not build the OpenCL test driver";
            fail(what + SETUP + "\n" + o);
        }
        driver = exe;
        return exe;
    }

    /**
     * Builds {@code source} with {@code options} and, unless {@code kernel} is "-", runs it on
     * {@code global} work-items with the given buffer arguments (see the driver's usage). Fails the
     * test, with the build log, unless the driver succeeds.
     */
    static Result build(Path dir, Path source, String options, String kernel, int global, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(driver().toString(), source.toString(), options, kernel, Integer.toString(global)));
        cmd.addAll(args);
        Result r;
        try {
            r = run(dir, cmd);
        } catch (IOException e) {
            return fail("cannot run the OpenCL test driver: " + e.getMessage());
        }
        switch (r.exitCode()) {
            case 0 -> {
                return r;
            }
            case 2 -> fail("PoCL could not build " + source.getFileName() + " with options '" + options + "':\n" + r.output());
            case 3 -> fail("no usable PoCL OpenCL platform: is pocl-opencl-icd installed?" + SETUP + "\n" + r.output());
            default -> fail("the OpenCL test driver failed (exit " + r.exitCode() + ") on " + source.getFileName() + ":\n" + r.output());
        }
        return r;
    }

    private static Result run(Path dir, List<String> cmd) throws IOException {
        Path log = Files.createTempFile(dir, "process-", ".log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("timed out after 300 s: " + String.join(" ", cmd) + "\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted: " + String.join(" ", cmd));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }
}
