/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the parts of direkt_importer share: main.c (the device, its file and its ioctls), import.c
 * (dma-buf imports), csr.c (CSR windows), aperture.c (apertures) and bar.c (ranges of another
 * driver's BAR). The ABI is direkt_importer.h; docs/importer-contract.md documents it.
 */
#ifndef DIREKT_INTERNAL_H
#define DIREKT_INTERNAL_H

#include <linux/list.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "direkt_importer.h"

/* One open file of /dev/direkt_importer: what it holds ends when it is closed. */
struct importer_file {
	struct xarray imports;        /* handle -> struct import */
	spinlock_t revoked_lock;      /* the list below; taken inside the reservation lock */
	struct list_head revoked;     /* revoked imports not yet reported, oldest first */
	struct xarray csr_windows;    /* handle -> struct csr_window, changed under csr.c's lock */
};

void import_file_init(struct importer_file *f);
long import_range(struct importer_file *f, struct direkt_import __user *uarg);
long import_release(struct importer_file *f, struct direkt_release __user *uarg);
long import_revocations(struct importer_file *f, struct direkt_revocations __user *uarg);
void import_release_all(struct importer_file *f);
void import_counts(struct direkt_stats3 *s);

int csr_init(void);
void csr_exit(void);
void csr_file_init(struct importer_file *f);
long csr_open(struct importer_file *f, struct direkt_csr_open __user *uarg);
long csr_access(struct importer_file *f, struct direkt_csr_io __user *uarg, bool write);
long csr_close(struct importer_file *f, struct direkt_csr_close __user *uarg);
void csr_close_all(struct importer_file *f);
u32 csr_window_count(void);
int csr_identify(void __iomem *regs, u32 version, u32 *found_magic, u32 *found_version);

int aperture_init(void);
void aperture_exit(void);
long aperture_open(struct direkt_aperture_open __user *uarg);
u32 aperture_count(void);

int bar_range_get(const struct direkt_bar_range *r, struct pci_dev **pdev);
int bar_range_check(struct pci_dev *pdev, unsigned int bar, u64 offset, u64 length);
bool bar_decodes_memory(struct pci_dev *pdev);

#endif
