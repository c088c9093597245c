// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The importer's VM test, run as root inside the test VM (host-runtime/driver/test/vmtest.py boots
 * it): imports buffers of the test exporter for QEMU's edu device (the FPGA stand-in) through
 * /dev/direkt_importer, has edu DMA-read every returned segment and compares the bytes with what
 * the exporter wrote, and drives every error path, revocation and close. It opens CSR windows and
 * apertures on ivshmem's BAR 2 (the FPGA's BAR's stand-in, filled as vmtest_bar.h says) and on
 * other devices' BARs, maps apertures and has edu read what was written through them. After each
 * case the attachment, mapping, CSR window and aperture counts must be back to zero.
 *
 *   vmtest iommu|noiommu      the boot's IOMMU setting decides which segments are expected
 *   vmtest java               the same device through the Java runtime (/java/importer.sh, /java/csr.sh)
 *
 * Every word a case writes through a CSR window is printed as "csr: wrote 0x<value> at BAR 2
 * + 0x<offset>", and the aperture's range, once written through a mapping, as "aperture: wrote
 * BAR_APERTURE_WORD over BAR 2 + [0x<offset>, +0x<bytes>)"; vmtest.py checks the BAR's backing
 * file against those lines after the boot.
 *
 * Prints "PASS <case>" or "FAIL <case>: <why>" per case, then "vmtest: N passed, N failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "direkt_importer.h"
#include "direkt_test_exporter.h"
#include "vmtest_bar.h"

#define KB ((uint64_t)1024)
#define MB (1024 * KB)
#define MAX_SEGS 8192

static int imp_fd, dtx_fd, iommu, passed, failed;
static struct dtx_info info;
static char why[512];
static uint64_t phys[DTX_MAX_PIECES];
static struct direkt_segment segs[MAX_SEGS];

/* Records the first reason a case fails; returns 0 so checks read `if (!ok) return fail(...)`. */
static int fail(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return 0;
}

static void run(const char *name, int (*fn)(void))
{
	why[0] = 0;
	if (fn() && !why[0]) {
		printf("PASS %s\n", name);
		passed++;
	} else {
		printf("FAIL %s: %s\n", name, why[0] ? why : "(no reason recorded)");
		failed++;
	}
	fflush(stdout);
}

static const char *err(int e)
{
	static char bufs[4][64];
	static int next;
	char *buf = bufs[next++ % 4];

	snprintf(buf, 64, "%s (%d)", e ? strerrorname_np(e) : "success", e);
	return buf;
}

/* Makes a buffer of the test exporter; returns its fd (or -1 with the reason recorded). */
static int create(uint32_t kind, uint32_t flags, uint64_t size, uint64_t piece, uint64_t bar_offset, uint32_t seed)
{
	struct dtx_create c = {
		.kind = kind, .flags = flags, .size = size, .piece = piece, .bar_offset = bar_offset, .seed = seed,
		.phys = (uintptr_t)phys,
	};

	if (ioctl(dtx_fd, DTX_IOC_CREATE, &c)) {
		fail("test exporter: cannot make a %" PRIu64 "-byte buffer: %s", size, err(errno));
		return -1;
	}
	return c.fd;
}

struct pci {
	uint32_t domain;
	uint8_t bus, device, function;
};

static struct pci edu(void)
{
	return (struct pci){ info.edu_domain, info.edu_bus, info.edu_device, info.edu_function };
}

/* DIREKT_IOC_IMPORT; returns 0 or the errno, the request as the driver left it in *out. */
static int import_at(int fd, uint64_t offset, uint64_t length, struct pci p, struct direkt_segment *s, uint32_t max,
		     struct direkt_import *out)
{
	struct direkt_import r = {
		.dmabuf_fd = fd, .offset = offset, .length = length,
		.pci_domain = p.domain, .pci_bus = p.bus, .pci_device = p.device, .pci_function = p.function,
		.segments = (uintptr_t)s, .max_segments = max,
	};
	int ret = ioctl(imp_fd, DIREKT_IOC_IMPORT, &r) ? errno : 0;

	if (out)
		*out = r;
	return ret;
}

static int import(int fd, uint64_t offset, uint64_t length, struct direkt_import *out)
{
	return import_at(fd, offset, length, edu(), segs, MAX_SEGS, out);
}

static int release(uint32_t handle)
{
	struct direkt_release r = { .handle = handle };

	return ioctl(imp_fd, DIREKT_IOC_RELEASE, &r) ? errno : 0;
}

static int stats(struct direkt_stats3 *s)
{
	if (ioctl(imp_fd, DIREKT_IOC_STATS3, s))
		return fail("DIREKT_IOC_STATS3: %s", err(errno));
	if (ioctl(dtx_fd, DTX_IOC_INFO, &info))
		return fail("DTX_IOC_INFO: %s", err(errno));
	return 1;
}

/* Both modules hold no attachment and no mapping, and no CSR window or aperture is open. */
static int idle(const char *when)
{
	struct direkt_stats3 s;

	if (!stats(&s))
		return 0;
	if (s.attachments || s.mappings || info.attachments || info.mappings || info.pins)
		return fail("%s: importer holds %u attachments / %u mappings, exporter sees %u / %u, %u pins", when,
			    s.attachments, s.mappings, info.attachments, info.mappings, info.pins);
	if (s.csr_windows)
		return fail("%s: %u CSR windows are open", when, s.csr_windows);
	if (s.apertures)
		return fail("%s: %u apertures are open", when, s.apertures);
	return 1;
}

static int expect_err(const char *what, int got, int want)
{
	if (got != want)
		return fail("%s: got %s, want %s", what, err(got), err(want));
	return 1;
}

/* edu reads every segment (all of it up to 64 KB, else its first, middle and last 2 KB): the bytes
 * must be the exporter's pattern at the buffer offsets the segments stand for. */
static int verify(const struct direkt_import *r, uint32_t seed)
{
	static uint8_t got[2048], want[2048];
	uint64_t at = r->offset, total = 0;
	uint32_t i;

	for (i = 0; i < r->nr_segments; i++) {
		const struct direkt_segment *s = &segs[i];
		uint64_t step = 2048, off;
		uint64_t picks[3] = { 0, s->len / 2 & ~(step - 1), s->len > step ? s->len - step : 0 };
		int k;

		if (!s->len)
			return fail("segment %u has length 0", i);
		for (off = 0, k = 0; off < s->len; off = s->len <= 64 * KB ? off + step : (++k < 3 ? picks[k] : s->len)) {
			uint32_t n = s->len - off < step ? s->len - off : step, b;
			struct dtx_dma_read d = { .bus = s->bus_addr + off, .data = (uintptr_t)got, .len = n };

			if (ioctl(dtx_fd, DTX_IOC_DMA_READ, &d))
				return fail("edu DMA read of %u bytes at bus 0x%" PRIx64 ": %s", n, d.bus, err(errno));
			for (b = 0; b < n; b++) {
				uint64_t o = at + off + b;
				uint32_t w = DTX_PATTERN(seed, o / 4);

				want[b] = (uint8_t)(w >> (8 * (o % 4)));
			}
			if (memcmp(got, want, n)) {
				for (b = 0; got[b] == want[b]; b++)
					;
				return fail("segment %u (bus 0x%" PRIx64 "): buffer byte %" PRIu64 " reads 0x%02x over edu, "
					    "the exporter wrote 0x%02x", i, s->bus_addr, at + off + b, got[b], want[b]);
			}
		}
		at += s->len;
		total += s->len;
	}
	if (total != r->length)
		return fail("segments cover %" PRIu64 " bytes, the range has %" PRIu64, total, (uint64_t)r->length);
	return 1;
}

/* The segments a range must get without an IOMMU: the pieces' own addresses, contiguous ones merged. */
static int expected_direct(const struct direkt_import *r, uint64_t piece, uint32_t *n_out)
{
	uint64_t o = r->offset, end = r->offset + r->length;
	uint32_t n = 0;

	while (o < end) {
		uint64_t bus = phys[o / piece] + o % piece, len = piece - o % piece;

		if (len > end - o)
			len = end - o;
		if (n && segs[n - 1].bus_addr + segs[n - 1].len == bus) {
			segs[n - 1].len += len;
		} else {
			segs[n].bus_addr = bus;
			segs[n].len = len;
			n++;
		}
		o += len;
	}
	*n_out = n;
	return 1;
}

/* Imports [offset, +length) of a new buffer, checks the segments' shape, has edu read them all. */
static int import_case(uint32_t kind, uint32_t flags, uint64_t size, uint64_t piece, uint64_t offset, uint64_t length)
{
	static struct direkt_segment got[MAX_SEGS];
	uint32_t seed = (uint32_t)(size ^ piece ^ offset ^ kind << 7 ^ flags << 11), n_want, i;
	struct direkt_import r;
	int fd = create(kind, flags, size, piece, kind == DTX_BAR ? 1 * MB : 0, seed), e, ok = 1;

	if (fd < 0)
		return 0;
	e = import(fd, offset, length, &r);
	if (e) {
		close(fd);
		return fail("import of [%" PRIu64 ", +%" PRIu64 ") of a %" PRIu64 "-byte buffer: %s", offset, length, size,
			    err(e));
	}
	memcpy(got, segs, r.nr_segments * sizeof(*got));
	if (!iommu) {
		/* bus address = CPU physical address: every segment is known exactly */
		expected_direct(&r, piece, &n_want);
		if (n_want != r.nr_segments)
			ok = fail("%u segments, the pieces' addresses make %u", r.nr_segments, n_want);
		for (i = 0; ok && i < n_want; i++)
			if (got[i].bus_addr != segs[i].bus_addr || got[i].len != segs[i].len)
				ok = fail("segment %u is (0x%" PRIx64 ", %" PRIu64 "), want (0x%" PRIx64 ", %" PRIu64 ")", i,
					  (uint64_t)got[i].bus_addr, (uint64_t)got[i].len, (uint64_t)segs[i].bus_addr,
					  (uint64_t)segs[i].len);
	} else if (kind == DTX_SYSMEM && r.nr_segments != 1) {
		/* the IOMMU maps the table into one IOVA run; max segment size raised, it stays one segment */
		ok = fail("%u segments through the IOMMU, want 1 (is the max segment size raised?)", r.nr_segments);
	} else if (kind == DTX_BAR && got[0].bus_addr == phys[offset / piece] + offset % piece) {
		ok = fail("BAR address 0x%" PRIx64 " returned untranslated while the IOMMU translates",
			  (uint64_t)got[0].bus_addr);
	}
	memcpy(segs, got, r.nr_segments * sizeof(*got));
	if (ok && stats(&(struct direkt_stats3){ 0 }) && info.max_seg_size < 0xffffffffu)
		ok = fail("the exporter mapped for a device whose max segment size is %u (the importer raises it to 4 GB - 1)",
			  info.max_seg_size);
	if (ok)
		ok = verify(&r, seed);
	e = release(r.handle);
	close(fd);
	if (e)
		return fail("release: %s", err(e));
	return ok && idle("after release");
}

static int sysmem_64k_64k(void) { return import_case(DTX_SYSMEM, 0, 64 * KB, 64 * KB, 0, 64 * KB); }
static int sysmem_64k_1m(void) { return import_case(DTX_SYSMEM, 0, 1 * MB, 64 * KB, 0, 1 * MB); }
static int sysmem_64k_16m(void) { return import_case(DTX_SYSMEM, 0, 16 * MB, 64 * KB, 0, 16 * MB); }
static int sysmem_64k_dynamic(void) { return import_case(DTX_SYSMEM, DTX_DYNAMIC, 4 * MB, 64 * KB, 0, 4 * MB); }
static int sysmem_4k_4k(void) { return import_case(DTX_SYSMEM, 0, 4 * KB, 4 * KB, 0, 4 * KB); }
static int sysmem_4k_256k(void) { return import_case(DTX_SYSMEM, 0, 256 * KB, 4 * KB, 0, 256 * KB); }
static int sysmem_4k_4m_dynamic(void) { return import_case(DTX_SYSMEM, DTX_DYNAMIC, 4 * MB, 4 * KB, 0, 4 * MB); }
static int sysmem_range(void) { return import_case(DTX_SYSMEM, 0, 1 * MB, 4 * KB, 4100, 9000); }
static int sysmem_range_64k(void) { return import_case(DTX_SYSMEM, 0, 2 * MB, 64 * KB, 192 * KB, 1 * MB + 4); }
static int bar_64k_1m(void) { return import_case(DTX_BAR, 0, 1 * MB, 64 * KB, 0, 1 * MB); }
static int bar_4k_256k_dynamic(void) { return import_case(DTX_BAR, DTX_DYNAMIC, 256 * KB, 4 * KB, 0, 256 * KB); }
static int bar_range(void) { return import_case(DTX_BAR, 0, 2 * MB, 64 * KB, 100 * KB, 300 * KB); }

/* A broken exporter hands out CPU physical BAR addresses: right without an IOMMU, refused with one. */
static int bar_untranslated(void)
{
	struct direkt_import r;
	int fd = create(DTX_BAR, DTX_RAW, 256 * KB, 64 * KB, 0, 5), e, ok = 1;

	if (fd < 0)
		return 0;
	e = import(fd, 0, 256 * KB, &r);
	if (iommu) {
		ok = expect_err("import of untranslated BAR addresses through the IOMMU", e, ENXIO);
	} else if (e) {
		ok = fail("import of BAR addresses without an IOMMU: %s", err(e));
	} else {
		ok = r.nr_segments == 1 && segs[0].bus_addr == phys[0] ? verify(&r, 5)
			: fail("BAR import without an IOMMU: %u segments at 0x%" PRIx64 ", want 1 at 0x%" PRIx64,
			       r.nr_segments, (uint64_t)segs[0].bus_addr, phys[0]);
		e = release(r.handle);
		if (e)
			ok = fail("release: %s", err(e));
	}
	close(fd);
	return ok && idle("after the untranslated BAR import");
}

static int bad_fd(void)
{
	return expect_err("import of fd 1000 (not open)", import(1000, 0, 4096, NULL), EBADF) &&
	       expect_err("import of fd -1", import(-1, 0, 4096, NULL), EBADF) && idle("after bad fds");
}

static int not_a_dmabuf(void)
{
	int fd = open("/dev/null", O_RDWR), e = import(fd, 0, 4096, NULL);

	close(fd);
	return expect_err("import of /dev/null", e, EINVAL) && idle("after /dev/null");
}

static int range_outside(void)
{
	int fd = create(DTX_SYSMEM, 0, 256 * KB, 4 * KB, 0, 1), ok;

	if (fd < 0)
		return 0;
	ok = expect_err("range ending 1 byte past the buffer", import(fd, 4096, 256 * KB - 4095, NULL), ERANGE) &&
	     expect_err("range starting at the buffer's end", import(fd, 256 * KB, 1, NULL), ERANGE) &&
	     expect_err("offset + length wrapping 2^64", import(fd, ~0ull - 10, 4096, NULL), ERANGE) &&
	     expect_err("zero length", import(fd, 0, 0, NULL), EINVAL);
	close(fd);
	return ok && idle("after out-of-range imports");
}

static int wrong_pci(void)
{
	struct pci absent = { 0, 0xfe, 31, 7 }, bad_dev = edu(), bad_fn = edu(), other_domain = edu();
	int fd = create(DTX_SYSMEM, 0, 64 * KB, 4 * KB, 0, 2), ok;

	if (fd < 0)
		return 0;
	bad_dev.device = 32;
	bad_fn.function = 8;
	other_domain.domain = 0x1234;
	ok = expect_err("no device at 0000:fe:1f.7", import_at(fd, 0, 4096, absent, segs, MAX_SEGS, NULL), ENODEV) &&
	     expect_err("domain 0x1234", import_at(fd, 0, 4096, other_domain, segs, MAX_SEGS, NULL), ENODEV) &&
	     expect_err("device 32", import_at(fd, 0, 4096, bad_dev, segs, MAX_SEGS, NULL), EINVAL) &&
	     expect_err("function 8", import_at(fd, 0, 4096, bad_fn, segs, MAX_SEGS, NULL), EINVAL);
	close(fd);
	return ok && idle("after wrong PCI addresses");
}

static int move(int fd);
static int revocations(uint32_t *h, uint32_t max, uint32_t *count, uint32_t *more);

static int bad_arguments(void)
{
	struct direkt_import r = { .length = 4096, .segments = (uintptr_t)segs, .max_segments = 1 };
	struct direkt_release rel = { .handle = 1, .reserved = 1 };
	struct direkt_revocations rev = { .reserved = 1 };
	int fd = create(DTX_SYSMEM, 0, 64 * KB, 4 * KB, 0, 3), ok = 1;

	if (fd < 0)
		return 0;
	r.dmabuf_fd = fd;
	r.pci_domain = info.edu_domain;
	r.pci_bus = info.edu_bus;
	r.pci_device = info.edu_device;
	r.pci_function = info.edu_function;
	r.flags = 1;
	ok &= expect_err("flags 1", ioctl(imp_fd, DIREKT_IOC_IMPORT, &r) ? errno : 0, EINVAL);
	r.flags = 0;
	r.reserved0 = 1;
	ok &= expect_err("reserved0 1", ioctl(imp_fd, DIREKT_IOC_IMPORT, &r) ? errno : 0, EINVAL);
	r.reserved0 = 0;
	r.reserved1 = 1;
	ok &= expect_err("reserved1 1", ioctl(imp_fd, DIREKT_IOC_IMPORT, &r) ? errno : 0, EINVAL);
	ok &= expect_err("release with reserved 1", ioctl(imp_fd, DIREKT_IOC_RELEASE, &rel) ? errno : 0, EINVAL);
	ok &= expect_err("revocations with reserved 1", ioctl(imp_fd, DIREKT_IOC_REVOCATIONS, &rev) ? errno : 0, EINVAL);
	ok &= expect_err("import from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_IMPORT, (void *)8) ? errno : 0,
			 EFAULT);
	ok &= expect_err("import into an unmapped segment array",
			 import_at(fd, 0, 4096, edu(), (struct direkt_segment *)8, 1, NULL), EFAULT);
	ok &= expect_err("ioctl 0xD7/99", ioctl(imp_fd, _IO(DIREKT_IOC_MAGIC, 99)) ? errno : 0, ENOTTY);
	ok &= expect_err("release from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_RELEASE, (void *)8) ? errno : 0,
			 EFAULT);
	ok &= expect_err("stats into an unmapped argument", ioctl(imp_fd, DIREKT_IOC_STATS, (void *)8) ? errno : 0, EFAULT);
	ok &= expect_err("revocations from an unmapped argument",
			 ioctl(imp_fd, DIREKT_IOC_REVOCATIONS, (void *)8) ? errno : 0, EFAULT);
	/* a revoked import reported into an unmapped array: EFAULT, and it is not reported again */
	if (ok) {
		struct direkt_import held;
		uint32_t h[4], n, more;

		rev.reserved = 0;
		rev.handles = 8;
		rev.max = 4;
		ok = !import(fd, 0, 4096, &held) || fail("import: %s", err(errno));
		ok = ok && move(fd) &&
		     expect_err("revocations into an unmapped array",
				ioctl(imp_fd, DIREKT_IOC_REVOCATIONS, &rev) ? errno : 0, EFAULT) &&
		     revocations(h, 4, &n, &more) && (n == 0 || fail("the handle was reported again after EFAULT"));
		if (held.handle)
			ok = expect_err("release of the revoked import", release(held.handle), 0) && ok;
	}
	close(fd);
	return ok && idle("after bad arguments");
}

static int refusal(void)
{
	static const struct { uint32_t flags; int want; const char *what; } cases[] = {
		{ DTX_REFUSE, EOPNOTSUPP, "exporter refuses the attachment" },
		{ DTX_MAP_EIO, EOPNOTSUPP, "exporter fails the mapping with EIO" },
		{ DTX_MAP_ENOSPC, ENOSPC, "exporter's aperture is full" },
		{ DTX_MAP_ENOMEM, ENOMEM, "exporter is out of memory" },
		{ DTX_MAP_EIO | DTX_DYNAMIC, EOPNOTSUPP, "dynamic exporter fails the mapping" },
	};
	unsigned int i;
	int ok = 1;

	for (i = 0; ok && i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = create(DTX_SYSMEM, cases[i].flags, 64 * KB, 4 * KB, 0, 4);

		if (fd < 0)
			return 0;
		ok = expect_err(cases[i].what, import(fd, 0, 64 * KB, NULL), cases[i].want) && idle(cases[i].what);
		close(fd);
	}
	return ok;
}

/* Too small a segment array: E2BIG with the count needed, nothing kept; the retry succeeds. */
static int too_many_segments(void)
{
	struct direkt_import r;
	int fd = create(DTX_SYSMEM, 0, 256 * KB, 4 * KB, 0, 6), ok, e;
	uint32_t need;

	if (fd < 0)
		return 0;
	e = import_at(fd, 0, 256 * KB, edu(), segs, 0, &r);
	need = r.nr_segments;
	ok = expect_err("import into 0 segments", e, E2BIG) && idle("after E2BIG") &&
	     (need >= 1 || fail("E2BIG says %u segments are needed", need));
	if (ok) {
		e = import_at(fd, 0, 256 * KB, edu(), segs, need, &r);
		ok = e ? fail("import into the %u segments E2BIG asked for: %s", need, err(e))
		       : r.nr_segments == need || fail("%u segments written, E2BIG said %u", r.nr_segments, need);
		if (!e && (e = release(r.handle)))
			ok = fail("release: %s", err(e));
	}
	close(fd);
	return ok && idle("after the retry");
}

static int double_release(void)
{
	struct direkt_import r;
	int fd = create(DTX_SYSMEM, 0, 64 * KB, 4 * KB, 0, 7), e, ok;

	if (fd < 0)
		return 0;
	e = import(fd, 0, 64 * KB, &r);
	close(fd); /* the import keeps the buffer alive */
	if (e)
		return fail("import: %s", err(e));
	ok = expect_err("first release", release(r.handle), 0) && expect_err("second release", release(r.handle), ENOENT) &&
	     expect_err("release of handle 0 (never given)", release(0), ENOENT) &&
	     expect_err("release of an unknown handle", release(r.handle + 1000), ENOENT);
	if (!stats(&(struct direkt_stats3){ 0 }))
		return 0;
	return ok && idle("after double release") && (info.buffers == 0 || fail("%u buffers alive", info.buffers));
}

static int revocations(uint32_t *h, uint32_t max, uint32_t *count, uint32_t *more)
{
	struct direkt_revocations r = { .handles = (uintptr_t)h, .max = max };

	if (ioctl(imp_fd, DIREKT_IOC_REVOCATIONS, &r))
		return fail("DIREKT_IOC_REVOCATIONS: %s", err(errno));
	*count = r.count;
	*more = r.more;
	return 1;
}

static int move(int fd)
{
	struct dtx_fd m = { .fd = fd };

	if (ioctl(dtx_fd, DTX_IOC_MOVE, &m))
		return fail("DTX_IOC_MOVE: %s", err(errno));
	return 1;
}

/* The exporter moves one buffer: exactly its imports are reported, once each, and unmapped; a
 * call reports at most max handles and says whether more are listed. */
static int revocation(void)
{
	int x = create(DTX_SYSMEM, DTX_DYNAMIC, 128 * KB, 4 * KB, 0, 8), y = create(DTX_BAR, 0, 64 * KB, 4 * KB, 0, 9);
	static struct direkt_segment c_segs[16];
	struct direkt_import a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	uint32_t h[8], h2[8], n, n2, more, more2, before;
	struct direkt_stats3 s;
	int ok = 1;

	if (x < 0 || y < 0 || !stats(&s))
		return 0;
	before = s.revoked;
	if (import(x, 0, 64 * KB, &a) || import(x, 64 * KB, 64 * KB, &b) || import(y, 0, 64 * KB, &c) ||
	    (memcpy(c_segs, segs, c.nr_segments * sizeof(*segs)), import(x, 0, 4096, &d)))
		ok = fail("imports: %s", err(errno));
	ok = ok && revocations(h, 8, &n, &more) && (n == 0 || fail("%u revocations before any move", n));
	ok = ok && expect_err("release of d before the move", release(d.handle), 0) && move(x) && stats(&s);
	ok = ok && (s.mappings == 1 || fail("%u mappings after the move, want 1 (c)", s.mappings)) &&
	     (s.revoked == before + 2 || fail("revoked count %u, want %u", s.revoked, before + 2));
	ok = ok && revocations(h, 1, &n, &more) && revocations(h2, 8, &n2, &more2);
	ok = ok && ((n == 1 && more == 1 && n2 == 1 && more2 == 0) ||
		    fail("calls with max 1 then 8: %u handles (more %u), then %u (more %u); want 1 (more 1), 1 (more 0)", n,
			 more, n2, more2));
	ok = ok && (((h[0] == a.handle && h2[0] == b.handle) || (h[0] == b.handle && h2[0] == a.handle)) ||
		    fail("reported %u and %u, the moved buffer's imports are %u and %u", h[0], h2[0], a.handle, b.handle));
	ok = ok && revocations(h, 8, &n, &more) && (n == 0 || fail("a third call reports %u more", n));
	ok = ok && (memcpy(segs, c_segs, c.nr_segments * sizeof(*segs)), verify(&c, 9));
	if (a.handle)
		ok = expect_err("release of revoked a", release(a.handle), 0) && ok;
	if (b.handle)
		ok = expect_err("release of revoked b", release(b.handle), 0) && ok;
	if (c.handle)
		ok = expect_err("release of c", release(c.handle), 0) && ok;
	/* a revoked import released before it is reported is never reported */
	ok = ok && !import(x, 0, 4096, &d) && move(x) && !release(d.handle) && revocations(h, 8, &n, &more) &&
	     (n == 0 || fail("a released import was reported revoked (%u handles)", n));
	close(x);
	close(y);
	return ok && idle("after revocation");
}

/* Closing the importer's file releases every import it holds. */
static int close_with_imports(void)
{
	int saved = imp_fd, f = open(DIREKT_IMPORTER_DEVICE, O_RDWR), x = create(DTX_SYSMEM, 0, 1 * MB, 64 * KB, 0, 10);
	int y = create(DTX_BAR, DTX_DYNAMIC, 128 * KB, 64 * KB, 0, 11), ok = 1, i;
	struct direkt_stats3 s;

	if (f < 0)
		return fail("open %s: %s", DIREKT_IMPORTER_DEVICE, err(errno));
	if (x < 0 || y < 0)
		return 0;
	imp_fd = f;
	for (i = 0; ok && i < 20; i++)
		ok = !import(i % 2 ? y : x, 0, 64 * KB, NULL) || fail("import %d: %s", i, err(errno));
	ok = ok && move(y); /* some revoked and unreported as well */
	imp_fd = saved;
	ok = ok && stats(&s) && (s.attachments == 20 || fail("%u attachments with 20 imports open", s.attachments));
	close(f);
	close(x);
	close(y);
	return ok && idle("after close") && (info.buffers == 0 || fail("%u buffers still alive", info.buffers));
}

/* Many imports of one buffer from one file, released in a scrambled order. */
static int many_imports(void)
{
	static uint32_t handles[512];
	int fd = create(DTX_SYSMEM, 0, 256 * KB, 4 * KB, 0, 12), ok = 1, i;
	struct direkt_import r;

	if (fd < 0)
		return 0;
	for (i = 0; ok && i < 512; i++) {
		ok = !import(fd, (i % 64) * 4096, 4096, &r) || fail("import %d: %s", i, err(errno));
		handles[i] = r.handle;
	}
	for (i = 0; ok && i < 512; i++)
		ok = !release(handles[(i * 37) % 512]) || fail("release %d: %s", i, err(errno));
	close(fd);
	return ok && idle("after 512 imports");
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int fence(int fd, uint32_t ms)
{
	struct dtx_fd f = { .fd = fd, .ms = ms };

	if (ioctl(dtx_fd, DTX_IOC_FENCE, &f))
		return fail("DTX_IOC_FENCE: %s", err(errno));
	return 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The exporter has work pending on the buffer (a fence): the import waits for it; a signal ends
 * the wait with EINTR and nothing held. */
static int pending_work(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	int fd = create(DTX_SYSMEM, DTX_DYNAMIC, 64 * KB, 4 * KB, 0, 13), e, ok;
	struct direkt_import r;
	double t0, waited;

	if (fd < 0)
		return 0;
	sigaction(SIGALRM, &sa, NULL);
	ok = fence(fd, 2000);
	ualarm(200 * 1000, 0);
	e = import(fd, 0, 4096, NULL);
	ok = ok && expect_err("import while a 2 s fence is pending, then a signal", e, EINTR) && idle("after EINTR");
	ok = ok && fence(fd, 300);
	t0 = now();
	e = ok ? import(fd, 0, 64 * KB, &r) : 0;
	waited = now() - t0;
	if (ok && e)
		ok = fail("import after the fences: %s", err(e));
	else if (ok)
		ok = (waited >= 0.25 || fail("the import returned after %.3f s, before the 300 ms fence", waited)) &&
		     verify(&r, 13) && expect_err("release", release(r.handle), 0);
	close(fd);
	return ok && idle("after the fenced import");
}

/* STATS (ABI 1's 16 bytes), STATS2 (grown by the CSR window count) and STATS3 (grown by the
 * aperture count) answer alike. */
static int stats_abi(void)
{
	struct direkt_stats v1 = { 0 };
	struct direkt_stats2 v2 = { 0 };
	struct direkt_stats3 s;

	if (ioctl(imp_fd, DIREKT_IOC_STATS, &v1))
		return fail("DIREKT_IOC_STATS: %s", err(errno));
	if (ioctl(imp_fd, DIREKT_IOC_STATS2, &v2))
		return fail("DIREKT_IOC_STATS2: %s", err(errno));
	return stats(&s) && (s.abi == DIREKT_IMPORTER_ABI || fail("ABI %u, this test speaks %u", s.abi, DIREKT_IMPORTER_ABI)) &&
	       ((v1.abi == s.abi && v1.attachments == s.attachments && v1.mappings == s.mappings && v1.revoked == s.revoked) ||
		fail("STATS says ABI %u, %u/%u/%u; STATS3 says %u, %u/%u/%u", v1.abi, v1.attachments, v1.mappings, v1.revoked,
		     s.abi, s.attachments, s.mappings, s.revoked)) &&
	       ((v2.abi == s.abi && v2.attachments == s.attachments && v2.mappings == s.mappings && v2.revoked == s.revoked &&
		 v2.csr_windows == s.csr_windows) ||
		fail("STATS2 says ABI %u, %u/%u/%u/%u; STATS3 says %u, %u/%u/%u/%u", v2.abi, v2.attachments, v2.mappings,
		     v2.revoked, v2.csr_windows, s.abi, s.attachments, s.mappings, s.revoked, s.csr_windows));
}

/*
 * CSR windows. ivshmem's BAR 2 stands in for the FPGA's BAR: a direkt bridge's identity at
 * BAR_CSR_AT, a wrong one at BAR_SWAPPED_AT and BAR_OLD_AT, all ones at BAR_SILENT_AT, the fill
 * around the window (vmtest_bar.h). No driver owns ivshmem here; the test exporter enabled it.
 */
static struct pci ivshmem;
static uint64_t ivshmem_bar_size;

static char *pci_text(struct pci p);

/* The first PCI function (in sysfs order) whose vendor and device IDs match; 0 when none. */
static int find_pci(unsigned int vendor, unsigned int device, struct pci *out, char *sysfs, size_t cap)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[320];
		unsigned int v = 0, dv = 0, dom, bus, dev, fn;
		FILE *f;

		if (sscanf(e->d_name, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%x", &v) != 1)
				v = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%x", &dv) != 1)
				dv = 0;
			fclose(f);
		}
		if (v == vendor && dv == device) {
			*out = (struct pci){ dom, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
			snprintf(sysfs, cap, "/sys/bus/pci/devices/%s", e->d_name);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* A PCI function with an I/O BAR (the q35 chipset's SMBus controller has one). */
static int find_io_bar(struct pci *out, int *bar)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		unsigned long long start, end, flags;
		unsigned int dom, bus, dev, fn;
		char path[320];
		FILE *f;
		int i;

		if (sscanf(e->d_name, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		for (i = 0; !found && i < 6 && fscanf(f, "%llx %llx %llx", &start, &end, &flags) == 3; i++) {
			if ((flags & 0x100) && start) { /* IORESOURCE_IO */
				*out = (struct pci){ dom, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
				*bar = i;
				found = 1;
			}
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* DIREKT_IOC_CSR_OPEN on fd; returns 0 or the errno, the request as the module left it in *out. */
static int csr_open_on(int fd, struct pci p, uint32_t bar, uint64_t offset, uint64_t length, uint32_t version,
		       struct direkt_csr_open *out)
{
	struct direkt_csr_open r = {
		.csr = { .pci_domain = p.domain, .pci_bus = p.bus, .pci_device = p.device, .pci_function = p.function,
			 .bar = (uint8_t)bar, .offset = offset, .length = length },
		.version = version,
	};
	int ret = ioctl(fd, DIREKT_IOC_CSR_OPEN, &r) ? errno : 0;

	if (out)
		*out = r;
	return ret;
}

static int csr_open(struct pci p, uint32_t bar, uint64_t offset, uint64_t length, uint32_t version,
		    struct direkt_csr_open *out)
{
	return csr_open_on(imp_fd, p, bar, offset, length, version, out);
}

static int csr_read_on(int fd, uint32_t handle, uint64_t offset, uint32_t *value)
{
	struct direkt_csr_io r = { .handle = handle, .offset = offset };
	int ret = ioctl(fd, DIREKT_IOC_CSR_READ, &r) ? errno : 0;

	*value = r.value;
	return ret;
}

static int csr_write_on(int fd, uint32_t handle, uint64_t offset, uint32_t value)
{
	struct direkt_csr_io r = { .handle = handle, .offset = offset, .value = value };

	return ioctl(fd, DIREKT_IOC_CSR_WRITE, &r) ? errno : 0;
}

static int csr_close_on(int fd, uint32_t handle)
{
	struct direkt_csr_close r = { .handle = handle };

	return ioctl(fd, DIREKT_IOC_CSR_CLOSE, &r) ? errno : 0;
}

static int csr_windows(uint32_t want, const char *when)
{
	struct direkt_stats3 s;

	return stats(&s) && (s.csr_windows == want || fail("%s: %u CSR windows open, want %u", when, s.csr_windows, want));
}

/* Reads window offset o and compares it with want. */
static int csr_expect(int fd, uint32_t handle, uint64_t o, uint32_t want)
{
	uint32_t v;
	int e = csr_read_on(fd, handle, o, &v);

	if (e)
		return fail("read of window offset 0x%" PRIx64 ": %s", o, err(e));
	if (v != want)
		return fail("window offset 0x%" PRIx64 " (BAR 2 + 0x%" PRIx64 ") reads 0x%08x, want 0x%08x", o,
			    BAR_CSR_AT + o, v, want);
	return 1;
}

/* The bridge's window: the identity it read, the count, and reads at their BAR offsets. */
static int csr_reads(void)
{
	static const uint64_t at[] = { 8, 12, 0x100, 0x7FC, BAR_CSR_BYTES - 4 };
	struct direkt_csr_open w;
	int e = csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &w), ok;
	unsigned int i;

	if (e)
		return fail("open of the bridge's window at BAR 2 + 0x%x: %s", BAR_CSR_AT, err(e));
	ok = (w.handle != 0 || fail("handle 0")) &&
	     ((w.found_magic == DIREKT_CSR_MAGIC && w.found_version == BAR_CSR_VERSION) ||
	      fail("the open reports MAGIC 0x%08x, VERSION %u", w.found_magic, w.found_version)) &&
	     csr_windows(1, "with one window open") && csr_expect(imp_fd, w.handle, 0, DIREKT_CSR_MAGIC) &&
	     csr_expect(imp_fd, w.handle, 4, BAR_CSR_VERSION);
	for (i = 0; ok && i < sizeof(at) / sizeof(at[0]); i++)
		ok = csr_expect(imp_fd, w.handle, at[i], BAR_FILL(BAR_CSR_AT + at[i]));
	ok = expect_err("close", csr_close_on(imp_fd, w.handle), 0) && ok;
	return ok && idle("after the window closed");
}

/* Writes land at their offsets and nowhere else; a second file's window on the range sees them. */
static int csr_writes(void)
{
	static const uint64_t at[] = { 8, 0x104, BAR_CSR_BYTES - 4 };
	static const uint64_t untouched[] = { 4, 12, 0x100, 0x108, BAR_CSR_BYTES - 8 };
	struct direkt_csr_open a, b;
	int other = open(DIREKT_IMPORTER_DEVICE, O_RDWR), ok;
	unsigned int i;

	if (other < 0)
		return fail("open %s: %s", DIREKT_IMPORTER_DEVICE, err(errno));
	ok = expect_err("open of the window", csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &a), 0) &&
	     expect_err("open of the same range from another file",
			csr_open_on(other, ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &b), 0) &&
	     csr_windows(2, "with two windows open");
	for (i = 0; ok && i < sizeof(at) / sizeof(at[0]); i++) {
		uint32_t v = 0xD1000000u | (uint32_t)at[i];

		ok = expect_err("write", csr_write_on(imp_fd, a.handle, at[i], v), 0) && csr_expect(imp_fd, a.handle, at[i], v) &&
		     csr_expect(other, b.handle, at[i], v);
		if (ok)
			printf("csr: wrote 0x%08x at BAR 2 + 0x%" PRIx64 "\n", v, BAR_CSR_AT + at[i]);
	}
	for (i = 0; ok && i < sizeof(untouched) / sizeof(untouched[0]); i++)
		ok = csr_expect(other, b.handle, untouched[i], untouched[i] == 4 ? BAR_CSR_VERSION
										  : BAR_FILL(BAR_CSR_AT + untouched[i]));
	ok = ok && expect_err("close", csr_close_on(imp_fd, a.handle), 0) && csr_windows(1, "after one close");
	close(other);
	return ok && idle("after the file closed");
}

/* Everything outside the window, unaligned, or through a handle this file does not hold is refused. */
static int csr_outside(void)
{
	static const uint64_t outside[] = { BAR_CSR_BYTES, BAR_CSR_BYTES + 4, 1ull << 32, ~3ull };
	static const uint64_t unaligned[] = { 2, 1, BAR_CSR_BYTES - 2, BAR_CSR_BYTES + 1, ~0ull };
	int other = open(DIREKT_IMPORTER_DEVICE, O_RDWR), ok;
	struct direkt_csr_open w;
	unsigned int i;
	uint32_t v;

	if (other < 0)
		return fail("open %s: %s", DIREKT_IMPORTER_DEVICE, err(errno));
	ok = expect_err("open", csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &w), 0);
	for (i = 0; ok && i < sizeof(outside) / sizeof(outside[0]); i++) {
		ok = expect_err("read past the window", csr_read_on(imp_fd, w.handle, outside[i], &v), ERANGE) &&
		     expect_err("write past the window", csr_write_on(imp_fd, w.handle, outside[i], 0xBAD0BAD0u), ERANGE);
	}
	for (i = 0; ok && i < sizeof(unaligned) / sizeof(unaligned[0]); i++)
		ok = expect_err("unaligned read", csr_read_on(imp_fd, w.handle, unaligned[i], &v), EINVAL) &&
		     expect_err("unaligned write", csr_write_on(imp_fd, w.handle, unaligned[i], 0xBAD0BAD0u), EINVAL);
	ok = ok && expect_err("read through another file", csr_read_on(other, w.handle, 8, &v), ENOENT) &&
	     expect_err("read of handle 0", csr_read_on(imp_fd, 0, 8, &v), ENOENT) &&
	     expect_err("write to an unknown handle", csr_write_on(imp_fd, w.handle + 100, 8, 1), ENOENT) &&
	     expect_err("read from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_CSR_READ, (void *)8) ? errno : 0, EFAULT) &&
	     expect_err("write from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_CSR_WRITE, (void *)8) ? errno : 0, EFAULT) &&
	     csr_expect(imp_fd, w.handle, BAR_CSR_BYTES - 4, 0xD1000000u | (BAR_CSR_BYTES - 4));
	if (w.handle)
		ok = expect_err("close", csr_close_on(imp_fd, w.handle), 0) && ok;
	ok = ok && expect_err("second close", csr_close_on(imp_fd, w.handle), ENOENT);
	close(other);
	return ok && idle("after refused accesses");
}

/* Ranges whose identity registers do not read as a direkt bridge of that version: no window. */
static int csr_identity(void)
{
	struct pci edu_fn = edu();
	struct direkt_csr_open w;
	int ok;

	ok = expect_err("MAGIC in the other byte order", csr_open(ivshmem, 2, BAR_SWAPPED_AT, 64, BAR_CSR_VERSION, &w),
			EMEDIUMTYPE) &&
	     (w.found_magic == 0x544B5244u || fail("EMEDIUMTYPE reports MAGIC 0x%08x, the BAR holds 0x544B5244", w.found_magic)) &&
	     expect_err("a bridge of the previous layout", csr_open(ivshmem, 2, BAR_OLD_AT, 64, BAR_CSR_VERSION, &w), EPROTO) &&
	     ((w.found_magic == DIREKT_CSR_MAGIC && w.found_version == BAR_CSR_VERSION - 1) ||
	      fail("EPROTO reports MAGIC 0x%08x, VERSION %u", w.found_magic, w.found_version)) &&
	     expect_err("the bridge, a later layout expected",
			csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION + 1, &w), EPROTO) &&
	     (w.found_version == BAR_CSR_VERSION || fail("EPROTO reports VERSION %u", w.found_version)) &&
	     expect_err("a range that reads all ones", csr_open(ivshmem, 2, BAR_SILENT_AT, 64, BAR_CSR_VERSION, &w), EIO) &&
	     expect_err("a range of zeros", csr_open(ivshmem, 2, BAR_SILENT_AT + 0x1000, 64, BAR_CSR_VERSION, &w),
			EMEDIUMTYPE) &&
	     expect_err("edu's registers", csr_open(edu_fn, 0, 0, 64, BAR_CSR_VERSION, &w), EMEDIUMTYPE) &&
	     (w.found_magic == 0x010000edu || fail("edu's ID register reads 0x%08x, want 0x010000ed", w.found_magic));
	return ok && idle("after refused identities");
}

/* The wrong device, BAR or range, and malformed requests: no window. */
static int csr_wrong_place(void)
{
	struct pci absent = { 0, 0xfe, 31, 7 }, io;
	struct direkt_csr_open w = { .csr.length = 64 };
	char io_what[64];
	int io_bar, ok;

	if (!find_io_bar(&io, &io_bar))
		return fail("no PCI function with an I/O BAR in this VM");
	snprintf(io_what, sizeof(io_what), "an I/O BAR (%s BAR %d)", pci_text(io), io_bar);
	ok = expect_err("no device at 0000:fe:1f.7", csr_open(absent, 0, 0, 64, BAR_CSR_VERSION, NULL), ENODEV) &&
	     expect_err("ivshmem's BAR 1 (not implemented)", csr_open(ivshmem, 1, 0, 64, BAR_CSR_VERSION, NULL), ENXIO) &&
	     expect_err("ivshmem's BAR 3 (BAR 2's upper half)", csr_open(ivshmem, 3, 0, 64, BAR_CSR_VERSION, NULL), ENXIO) &&
	     expect_err(io_what, csr_open(io, (uint32_t)io_bar, 0, 8, BAR_CSR_VERSION, NULL), ENXIO) &&
	     expect_err("a range past the BAR's end",
			csr_open(ivshmem, 2, ivshmem_bar_size - 4, 8, BAR_CSR_VERSION, NULL), ERANGE) &&
	     expect_err("a range starting at the BAR's end", csr_open(ivshmem, 2, ivshmem_bar_size, 8, BAR_CSR_VERSION, NULL),
			ERANGE) &&
	     expect_err("offset + length wrapping 2^64", csr_open(ivshmem, 2, ~7ull, 16, BAR_CSR_VERSION, NULL), ERANGE) &&
	     expect_err("BAR 6", csr_open(ivshmem, 6, 0, 64, BAR_CSR_VERSION, NULL), EINVAL) &&
	     expect_err("length 4 (no room for VERSION)", csr_open(ivshmem, 2, BAR_CSR_AT, 4, BAR_CSR_VERSION, NULL), EINVAL) &&
	     expect_err("an unaligned offset", csr_open(ivshmem, 2, BAR_CSR_AT + 2, 64, BAR_CSR_VERSION, NULL), EINVAL) &&
	     expect_err("an unaligned length", csr_open(ivshmem, 2, BAR_CSR_AT, 66, BAR_CSR_VERSION, NULL), EINVAL) &&
	     expect_err("device 32", csr_open((struct pci){ 0, 0, 32, 0 }, 0, 0, 64, BAR_CSR_VERSION, NULL), EINVAL) &&
	     expect_err("function 8", csr_open((struct pci){ 0, 0, 0, 8 }, 0, 0, 64, BAR_CSR_VERSION, NULL), EINVAL);
	w.csr = (struct direkt_bar_range){ .pci_domain = ivshmem.domain, .pci_bus = ivshmem.bus,
					   .pci_device = ivshmem.device, .pci_function = ivshmem.function, .bar = 2,
					   .offset = BAR_CSR_AT, .length = 64 };
	w.version = BAR_CSR_VERSION;
	w.flags = 1;
	ok = ok && expect_err("flags 1", ioctl(imp_fd, DIREKT_IOC_CSR_OPEN, &w) ? errno : 0, EINVAL);
	w.flags = 0;
	w.reserved = 1;
	ok = ok && expect_err("reserved 1", ioctl(imp_fd, DIREKT_IOC_CSR_OPEN, &w) ? errno : 0, EINVAL) &&
	     expect_err("open from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_CSR_OPEN, (void *)8) ? errno : 0, EFAULT) &&
	     expect_err("close with reserved 1",
			ioctl(imp_fd, DIREKT_IOC_CSR_CLOSE, &(struct direkt_csr_close){ .handle = 1, .reserved = 1 }) ? errno : 0,
			EINVAL);
	return ok && idle("after refused places");
}

/* Closing the file closes every window it still holds. */
static int csr_close_file(void)
{
	int f = open(DIREKT_IMPORTER_DEVICE, O_RDWR), ok = 1, i;
	struct direkt_csr_open w;

	if (f < 0)
		return fail("open %s: %s", DIREKT_IMPORTER_DEVICE, err(errno));
	for (i = 0; ok && i < 16; i++)
		ok = expect_err("open", csr_open_on(f, ivshmem, 2, BAR_CSR_AT, 8 + 4 * i, BAR_CSR_VERSION, &w), 0);
	ok = ok && expect_err("close of the last", csr_close_on(f, w.handle), 0) && csr_windows(15, "15 windows left open");
	close(f);
	return ok && idle("after the file closed");
}

/*
 * Apertures. ivshmem's BAR 2 holds a direkt bridge's CSR at BAR_CSR_AT, so the function is given
 * apertures; the cases map [BAR_APERTURE_AT, +BAR_APERTURE_BYTES) of the same BAR, which vmtest.py
 * fills with BAR_FILL before the boot, and write BAR_APERTURE_WORD over all of it.
 */
static uint64_t page_size;

static struct direkt_bar_range range_of(struct pci p, uint32_t bar, uint64_t offset, uint64_t length)
{
	return (struct direkt_bar_range){ .pci_domain = p.domain, .pci_bus = p.bus, .pci_device = p.device,
					  .pci_function = p.function, .bar = (uint8_t)bar, .offset = offset, .length = length };
}

/* The bridge's CSR on ivshmem: what makes ivshmem a function that may have apertures. */
static struct direkt_bar_range bridge(void)
{
	return range_of(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES);
}

/* DIREKT_IOC_APERTURE_OPEN on fd; returns 0 or the errno, the request as the module left it in
 * *out (without out, an aperture given is closed at once). */
static int aperture_open_on(int fd, struct direkt_bar_range csr, uint32_t version, uint32_t bar, uint64_t offset,
			    uint64_t length, struct direkt_aperture_open *out)
{
	struct direkt_aperture_open r = {
		.csr = csr, .version = version, .bar = bar, .offset = offset, .length = length, .fd = -1,
	};
	int ret = ioctl(fd, DIREKT_IOC_APERTURE_OPEN, &r) ? errno : 0;

	if (out)
		*out = r;
	else if (!ret)
		close(r.fd);
	return ret;
}

/* An aperture of ivshmem's BAR bar, [offset, +length), vouched for by the bridge's CSR. */
static int aperture_open(uint32_t bar, uint64_t offset, uint64_t length, struct direkt_aperture_open *out)
{
	return aperture_open_on(imp_fd, bridge(), BAR_CSR_VERSION, bar, offset, length, out);
}

static int apertures(uint32_t want, const char *when)
{
	struct direkt_stats3 s;

	return stats(&s) && (s.apertures == want || fail("%s: %u apertures open, want %u", when, s.apertures, want));
}

/* mmap of [offset, +length) of an aperture's fd: the mapping, or NULL with errno set. */
static volatile uint32_t *map(int fd, uint64_t offset, uint64_t length, int prot, int flags)
{
	void *p = mmap(NULL, length, prot, flags, fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

/* The same, unmapped again at once: 0 or the errno. */
static int map_err(int fd, uint64_t offset, uint64_t length, int prot, int flags)
{
	void *p = mmap(NULL, length, prot, flags, fd, (off_t)offset);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, length);
	return 0;
}

#define RW (PROT_READ | PROT_WRITE)

/* The words of [p, +bytes) are want(BAR_APERTURE_AT + offset + 4 i); what mapped them is named in what. */
static int expect_words(const volatile uint32_t *p, uint64_t offset, uint64_t bytes, uint32_t (*want)(uint64_t),
			const char *what)
{
	uint64_t i;

	for (i = 0; i < bytes / 4; i++) {
		uint64_t o = BAR_APERTURE_AT + offset + 4 * i;
		uint32_t v = p[i];

		if (v != want(o))
			return fail("%s: aperture offset 0x%" PRIx64 " (BAR 2 + 0x%" PRIx64 ") reads 0x%08x, want 0x%08x", what,
				    offset + 4 * i, o, v, want(o));
	}
	return 1;
}

static uint32_t fill_word(uint64_t o)
{
	return BAR_FILL(o);
}

static uint32_t aperture_word(uint64_t o)
{
	return BAR_APERTURE_WORD(o);
}

/* The smaps entry of the mapping that starts at p: its VmFlags and its path; *n counts the mappings
 * that overlap [p, p + bytes). */
static int smaps(const volatile void *p, uint64_t bytes, char *flags, size_t flags_cap, char *path, size_t path_cap,
		 int *n)
{
	unsigned long start = (unsigned long)p, end = start + bytes, lo, hi;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int ours = 0;

	if (!f)
		return fail("open /proc/self/smaps: %s", err(errno));
	*n = 0;
	flags[0] = path[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			ours = lo == start;
			*n += lo < end && start < hi;
			if (ours) {
				const char *name = strchr(line, '/') ? strchr(line, '/') : strstr(line, "anon_inode:");

				snprintf(path, path_cap, "%s", name ? name : "(no name)");
			}
		} else if (ours && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, flags_cap, "%s ", line + 8);
		}
	}
	fclose(f);
	return flags[0] || fail("/proc/self/smaps has no mapping at %p", (const void *)p);
}

/* Whether the space-separated flags hold the two-letter flag f. */
static int has_flag(const char *flags, const char *f)
{
	char word[8];

	snprintf(word, sizeof(word), " %s ", f);
	return strstr(flags, word) != NULL;
}

/* The aperture opens on the bridge's function, maps as one VM_IO|VM_PFNMAP mapping and reads the
 * BAR's range at its offsets. */
static int aperture_maps(void)
{
	static const char *const want[] = { "io", "pf", "de", "dd", "sh", "rd", "wr" };
	static const char *const unwanted[] = { "ex", "me" };
	struct direkt_aperture_open a;
	volatile uint32_t *m = NULL;
	char flags[520], path[520];
	int e = aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), ok, fdflags, n = 0;
	unsigned int i;

	if (e)
		return fail("open of the aperture at BAR 2 + 0x%x: %s", BAR_APERTURE_AT, err(e));
	fdflags = fcntl(a.fd, F_GETFD);
	ok = ((a.found_magic == DIREKT_CSR_MAGIC && a.found_version == BAR_CSR_VERSION) ||
	      fail("the open reports MAGIC 0x%08x, VERSION %u", a.found_magic, a.found_version)) &&
	     (a.caching == DIREKT_APERTURE_WC ||
	      fail("caching %u for ivshmem's prefetchable BAR 2, want DIREKT_APERTURE_WC", a.caching)) &&
	     ((fdflags >= 0 && (fdflags & FD_CLOEXEC)) || fail("the aperture's fd %d is not close-on-exec", a.fd)) &&
	     apertures(1, "with one aperture open");
	if (ok && !(m = map(a.fd, 0, BAR_APERTURE_BYTES, RW, MAP_SHARED)))
		ok = fail("mmap of the whole aperture: %s", err(errno));
	ok = ok && smaps(m, BAR_APERTURE_BYTES, flags, sizeof(flags), path, sizeof(path), &n) &&
	     (n == 1 || fail("%d mappings cover the aperture's range, want 1", n));
	for (i = 0; ok && i < sizeof(want) / sizeof(want[0]); i++)
		if (!has_flag(flags, want[i]))
			ok = fail("the mapping's VmFlags (%s) lack %s", flags, want[i]);
	for (i = 0; ok && i < sizeof(unwanted) / sizeof(unwanted[0]); i++)
		if (has_flag(flags, unwanted[i]))
			ok = fail("the mapping's VmFlags (%s) hold %s", flags, unwanted[i]);
	if (ok) {
		int len = (int)strlen(flags);

		while (len > 0 && flags[len - 1] == ' ')
			len--;
		printf("aperture: %s at %p, VmFlags%.*s\n", path, (const void *)m, len, flags);
	}
	ok = ok && expect_words(m, 0, BAR_APERTURE_BYTES, fill_word, "the mapping");
	if (m)
		munmap((void *)m, BAR_APERTURE_BYTES);
	close(a.fd);
	return ok && idle("after munmap and close");
}

/* Stores through the mapping land in the BAR: read back through it and through other mappings at
 * other offsets; vmtest.py finds them in the BAR's file, and the pages either side untouched. */
static int aperture_writes(void)
{
	struct direkt_aperture_open a;
	volatile uint32_t *m = NULL, *mid = NULL, *last = NULL;
	uint64_t mid_at = 3 * page_size, mid_bytes = 5 * page_size, last_at = BAR_APERTURE_BYTES - page_size, i;
	int e = aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), ok = 1;

	if (e)
		return fail("open of the aperture: %s", err(e));
	if (!(m = map(a.fd, 0, BAR_APERTURE_BYTES, RW, MAP_SHARED)))
		ok = fail("mmap of the whole aperture: %s", err(errno));
	for (i = 0; ok && i < BAR_APERTURE_BYTES / 4; i++)
		m[i] = BAR_APERTURE_WORD(BAR_APERTURE_AT + 4 * i);
	/* the mapping is write-combining: stores may wait in the CPU's buffers until a fence */
	__sync_synchronize();
	ok = ok && expect_words(m, 0, BAR_APERTURE_BYTES, aperture_word, "the mapping written");
	if (ok && !(mid = map(a.fd, mid_at, mid_bytes, PROT_READ, MAP_SHARED)))
		ok = fail("mmap of [0x%" PRIx64 ", +0x%" PRIx64 ") read-only: %s", mid_at, mid_bytes, err(errno));
	if (ok && !(last = map(a.fd, last_at, page_size, RW, MAP_SHARED)))
		ok = fail("mmap of the last page: %s", err(errno));
	ok = ok && expect_words(mid, mid_at, mid_bytes, aperture_word, "a second mapping from page 3") &&
	     expect_words(last, last_at, page_size, aperture_word, "a mapping of the last page");
	if (ok)
		printf("aperture: wrote BAR_APERTURE_WORD over BAR 2 + [0x%x, +0x%x)\n", BAR_APERTURE_AT, BAR_APERTURE_BYTES);
	if (last)
		munmap((void *)last, page_size);
	if (mid)
		munmap((void *)mid, mid_bytes);
	if (m)
		munmap((void *)m, BAR_APERTURE_BYTES);
	close(a.fd);
	return ok && idle("after munmap and close");
}

/* edu's DMA engine reads the BAR where the process wrote: at the aperture's start, across a page
 * boundary and at its end, each right after a store it has not seen before. */
static int aperture_edu(void)
{
	static const uint64_t at[] = { 0, BAR_APERTURE_BYTES / 2 - 1024, BAR_APERTURE_BYTES - 2048 };
	static uint32_t got[512];
	struct direkt_aperture_open a;
	volatile uint32_t *m = NULL;
	int e = aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), ok = 1;
	unsigned int k, i;

	if (e)
		return fail("open of the aperture: %s", err(e));
	if (!(m = map(a.fd, 0, BAR_APERTURE_BYTES, RW, MAP_SHARED)))
		ok = fail("mmap of the whole aperture: %s", err(errno));
	for (k = 0; ok && k < sizeof(at) / sizeof(at[0]); k++) {
		struct dtx_bar_read r = { .bar_offset = BAR_APERTURE_AT + at[k], .data = (uintptr_t)got, .len = sizeof(got) };
		volatile uint32_t *w = m + at[k] / 4;
		uint32_t fresh = 0xE0000000u | k << 16 | (uint32_t)(at[k] >> 12);

		for (i = 0; i < sizeof(got) / 4; i++)
			w[i] = BAR_APERTURE_WORD(r.bar_offset + 4 * i);
		w[1] = fresh;
		__sync_synchronize();
		if (ioctl(dtx_fd, DTX_IOC_BAR_DMA_READ, &r)) {
			ok = fail("edu DMA read of BAR 2 + 0x%" PRIx64 ": %s", (uint64_t)r.bar_offset, err(errno));
			break;
		}
		w[1] = BAR_APERTURE_WORD(r.bar_offset + 4);
		__sync_synchronize();
		if (iommu ? r.bus == info.bar_phys + r.bar_offset : r.bus != info.bar_phys + r.bar_offset)
			ok = fail("edu read BAR 2 + 0x%" PRIx64 " at bus address 0x%" PRIx64 " (BAR at 0x%" PRIx64 "): %s",
				  (uint64_t)r.bar_offset, (uint64_t)r.bus, (uint64_t)info.bar_phys,
				  iommu ? "untranslated while the IOMMU translates" : "not the physical address");
		for (i = 0; ok && i < sizeof(got) / 4; i++) {
			uint32_t want = i == 1 ? fresh : BAR_APERTURE_WORD(r.bar_offset + 4 * i);

			if (got[i] != want)
				ok = fail("edu reads 0x%08x at BAR 2 + 0x%" PRIx64 " (bus 0x%" PRIx64 "), the process wrote 0x%08x",
					  got[i], (uint64_t)(r.bar_offset + 4 * i), (uint64_t)(r.bus + 4 * i), want);
		}
	}
	if (m)
		munmap((void *)m, BAR_APERTURE_BYTES);
	close(a.fd);
	return ok && idle("after munmap and close");
}

/* mmap maps the aperture's pages only, shared only, never executable; the mapping cannot grow. */
static int aperture_mmap_refused(void)
{
	struct direkt_aperture_open a;
	volatile uint32_t *m = NULL;
	int e = aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), ok;
	uint64_t bytes = BAR_APERTURE_BYTES;

	if (e)
		return fail("open of the aperture: %s", err(e));
	ok = expect_err("a mapping a page longer than the aperture", map_err(a.fd, 0, bytes + page_size, RW, MAP_SHARED),
			ERANGE) &&
	     expect_err("the aperture's length from its second page", map_err(a.fd, page_size, bytes, RW, MAP_SHARED), ERANGE) &&
	     expect_err("a page at the aperture's end", map_err(a.fd, bytes, page_size, RW, MAP_SHARED), ERANGE) &&
	     expect_err("a page 1 TB into the aperture", map_err(a.fd, 1ull << 40, page_size, RW, MAP_SHARED), ERANGE) &&
	     expect_err("MAP_PRIVATE", map_err(a.fd, 0, page_size, RW, MAP_PRIVATE), EINVAL) &&
	     expect_err("MAP_PRIVATE, read-only", map_err(a.fd, 0, page_size, PROT_READ, MAP_PRIVATE), EINVAL) &&
	     expect_err("PROT_EXEC", map_err(a.fd, 0, page_size, PROT_READ | PROT_EXEC, MAP_SHARED), EPERM) &&
	     expect_err("the last page alone", map_err(a.fd, bytes - page_size, page_size, RW, MAP_SHARED), 0) &&
	     apertures(1, "after refused mappings");
	if (ok && !(m = map(a.fd, 0, 2 * page_size, RW, MAP_SHARED)))
		ok = fail("mmap of two pages: %s", err(errno));
	ok = ok &&
	     expect_err("mprotect to PROT_EXEC", mprotect((void *)m, page_size, PROT_READ | PROT_EXEC) ? errno : 0, EACCES) &&
	     expect_err("mremap to three pages", mremap((void *)m, 2 * page_size, 3 * page_size, 0) == MAP_FAILED ? errno : 0,
			EFAULT);
	if (m)
		munmap((void *)m, 2 * page_size);
	close(a.fd);
	return ok && idle("after munmap and close");
}

/* The lowest fd free now: an open that is refused must leave it so. */
static int next_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* The wrong BAR or range, and malformed requests: no aperture, no fd. */
static int aperture_wrong_place(void)
{
	struct direkt_aperture_open r = { .csr = bridge(), .version = BAR_CSR_VERSION, .bar = 2,
					  .offset = BAR_APERTURE_AT, .length = BAR_APERTURE_BYTES };
	uint64_t pg = page_size, csr_end = BAR_CSR_AT + BAR_CSR_BYTES;
	int fd0 = next_fd(), ok;

	ok = expect_err("an offset 4 bytes past a page", aperture_open(2, BAR_APERTURE_AT + 4, pg, NULL), EINVAL) &&
	     expect_err("a page and 4 bytes", aperture_open(2, BAR_APERTURE_AT, pg + 4, NULL), EINVAL) &&
	     expect_err("half a page", aperture_open(2, BAR_APERTURE_AT, pg / 2, NULL), EINVAL) &&
	     expect_err("length 0", aperture_open(2, BAR_APERTURE_AT, 0, NULL), EINVAL) &&
	     expect_err("BAR 6", aperture_open(6, 0, pg, NULL), EINVAL) &&
	     expect_err("ivshmem's BAR 1 (not implemented)", aperture_open(1, 0, pg, NULL), ENXIO) &&
	     expect_err("ivshmem's BAR 3 (BAR 2's upper half)", aperture_open(3, 0, pg, NULL), ENXIO) &&
	     expect_err("ivshmem's BAR 0 (256 bytes of registers)", aperture_open(0, 0, pg, NULL), ERANGE) &&
	     expect_err("a range past the BAR's end", aperture_open(2, ivshmem_bar_size - pg, 2 * pg, NULL), ERANGE) &&
	     expect_err("a range starting at the BAR's end", aperture_open(2, ivshmem_bar_size, pg, NULL), ERANGE) &&
	     expect_err("offset + length wrapping 2^64", aperture_open(2, 0 - pg, 2 * pg, NULL), ERANGE) &&
	     expect_err("the CSR's page", aperture_open(2, BAR_CSR_AT, pg, NULL), EADDRINUSE) &&
	     expect_err("a range ending in the CSR's page", aperture_open(2, BAR_CSR_AT - pg, 2 * pg, NULL), EADDRINUSE) &&
	     expect_err("a range over the whole BAR", aperture_open(2, 0, ivshmem_bar_size, NULL), EADDRINUSE) &&
	     expect_err("the page before the CSR", aperture_open(2, BAR_CSR_AT - pg, pg, NULL), 0) &&
	     expect_err("the page after the CSR", aperture_open(2, csr_end, pg, NULL), 0) &&
	     expect_err("CSR length 4", aperture_open_on(imp_fd, range_of(ivshmem, 2, BAR_CSR_AT, 4), BAR_CSR_VERSION, 2,
							  BAR_APERTURE_AT, pg, NULL), EINVAL) &&
	     expect_err("an unaligned CSR offset", aperture_open_on(imp_fd, range_of(ivshmem, 2, BAR_CSR_AT + 2, 64),
								     BAR_CSR_VERSION, 2, BAR_APERTURE_AT, pg, NULL), EINVAL) &&
	     expect_err("device 32", aperture_open_on(imp_fd, range_of((struct pci){ 0, 0, 32, 0 }, 0, 0, 64),
						       BAR_CSR_VERSION, 0, 0, pg, NULL), EINVAL);
	r.flags = 1;
	ok = ok && expect_err("flags 1", ioctl(imp_fd, DIREKT_IOC_APERTURE_OPEN, &r) ? errno : 0, EINVAL);
	r.flags = 0;
	r.reserved = 1;
	ok = ok && expect_err("reserved 1", ioctl(imp_fd, DIREKT_IOC_APERTURE_OPEN, &r) ? errno : 0, EINVAL) &&
	     expect_err("open from an unmapped argument", ioctl(imp_fd, DIREKT_IOC_APERTURE_OPEN, (void *)8) ? errno : 0,
			EFAULT) &&
	     (next_fd() == fd0 || fail("the refused opens left fd %d open", fd0));
	return ok && idle("after refused places");
}

/* A function whose CSR range is not a direkt bridge of that version gets no aperture. */
static int aperture_identity(void)
{
	struct pci absent = { 0, 0xfe, 31, 7 };
	struct direkt_aperture_open a;
	uint64_t pg = page_size;
	int fd0 = next_fd(), ok;

	ok = expect_err("MAGIC in the other byte order", aperture_open_on(imp_fd, range_of(ivshmem, 2, BAR_SWAPPED_AT, 64),
									  BAR_CSR_VERSION, 2, BAR_APERTURE_AT, pg, &a),
			EMEDIUMTYPE) &&
	     (a.found_magic == 0x544B5244u || fail("EMEDIUMTYPE reports MAGIC 0x%08x, the BAR holds 0x544B5244", a.found_magic)) &&
	     (a.fd == -1 || fail("EMEDIUMTYPE gives fd %d, want -1", a.fd)) &&
	     expect_err("a bridge of the previous layout", aperture_open_on(imp_fd, range_of(ivshmem, 2, BAR_OLD_AT, 64),
									   BAR_CSR_VERSION, 2, BAR_APERTURE_AT, pg, &a),
			EPROTO) &&
	     ((a.found_magic == DIREKT_CSR_MAGIC && a.found_version == BAR_CSR_VERSION - 1) ||
	      fail("EPROTO reports MAGIC 0x%08x, VERSION %u", a.found_magic, a.found_version)) &&
	     expect_err("the bridge, a later layout expected",
			aperture_open_on(imp_fd, bridge(), BAR_CSR_VERSION + 1, 2, BAR_APERTURE_AT, pg, &a), EPROTO) &&
	     expect_err("a range that reads all ones", aperture_open_on(imp_fd, range_of(ivshmem, 2, BAR_SILENT_AT, 64),
								       BAR_CSR_VERSION, 2, BAR_APERTURE_AT, pg, NULL),
			EIO) &&
	     expect_err("edu (its registers are not a direkt bridge)",
			aperture_open_on(imp_fd, range_of(edu(), 0, 0, 64), BAR_CSR_VERSION, 0, 0, pg, &a), EMEDIUMTYPE) &&
	     (a.found_magic == 0x010000edu || fail("edu's ID register reads 0x%08x, want 0x010000ed", a.found_magic)) &&
	     expect_err("no device at 0000:fe:1f.7",
			aperture_open_on(imp_fd, range_of(absent, 0, 0, 64), BAR_CSR_VERSION, 0, 0, pg, NULL), ENODEV) &&
	     (next_fd() == fd0 || fail("the refused opens left fd %d open", fd0));
	return ok && idle("after refused identities");
}

/* An aperture outlives the device's file that opened it, and its own fd while a mapping is left;
 * the count is back to zero once both are gone. */
static int aperture_lifetime(void)
{
	int other = open(DIREKT_IMPORTER_DEVICE, O_RDWR), ok;
	struct direkt_aperture_open a = { .fd = -1 }, b = { .fd = -1 };
	volatile uint32_t *m = NULL;
	uint32_t before = 0;

	if (other < 0)
		return fail("open %s: %s", DIREKT_IMPORTER_DEVICE, err(errno));
	ok = expect_err("open through a second file of the device",
			aperture_open_on(other, bridge(), BAR_CSR_VERSION, 2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), 0) &&
	     expect_err("a second aperture on the same range", aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &b), 0) &&
	     apertures(2, "with two apertures open");
	close(other);
	ok = ok && apertures(2, "after the device's file that opened one closed");
	if (ok && !(m = map(a.fd, 0, page_size, RW, MAP_SHARED)))
		ok = fail("mmap after the device's file closed: %s", err(errno));
	if (ok)
		before = m[0];
	if (b.fd >= 0)
		close(b.fd);
	ok = ok && apertures(1, "after the second aperture's fd closed");
	if (a.fd >= 0)
		close(a.fd);
	ok = ok && apertures(1, "with the fd closed and a mapping left") &&
	     (m[0] == before || fail("the mapping reads 0x%08x after its fd closed, 0x%08x before", m[0], before));
	if (m)
		munmap((void *)m, page_size);
	ok = ok && apertures(0, "after the munmap");
	return ok && idle("after munmap and close");
}

/* A child's read of *p: 1 when it dies of SIGBUS, as a read of a zapped aperture must. */
static int read_faults(const volatile uint32_t *p)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return fail("fork: %s", err(errno));
	if (pid == 0) {
		(void)*p;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid: %s", err(errno));
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGBUS)
		return fail("a read of the removed function's aperture %s, want SIGBUS",
			    WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "succeeded");
	return 1;
}

/*
 * A removed PCI function's windows are unmapped and its apertures' mappings zapped at once: window
 * accesses fail, mapping reads fault, new mmaps are refused; handles and fds close as usual.
 */
static int csr_removed(void)
{
	struct direkt_aperture_open a = { .fd = -1 };
	volatile uint32_t *m = NULL;
	struct pci again;
	struct direkt_csr_open w;
	char sysfs[300], path[320];
	int fd, ok;
	uint32_t v;

	if (!find_pci(0x1af4, 0x1110, &again, sysfs, sizeof(sysfs)))
		return fail("ivshmem is not in /sys/bus/pci/devices");
	ok = expect_err("open", csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &w), 0) &&
	     csr_expect(imp_fd, w.handle, 0, DIREKT_CSR_MAGIC) &&
	     expect_err("open of the aperture", aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, &a), 0);
	if (ok && !(m = map(a.fd, 0, BAR_APERTURE_BYTES, RW, MAP_SHARED)))
		ok = fail("mmap of the aperture: %s", err(errno));
	ok = ok && (m[0] == BAR_APERTURE_WORD(BAR_APERTURE_AT) ||
		    fail("the aperture reads 0x%08x before the removal, want 0x%08x", m[0], BAR_APERTURE_WORD(BAR_APERTURE_AT)));
	snprintf(path, sizeof(path), "%s/remove", sysfs);
	fd = open(path, O_WRONLY);
	if (ok && (fd < 0 || write(fd, "1", 1) != 1))
		ok = fail("removing ivshmem through %s: %s", path, err(errno));
	if (fd >= 0)
		close(fd);
	ok = ok && expect_err("read after the removal", csr_read_on(imp_fd, w.handle, 0, &v), ENODEV) &&
	     expect_err("write after the removal", csr_write_on(imp_fd, w.handle, 8, 1), ENODEV) &&
	     csr_windows(1, "the handle stays until closed") && expect_err("close", csr_close_on(imp_fd, w.handle), 0) &&
	     expect_err("open on the removed function",
			csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, NULL), ENODEV) &&
	     read_faults(m) && read_faults(m + BAR_APERTURE_BYTES / 4 - 1) &&
	     expect_err("mmap of the aperture after the removal", map_err(a.fd, 0, page_size, RW, MAP_SHARED), ENODEV) &&
	     apertures(1, "the aperture stays until unmapped and closed");
	if (m)
		munmap((void *)m, BAR_APERTURE_BYTES);
	if (a.fd >= 0)
		close(a.fd);
	ok = ok && expect_err("aperture open on the removed function",
			      aperture_open(2, BAR_APERTURE_AT, BAR_APERTURE_BYTES, NULL), ENODEV);
	return ok && idle("after the removal");
}

/*
 * The Java boot: the same device driven by the runtime's Java importer (direkt-run importer, a
 * jlinked runtime). The buffer's fd is inherited; the Java side prints its segments and holds the
 * import until told on stdin, so edu can read them and the exporter can move the buffer meanwhile.
 * Then the runtime's CSR window (direkt-run csr) on the ivshmem fixture.
 */
static const char *java_importer = "/java/importer.sh";
static const char *java_csr = "/java/csr.sh";

struct java_run {
	pid_t pid;
	FILE *out;          /* its stdout and stderr */
	int in;             /* its stdin */
	char text[8192];    /* everything it printed so far */
};

static int java_start(struct java_run *j, const char *cmd, char *const args[])
{
	int out[2], in[2];
	char *argv[40] = { (char *)cmd };
	int i;

	for (i = 0; args[i] && i < 38; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (pipe(out) || pipe(in))
		return fail("pipe: %s", err(errno));
	j->pid = fork();
	if (j->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(in[1]);
		close(out[0]);
		execv(cmd, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	j->out = fdopen(out[0], "r");
	j->in = in[1];
	j->text[0] = 0;
	return 1;
}

/* Reads lines until one starts with `until` (kept in *line) or the process ends. */
static int java_read(struct java_run *j, const char *until, char *line, size_t cap)
{
	while (fgets(line, cap, j->out)) {
		strncat(j->text, line, sizeof(j->text) - strlen(j->text) - 1);
		if (until && !strncmp(line, until, strlen(until)))
			return 1;
	}
	return until ? fail("direkt-run ended before printing '%s'; it printed:\n%s", until, j->text) : 1;
}

/* Ends the run (a line on stdin releases a held import); returns its exit status. */
static int java_end(struct java_run *j)
{
	char line[512];
	int status;

	signal(SIGPIPE, SIG_IGN); /* it may have exited already */
	if (write(j->in, "\n", 1) < 0 && errno != EPIPE)
		fail("writing to direkt-run: %s", err(errno));
	close(j->in);
	java_read(j, NULL, line, sizeof(line));
	fclose(j->out);
	waitpid(j->pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *num(uint64_t v)
{
	static char bufs[8][32];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, 32, "%" PRIu64, v);
	return b;
}

static char *pci_text(struct pci p)
{
	static char b[32];

	snprintf(b, sizeof(b), "%04x:%02x:%02x.%x", p.domain, p.bus, p.device, p.function);
	return b;
}

/* The Java importer imports a buffer, edu reads its segments, the exporter moves it: the listener
 * hears of it; the release on stdin leaves nothing held. */
static int java_import(uint32_t kind, uint64_t size)
{
	struct direkt_import r = { .offset = 0, .length = size };
	uint32_t seed = (uint32_t)(size * 7 + kind);
	int fd = create(kind, 0, size, 64 * KB, 0, seed), ok = 1, code;
	char line[512], *args[] = { "--fd", num(fd), "--length", num(size), "--fpga", pci_text(edu()), "--hold", NULL };
	struct direkt_stats3 s;
	struct java_run j;

	if (fd < 0 || !java_start(&j, java_importer, args))
		return 0;
	r.nr_segments = 0;
	while (ok && java_read(&j, "", line, sizeof(line))) {
		unsigned long long bus, len;

		if (sscanf(line, "segment 0x%llx %llu", &bus, &len) == 2 && r.nr_segments < MAX_SEGS) {
			segs[r.nr_segments].bus_addr = bus;
			segs[r.nr_segments++].len = len;
		}
		if (!strncmp(line, "holding", 7))
			break;
	}
	if (!strstr(j.text, "holding"))
		ok = fail("direkt-run importer did not hold the import; it printed:\n%s", j.text);
	else if (strstr(j.text, "import:"))
		printf("  java: %.*s\n", (int)strcspn(strstr(j.text, "import:"), "\n"), strstr(j.text, "import:"));
	ok = ok && (r.nr_segments > 0 || fail("no segments printed:\n%s", j.text)) && verify(&r, seed) && stats(&s) &&
	     (s.attachments == 1 || fail("%u attachments while Java holds one import", s.attachments));
	ok = ok && move(fd) && java_read(&j, "revoked", line, sizeof(line));
	code = java_end(&j);
	close(fd);
	if (ok && (code != 0 || !strstr(j.text, "released")))
		ok = fail("direkt-run importer exited %d after the release; it printed:\n%s", code, j.text);
	return ok && idle("after the Java importer");
}

static int java_sysmem(void) { return java_import(DTX_SYSMEM, 2 * MB); }
static int java_bar(void) { return java_import(DTX_BAR, 1 * MB); }

/* A failing import: the exit status (1: the import failed, 2: bad input) and a message that names
 * the problem. */
static int java_error(const char *what, uint32_t flags, const char *fd_text, const char *pci, const char *length,
		      int want_code, const char *want)
{
	int fd = create(DTX_SYSMEM, flags, 256 * KB, 64 * KB, 0, 1), code;
	char *args[] = { "--fd", fd_text ? (char *)fd_text : num(fd), "--length", (char *)length, "--fpga",
			 pci ? (char *)pci : pci_text(edu()), NULL };
	struct java_run j;

	if (fd < 0 || !java_start(&j, java_importer, args))
		return 0;
	code = java_end(&j);
	close(fd);
	if (code != want_code || !strstr(j.text, want))
		return fail("%s: exit %d, want %d and a message with '%s'; it printed:\n%s", what, code, want_code, want,
			    j.text);
	return idle(what);
}

static int java_errors(void)
{
	return java_error("fd 1000", 0, "1000", NULL, "65536", 2, "not an open file descriptor (EBADF (9))") &&
	       java_error("refusing exporter", DTX_REFUSE, NULL, NULL, "65536", 1, "refuses to map it for the FPGA") &&
	       java_error("no FPGA there", 0, NULL, "0000:fe:1f.7", "65536", 1,
			  "no PCI device at 0000:fe:1f.7 (ENODEV (19))") &&
	       java_error("range past the end", 0, NULL, NULL, "524288", 2,
			  "the range lies outside the dma-buf (ERANGE (34))");
}

/* The output must hold each of the lines. */
static int java_printed(struct java_run *j, const char *what, char *const want[])
{
	int i;

	for (i = 0; want[i]; i++)
		if (!strstr(j->text, want[i]))
			return fail("%s: no line '%s'; it printed:\n%s", what, want[i], j->text);
	return 1;
}

static char *hex(uint64_t v)
{
	static char bufs[8][24];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, 24, "0x%" PRIx64, v);
	return b;
}

/* direkt-run csr reads and writes the bridge's registers through its window; what it wrote is
 * in the BAR (a window of this program reads it); what lies outside the window is refused. */
static int java_csr_window(void)
{
	char opened[128], fill8[32], fillffc[32];
	char *args[] = { "--fpga", pci_text(ivshmem), "--bar", "2", "--offset", hex(BAR_CSR_AT), "--bytes", hex(BAR_CSR_BYTES),
			 "--layout-version", num(BAR_CSR_VERSION), "read", "0x0", "read", "0x4", "read", "0x8",
			 "write", "0x10=0xa5a5a5a5", "read", "0x10", "write", "0xff8=0x12345678", "read", "0x1000",
			 "write", "0x6=1", "read", "0xffc", NULL };
	char *want[] = { opened, "read 0x0 = 0x44524b54\n", "read 0x4 = 0x00000002\n", fill8, "write 0x10 = 0xa5a5a5a5\n",
			 "read 0x10 = 0xa5a5a5a5\n", "write 0xff8 = 0x12345678\n",
			 "refused: read of register 0x1000 refused: it lies outside the CSR window", "(ERANGE (34))",
			 "refused: write of register 0x6 refused: the CSR's registers are 32-bit words at multiples of 4 (EINVAL (22))",
			 fillffc, "closed: the module holds 0 CSR windows\n", NULL };
	struct direkt_csr_open w;
	struct java_run j;
	int code, ok;

	snprintf(opened, sizeof(opened), "csr: %s BAR 2 [0x%x, +4 KB): direkt's bridge, layout version %d\n",
		 pci_text(ivshmem), BAR_CSR_AT, BAR_CSR_VERSION);
	snprintf(fill8, sizeof(fill8), "read 0x8 = 0x%08x\n", BAR_FILL(BAR_CSR_AT + 8));
	snprintf(fillffc, sizeof(fillffc), "read 0xffc = 0x%08x\n", BAR_FILL(BAR_CSR_AT + BAR_CSR_BYTES - 4));
	if (!java_start(&j, java_csr, args))
		return 0;
	code = java_end(&j);
	ok = (code == 1 || fail("direkt-run csr exited %d, want 1 (two accesses refused); it printed:\n%s", code, j.text)) &&
	     java_printed(&j, "direkt-run csr", want);
	ok = ok && expect_err("open", csr_open(ivshmem, 2, BAR_CSR_AT, BAR_CSR_BYTES, BAR_CSR_VERSION, &w), 0) &&
	     csr_expect(imp_fd, w.handle, 0x10, 0xa5a5a5a5u) && csr_expect(imp_fd, w.handle, 0xff8, 0x12345678u) &&
	     csr_expect(imp_fd, w.handle, 0x14, BAR_FILL(BAR_CSR_AT + 0x14)) && expect_err("close", csr_close_on(imp_fd, w.handle), 0);
	if (ok) {
		char *line = j.text, *end;

		for (; *line; line = *end ? end + 1 : end) {
			end = strchrnul(line, '\n');
			printf("  java: %.*s\n", (int)(end - line), line);
		}
		printf("csr: wrote 0xa5a5a5a5 at BAR 2 + 0x%x\n", BAR_CSR_AT + 0x10);
		printf("csr: wrote 0x12345678 at BAR 2 + 0x%x\n", BAR_CSR_AT + 0xff8);
	}
	return ok && idle("after direkt-run csr");
}

/* A range whose MAGIC is not direkt's: the runtime names a bitstream without direkt's bridge. */
static int java_csr_not_bridge(void)
{
	char *args[] = { "--fpga", pci_text(ivshmem), "--bar", "2", "--offset", hex(BAR_SWAPPED_AT), "--bytes", "64",
			 "--layout-version", num(BAR_CSR_VERSION), "read", "0x0", NULL };
	char want[320], *wants[] = { want, NULL };
	struct java_run j;
	int code;

	snprintf(want, sizeof(want), "a bitstream without direkt's bridge: at BAR 2 + 0x%x of %s the CSR's MAGIC register "
		 "reads 0x544b5244, direkt's bridge reads 0x44524b54 (\"DRKT\") (EMEDIUMTYPE (124))", BAR_SWAPPED_AT,
		 pci_text(ivshmem));
	if (!java_start(&j, java_csr, args))
		return 0;
	code = java_end(&j);
	if (code != 1 || strstr(j.text, "read 0x0"))
		return fail("direkt-run csr on a range without direkt's bridge exited %d; it printed:\n%s", code, j.text);
	if (!java_printed(&j, "direkt-run csr", wants))
		return 0;
	printf("  java: %.*s\n", (int)strcspn(j.text, "\n"), j.text);
	return idle("after the refused window");
}

static int all_idle(void)
{
	return idle("at the end") && (info.buffers == 0 || fail("%u exporter buffers alive", info.buffers));
}

int main(int argc, char **argv)
{
	char path[300];
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || (strcmp(argv[1], "iommu") && strcmp(argv[1], "noiommu") && strcmp(argv[1], "java"))) {
		fprintf(stderr, "usage: vmtest iommu|noiommu|java\n");
		return 2;
	}
	iommu = !strcmp(argv[1], "iommu");
	imp_fd = open(DIREKT_IMPORTER_DEVICE, O_RDWR);
	dtx_fd = open(DTX_DEVICE, O_RDWR);
	if (imp_fd < 0 || dtx_fd < 0 || ioctl(dtx_fd, DTX_IOC_INFO, &info)) {
		printf("FAIL setup: %s or %s cannot be used: %s\n", DIREKT_IMPORTER_DEVICE, DTX_DEVICE, err(errno));
		printf("vmtest: 0 passed, 1 failed\n");
		return 1;
	}
	printf("vmtest: edu at %04x:%02x:%02x.%x, ivshmem BAR 2 at 0x%" PRIx64 " (%" PRIu64 " KB), IOMMU %s\n",
	       info.edu_domain, info.edu_bus, info.edu_device, info.edu_function, (uint64_t)info.bar_phys,
	       (uint64_t)(info.bar_size / KB), iommu ? "on" : "off");
	if (!find_pci(0x1af4, 0x1110, &ivshmem, path, sizeof(path))) {
		printf("FAIL setup: no ivshmem (1af4:1110) in /sys/bus/pci/devices\n");
		printf("vmtest: 0 passed, 1 failed\n");
		return 1;
	}
	ivshmem_bar_size = info.bar_size;
	page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	why[0] = 0;
	if (!strcmp(argv[1], "java")) {
		run("Java importer: system memory, revoked while held", java_sysmem);
		run("Java importer: BAR memory, revoked while held", java_bar);
		run("Java importer: errors named (EBADF, EOPNOTSUPP, ENODEV, ERANGE)", java_errors);
		run("Java CSR window: reads and writes land; outside and unaligned refused", java_csr_window);
		run("Java CSR window: a bitstream without direkt's bridge named", java_csr_not_bridge);
		run("counts back to zero", all_idle);
		printf("vmtest: %d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	if ((stat("/sys/class/iommu/dmar0", &st) == 0) != iommu) {
		printf("FAIL setup: the boot was to have the IOMMU %s, /sys/class/iommu says otherwise\n", iommu ? "on" : "off");
		failed++;
	}
	run("abi", stats_abi);
	run("sysmem 64 KB pieces, 64 KB", sysmem_64k_64k);
	run("sysmem 64 KB pieces, 1 MB", sysmem_64k_1m);
	run("sysmem 64 KB pieces, 16 MB", sysmem_64k_16m);
	run("sysmem 64 KB pieces, 4 MB, dynamic exporter", sysmem_64k_dynamic);
	run("sysmem 4 KB pieces, 4 KB", sysmem_4k_4k);
	run("sysmem 4 KB pieces, 256 KB", sysmem_4k_256k);
	run("sysmem 4 KB pieces, 4 MB, dynamic exporter", sysmem_4k_4m_dynamic);
	run("sysmem sub-range at an odd offset", sysmem_range);
	run("sysmem sub-range across 64 KB pieces", sysmem_range_64k);
	run("BAR 64 KB pieces, 1 MB", bar_64k_1m);
	run("BAR 4 KB pieces, 256 KB, dynamic exporter", bar_4k_256k_dynamic);
	run("BAR sub-range", bar_range);
	run("BAR addresses the exporter did not map", bar_untranslated);
	run("bad fd (EBADF)", bad_fd);
	run("not a dma-buf (EINVAL)", not_a_dmabuf);
	run("range outside the buffer (ERANGE)", range_outside);
	run("wrong PCI address (ENODEV, EINVAL)", wrong_pci);
	run("bad arguments (EINVAL, EFAULT, ENOTTY)", bad_arguments);
	run("exporter refusal (EOPNOTSUPP, ENOSPC, ENOMEM)", refusal);
	run("segment array too small (E2BIG)", too_many_segments);
	run("double release (ENOENT)", double_release);
	run("exporter work pending (waits; EINTR on a signal)", pending_work);
	run("revocation", revocation);
	run("close with imports open", close_with_imports);
	run("512 imports", many_imports);
	run("CSR window: identity read, reads land at their offsets", csr_reads);
	run("CSR window: writes land at their offsets, seen from another file", csr_writes);
	run("CSR window: outside, unaligned, other file's handle refused (ERANGE, EINVAL, ENOENT)", csr_outside);
	run("CSR window: not a direkt bridge refused (EMEDIUMTYPE, EPROTO, EIO)", csr_identity);
	run("CSR window: wrong device, BAR or range refused (ENODEV, ENXIO, ERANGE, EINVAL)", csr_wrong_place);
	run("CSR window: closing the file closes its windows", csr_close_file);
	run("aperture: one VM_IO|VM_PFNMAP mapping, close-on-exec fd, reads the BAR's range", aperture_maps);
	run("aperture: writes land, read back through mappings at other offsets", aperture_writes);
	run("aperture: edu's DMA reads what the process wrote", aperture_edu);
	run("aperture: mmap beyond the range, private, executable refused (ERANGE, EINVAL, EPERM); no growth",
	    aperture_mmap_refused);
	run("aperture: unaligned, empty, non-memory BAR, outside the BAR, over the CSR refused "
	    "(EINVAL, ENXIO, ERANGE, EADDRINUSE)", aperture_wrong_place);
	run("aperture: not a direkt bridge refused (EMEDIUMTYPE, EPROTO, EIO, ENODEV)", aperture_identity);
	run("aperture: outlives the device's file, and its fd while mapped; count back to zero", aperture_lifetime);
	run("CSR window and aperture: unmapped when the PCI function is removed (ENODEV, SIGBUS)", csr_removed);
	run("counts back to zero", all_idle);
	close(imp_fd);
	close(dtx_fd);
	printf("vmtest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
