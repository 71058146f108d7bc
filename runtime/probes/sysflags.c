// SPDX-License-Identifier: GPL-2.0
/*
 * sysflags.c - the helpers the syscall tapsets' decoders share: a flag
 * word or a value by the names of a table (stap's "A|B|0x10" and "NAME or
 * 0xN" forms) and signal names.
 */
#ifndef UTAP_PROBES_SYSFLAGS_C
#define UTAP_PROBES_SYSFLAGS_C

struct utap_flag {
	unsigned long bit;
	const char *name;
};
#define UTAP_F(x) { x, #x }

/* Names of the set bits of v joined by '|', then any unnamed rest in fmt ("0x%lx", "%lu"). */
static void utap_flags_fmt(char *out, unsigned long v, const struct utap_flag *f, size_t n,
			   const char *fmt)
{
	size_t i;

	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (!f[i].bit || (v & f[i].bit) != f[i].bit)
			continue;
		if (out[0])
			utap_strlcat(out, "|", MAXSTRINGLEN);
		utap_strlcat(out, f[i].name, MAXSTRINGLEN);
		v &= ~f[i].bit;
	}
	if (v || !out[0]) {
		if (out[0])
			utap_strlcat(out, "|", MAXSTRINGLEN);
		snprintf(out + strlen(out), MAXSTRINGLEN - strlen(out), fmt, v);
	}
}

/* Names of the set bits of v joined by '|', then any unnamed rest in hex. */
static void utap_flags_str(char *out, unsigned long v, const struct utap_flag *f, size_t n)
{
	utap_flags_fmt(out, v, f, n, "0x%lx");
}

/*
 * stap's other flag form, for tables whose values span several bits
 * (kexec architectures, ADJ_OFFSET_SINGLESHOT): a name shows when any of
 * its bits is still set, and takes them all; 0 is the name of 0 or "0x0".
 */
static void utap_flags_any_str(char *out, unsigned long v, const struct utap_flag *f, size_t n)
{
	size_t i;

	out[0] = 0;
	for (i = 0; i < n && v; i++) {
		if (!(v & f[i].bit))
			continue;
		if (out[0])
			utap_strlcat(out, "|", MAXSTRINGLEN);
		utap_strlcat(out, f[i].name, MAXSTRINGLEN);
		v &= ~f[i].bit;
	}
	for (i = 0; i < n && !v && !out[0]; i++)
		if (!f[i].bit)
			utap_strlcpy(out, f[i].name, MAXSTRINGLEN);
	if (v || !out[0])
		snprintf(out + strlen(out), MAXSTRINGLEN - strlen(out), "%s0x%lx", out[0] ? "|" : "", v);
}

/* Room for what utap_value_str() and utap_signal_str() write: a name or "0x..". */
#define UTAP_NAME_LEN 64

/* The name whose value is v, or v in fmt ("0x%lx", "%ld"). */
static void utap_value_fmt(char *out, long v, const struct utap_flag *f, size_t n,
			   const char *fmt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((long)f[i].bit == v) {
			utap_strlcpy(out, f[i].name, UTAP_NAME_LEN);
			return;
		}
	snprintf(out, UTAP_NAME_LEN, fmt, v);
}

/* The name whose value is v, or v in hex: stap's lookup of one value. */
static void utap_value_str(char *out, long v, const struct utap_flag *f, size_t n)
{
	utap_value_fmt(out, v, f, n, "0x%lx");
}

/* stap's signal names: SIGIO shows as "SIGIO/SIGPOLL", SIGSTKFLT and real-time ones in hex */
#define UTAP_S(x) [x] = #x
static const char *const utap_signal_names[] = {
	[0] = "SIG_0", UTAP_S(SIGHUP), UTAP_S(SIGINT), UTAP_S(SIGQUIT), UTAP_S(SIGILL),
	UTAP_S(SIGTRAP), UTAP_S(SIGABRT), UTAP_S(SIGBUS), UTAP_S(SIGFPE), UTAP_S(SIGKILL),
	UTAP_S(SIGUSR1), UTAP_S(SIGSEGV), UTAP_S(SIGUSR2), UTAP_S(SIGPIPE), UTAP_S(SIGALRM),
	UTAP_S(SIGTERM), UTAP_S(SIGCHLD), UTAP_S(SIGCONT), UTAP_S(SIGSTOP), UTAP_S(SIGTSTP),
	UTAP_S(SIGTTIN), UTAP_S(SIGTTOU), UTAP_S(SIGURG), UTAP_S(SIGXCPU), UTAP_S(SIGXFSZ),
	UTAP_S(SIGVTALRM), UTAP_S(SIGPROF), UTAP_S(SIGWINCH), [SIGIO] = "SIGIO/SIGPOLL",
	UTAP_S(SIGPWR), UTAP_S(SIGSYS),
};
#undef UTAP_S

static void utap_signal_str(char *out, int64_t sig)
{
	unsigned int v = (unsigned int)sig;

	if (v < ARRAY_SIZE(utap_signal_names) && utap_signal_names[v])
		utap_strlcpy(out, utap_signal_names[v], UTAP_NAME_LEN);
	else if (v == (SIGTRAP | 0x80))
		utap_strlcpy(out, "TRACESYSGOOD", UTAP_NAME_LEN);
	else
		snprintf(out, UTAP_NAME_LEN, "0x%x", v);
}

#endif
