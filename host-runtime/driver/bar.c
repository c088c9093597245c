// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer, BAR ranges: a byte range of a memory BAR of a PCI function that another driver
 * (the FPGA's BSP driver) owns. Nothing is claimed or enabled here: that driver keeps its regions,
 * and the range is only checked to lie inside a memory BAR the kernel assigned.
 */
#include <linux/pci.h>

#include "internal.h"

/*
 * Whether BAR bar of pdev is assigned memory and holds [offset, offset + length): 0; -EINVAL (no
 * such BAR index), -ERANGE (the range wraps or ends past the BAR) or -ENXIO (not a memory BAR).
 */
int bar_range_check(struct pci_dev *pdev, unsigned int bar, u64 offset, u64 length)
{
	unsigned long flags;

	if (bar >= PCI_STD_NUM_BARS)
		return -EINVAL;
	if (offset + length < offset)
		return -ERANGE;
	flags = pci_resource_flags(pdev, bar);
	/* an I/O BAR, an unimplemented one, the upper half of a 64-bit one, or one never assigned */
	if (!(flags & IORESOURCE_MEM) || (flags & IORESOURCE_UNSET) || !pci_resource_start(pdev, bar) ||
	    !pci_resource_len(pdev, bar))
		return -ENXIO;
	if (offset + length > pci_resource_len(pdev, bar))
		return -ERANGE;
	return 0;
}

/*
 * The function at r's address, referenced, when BAR r->bar is assigned memory and holds
 * [offset, offset + length): 0; -EINVAL (device, function or BAR out of range), -ERANGE (the
 * range wraps or ends past the BAR), -ENODEV (no such function) or -ENXIO (not a memory BAR).
 */
int bar_range_get(const struct direkt_bar_range *r, struct pci_dev **pdev)
{
	struct pci_dev *dev;
	int ret;

	if (r->pci_device > 31 || r->pci_function > 7 || r->bar >= PCI_STD_NUM_BARS)
		return -EINVAL;
	if (r->offset + r->length < r->offset)
		return -ERANGE;
	dev = pci_get_domain_bus_and_slot(r->pci_domain, r->pci_bus, PCI_DEVFN(r->pci_device, r->pci_function));
	if (!dev)
		return -ENODEV;
	ret = bar_range_check(dev, r->bar, r->offset, r->length);
	if (ret) {
		pci_dev_put(dev);
		return ret;
	}
	*pdev = dev;
	return 0;
}

/* Whether the function answers memory reads at all (its driver enabled it; it is not in reset). */
bool bar_decodes_memory(struct pci_dev *pdev)
{
	u16 cmd;

	return !pci_read_config_word(pdev, PCI_COMMAND, &cmd) && cmd != 0xffff && (cmd & PCI_COMMAND_MEMORY);
}
