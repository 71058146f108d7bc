/*
 * net_traffic - known TCP and UDP traffic over loopback, for the networking
 * tapset tests. It brings lo up if it is down, then:
 *   TCP: a listener on 127.0.0.1:7001, a client bound to 127.0.0.1:7002 with
 *        TCP_NODELAY set; the client sends 1000 and 2000 bytes with send()
 *        and 3000 with write(), the server reads them back the same way and
 *        answers 500 bytes with send(); the client reads them with recv(),
 *        then closes with SO_LINGER 0 (an abortive close: tcp_disconnect and
 *        one RST), and the server closes after it.
 *   UDP: a receiver on 127.0.0.1:7003, a sender bound to 127.0.0.1:7004
 *        sends 100, 200 and 300 bytes with sendto(); the receiver takes each
 *        with recvfrom(); the sender then connect()s to the receiver and
 *        dissolves the association with an AF_UNSPEC connect().
 * With the argument "6" it does only this instead, over IPv6:
 *   TCP: a listener on [::1]:7011, a client bound to [::1]:7012 sends 100
 *        bytes, the server reads them, both close.
 * Exits 0 when every size matched, else 1 with the step on stderr.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static char buf[4096];

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static void lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
}

static struct sockaddr_in lo_addr(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int bound(int type, int port)
{
	struct sockaddr_in a = lo_addr(port);
	int one = 1, fd = socket(AF_INET, type, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The server's end of cfd's connection to lfd listening at srv, or -1. */
static int connected(int lfd, int cfd, const struct sockaddr *srv, socklen_t len)
{
	const char *step = "tcp setup";
	int afd = -1;

	if (lfd >= 0 && cfd >= 0 && listen(lfd, 1) == 0) {
		step = "connect";
		if (connect(cfd, srv, len) == 0) {
			step = "accept";
			afd = accept(lfd, NULL, NULL);
		}
	}
	if (afd < 0)
		perror(step);
	return afd;
}

static int tcp_part(void)
{
	struct sockaddr_in srv = lo_addr(7001);
	struct linger lg = { 1, 0 };
	int one = 1, lfd, cfd, afd;

	lfd = bound(SOCK_STREAM, 7001);
	cfd = bound(SOCK_STREAM, 7002);
	if (cfd >= 0 && setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return fail("TCP_NODELAY");
	afd = connected(lfd, cfd, (struct sockaddr *)&srv, sizeof(srv));
	if (afd < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	if (send(cfd, buf, 1000, 0) != 1000 || send(cfd, buf, 2000, 0) != 2000 ||
	    write(cfd, buf, 3000) != 3000)
		return fail("tcp send");
	if (recv(afd, buf, 1000, MSG_WAITALL) != 1000 ||
	    recv(afd, buf, 2000, MSG_WAITALL) != 2000 || read(afd, buf, 3000) != 3000)
		return fail("tcp receive");
	if (send(afd, buf, 500, 0) != 500 || recv(cfd, buf, 500, MSG_WAITALL) != 500)
		return fail("tcp answer");
	setsockopt(cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(cfd);
	close(afd);
	close(lfd);
	return 0;
}

static int udp_part(void)
{
	struct sockaddr_in dst = lo_addr(7003), none;
	int sizes[] = { 100, 200, 300 }, rfd, sfd, i;

	rfd = bound(SOCK_DGRAM, 7003);
	sfd = bound(SOCK_DGRAM, 7004);
	if (rfd < 0 || sfd < 0)
		return fail("udp setup");
	for (i = 0; i < 3; i++) {
		if (sendto(sfd, buf, sizes[i], 0, (struct sockaddr *)&dst, sizeof(dst)) != sizes[i])
			return fail("sendto");
		if (recvfrom(rfd, buf, sizeof(buf), 0, NULL, NULL) != sizes[i])
			return fail("recvfrom");
	}
	memset(&none, 0, sizeof(none));
	none.sin_family = AF_UNSPEC;
	if (connect(sfd, (struct sockaddr *)&dst, sizeof(dst)) < 0 ||
	    connect(sfd, (struct sockaddr *)&none, sizeof(none)) < 0)
		return fail("udp connect");
	close(sfd);
	close(rfd);
	return 0;
}

static int bound6(int type, int port, struct sockaddr_in6 *a)
{
	int one = 1, fd = socket(AF_INET6, type, 0);

	memset(a, 0, sizeof(*a));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(port);
	a->sin6_addr = in6addr_loopback;
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tcp6_part(void)
{
	struct sockaddr_in6 srv, cli;
	int lfd = bound6(SOCK_STREAM, 7011, &srv), cfd = bound6(SOCK_STREAM, 7012, &cli), afd;

	afd = connected(lfd, cfd, (struct sockaddr *)&srv, sizeof(srv));
	if (afd < 0)
		return 1;
	if (send(cfd, buf, 100, 0) != 100 || recv(afd, buf, 100, MSG_WAITALL) != 100)
		return fail("tcp6 data");
	close(cfd);
	close(afd);
	close(lfd);
	return 0;
}

int main(int argc, char **argv)
{
	lo_up();
	if (argc > 1 && !strcmp(argv[1], "6"))
		return tcp6_part();
	if (tcp_part() || udp_part())
		return 1;
	return 0;
}
