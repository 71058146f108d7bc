# vm.mk - `utap --vm`: run commands in a throwaway QEMU guest.
#
# translator/vm/*.c go into utap; translator/vm/guest/ is the guest's /init, a
# static binary (the initramfs holds nothing else but kernel modules).

VM_SRCS := translator/vm/vm.c translator/vm/vm_host.c translator/vm/vm_initramfs.c \
	translator/vm/vm_qemu.c translator/vm/vm_relay.c translator/vm/vm_exec.c translator/vm/vm_check.c \
	translator/vm/vm_kernel.c $(BASE_LIB_SRCS)
UTAP_SRCS += $(VM_SRCS)

VMINIT_SRCS := $(wildcard translator/vm/guest/*.c)
ALL_EXTRA += $(B)/utap-vminit

$(B)/utap-vminit: $(VMINIT_SRCS) $(wildcard translator/vm/guest/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -static -o $@ $(VMINIT_SRCS)

# user-space tests of the pure parts: module order, cpio, job file round trip
UNIT_TESTS += vm_infra
vm_infra_SRCS := testsuite/vm-infra/unit_vm.c $(VM_SRCS) translator/vm/guest/vminit_job.c
vm_infra_LIBS := -llzma -lz

# the guest tests of the --vm machinery itself (boots a guest about ten times)
.PHONY: check-vm-infra
check-vm-infra: $(B)/utap $(B)/utap-vminit
	testsuite/vm-infra/run.sh $(B)/utap
