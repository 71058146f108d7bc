/*
 * u_cast_hdr.c - a function that takes system types as void pointers, for
 * @cast(p, "type", "<header.h>"): the program's own DWARF does not say what
 * they point to, the headers do.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>

__attribute__((noinline)) int take(const void *tv, const void *sa)
{
	__asm__ volatile("" : : "r"(tv), "r"(sa) : "memory");
	return ((const struct timeval *)tv)->tv_usec % 100;
}

int main(void)
{
	struct timeval tv = { .tv_sec = 1234, .tv_usec = 5678 };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };

	sin.sin_addr.s_addr = htonl(0x7f000001);
	printf("%d\n", take(&tv, &sin));
	return 0;
}
