// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer: the misc device /dev/direkt_importer, its open files and its ioctls. A file
 * holds dma-buf imports (import.c) and CSR windows (csr.c); closing it ends all of them. An
 * aperture (aperture.c) is a file of its own, which lives on after the device's file is closed. The
 * contract, every ioctl and errno, the locking and the lifetime are in docs/importer-contract.md.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "internal.h"

/* STATS, STATS2 and STATS3 share a number: an older request gets the first fields of the newest struct. */
static_assert(offsetof(struct direkt_stats2, revoked) == offsetof(struct direkt_stats, revoked) &&
	      sizeof(struct direkt_stats) == offsetof(struct direkt_stats2, csr_windows));
static_assert(offsetof(struct direkt_stats3, csr_windows) == offsetof(struct direkt_stats2, csr_windows) &&
	      offsetof(struct direkt_stats3, revoked) == offsetof(struct direkt_stats2, revoked) &&
	      sizeof(struct direkt_stats2) == offsetof(struct direkt_stats3, apertures));

static long do_stats(void __user *uarg, size_t size)
{
	struct direkt_stats3 s = {
		.abi = DIREKT_IMPORTER_ABI,
		.csr_windows = csr_window_count(),
		.apertures = aperture_count(),
	};

	import_counts(&s);
	return copy_to_user(uarg, &s, size) ? -EFAULT : 0;
}

static long importer_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct importer_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DIREKT_IOC_IMPORT:
		return import_range(f, uarg);
	case DIREKT_IOC_RELEASE:
		return import_release(f, uarg);
	case DIREKT_IOC_REVOCATIONS:
		return import_revocations(f, uarg);
	case DIREKT_IOC_STATS:
		return do_stats(uarg, sizeof(struct direkt_stats));
	case DIREKT_IOC_STATS2:
		return do_stats(uarg, sizeof(struct direkt_stats2));
	case DIREKT_IOC_STATS3:
		return do_stats(uarg, sizeof(struct direkt_stats3));
	case DIREKT_IOC_CSR_OPEN:
		return csr_open(f, uarg);
	case DIREKT_IOC_CSR_READ:
		return csr_access(f, uarg, false);
	case DIREKT_IOC_CSR_WRITE:
		return csr_access(f, uarg, true);
	case DIREKT_IOC_CSR_CLOSE:
		return csr_close(f, uarg);
	case DIREKT_IOC_APERTURE_OPEN:
		return aperture_open(uarg);
	default:
		return -ENOTTY;
	}
}

static int importer_open(struct inode *inode, struct file *file)
{
	struct importer_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	import_file_init(f);
	csr_file_init(f);
	file->private_data = f;
	return 0;
}

static int importer_release(struct inode *inode, struct file *file)
{
	struct importer_file *f = file->private_data;

	csr_close_all(f);
	import_release_all(f);
	kfree(f);
	return 0;
}

static const struct file_operations importer_fops = {
	.owner = THIS_MODULE,
	.open = importer_open,
	.release = importer_release,
	.unlocked_ioctl = importer_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* Root only (0600): a site grants a group with a udev rule (docs/importer-contract.md, "The device"). */
static struct miscdevice importer_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "direkt_importer",
	.fops = &importer_fops,
	.mode = 0600,
};

static int __init importer_init(void)
{
	int ret = csr_init();

	if (ret)
		return ret;
	ret = aperture_init();
	if (ret)
		goto csr;
	ret = misc_register(&importer_misc);
	if (!ret)
		return 0;
	aperture_exit();
csr:
	csr_exit();
	return ret;
}

static void __exit importer_exit(void)
{
	misc_deregister(&importer_misc);
	aperture_exit();
	csr_exit();
}

module_init(importer_init);
module_exit(importer_exit);

MODULE_DESCRIPTION("direkt: dma-buf importer that gives an FPGA the bus addresses of GPU memory, CSR windows onto direkt's bridge, and apertures onto FPGA memory");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
