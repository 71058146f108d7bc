/*
 * udp_lost - one UDP datagram over loopback to each of the ports given
 * (127.0.0.1, from an unbound sender), each to a receiver bound to its
 * port that waits at most one second for it. Prints, per port in order,
 * "PORT: received N bytes" or "PORT: timed out", for the netfilter verdict
 * tests: a dropped packet is one that never arrives.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* 0 on a verdict printed, 1 when the exchange could not be set up */
static int one_port(int port)
{
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	char buf[64];
	int rfd = socket(AF_INET, SOCK_DGRAM, 0), sfd = socket(AF_INET, SOCK_DGRAM, 0);
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (rfd < 0 || sfd < 0 || bind(rfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		perror("udp_lost: setup");
		return 1;
	}
	if (sendto(sfd, "ping", 4, 0, (struct sockaddr *)&a, sizeof(a)) != 4) {
		perror("udp_lost: sendto");
		return 1;
	}
	n = recv(rfd, buf, sizeof(buf), 0);
	if (n >= 0)
		printf("%d: received %zd bytes\n", port, n);
	else if (errno == EAGAIN || errno == EWOULDBLOCK)
		printf("%d: timed out\n", port);
	else
		perror("udp_lost: recv");
	close(rfd);
	close(sfd);
	return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= one_port(atoi(argv[i]));
	fflush(stdout);
	return rc;
}
