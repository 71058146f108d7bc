/* VMAs are walked with an iterator (maple tree, 6.1+), not a list. */
#include <linux/mm.h>

unsigned long utap_feature(struct mm_struct *mm);
unsigned long utap_feature(struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	unsigned long n = 0;

	for_each_vma(vmi, vma)
		n += vma->vm_end - vma->vm_start;
	return n;
}
