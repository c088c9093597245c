/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * direkt importer: the ioctl interface of /dev/direkt_importer (docs/importer-contract.md).
 *
 * A process imports a range of a dma-buf (for example GPU memory an exporter such as NVIDIA's
 * driver hands out) for the FPGA named by its PCI address, and gets the bus addresses the FPGA's
 * DMA engine must use for that range, as (bus address, length) segments in buffer order; it
 * reads and writes the registers of direkt's bridge through a CSR window; and it maps a range of
 * the FPGA's memory BAR into the process through an aperture, for a GPU to read and write.
 */
#ifndef DIREKT_IMPORTER_H
#define DIREKT_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define DIREKT_IMPORTER_DEVICE "/dev/direkt_importer"
#define DIREKT_IMPORTER_ABI 1

/* One contiguous piece of the imported range, as the FPGA sees it. */
struct direkt_segment {
	__u64 bus_addr;
	__u64 len;
};

/* DIREKT_IOC_IMPORT: in every field but the three marked out. */
struct direkt_import {
	__s32 dmabuf_fd;     /* the dma-buf */
	__u32 flags;         /* 0: none defined yet */
	__u64 offset;        /* first byte of the range, from the buffer's start */
	__u64 length;        /* bytes, > 0; offset + length <= the buffer's size */
	__u32 pci_domain;    /* the FPGA: domain:bus:device.function */
	__u8 pci_bus;
	__u8 pci_device;     /* 0..31 */
	__u8 pci_function;   /* 0..7 */
	__u8 reserved0;      /* 0 */
	__u64 segments;      /* user pointer to max_segments struct direkt_segment */
	__u32 max_segments;
	__u32 nr_segments;   /* out: segments written; with E2BIG, segments needed */
	__u32 handle;        /* out: names the import for RELEASE and in REVOCATIONS */
	__u32 reserved1;     /* 0 */
};

/* DIREKT_IOC_RELEASE */
struct direkt_release {
	__u32 handle;
	__u32 reserved;      /* 0 */
};

/*
 * DIREKT_IOC_REVOCATIONS: handles whose exporter moved or revoked the memory since the last call
 * (their addresses must not be used any more; release them). Up to max handles are written to the
 * user array at handles; count says how many; more says whether some are still queued.
 */
struct direkt_revocations {
	__u64 handles;       /* user pointer to max __u32 */
	__u32 max;
	__u32 count;         /* out */
	__u32 more;          /* out: 1 when more revocations are queued */
	__u32 reserved;      /* 0 */
};

/* DIREKT_IOC_STATS: module-wide counts, for tests and diagnostics. */
struct direkt_stats {
	__u32 abi;           /* out: DIREKT_IMPORTER_ABI */
	__u32 attachments;   /* out: dma-buf attachments held now */
	__u32 mappings;      /* out: mapped attachments now */
	__u32 revoked;       /* out: imports revoked since the module was loaded */
};

/* DIREKT_IOC_STATS2: the same request number, grown by the CSR windows' count. */
struct direkt_stats2 {
	__u32 abi;
	__u32 attachments;
	__u32 mappings;
	__u32 revoked;
	__u32 csr_windows;   /* out: CSR windows open now, in every file */
};

/* DIREKT_IOC_STATS3: the same request number, grown by the apertures' count. */
struct direkt_stats3 {
	__u32 abi;
	__u32 attachments;
	__u32 mappings;
	__u32 revoked;
	__u32 csr_windows;
	__u32 apertures;     /* out: apertures alive now (an fd open or a mapping left), in every process */
};

/*
 * A process programs direkt's bridge on an FPGA whose PCI function another driver (the BSP's)
 * owns, through a CSR window: the byte range of a memory BAR the overlay's manifest names
 * (board.csr: bar, offset, bytes), mapped only once its first two registers read as a direkt
 * bridge of the layout version the caller expects.
 */
#define DIREKT_CSR_MAGIC          0x44524B54u /* "DRKT", the bridge's MAGIC register (Layout.CSR_MAGIC) */
#define DIREKT_CSR_MAGIC_OFFSET   0x00        /* bytes: CSR word 0 */
#define DIREKT_CSR_VERSION_OFFSET 0x04        /* bytes: CSR word 1 (Layout.CSR_VERSION_OFFSET), the layout version */
#define DIREKT_CSR_MIN_BYTES      8           /* a window holds at least MAGIC and VERSION */

/* A byte range of a PCI function's BAR. */
struct direkt_bar_range {
	__u32 pci_domain;    /* domain:bus:device.function */
	__u8 pci_bus;
	__u8 pci_device;     /* 0..31 */
	__u8 pci_function;   /* 0..7 */
	__u8 bar;            /* 0..5, a memory BAR */
	__u64 offset;        /* first byte, from the BAR's start */
	__u64 length;        /* bytes; offset + length <= the BAR's size */
};

/* DIREKT_IOC_CSR_OPEN */
struct direkt_csr_open {
	struct direkt_bar_range csr; /* in: offset and length multiples of 4, length >= DIREKT_CSR_MIN_BYTES */
	__u32 version;       /* in: the layout version VERSION must read (the manifest's layout.version) */
	__u32 flags;         /* in: 0 */
	__u32 handle;        /* out: names the window for READ, WRITE and CLOSE */
	__u32 found_magic;   /* out, also with EIO, EMEDIUMTYPE and EPROTO: what MAGIC read */
	__u32 found_version; /* out, likewise: what VERSION read */
	__u32 reserved;      /* in: 0 */
};

/* DIREKT_IOC_CSR_READ (value out) and DIREKT_IOC_CSR_WRITE (value in): one 32-bit register. */
struct direkt_csr_io {
	__u32 handle;
	__u32 value;
	__u64 offset;        /* bytes from the window's start: a multiple of 4, below its length */
};

/* DIREKT_IOC_CSR_CLOSE */
struct direkt_csr_close {
	__u32 handle;
	__u32 reserved;      /* 0 */
};

/*
 * A process maps the FPGA memory that a BAR of the bridge's function exposes flat (for a GPU to
 * reach it once CUDA registers the mapping as I/O memory), through an aperture: a file whose mmap
 * maps exactly the byte range the overlay's manifest declares, granted only on a function whose
 * CSR range reads as a direkt bridge of the expected layout version (as for DIREKT_IOC_CSR_OPEN).
 *
 * DIREKT_IOC_APERTURE_OPEN refuses with:
 *   EFAULT       the request is not readable/writable memory
 *   EINVAL       flags or a reserved field not zero; pci_device > 31, pci_function > 7, csr.bar or
 *                bar > 5; csr.offset or csr.length not a multiple of 4, csr.length < 8; offset or
 *                length not a multiple of the page size, or length 0
 *   ENODEV       no PCI function at that address
 *   ENXIO        csr.bar or bar is not a memory BAR (I/O, not implemented, a 64-bit BAR's upper
 *                half, never assigned)
 *   ERANGE       the CSR range or the aperture's range wraps 2^64 or ends past its BAR
 *   EIO          the function does not decode memory, or MAGIC reads all ones
 *   EMEDIUMTYPE  MAGIC is not DIREKT_CSR_MAGIC: not a direkt bridge (found_magic says what it read)
 *   EPROTO       VERSION is not version (found_version says what it read)
 *   EADDRINUSE   the aperture shares a page with the CSR range: registers are reached only
 *                through a CSR window, never through a write-combined mapping
 *   EMFILE, ENFILE, ENOMEM  no file descriptor, file or memory left
 * The aperture's file, through mmap(2), refuses with:
 *   EINVAL       a private (copy-on-write) mapping: only MAP_SHARED
 *   ERANGE       the mapping's offset plus its length ends past the aperture
 *   EPERM        an executable mapping (PROT_EXEC)
 *   ENODEV       the PCI function was removed since the aperture opened
 */
#define DIREKT_APERTURE_UC 1 /* mapped uncached: the BAR is not prefetchable */
#define DIREKT_APERTURE_WC 2 /* mapped write-combining: the BAR is prefetchable */

/* DIREKT_IOC_APERTURE_OPEN */
struct direkt_aperture_open {
	struct direkt_bar_range csr; /* in: the function, and its bridge's CSR range as for DIREKT_IOC_CSR_OPEN */
	__u32 version;       /* in: the layout version VERSION must read (the manifest's layout.version) */
	__u32 flags;         /* in: 0 */
	__u32 bar;           /* in: the aperture's BAR of the same function, 0..5, a memory BAR */
	__s32 fd;            /* out: the aperture's file (close-on-exec); mmap it MAP_SHARED, offset 0 = the aperture's first byte */
	__u64 offset;        /* in: the aperture's first byte, from the BAR's start: a multiple of the page size */
	__u64 length;        /* in: bytes, a multiple of the page size, > 0; offset + length <= the BAR's size */
	__u32 found_magic;   /* out, also with EIO, EMEDIUMTYPE and EPROTO: what MAGIC read */
	__u32 found_version; /* out, likewise: what VERSION read */
	__u32 caching;       /* out: DIREKT_APERTURE_WC or DIREKT_APERTURE_UC, how mmap maps it */
	__u32 reserved;      /* in: 0 */
};

#define DIREKT_IOC_MAGIC 0xD7
#define DIREKT_IOC_IMPORT      _IOWR(DIREKT_IOC_MAGIC, 1, struct direkt_import)
#define DIREKT_IOC_RELEASE     _IOW(DIREKT_IOC_MAGIC, 2, struct direkt_release)
#define DIREKT_IOC_REVOCATIONS _IOWR(DIREKT_IOC_MAGIC, 3, struct direkt_revocations)
#define DIREKT_IOC_STATS       _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats)
#define DIREKT_IOC_STATS2      _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats2)
#define DIREKT_IOC_STATS3      _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats3)
#define DIREKT_IOC_CSR_OPEN    _IOWR(DIREKT_IOC_MAGIC, 5, struct direkt_csr_open)
#define DIREKT_IOC_CSR_READ    _IOWR(DIREKT_IOC_MAGIC, 6, struct direkt_csr_io)
#define DIREKT_IOC_CSR_WRITE   _IOW(DIREKT_IOC_MAGIC, 7, struct direkt_csr_io)
#define DIREKT_IOC_CSR_CLOSE   _IOW(DIREKT_IOC_MAGIC, 8, struct direkt_csr_close)
#define DIREKT_IOC_APERTURE_OPEN _IOWR(DIREKT_IOC_MAGIC, 9, struct direkt_aperture_open)

#endif
