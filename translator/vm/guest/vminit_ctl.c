/*
 * vminit_ctl.c - how the guest's /init speaks and ends: messages to the
 * console (the serial log the host keeps), lines on the control port, and
 * power off.
 *
 * PID 1 must never exit (the kernel would panic), so every path ends in
 * power_off(). Once the control port is open, a failure also goes to the
 * host as "err ..." so the user sees the cause without reading the log.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/reboot.h>

#include "vminit.h"

struct ports ports = { -1, -1, -1 };

/* Format a message into MSG and write it to the console with PREFIX. */
static void console_vwrite(const char *prefix, char *msg, size_t len, const char *fmt,
			   va_list ap)
{
	char line[1200];
	int n;

	vsnprintf(msg, len, fmt, ap);
	n = snprintf(line, sizeof(line), "utap-vminit: %s%s\n", prefix, msg);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	/* fd 2 is /dev/console, opened by the kernel before running us */
	if (write(2, line, n) < 0) {
		/* nowhere left to report to */
	}
}

void say(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	console_vwrite("", msg, sizeof(msg), fmt, ap);
	va_end(ap);
}

/* Report on the console and to the host, then stop the guest. */
void fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	console_vwrite("error: ", msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ports.ctl >= 0)
		ctl_send("err %s\n", msg);
	power_off();
}

void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* reboot() only returns on error; PID 1 must not exit */
	for (;;)
		pause();
}

void ctl_send(const char *fmt, ...)
{
	char msg[1200];
	struct pollfd p = { .fd = ports.ctl, .events = POLLOUT };
	va_list ap;
	int n, off = 0;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg)) {
		n = sizeof(msg) - 1;
		msg[n - 1] = '\n';
	}
	while (off < n) {
		ssize_t w = write(ports.ctl, msg + off, n - off);

		if (w > 0)
			off += w;
		else if (w < 0 && errno == EAGAIN)
			poll(&p, 1, 1000);
		else if (w < 0 && errno != EINTR)
			return;
	}
}
