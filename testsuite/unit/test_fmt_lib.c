/*
 * test_fmt_lib.c - helpers of the trace format tests (see test_fmt_lib.h).
 */
#include "test_fmt_lib.h"
#include "qtools_read.h"
#include "../vm/formats/fmtrun.h"

#include <inttypes.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[64];

const char *fmt_tmpdir(void)
{
	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/utap-fmt-XXXXXX");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tmpdir;
}

void fmt_cleanup(void)
{
	char cmd[128];

	if (!tmpdir[0] || getenv("UTAP_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		(void)0;
	tmpdir[0] = 0;
}

char *path_in(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		exit(2);
	return p;
}

const char *fmt_build_prog(const char *dir)
{
	static char *bin;
	char *cmd, *out = NULL;
	int rc;

	free(bin);
	bin = path_in(dir, "fmt");
	if (asprintf(&cmd, "cd '%s' && sh '%s/testsuite/vm/formats/fmtprog.sh'", dir,
		     FMT_SRC_DIR) < 0)
		exit(2);
	rc = run_cmd(cmd, &out);
	if (rc)
		fprintf(stderr, "building the test program failed: %s\n", out);
	free(cmd);
	free(out);
	return rc ? NULL : bin;
}

static void *pb_room(struct pbuf *b, size_t n)
{
	void *r;

	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(2);
	}
	r = b->p + b->n;
	memset(r, 0, n);
	b->n += n;
	return r;
}

void pb_map(struct pbuf *b, uint32_t pid, uint64_t start, uint64_t end, uint64_t offset,
	    uint64_t bias, const char *path)
{
	size_t len = strlen(path), size = (sizeof(struct utap_trace_map) + len + 7) & ~(size_t)7;
	struct utap_trace_map m = {
		.kind = UTAP_TRACE_MAP, .size = (uint16_t)size, .pid = pid, .start = start,
		.end = end, .offset = offset, .load_bias = bias, .path_len = (uint16_t)len,
	};
	uint8_t *p = pb_room(b, size);

	memcpy(p, &m, sizeof(m));
	memcpy(p + sizeof(m), path, len);
}

void pb_thread(struct pbuf *b, uint32_t tid, uint32_t pid, bool on)
{
	struct utap_trace_thread r = {
		.kind = UTAP_TRACE_THREAD, .size = sizeof(r), .tid = tid, .pid = pid, .on = on,
	};

	memcpy(pb_room(b, sizeof(r)), &r, sizeof(r));
}

void pb_lost(struct pbuf *b, uint32_t tid, uint64_t count)
{
	struct utap_trace_lost r = {
		.kind = UTAP_TRACE_LOST, .size = sizeof(r), .tid = tid, .count = count,
	};

	memcpy(pb_room(b, sizeof(r)), &r, sizeof(r));
}

void pb_step(struct pbuf *b, uint32_t tid, uint64_t ip, const char *hex, uint16_t flags,
	     uint64_t next_ip)
{
	struct utap_trace_step s = {
		.kind = UTAP_TRACE_STEP, .size = sizeof(s), .flags = flags, .tid = tid,
		.ip = ip, .next_ip = next_ip,
	};

	s.len = (uint8_t)unhex(hex, s.bytes);
	memcpy(pb_room(b, sizeof(s)), &s, sizeof(s));
}

void pb_free(struct pbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

uint64_t pb_run_step(struct pbuf *b, unsigned int i, uint32_t tid, bool next_ips)
{
	struct utap_trace_step *s = pb_room(b, sizeof(*s));

	utap_fmtrun_step(s, i, tid, next_ips);
	return s->ip;
}

void fmt_prog_trace(struct pbuf *b, const char *bin, uint32_t tid, bool next_ips)
{
	pb_map(b, 100, 0x401000, 0x402000, 0x1000, 0, bin);
	pb_thread(b, tid, 100, true);
	for (unsigned int i = 0; i < UTAP_FMTRUN_STEPS; i++)
		pb_run_step(b, i, tid, next_ips);
	pb_thread(b, tid, 100, false);
}

bool qtools_expect(const void *data, size_t len, const uint64_t *ips, size_t n, uint64_t last)
{
	struct qtools r;
	struct qtools_rec rec;
	size_t k = 0;
	int rc;

	qtools_init(&r, data, len);
	while ((rc = qtools_next(&r, &rec)) == 1) {
		if (k < n && rec.ip != ips[k]) {
			fprintf(stderr, "  qtrace record %zu (byte %zu) at %#" PRIx64 ", want %#" PRIx64
				"\n", k, rec.off, rec.ip, ips[k]);
			return false;
		}
		k++;
	}
	if (rc < 0) {
		fprintf(stderr, "  qtrace byte %zu: %s\n", r.error_off, r.error);
		return false;
	}
	if (k != n || r.headers != 1 || (last && k && rec.next != last)) {
		fprintf(stderr, "  qtrace: %zu records (want %zu), %u headers, last successor %#"
			PRIx64 " (want %#" PRIx64 ")\n", k, n, r.headers, k ? rec.next : 0, last);
		return false;
	}
	return true;
}

size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;
	int hi = -1;

	for (; *s; s++) {
		int v;

		if (*s == ' ' || *s == '\n')
			continue;
		v = *s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10;
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *subst(const char *text, ...)
{
	char *cur = strdup(text);
	va_list ap;
	const char *key;

	va_start(ap, text);
	while ((key = va_arg(ap, const char *)) != NULL) {
		const char *val = va_arg(ap, const char *);
		char pat[64], *out, *p, *hit;
		size_t pl, vl = strlen(val), count = 0;

		snprintf(pat, sizeof(pat), "@%s@", key);
		pl = strlen(pat);
		for (p = cur; (hit = strstr(p, pat)); p = hit + pl)
			count++;
		out = malloc(strlen(cur) + count * vl + 1);
		if (!out)
			exit(2);
		out[0] = 0;
		for (p = cur; (hit = strstr(p, pat)); p = hit + pl) {
			strncat(out, p, hit - p);
			strcat(out, val);
		}
		strcat(out, p);
		free(cur);
		cur = out;
	}
	va_end(ap);
	return cur;
}

int run_cmd(const char *cmd, char **out)
{
	char *full;
	FILE *p;
	size_t n = 0, cap = 4096, r;
	int st;

	if (asprintf(&full, "(%s) 2>&1", cmd) < 0)
		exit(2);
	p = popen(full, "r");
	free(full);
	*out = malloc(cap);
	if (!p || !*out)
		exit(2);
	while ((r = fread(*out + n, 1, cap - n - 1, p)) > 0) {
		n += r;
		if (cap - n < 2) {
			cap *= 2;
			*out = realloc(*out, cap);
			if (!*out)
				exit(2);
		}
	}
	(*out)[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* one subposition: absolute (decimal or 0x), +N, -N or * against LAST */
static bool subpos(const char **p, uint64_t last, uint64_t *v)
{
	const char *s = *p;
	char *end;
	uint64_t x;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '*') {
		*v = last;
		*p = s + 1;
		return true;
	}
	if (*s == '+' || *s == '-') {
		x = strtoull(s + 1, &end, 0);
		if (end == s + 1)
			return false;
		*v = *s == '+' ? last + x : last - x;
	} else {
		x = strtoull(s, &end, 0);
		if (end == s)
			return false;
		*v = x;
	}
	*p = end;
	return true;
}

static int by_addr(const void *a, const void *b)
{
	const struct cg_cost *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct cg_cost *cg_parse(const char *text, const char *obj, size_t *n, uint64_t *total)
{
	char *names[4096] = { 0 };	/* ob ids */
	struct cg_cost *c = NULL;
	size_t nc = 0, cap = 0;
	uint64_t last_a = 0, last_l = 0;
	bool in_obj = false, skip_cost = false;
	const char *p = text;

	*total = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[4096];

		if (len >= sizeof(line))
			goto bad;
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (eol != NULL);
		/* a compressed name "(N) path" is defined where it is first used,
		 * which may be a call's cob= line before any ob= names it */
		if (!strncmp(line, "ob=", 3) || !strncmp(line, "cob=", 4)) {
			bool is_cob = line[0] == 'c';
			const char *name = line + (is_cob ? 4 : 3);
			long id = -1;

			if (name[0] == '(') {
				id = strtol(name + 1, (char **)&name, 10);
				if (id < 0 || id >= 4096 || *name != ')')
					goto bad;
				name++;
				while (*name == ' ')
					name++;
				if (*name) {
					free(names[id]);
					names[id] = strdup(name);
				}
				name = names[id] ? names[id] : "";
			}
			if (!is_cob)
				in_obj = !strcmp(name, obj);
		} else if (!strncmp(line, "calls=", 6)) {
			skip_cost = true;	/* the next cost line is inclusive */
		} else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' ||
			   line[0] == '*') {
			const char *q = line;
			uint64_t a, l, ir = 0;
			char *end;

			if (!subpos(&q, last_a, &a) || !subpos(&q, last_l, &l))
				goto bad;
			last_a = a;
			last_l = l;
			while (*q == ' ')
				q++;
			if (*q) {
				ir = strtoull(q, &end, 10);
				if (end == q)
					goto bad;
			}
			if (skip_cost) {
				skip_cost = false;
				continue;
			}
			*total += ir;
			if (!in_obj || !ir)
				continue;
			if (nc == cap) {
				cap = cap ? 2 * cap : 256;
				c = realloc(c, cap * sizeof(*c));
				if (!c)
					exit(2);
			}
			c[nc++] = (struct cg_cost){ a, ir };
		}
		/* headers, fl= fi= fe= fn= cob= cfi= cfn= jump= jcnd= totals: need nothing */
	}
	if (nc)
		qsort(c, nc, sizeof(*c), by_addr);
	{
		size_t k = 0;

		for (size_t i = 0; i < nc; i++) {
			if (k && c[k - 1].addr == c[i].addr)
				c[k - 1].ir += c[i].ir;
			else
				c[k++] = c[i];
		}
		nc = k;
	}
	for (int i = 0; i < 4096; i++)
		free(names[i]);
	*n = nc;
	if (!c)
		c = malloc(1);
	return c;
bad:
	for (int i = 0; i < 4096; i++)
		free(names[i]);
	free(c);
	return NULL;
}
