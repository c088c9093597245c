// SPDX-License-Identifier: Apache-2.0
/*
 * Reference for the host runtime's GPU benchmark: what the Java runtime does for one buffer,
 * written directly against the CUDA driver API in C. One sample: allocate, set SYNC_MEMOPS, export
 * a dma-buf fd, build the PCIe address table, then (untimed) close and free. The table is built as
 * AddressTable.of builds it, step for step, from the page addresses of the same simulated placement
 * (a BAR aperture with every 7th page moved; made before the samples, as GpuBench makes them):
 * the pages' 64 KB alignment checked as one OR over them, one pass noting every segment's start in
 * scratch arrays kept from one table to the next, the notes copied into arrays of exactly the
 * segment count, and the check that no two segments share a bus address (a bitmap of the
 * pages' span, or for pages spread wide, starts and ends sorted separately with an inline sort as
 * Java's Arrays.sort is). Each step is timed on its own as well, so a difference can be found by
 * step.
 *
 *   gcc -O2 -o gpu_bench gpu_bench.c -ldl
 *   ./gpu_bench [repeats]          one JSON object per size, 1 MB .. 1 GB, on stdout
 *   ./gpu_bench --serve [--cpu N]  pins itself to CPU N once the context is made, then answers
 *                                  each "BYTES COUNT" line on stdin with one JSON object of COUNT
 *                                  samples: GpuBench drives it, alternating with the Java runtime
 *
 * The driver API is reached through dlopen("libcuda.so.1"), so no CUDA headers are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <sched.h>
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
 * end is below the next start (AddressTable's check for pages spread wide). */
static int segments_disjoint_sorted(const uint64_t *offset, const uint64_t *bus, size_t n) {
    uint64_t *starts = malloc(n * sizeof(uint64_t)), *lasts = malloc(n * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) {
        starts[i] = bus[i];
        lasts[i] = bus[i] + (offset[i + 1] - offset[i]) - 1;
    }
    sort_u64(starts, n);
    sort_u64(lasts, n);
    int ok = 1;
    for (size_t i = 0; i + 1 < n && ok; i++) ok = lasts[i] < starts[i + 1];
    free(starts);
    free(lasts);
    return ok;
}

/* AddressTable's check: within a span of page numbers of at most 64 times the range's pages, each
 * segment marks its pages in a bitmap of the span, word by word; a page marked twice is shared. */
static int segments_disjoint(const uint64_t *offset, const uint64_t *bus, size_t n) {
    if (n < 2) return 1;
    uint64_t low = UINT64_MAX, high = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t first = bus[i] >> 16, last = first + (offset[i + 1] - offset[i]) / PAGE - 1;
        if (first < low) low = first;
        if (last > high) high = last;
    }
    uint64_t span = high - low + 1;
    if (span > 64 * (offset[n] / PAGE)) return segments_disjoint_sorted(offset, bus, n);
    uint64_t *marked = calloc((span + 63) / 64, sizeof(uint64_t));
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        uint64_t from = (bus[i] >> 16) - low, to = from + (offset[i + 1] - offset[i]) / PAGE;
        size_t w = from / 64, last = (to - 1) / 64;
        uint64_t head = ~0ULL << (from % 64), tail = ~0ULL >> (63 - (to - 1) % 64);
        if (w == last) {
            ok = !(marked[w] & head & tail);
            marked[w] |= head & tail;
            continue;
        }
        ok = !(marked[w] & head);
        marked[w] |= head;
        for (w++; w < last && ok; w++) {
            ok = !marked[w];
            marked[w] = ~0ULL;
        }
        ok = ok && !(marked[last] & tail);
        marked[last] |= tail;
    }
    free(marked);
    return ok;
}

static void bind_driver(void *lib) {
    p_cuInit = sym(lib, "cuInit");
    p_cuDeviceGet = sym(lib, "cuDeviceGet");
    p_cuDevicePrimaryCtxRetain = sym(lib, "cuDevicePrimaryCtxRetain");
    p_cuCtxSetCurrent = sym(lib, "cuCtxSetCurrent");
    p_cuMemAlloc = sym(lib, "cuMemAlloc_v2");
    p_cuMemFree = sym(lib, "cuMemFree_v2");
    p_cuPointerSetAttribute = sym(lib, "cuPointerSetAttribute");
    p_cuMemGetHandleForAddressRange = sym(lib, "cuMemGetHandleForAddressRange");
    p_cuGetErrorName = sym(lib, "cuGetErrorName");
}

/* The table AddressTable.of builds from the pages' bus addresses; returns its segment count. */
static size_t build_table(uint64_t size, const uint64_t *page) {
    uint64_t pages = size / PAGE;
    /* every segment's start noted in scratch arrays (warm, as the Java side's per-thread notes
     * are); the table's arrays are then exact copies of the notes */
    static uint64_t *notes_offset, *notes_bus;
    static size_t notes_size;
    if (pages + 1 > notes_size) {
        free(notes_offset);
        free(notes_bus);
        notes_size = pages + 1;
        notes_offset = malloc(notes_size * sizeof(uint64_t));
        notes_bus = malloc(notes_size * sizeof(uint64_t));
    }
    /* alignment as one OR over every page; the pages searched only when it shows a low bit */
    uint64_t low_bits = 0;
    for (uint64_t i = 0; i < pages; i++) low_bits |= page[i];
    if (low_bits & (PAGE - 1)) {
        for (uint64_t i = 0; i < pages; i++) {
            if (page[i] & (PAGE - 1)) {
                fprintf(stderr, "gpu_bench: page %llu is not 64 KB aligned\n", (unsigned long long)i);
                exit(1);
            }
        }
    }
    uint64_t previous = page[0];
    notes_offset[0] = 0;
    notes_bus[0] = previous;
    size_t n = 1;
    for (uint64_t i = 1; i < pages; i++) {
        if (previous == 0 - PAGE || page[i] != previous + PAGE) { /* the bus does not wrap */
            notes_offset[n] = i * PAGE;
            notes_bus[n] = page[i];
            n++;
        }
        previous = page[i];
    }
    notes_offset[n] = size;
    uint64_t *seg_offset = malloc((n + 1) * sizeof(uint64_t));
    uint64_t *seg_bus = malloc(n * sizeof(uint64_t));
    memcpy(seg_offset, notes_offset, (n + 1) * sizeof(uint64_t));
    memcpy(seg_bus, notes_bus, n * sizeof(uint64_t));
    if (!segments_disjoint(seg_offset, seg_bus, n)) {
        fprintf(stderr, "gpu_bench: two pages share a bus address\n");
        exit(1);
    }
    free(seg_offset);
    free(seg_bus);
    return n;
}

/* One buffer: total and the four steps (alloc, SYNC_MEMOPS, export, table) in microseconds. */
/* Where the last sample's allocation was: the driver reuses a freed range or takes a new one. */
static CUdeviceptr last_address;

static size_t sample(size_t size, const uint64_t *page, double *total, double step[4]) {
    double t0 = now_us();
    CUdeviceptr p;
    check(p_cuMemAlloc(&p, size), "cuMemAlloc_v2");
    last_address = p;
    double ta = now_us();
    unsigned int one = 1;
    check(p_cuPointerSetAttribute(&one, ATTR_SYNC_MEMOPS, p), "cuPointerSetAttribute");
    double tb = now_us();
    int fd = -1;
    check(p_cuMemGetHandleForAddressRange(&fd, p, size, HANDLE_DMA_BUF_FD, 0), "cuMemGetHandleForAddressRange");
    double tc = now_us();
    size_t segments = build_table(size, page);
    double t1 = now_us();
    close(fd);
    check(p_cuMemFree(p), "cuMemFree_v2");
    *total = t1 - t0;
    step[0] = ta - t0;
    step[1] = tb - ta;
    step[2] = tc - tb;
    step[3] = t1 - tc;
    return segments;
}

#ifdef GPU_BENCH_LIBRARY
/* Built with -shared -fPIC -DGPU_BENCH_LIBRARY, the same sample runs inside the Java process
 * (GpuBench's "C in the JVM" column): same address space, same threads, and the context the Java
 * side made current, so what the two columns differ by is the Java code alone. */
int gpu_bench_bind(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return -1;
    bind_driver(lib);
    return 0;
}

/* One sample: out[0] the total, out[1..4] the steps; returns the segment count. */
uint64_t gpu_bench_sample(uint64_t size, const uint64_t *page, double *out) {
    double step[4];
    size_t n = sample(size, page, &out[0], step);
    memcpy(out + 1, step, sizeof step);
    return n;
}

/* The device address the last sample allocated. */
uint64_t gpu_bench_last_address(void) {
    return last_address;
}
#else
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Page i's bus address in the simulated aperture: in order, except every 7th page is placed
 * after the region, which breaks contiguity there (same rule as the Java benchmark). */
static uint64_t page_bus(uint64_t i, uint64_t pages) {
    return (i % 7 == 6) ? BAR_BASE + (pages + i) * PAGE : BAR_BASE + i * PAGE;
}

/* Where the importer would say the pages are: the same placement GpuBench.pages makes, computed
 * before the samples (on either side the runtime is handed these addresses, it does not make them). */
static uint64_t *placement(uint64_t size) {
    uint64_t pages = size / PAGE;
    uint64_t *page = malloc(pages * sizeof(uint64_t));
    for (uint64_t i = 0; i < pages; i++) page[i] = page_bus(i, pages);
    return page;
}

static void print_list(const char *name, const double *v, int n) {
    printf("\"%s\": [", name);
    for (int r = 0; r < n; r++) printf("%s%.2f", r ? ", " : "", v[r]);
    printf("]");
}

/* Answers "BYTES COUNT" lines until end of input: COUNT samples each, every sample listed. */
static int serve(void) {
    char line[128];
    while (fgets(line, sizeof line, stdin)) {
        unsigned long long size;
        int count;
        if (sscanf(line, "%llu %d", &size, &count) != 2 || count < 1 || size == 0 || size % PAGE) {
            fprintf(stderr, "gpu_bench: expected \"BYTES COUNT\" (BYTES a multiple of 64 KB), got: %s", line);
            return 2;
        }
        double *t = calloc(count, sizeof(double)), *st[4];
        CUdeviceptr *addr = calloc(count, sizeof(CUdeviceptr));
        for (int k = 0; k < 4; k++) st[k] = calloc(count, sizeof(double));
        size_t segments = 0;
        uint64_t *page = placement(size);
        for (int r = 0; r < count; r++) {
            double step[4];
            segments = sample(size, page, &t[r], step);
            addr[r] = last_address;
            for (int k = 0; k < 4; k++) st[k][r] = step[k];
        }
        free(page);
        printf("{\"bytes\": %llu, \"segments\": %zu, ", size, segments);
        print_list("samples_us", t, count);
        printf(", \"steps_us\": {");
        const char *names[4] = {"alloc", "sync_memops", "export", "table"};
        for (int k = 0; k < 4; k++) {
            if (k) printf(", ");
            print_list(names[k], st[k], count);
        }
        printf("}, \"addresses\": [");
        for (int r = 0; r < count; r++) printf("%s%llu", r ? ", " : "", addr[r]);
        printf("]}\n");
        fflush(stdout);
        free(addr);
        free(t);
        for (int k = 0; k < 4; k++) free(st[k]);
    }
    return 0;
}

int main(int argc, char **argv) {
    int serving = 0, cpu = -1, repeats = 5;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--serve")) serving = 1;
        else if (!strcmp(argv[a], "--cpu") && a + 1 < argc) cpu = atoi(argv[++a]);
        else if (atoi(argv[a]) > 0) repeats = atoi(argv[a]);
        else {
            fprintf(stderr, "usage: gpu_bench [repeats] | gpu_bench --serve [--cpu N]\n");
            return 2;
        }
    }
    /* Freed blocks stay mapped, as a warm JVM heap's pages do: without this every large table array
     * is a fresh mmap and its page faults (glibc's 128 KB thresholds), work the Java side never does. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "gpu_bench: cannot load libcuda.so.1: %s\n", dlerror());
        return 2;
    }
    bind_driver(lib);

    CUdevice dev;
    CUcontext ctx;
    check(p_cuInit(0), "cuInit");
    check(p_cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    if (cpu >= 0) {
        /* after the context: the driver's own threads, started above, keep every CPU, unless the
         * whole process was started on one (GpuBench starts its servers under taskset) */
        cpu_set_t mask;
        CPU_ZERO(&mask);
        CPU_SET(cpu, &mask);
        if (sched_setaffinity(0, sizeof mask, &mask) != 0) {
            perror("gpu_bench: sched_setaffinity");
            return 2;
        }
    }
    if (serving) return serve();

    for (size_t size = 1ULL << 20; size <= 1ULL << 30; size <<= 1) {
        double *t = calloc(repeats, sizeof(double));
        double *step[4]; /* alloc, SYNC_MEMOPS, export, table */
        for (int k = 0; k < 4; k++) step[k] = calloc(repeats, sizeof(double));
        size_t segments = 0;
        uint64_t *page = placement(size);
        for (int r = -1; r < repeats; r++) { /* r = -1: warm-up, not counted */
            double total, st[4];
            segments = sample(size, page, &total, st);
            if (r >= 0) {
                t[r] = total;
                for (int k = 0; k < 4; k++) step[k][r] = st[k];
            }
        }
        free(page);
        qsort(t, repeats, sizeof(double), cmp);
        for (int k = 0; k < 4; k++) qsort(step[k], repeats, sizeof(double), cmp);
        printf("{\"bytes\": %zu, \"median_us\": %.1f, \"min_us\": %.1f, \"segments\": %zu, \"repeats\": %d, "
               "\"steps_median_us\": {\"alloc\": %.1f, \"sync_memops\": %.1f, \"export\": %.1f, \"table\": %.1f}, ",
               size, t[repeats / 2], t[0], segments, repeats, step[0][repeats / 2], step[1][repeats / 2],
               step[2][repeats / 2], step[3][repeats / 2]);
        print_list("samples_us", t, repeats);
        printf("}\n");
        fflush(stdout);
        free(t);
        for (int k = 0; k < 4; k++) free(step[k]);
    }
    return 0;
}
#endif
