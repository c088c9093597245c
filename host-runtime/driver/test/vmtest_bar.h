/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The CSR-window and aperture cases' fixture in ivshmem's BAR 2, which stands in for the FPGA's
 * BAR: vmtest.py fills the BAR's backing file so before each boot (and reads these defines from
 * here), vmtest.c opens windows and apertures on it, and after the boot vmtest.py checks that the
 * file holds the words the test wrote at their offsets and the fill everywhere else. Byte offsets
 * into BAR 2.
 */
#ifndef VMTEST_BAR_H
#define VMTEST_BAR_H

#define BAR_CSR_AT         0x600000 /* a direkt bridge's CSR: MAGIC, VERSION, then the fill */
#define BAR_CSR_BYTES      0x1000
#define BAR_CSR_VERSION    2
#define BAR_SWAPPED_AT     0x700000 /* MAGIC in the other byte order: not a direkt bridge */
#define BAR_OLD_AT         0x710000 /* MAGIC right, VERSION BAR_CSR_VERSION - 1 */
#define BAR_SILENT_AT      0x720000 /* reads all ones, as a function that does not answer */
#define BAR_FILL_FROM      0x5FF000 /* the fill covers [FROM, TO): the window and a page either side */
#define BAR_FILL_TO        0x602000
#define BAR_APERTURE_AT    0x400000 /* the aperture cases' range: past the exporter's buffers, below the CSR */
#define BAR_APERTURE_BYTES 0x100000
#define BAR_APERTURE_FILL_FROM 0x3FF000 /* the fill covers the aperture and a page either side */
#define BAR_APERTURE_FILL_TO   0x501000

/* The fill: the word at BAR byte offset o (a multiple of 4). */
#define BAR_FILL(o) (0xC5000000u | ((unsigned int)(o) / 4 & 0xFFFFFFu))

/* What the aperture cases write over the whole aperture: the word at BAR byte offset o. */
#define BAR_APERTURE_WORD(o) (0x5A000000u | ((unsigned int)(o) / 4 & 0xFFFFFFu))

#endif
