/*
 * k_guru - a program whose syscalls a guru script changes: it writes
 * "abcdefgh" to a file, reads it back with read(fd, buf, 123) and prints
 * what it got, then prints whether getppid() returned 4242. Unchanged it
 * prints 'read 8 "abcdefgh"' and "getppid real".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char path[] = "/tmp/k_guru.XXXXXX", buf[200] = { 0 };
	int fd = mkstemp(path);
	ssize_t n;

	if (fd < 0 || write(fd, "abcdefgh", 8) != 8)
		return 1;
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, 123);
	printf("read %zd \"%.*s\"\n", n, n > 0 ? (int)n : 0, buf);
	printf("getppid %s\n", getppid() == 4242 ? "4242" : "real");
	close(fd);
	unlink(path);
	return 0;
}
