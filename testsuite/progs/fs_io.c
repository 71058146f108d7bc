/*
 * fs_io - known file, terminal and block I/O, for the vfs/tty/ioblock
 * tapset tests. Each mode does a fixed sequence:
 *
 *   fs_io file DIR   in DIR: creates "data" (mode 0644) and writes 3 x 4096
 *                    bytes, fsyncs, reads them back as 4096, 4096, 4096 and
 *                    0 (end of file), readv()s 100 + 200 bytes at 0 and
 *                    writev()s 10 + 20 bytes at the end, pread()s 512 at
 *                    1024, reads 1 byte of "data" opened write-only
 *                    (EBADF), fails to open "missing" (ENOENT), closes
 *                    and unlinks "data"
 *   fs_io pty        opens a pty pair, writes "hello\n" (6 bytes) to the
 *                    master, polls the slave and reads it there (into a
 *                    16-byte buffer), sets the slave's window to 24 rows
 *                    x 80 columns (TIOCSWINSZ) and reads it back
 *                    (TIOCGWINSZ), closes both
 *   fs_io blk DEV    reads 8 x 4096 bytes of block device DEV with
 *                    O_DIRECT from offset 0, then 4096 at 1 MiB
 *
 * It exits 0 when every step did what it should, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static int do_file(const char *dir)
{
	static char block[4096], back[4096], a[100], b[200];
	struct iovec rv[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec wv[2] = { { a, 10 }, { b, 20 } };
	char path[4096], missing[4096];
	int fd, wfd, i;

	snprintf(path, sizeof(path), "%s/data", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	memset(block, 'x', sizeof(block));
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return fail("open");
	for (i = 0; i < 3; i++)
		if (write(fd, block, sizeof(block)) != sizeof(block))
			return fail("write");
	if (fsync(fd))
		return fail("fsync");
	if (lseek(fd, 0, SEEK_SET))
		return fail("lseek");
	for (i = 0; i < 3; i++)
		if (read(fd, back, sizeof(back)) != sizeof(back))
			return fail("read");
	if (read(fd, back, sizeof(back)) != 0)
		return fail("read at the end");
	if (lseek(fd, 0, SEEK_SET) || readv(fd, rv, 2) != 300)
		return fail("readv");
	if (lseek(fd, 0, SEEK_END) != 3 * 4096 || writev(fd, wv, 2) != 30)
		return fail("writev");
	if (pread(fd, back, 512, 1024) != 512)
		return fail("pread");
	wfd = open(path, O_WRONLY);
	if (wfd < 0 || read(wfd, back, 1) != -1 || errno != EBADF)
		return fail("read of a write-only file");
	close(wfd);
	if (open(missing, O_RDONLY) >= 0 || errno != ENOENT)
		return fail("open missing");
	close(fd);
	return unlink(path) ? fail("unlink") : 0;
}

static int do_pty(void)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 }, got;
	struct pollfd p;
	char buf[16];
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return fail("posix_openpt");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		return fail("open slave");
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	if (write(m, "hello\n", 6) != 6)
		return fail("write master");
	if (poll(&p, 1, 5000) != 1)
		return fail("poll slave");
	if (read(s, buf, sizeof(buf)) != 6 || memcmp(buf, "hello\n", 6))
		return fail("read slave");
	if (ioctl(s, TIOCSWINSZ, &ws) || ioctl(s, TIOCGWINSZ, &got) ||
	    got.ws_row != 24 || got.ws_col != 80)
		return fail("winsize");
	close(s);
	close(m);
	return 0;
}

static int do_blk(const char *dev)
{
	void *buf;
	int fd, i;

	if (posix_memalign(&buf, 4096, 4096))
		return fail("posix_memalign");
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return fail("open");
	for (i = 0; i < 8; i++)
		if (read(fd, buf, 4096) != 4096)
			return fail("read");
	if (pread(fd, buf, 4096, 1 << 20) != 4096)
		return fail("pread");
	close(fd);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "file"))
		return do_file(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "pty"))
		return do_pty();
	if (argc == 3 && !strcmp(argv[1], "blk"))
		return do_blk(argv[2]);
	fprintf(stderr, "usage: fs_io file DIR | pty | blk DEV\n");
	return 2;
}
