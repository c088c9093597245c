/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * direkt importer: the ioctl interface of /dev/direkt_importer (docs/importer-contract.md).
 *
 * A process imports a range of a dma-buf (for example GPU memory an exporter such as NVIDIA's
 * driver hands out) for the FPGA named by its PCI address, and gets the bus addresses the FPGA's
 * DMA engine must use for that range, as (bus address, length) segments in buffer order; and it
 * reads and writes the registers of direkt's bridge through a CSR window.
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

#define DIREKT_IOC_MAGIC 0xD7
#define DIREKT_IOC_IMPORT      _IOWR(DIREKT_IOC_MAGIC, 1, struct direkt_import)
#define DIREKT_IOC_RELEASE     _IOW(DIREKT_IOC_MAGIC, 2, struct direkt_release)
#define DIREKT_IOC_REVOCATIONS _IOWR(DIREKT_IOC_MAGIC, 3, struct direkt_revocations)
#define DIREKT_IOC_STATS       _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats)
#define DIREKT_IOC_STATS2      _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats2)
#define DIREKT_IOC_CSR_OPEN    _IOWR(DIREKT_IOC_MAGIC, 5, struct direkt_csr_open)
#define DIREKT_IOC_CSR_READ    _IOWR(DIREKT_IOC_MAGIC, 6, struct direkt_csr_io)
#define DIREKT_IOC_CSR_WRITE   _IOW(DIREKT_IOC_MAGIC, 7, struct direkt_csr_io)
#define DIREKT_IOC_CSR_CLOSE   _IOW(DIREKT_IOC_MAGIC, 8, struct direkt_csr_close)

#endif
