/*
 * Reference for the host runtime's GPU benchmark: what the Java runtime does for one buffer,
 * written directly against the CUDA driver API in C. For each size: allocate, set SYNC_MEMOPS,
 * export a dma-buf fd, build the PCIe address table (64 KB pages, coalesced into segments; the
 * page addresses come from the same simulated placement the Java benchmark uses: a BAR aperture
 * with every 7th page moved) with the same checks the Java table makes (every page 64 KB aligned,
 * no two segments sharing a bus address: starts and ends sorted separately, with an inline sort as
 * Java's Arrays.sort is), close and free. Each step is timed on its own as well, so a difference
 * with the Java runtime can be found by step.
 * Prints one JSON object per size on stdout.
 *
 *   gcc -O2 -o gpu_bench gpu_bench.c -ldl && ./gpu_bench [repeats]
 *
 * The driver API is reached through dlopen("libcuda.so.1"), so no CUDA headers are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

#define PAGE (64ULL * 1024)
#define ATTR_SYNC_MEMOPS 6
#define HANDLE_DMA_BUF_FD 1
#define BAR_BASE 0x38000000000ULL

static CUresult (*p_cuInit)(unsigned);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemFree)(CUdeviceptr);
static CUresult (*p_cuPointerSetAttribute)(const void *, int, CUdeviceptr);
static CUresult (*p_cuMemGetHandleForAddressRange)(void *, CUdeviceptr, size_t, int, unsigned long long);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "gpu_bench: libcuda.so.1 has no %s\n", name);
        exit(2);
    }
    return p;
}

static void check(CUresult r, const char *call) {
    if (r != 0) {
        const char *name = "?";
        if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
        fprintf(stderr, "gpu_bench: %s failed: %d %s\n", call, r, name);
        exit(1);
    }
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Sorts uint64_t values in place, comparisons inline: the same work as Java's Arrays.sort(long[])
 * (a quicksort with insertion sort for short runs), not qsort's call per comparison. */
static void sort_u64(uint64_t *a, size_t n) {
    while (n > 16) {
        uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        uint64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            uint64_t t = a[i]; a[i] = a[j]; a[j] = t;
            i++;
            j--;
        }
        /* recurse into the smaller part, loop on the larger */
        if (j + 1 < n - j - 1) {
            sort_u64(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            sort_u64(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t k = i;
        while (k > 0 && a[k - 1] > v) {
            a[k] = a[k - 1];
            k--;
        }
        a[k] = v;
    }
}

/* Segments are pairwise disjoint exactly when, with starts and ends sorted separately, every
 * end is below the next start (the check AddressTable.of makes). */
static int segments_disjoint(const uint64_t *bus, const uint64_t *len, size_t n) {
    if (n < 2) return 1;
    uint64_t *starts = malloc(n * sizeof(uint64_t)), *lasts = malloc(n * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) {
        starts[i] = bus[i];
        lasts[i] = bus[i] + len[i] - 1;
    }
    sort_u64(starts, n);
    sort_u64(lasts, n);
    int ok = 1;
    for (size_t i = 0; i + 1 < n && ok; i++) ok = lasts[i] < starts[i + 1];
    free(starts);
    free(lasts);
    return ok;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Page i's bus address in the simulated aperture: in order, except every 7th page is placed
 * after the region, which breaks contiguity there (same rule as the Java benchmark). */
static uint64_t page_bus(uint64_t i, uint64_t pages) {
    return (i % 7 == 6) ? BAR_BASE + (pages + i) * PAGE : BAR_BASE + i * PAGE;
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    /* Freed blocks stay mapped, as a warm JVM heap's pages do: without this every large table array
     * is a fresh mmap and its page faults (glibc's 128 KB thresholds), work the Java side never does. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "gpu_bench: cannot load libcuda.so.1: %s\n", dlerror());
        return 2;
    }
    p_cuInit = sym(lib, "cuInit");
    p_cuDeviceGet = sym(lib, "cuDeviceGet");
    p_cuDevicePrimaryCtxRetain = sym(lib, "cuDevicePrimaryCtxRetain");
    p_cuCtxSetCurrent = sym(lib, "cuCtxSetCurrent");
    p_cuMemAlloc = sym(lib, "cuMemAlloc_v2");
    p_cuMemFree = sym(lib, "cuMemFree_v2");
    p_cuPointerSetAttribute = sym(lib, "cuPointerSetAttribute");
    p_cuMemGetHandleForAddressRange = sym(lib, "cuMemGetHandleForAddressRange");
    p_cuGetErrorName = sym(lib, "cuGetErrorName");

    CUdevice dev;
    CUcontext ctx;
    check(p_cuInit(0), "cuInit");
    check(p_cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

    for (size_t size = 1ULL << 20; size <= 1ULL << 30; size <<= 1) {
        double *t = calloc(repeats, sizeof(double));
        double *step[4]; /* alloc, SYNC_MEMOPS, export, table */
        for (int k = 0; k < 4; k++) step[k] = calloc(repeats, sizeof(double));
        size_t segments = 0;
        for (int r = -1; r < repeats; r++) { /* r = -1: warm-up, not counted */
            double t0 = now_us();
            CUdeviceptr p;
            check(p_cuMemAlloc(&p, size), "cuMemAlloc_v2");
            double ta = now_us();
            unsigned int one = 1;
            check(p_cuPointerSetAttribute(&one, ATTR_SYNC_MEMOPS, p), "cuPointerSetAttribute");
            double tb = now_us();
            int fd = -1;
            check(p_cuMemGetHandleForAddressRange(&fd, p, size, HANDLE_DMA_BUF_FD, 0), "cuMemGetHandleForAddressRange");
            double tc = now_us();
            uint64_t pages = size / PAGE;
            uint64_t *seg_bus = malloc(pages * sizeof(uint64_t));
            uint64_t *seg_len = malloc(pages * sizeof(uint64_t));
            size_t n = 0;
            uint64_t *page = malloc(pages * sizeof(uint64_t));
            for (uint64_t i = 0; i < pages; i++) page[i] = page_bus(i, pages);
            for (uint64_t i = 0; i < pages; i++) {
                if (page[i] & (PAGE - 1)) {
                    fprintf(stderr, "gpu_bench: page %llu is not 64 KB aligned\n", (unsigned long long)i);
                    return 1;
                }
            }
            for (uint64_t i = 0; i < pages; i++) {
                uint64_t bus = page[i];
                if (n > 0 && seg_bus[n - 1] + seg_len[n - 1] == bus) {
                    seg_len[n - 1] += PAGE;
                } else {
                    seg_bus[n] = bus;
                    seg_len[n] = PAGE;
                    n++;
                }
            }
            if (!segments_disjoint(seg_bus, seg_len, n)) {
                fprintf(stderr, "gpu_bench: two pages share a bus address\n");
                return 1;
            }
            free(page);
            double t1 = now_us();
            segments = n;
            free(seg_bus);
            free(seg_len);
            close(fd);
            check(p_cuMemFree(p), "cuMemFree_v2");
            if (r >= 0) {
                t[r] = t1 - t0;
                step[0][r] = ta - t0;
                step[1][r] = tb - ta;
                step[2][r] = tc - tb;
                step[3][r] = t1 - tc;
            }
        }
        qsort(t, repeats, sizeof(double), cmp);
        for (int k = 0; k < 4; k++) qsort(step[k], repeats, sizeof(double), cmp);
        printf("{\"bytes\": %zu, \"median_us\": %.1f, \"min_us\": %.1f, \"segments\": %zu, \"repeats\": %d, "
               "\"steps_median_us\": {\"alloc\": %.1f, \"sync_memops\": %.1f, \"export\": %.1f, \"table\": %.1f}, "
               "\"samples_us\": [", size, t[repeats / 2], t[0], segments, repeats, step[0][repeats / 2],
               step[1][repeats / 2], step[2][repeats / 2], step[3][repeats / 2]);
        for (int r = 0; r < repeats; r++) printf("%s%.1f", r ? ", " : "", t[r]);
        printf("]}\n");
        fflush(stdout);
        free(t);
        for (int k = 0; k < 4; k++) free(step[k]);
    }
    return 0;
}
