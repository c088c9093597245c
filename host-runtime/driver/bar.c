// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer, BAR ranges: a byte range of a memory BAR of a PCI function that another driver
 * (the FPGA's BSP driver) owns. Nothing is claimed or enabled here: that driver keeps its regions,
 * and the range is only checked to lie inside a memory BAR the kernel assigned.
 */
#include <linux/pci.h>

#include "internal.h"

/*
 * The function at r's address, referenced, when BAR r->bar is assigned memory and holds
 * [offset, offset + length): 0; -EINVAL (device, function or BAR out of range), -ERANGE (the
 * range wraps or ends past the BAR), -ENODEV (no such function) or -ENXIO (not a memory BAR).
 */
int bar_range_get(const struct direkt_bar_range *r, struct pci_dev **pdev)
{
	unsigned long flags;
	struct pci_dev *dev;

	if (r->pci_device > 31 || r->pci_function > 7 || r->bar >= PCI_STD_NUM_BARS)
		return -EINVAL;
	if (r->offset + r->length < r->offset)
		return -ERANGE;
	dev = pci_get_domain_bus_and_slot(r->pci_domain, r->pci_bus, PCI_DEVFN(r->pci_device, r->pci_function));
	if (!dev)
		return -ENODEV;
	flags = pci_resource_flags(dev, r->bar);
	/* an I/O BAR, an unimplemented one, the upper half of a 64-bit one, or one never assigned */
	if (!(flags & IORESOURCE_MEM) || (flags & IORESOURCE_UNSET) || !pci_resource_start(dev, r->bar) ||
	    !pci_resource_len(dev, r->bar)) {
		pci_dev_put(dev);
		return -ENXIO;
	}
	if (r->offset + r->length > pci_resource_len(dev, r->bar)) {
		pci_dev_put(dev);
		return -ERANGE;
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
