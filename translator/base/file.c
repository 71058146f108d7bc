/*
 * file.c - the translator's one file reader. It needs nothing else (plain
 * malloc), so every layer links it; read_file() (util.c) keeps a copy in
 * the arena for the passes.
 */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

char *slurp_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n;

	if (fd < 0)
		return NULL;
	/* to the end, whatever st_size says: /proc files have none */
	for (;;) {
		if (cap - len < 4096) {
			p = realloc(buf, cap ? cap * 2 : 65536);
			if (!p) {
				errno = ENOMEM;
				break;
			}
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n > 0) {
			len += (size_t)n;
		} else if (n == 0) {
			close(fd);
			buf[len] = 0;
			if (lenp)
				*lenp = len;
			return buf;
		} else if (errno != EINTR) {
			break;
		}
	}
	err = errno;
	close(fd);
	free(buf);
	errno = err;
	return NULL;
}
