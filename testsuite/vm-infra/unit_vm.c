/*
 * unit_vm.c - the parts of --vm that need no guest: module load order from
 * modules.dep, the newc archive, the job file both sides read, the PVH check,
 * option errors and the errors for a missing qemu or kernel.
 */
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "unit.h"
#include "vm/vm_internal.h"
#include "vm/guest/vminit.h"
#include "vm/guest/vm_proto.h"

static const char fake_dep[] =
	"kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/fscache/fscache.ko "
	"kernel/fs/netfs/netfs.ko\n"
	"kernel/net/9p/9pnet.ko:\n"
	"kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko\n"
	"kernel/fs/netfs/netfs.ko:\n"
	"kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/net/foo-bar.ko.xz: kernel/drivers/virtio/virtio.ko\n"
	"kernel/drivers/broken.ko: kernel/drivers/missing.ko\n";

static int position(const struct vm_modules *m, const char *path, size_t len)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->path[i]) == len && memcmp(m->path[i], path, len) == 0)
			return i;
	return -1;
}

/* Every module of the list comes after each module its modules.dep line names. */
static bool deps_first(const struct vm_modules *m, const char *dep)
{
	int i;

	for (i = 0; i < m->n; i++) {
		size_t n = strlen(m->path[i]);
		const char *line = dep, *p;

		while (line && !(strncmp(line, m->path[i], n) == 0 && line[n] == ':'))
			line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
		if (!line)
			return false;
		for (p = line + n + 1; *p && *p != '\n';) {
			size_t k;

			p += strspn(p, " ");
			k = strcspn(p, " \n");
			if (k && (position(m, p, k) < 0 || position(m, p, k) > i))
				return false;
			p += k;
		}
	}
	return true;
}

static void module_order_puts_dependencies_first(void)
{
	const char *want[] = { "9p", "virtio_pci" };
	struct vm_modules m = { .n = 0 };
	char why[256] = "";

	CHECK_INT(vm_module_order(fake_dep, "", want, 2, &m, why, sizeof(why)), 0);
	CHECK_INT(m.n, 7);
	CHECK(deps_first(&m, fake_dep));
	CHECK_STR(m.path[m.n - 1], "kernel/drivers/virtio/virtio_pci.ko");
	vm_modules_free(&m);
}

static void module_order_lists_shared_dependency_once(void)
{
	const char *want[] = { "virtio_pci", "foo_bar", "virtio" };
	struct vm_modules m = { .n = 0 };
	char why[256] = "";

	CHECK_INT(vm_module_order(fake_dep, "", want, 3, &m, why, sizeof(why)), 0);
	/* virtio_ring, virtio, virtio_pci, foo-bar: '-' and '_' are one name, .ko.xz too */
	CHECK_INT(m.n, 4);
	CHECK_STR(m.path[3], "kernel/drivers/net/foo-bar.ko.xz");
	CHECK(deps_first(&m, fake_dep));
	vm_modules_free(&m);
}

static void module_order_skips_builtin_and_names_missing(void)
{
	const char *builtin_only[] = { "overlay" };
	const char *missing[] = { "nosuchmod" };
	const char *dangling[] = { "broken" };
	struct vm_modules m = { .n = 0 };
	char why[256] = "";

	CHECK_INT(vm_module_order(fake_dep, "kernel/fs/overlayfs/overlay.ko\n", builtin_only, 1,
				  &m, why, sizeof(why)), 0);
	CHECK_INT(m.n, 0);
	CHECK_INT(vm_module_order(fake_dep, "", missing, 1, &m, why, sizeof(why)), -1);
	CHECK(strstr(why, "nosuchmod") != NULL);
	CHECK_INT(vm_module_order(fake_dep, "", dangling, 1, &m, why, sizeof(why)), -1);
	CHECK(strstr(why, "kernel/drivers/missing.ko") != NULL);
	CHECK_INT(m.n, 0);
}

/* The guest kernel's own modules.dep, when the host has one. */
static void module_order_of_installed_kernel(void)
{
	const char *want[] = { "virtio_pci", "virtio_console", "9pnet_virtio", "9p", "overlay" };
	struct vm_modules m = { .n = 0 };
	char krel[256], path[512], why[256] = "", *dep;
	size_t len;

	if (vm_default_krel(krel, sizeof(krel)) < 0)
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", krel);
	if (!(dep = slurp_file(path, &len)))
		return;
	CHECK_INT(vm_module_order(dep, "", want, 5, &m, why, sizeof(why)), 0);
	CHECK(m.n >= 5);
	CHECK(deps_first(&m, dep));
	vm_modules_free(&m);
	free(dep);
}

struct cpio_entry {
	char name[64];
	unsigned mode, rmajor, rminor;
	size_t size;
	const unsigned char *data;
};

static unsigned hexfield(const char *p)
{
	char buf[9];

	memcpy(buf, p, 8);
	buf[8] = '\0';
	return (unsigned)strtoul(buf, NULL, 16);
}

/* Read one newc entry at *off; every header and every data block starts 4-aligned. */
static bool cpio_next(const char *buf, size_t len, size_t *off, struct cpio_entry *e)
{
	size_t namesize;

	if (*off % 4 || *off + 110 > len || memcmp(buf + *off, "070701", 6) != 0)
		return false;
	e->mode = hexfield(buf + *off + 14);
	e->size = hexfield(buf + *off + 54);
	e->rmajor = hexfield(buf + *off + 78);
	e->rminor = hexfield(buf + *off + 86);
	namesize = hexfield(buf + *off + 94);
	if (namesize == 0 || namesize > sizeof(e->name) || *off + 110 + namesize > len ||
	    buf[*off + 110 + namesize - 1] != '\0')
		return false;
	memcpy(e->name, buf + *off + 110, namesize);
	*off = (*off + 110 + namesize + 3) & ~(size_t)3;
	e->data = (const unsigned char *)buf + *off;
	if (*off + e->size > len)
		return false;
	*off = (*off + e->size + 3) & ~(size_t)3;
	return true;
}

static void cpio_round_trip(void)
{
	char *buf = NULL;
	size_t len = 0, off = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cpio_entry e;

	cpio_add_node(f, "dev", S_IFDIR | 0755, 0, 0);
	cpio_add_node(f, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_add(f, "init", S_IFREG | 0755, "\x7f" "ELF\0binary", 11);
	cpio_add(f, "a", S_IFREG | 0644, "", 0);
	cpio_finish(f);
	fclose(f);
	CHECK(len % 4 == 0);
	CHECK(cpio_next(buf, len, &off, &e) && strcmp(e.name, "dev") == 0 && S_ISDIR(e.mode));
	CHECK(cpio_next(buf, len, &off, &e) && strcmp(e.name, "dev/console") == 0 &&
	      S_ISCHR(e.mode) && e.rmajor == 5 && e.rminor == 1);
	CHECK(cpio_next(buf, len, &off, &e) && strcmp(e.name, "init") == 0 &&
	      e.mode == (S_IFREG | 0755) && e.size == 11 &&
	      memcmp(e.data, "\x7f" "ELF\0binary", 11) == 0);
	CHECK(cpio_next(buf, len, &off, &e) && strcmp(e.name, "a") == 0 && e.size == 0);
	CHECK(cpio_next(buf, len, &off, &e) && strcmp(e.name, "TRAILER!!!") == 0);
	CHECK_INT(off, len);
	free(buf);
}

static void job_round_trip_keeps_every_byte(void)
{
	char *const argv[] = { "sh", "-c", "printf '%s\\n' \"$X\"", "", "two words\nand a line",
			       "\xc3\xa9t\xc3\xa9", NULL };
	char *const envp[] = { "X=a=b c", "EMPTY=", "PATH=/usr/bin:/bin", NULL };
	struct vm_config cfg;
	struct job job;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.shares[0] = (struct vm_share){ "/h", "/guest dir=x", true };
	cfg.shares[1] = (struct vm_share){ "/h2", "/ro", false };
	cfg.nshares = 2;
	CHECK_INT(vm_write_job(f, argv, "/work dir", envp, &cfg), 0);
	fclose(f);
	CHECK_INT(parse_job(buf, len, &job), 0);
	CHECK_STR(job.cwd, "/work dir");
	CHECK_INT(job.nargs, 6);
	for (i = 0; i < 6 && i < job.nargs; i++)
		CHECK_STR(job.argv[i], argv[i]);
	CHECK(job.argv[6] == NULL);
	CHECK_INT(job.nenv, 3);
	for (i = 0; i < 3 && i < job.nenv; i++)
		CHECK_STR(job.envp[i], envp[i]);
	CHECK_INT(job.nshares, 2);
	CHECK_STR(job.shares[0].tag, VM_SHARE_TAG "0");
	CHECK_STR(job.shares[0].dir, "/guest dir=x");
	CHECK(job.shares[0].writable && !job.shares[1].writable);
	free(job.argv);
	free(job.envp);
	free(buf);
}

static void job_parser_refuses_malformed_files(void)
{
	struct job job;
	char no_cwd[] = "ash\0";
	char no_arg[] = "c/\0";
	char bad_tag[] = "c/\0ash\0zx\0";
	char unterminated[] = { 'c', '/', '\0', 'a', 's', 'h' };
	char relative_share[] = "c/\0ash\0wutapsh0=rel\0";

	CHECK_INT(parse_job(no_cwd, sizeof(no_cwd) - 1, &job), -1);
	CHECK_INT(parse_job(no_arg, sizeof(no_arg) - 1, &job), -1);
	CHECK_INT(parse_job(bad_tag, sizeof(bad_tag) - 1, &job), -1);
	CHECK_INT(parse_job(unterminated, sizeof(unterminated), &job), -1);
	CHECK_INT(parse_job(relative_share, sizeof(relative_share) - 1, &job), -1);
}

/* A minimal ELF64 with one PT_NOTE holding a note of type NOTE_TYPE owned by "Xen". */
static size_t make_elf(unsigned char *buf, unsigned note_type)
{
	Elf64_Ehdr eh = { .e_ident = { 0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
			  .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	size_t note_off = sizeof(eh) + sizeof(Elf64_Phdr);
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 8, .n_type = note_type };
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = note_off,
			  .p_filesz = sizeof(nh) + 4 + 8 };

	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	memcpy(buf + note_off, &nh, sizeof(nh));
	memcpy(buf + note_off + sizeof(nh), "Xen", 4);
	memset(buf + note_off + sizeof(nh) + 4, 0, 8);
	return note_off + sizeof(nh) + 12;
}

static void pvh_note_is_recognised(void)
{
	unsigned char elf[256];
	size_t len = make_elf(elf, 18);

	CHECK(vm_elf_has_pvh(elf, len));
	CHECK(!vm_elf_has_pvh(elf, len - 1));	/* the note is cut short */
	len = make_elf(elf, 17);
	CHECK(!vm_elf_has_pvh(elf, len));
	CHECK(!vm_elf_has_pvh((const unsigned char *)"MZ not an ELF", 13));
}

static void exec_options_refuse_bad_values(void)
{
	char *bad_mem[] = { "utap", "--vm-exec", "--vm-mem", "lots", "true", NULL };
	char *bad_accel[] = { "utap", "--vm-exec", "--vm-accel=hvf", "true", NULL };
	char *unknown[] = { "utap", "--vm-exec", "--vm-frobnicate", "true", NULL };
	char *no_cmd[] = { "utap", "--vm-exec", "-v", "--", NULL };
	char *from_option[] = { "--vm-exec", "--vm-cpus", "-1", "true", NULL };	/* main.c's form */
	int saved = dup(2), null_fd = open("/dev/null", O_WRONLY);

	dup2(null_fd, 2);	/* the usage messages are not the test's output */
	CHECK_INT(vm_exec_main(5, bad_mem), 2);
	CHECK_INT(vm_exec_main(4, bad_accel), 2);
	CHECK_INT(vm_exec_main(4, unknown), 2);
	CHECK_INT(vm_exec_main(4, no_cmd), 2);
	CHECK_INT(vm_exec_main(4, from_option), 2);
	dup2(saved, 2);
	close(saved);
	close(null_fd);
}

/* Run vm_run with stderr captured into BUF. */
static int run_capturing_stderr(const struct vm_config *cfg, char *buf, size_t len)
{
	char path[] = "/tmp/unit-vm-stderr-XXXXXX";
	char *const argv[] = { "true", NULL };
	int fd = mkstemp(path), saved = dup(2), status = -1, rc;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	rc = vm_run(cfg, argv, &status);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return rc;
}

static void missing_qemu_names_the_package(void)
{
	struct vm_config cfg;
	char err[2048], *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	memset(&cfg, 0, sizeof(cfg));
	setenv("PATH", "/nonexistent", 1);
	CHECK_INT(run_capturing_stderr(&cfg, err, sizeof(err)), -1);
	CHECK(strncmp(err, "utap: ", 6) == 0);
	CHECK(strstr(err, "qemu-system-x86") != NULL);
	CHECK(strchr(err, '\n') == err + strlen(err) - 1);	/* one line */
	if (path)
		setenv("PATH", path, 1);
	free(path);
}

static void missing_kernel_names_the_package(void)
{
	struct vm_config cfg;
	char err[2048];

	memset(&cfg, 0, sizeof(cfg));
	cfg.krel = "0.0.0-nosuch-amd64";
	cfg.init_path = "/bin/true";
	CHECK_INT(run_capturing_stderr(&cfg, err, sizeof(err)), -1);
	CHECK(strstr(err, "/boot/vmlinuz-0.0.0-nosuch-amd64") != NULL);
	CHECK(strstr(err, "linux-image-") != NULL);
}

int main(void)
{
	unit_prog = "vm_infra";
	RUN(module_order_puts_dependencies_first);
	RUN(module_order_lists_shared_dependency_once);
	RUN(module_order_skips_builtin_and_names_missing);
	RUN(module_order_of_installed_kernel);
	RUN(cpio_round_trip);
	RUN(job_round_trip_keeps_every_byte);
	RUN(job_parser_refuses_malformed_files);
	RUN(pvh_note_is_recognised);
	RUN(exec_options_refuse_bad_values);
	RUN(missing_qemu_names_the_package);
	RUN(missing_kernel_names_the_package);
	return unit_done();
}
