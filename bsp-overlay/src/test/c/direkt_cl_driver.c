// SPDX-License-Identifier: Apache-2.0
/*
 * direkt_cl_driver: builds one OpenCL C source with PoCL and, optionally, runs one kernel of it.
 * Used by the JUnit tests of org.direkt.overlay.header (compiled at test time with
 * gcc -o direkt_cl_driver direkt_cl_driver.c -lOpenCL).
 *
 *   direkt_cl_driver SOURCE OPTIONS KERNEL GLOBAL_SIZE ARG...
 *
 * KERNEL "-" builds only. Each ARG is one kernel argument, a buffer or a scalar:
 *   in:FILE            initialised from FILE (read-only)
 *   out:BYTES:FILE     BYTES zero bytes; written to FILE after the run
 *   inout:FILE:OUTFILE initialised from FILE; written to OUTFILE after the run
 *   u32:VALUE          a uint argument (decimal or 0x hex)
 * The build log goes to stderr (always when not empty). Exit codes: 0 ok, 1 usage or file error,
 * 2 build failed, 3 no PoCL platform or device, 4 other OpenCL error.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32

static void die(int code, const char *what, cl_int err)
{
    fprintf(stderr, "direkt_cl_driver: %s (OpenCL error %d)\n", what, (int)err);
    exit(code);
}

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "direkt_cl_driver: cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "direkt_cl_driver: cannot read %s\n", path);
        exit(1);
    }
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "direkt_cl_driver: cannot write %s\n", path);
        exit(1);
    }
}

static cl_platform_id pocl_platform(void)
{
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &n);
    if (err != CL_SUCCESS || n == 0) {
        die(3, "no OpenCL platform: is the PoCL ICD (Debian package pocl-opencl-icd) installed?", err);
    }
    cl_platform_id ps[16];
    if (n > 16) {
        n = 16;
    }
    clGetPlatformIDs(n, ps, NULL);
    for (cl_uint i = 0; i < n; i++) {
        char name[256] = {0};
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (strstr(name, "Portable Computing Language") || strstr(name, "PoCL") || strstr(name, "pocl")) {
            return ps[i];
        }
    }
    die(3, "no PoCL platform among the OpenCL platforms: install pocl-opencl-icd", CL_SUCCESS);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc - 5 > MAX_ARGS) {
        fprintf(stderr, "usage: %s SOURCE OPTIONS KERNEL GLOBAL_SIZE ARG...\n", argv[0]);
        return 1;
    }
    const char *kernel_name = argv[3];
    size_t global = (size_t)strtoul(argv[4], NULL, 10);
    cl_int err;
    cl_platform_id platform = pocl_platform();
    cl_device_id dev;
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    if (err != CL_SUCCESS) {
        die(3, "the PoCL platform has no device", err);
    }
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        die(4, "clCreateContext", err);
    }
    size_t src_len;
    const char *src = read_file(argv[1], &src_len);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &src_len, &err);
    if (err != CL_SUCCESS) {
        die(4, "clCreateProgramWithSource", err);
    }
    cl_int build = clBuildProgram(prog, 1, &dev, argv[2], NULL, NULL);
    size_t log_len = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len);
    char *log = calloc(log_len + 1, 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, log_len, log, NULL);
    if (strspn(log, " \t\r\n") < strlen(log)) {
        fprintf(stderr, "---- build log ----\n%s\n---- end of build log ----\n", log);
    }
    if (build != CL_SUCCESS) {
        die(2, "clBuildProgram failed", build);
    }
    if (strcmp(kernel_name, "-") == 0) {
        return 0;
    }
    cl_kernel k = clCreateKernel(prog, kernel_name, &err);
    if (err != CL_SUCCESS) {
        die(4, "clCreateKernel", err);
    }
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (err != CL_SUCCESS) {
        die(4, "clCreateCommandQueue", err);
    }
    int nargs = argc - 5;
    cl_mem mem[MAX_ARGS];
    void *host[MAX_ARGS];
    size_t size[MAX_ARGS];
    const char *out_path[MAX_ARGS];
    for (int i = 0; i < nargs; i++) {
        char *spec = strdup(argv[5 + i]);
        char *kind = strtok(spec, ":");
        char *a = strtok(NULL, ":");
        char *b = strtok(NULL, "");
        out_path[i] = NULL;
        mem[i] = NULL;
        if (kind && a && strcmp(kind, "u32") == 0) {
            cl_uint v = (cl_uint)strtoul(a, NULL, 0);
            host[i] = NULL;
            err = clSetKernelArg(k, (cl_uint)i, sizeof(v), &v);
            if (err != CL_SUCCESS) {
                die(4, "clSetKernelArg", err);
            }
            continue;
        } else if (kind && a && strcmp(kind, "in") == 0) {
            host[i] = read_file(a, &size[i]);
        } else if (kind && a && b && strcmp(kind, "inout") == 0) {
            host[i] = read_file(a, &size[i]);
            out_path[i] = b;
        } else if (kind && a && b && strcmp(kind, "out") == 0) {
            size[i] = (size_t)strtoul(a, NULL, 10);
            host[i] = calloc(size[i] ? size[i] : 1, 1);
            out_path[i] = b;
        } else {
            fprintf(stderr, "direkt_cl_driver: bad argument '%s'\n", argv[5 + i]);
            return 1;
        }
        mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size[i] ? size[i] : 1, host[i], &err);
        if (err != CL_SUCCESS) {
            die(4, "clCreateBuffer", err);
        }
        err = clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mem[i]);
        if (err != CL_SUCCESS) {
            die(4, "clSetKernelArg", err);
        }
    }
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        die(4, "clEnqueueNDRangeKernel", err);
    }
    for (int i = 0; i < nargs; i++) {
        if (out_path[i]) {
            err = clEnqueueReadBuffer(q, mem[i], CL_TRUE, 0, size[i], host[i], 0, NULL, NULL);
            if (err != CL_SUCCESS) {
                die(4, "clEnqueueReadBuffer", err);
            }
            write_file(out_path[i], host[i], size[i]);
        }
    }
    clFinish(q);
    return 0;
}
