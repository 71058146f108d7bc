// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - statistics aggregates (pure core).
 *
 * Values are added on the CPU that sees them and merged when read, so the
 * mean and the sum of squared deviations are kept in Welford's form and
 * merged with the pairwise formula. Histograms use SystemTap's buckets: for
 * log histograms bucket 64 holds 0, bucket 64 + 1 + k holds [2^k, 2^(k+1))
 * and the negatives mirror below 64; linear histograms have an underflow
 * and an overflow bucket around (stop - start) / interval + 1 ranges.
 */
#include "stats.h"
#include "format.h"

#define HIST_WIDTH 50
#define HIST_ELISION 2	/* zero rows kept on each side of data */

u32 utap_hist_linear_buckets(s64 start, s64 stop, s64 interval)
{
	s64 n;

	if (interval <= 0 || stop <= start)
		return 0;
	n = (stop - start) / interval + 3;
	if (n < 3 || n > UTAP_HIST_MAX_BUCKETS)
		return 0;
	return (u32)n;
}

size_t utap_stat_size(const struct utap_hist_spec *spec)
{
	return sizeof(struct utap_stat) +
	       (spec && spec->type != UTAP_HIST_NONE ? spec->buckets : 0) * sizeof(s64);
}

static int log_bucket(s64 v)
{
	u64 a;
	int lg;

	if (v == 0)
		return UTAP_HIST_LOG_BUCKET0;
	a = v < 0 ? 0 - (u64)v : (u64)v;
	lg = 63 - __builtin_clzll(a);
	return v > 0 ? UTAP_HIST_LOG_BUCKET0 + 1 + lg : UTAP_HIST_LOG_BUCKET0 - 1 - lg;
}

static s64 log_bucket_value(int b)
{
	if (b == UTAP_HIST_LOG_BUCKET0)
		return 0;
	if (b < UTAP_HIST_LOG_BUCKET0)
		return (s64)(~0ULL << (63 - b));	/* -2^(63-b) */
	return (s64)(1ULL << (b - UTAP_HIST_LOG_BUCKET0 - 1));
}

static u32 linear_bucket(const struct utap_hist_spec *spec, s64 v)
{
	u64 b;

	if (v < spec->start)
		return 0;
	b = ((u64)v - (u64)spec->start) / (u64)spec->interval + 1;
	return b >= spec->buckets - 1 ? spec->buckets - 1 : (u32)b;
}

void utap_stat_add(struct utap_stat *st, const struct utap_hist_spec *spec, s64 v)
{
	int shift = spec ? spec->bit_shift : 0;
	s64 x = (s64)((u64)v << shift), delta;

	if (st->count == 0) {
		st->count = 1;
		st->sum = st->min = st->max = v;
		st->mean = x;
		st->m2 = 0;
	} else {
		st->count++;
		st->sum = (s64)((u64)st->sum + (u64)v);
		if (v < st->min)
			st->min = v;
		if (v > st->max)
			st->max = v;
		/* stap 4.8 keeps the difference in an int (measured: its variances) */
		delta = (s32)(x - st->mean);
		st->mean += delta / st->count;
		st->m2 = (s64)((u64)st->m2 + (u64)delta * (u64)(x - st->mean));
	}
	st->cm = (s64)((u64)st->count * (u64)st->mean);
	st->cm2 = (s64)((u64)st->cm * (u64)st->mean);
	/* stap's per-CPU variance: m2 / (count - 1), and -1 for one value */
	st->cvar = st->count < 2 ? 0 : (s64)((u64)(st->count - 1) * (u64)(st->m2 / (st->count - 1)));
	if (!spec || spec->type == UTAP_HIST_NONE)
		return;
	if (spec->type == UTAP_HIST_LOG)
		st->hist[log_bucket(v)]++;
	else
		st->hist[linear_bucket(spec, v)]++;
}

void utap_stat_merge(struct utap_stat *dst, const struct utap_stat *src,
		     const struct utap_hist_spec *spec)
{
	u32 i;

	if (src->count == 0)
		return;
	if (dst->count == 0) {
		memcpy(dst, src, utap_stat_size(spec));
		return;
	}
	dst->cm = (s64)((u64)dst->cm + (u64)src->cm);
	dst->cm2 = (s64)((u64)dst->cm2 + (u64)src->cm2);
	dst->cvar = (s64)((u64)dst->cvar + (u64)src->cvar);
	dst->count += src->count;
	dst->sum = (s64)((u64)dst->sum + (u64)src->sum);
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	if (spec && spec->type != UTAP_HIST_NONE)
		for (i = 0; i < spec->buckets; i++)
			dst->hist[i] += src->hist[i];
}

/*
 * stap's total variance over the CPUs, sum(count * (mean - avg)^2) plus
 * sum((count - 1) * variance), over count - 1, with avg the exact average;
 * expanded (exact in wrapping 64-bit arithmetic) so it needs only sums.
 */
static s64 variance(const struct utap_stat *st, int shift)
{
	u64 n = (u64)st->count, avg, s1;

	if (st->count < 2)
		return 0;
	avg = (u64)((s64)((u64)st->sum << shift) / st->count);
	s1 = (u64)st->cm2 - 2 * avg * (u64)st->cm + avg * avg * n;
	return ((s64)(s1 + (u64)st->cvar) / (st->count - 1)) >> (2 * shift);
}

s64 utap_stat_get(const struct utap_stat *st, const struct utap_hist_spec *spec, int op)
{
	int shift = spec ? spec->bit_shift : 0;

	if (st->count == 0)
		return 0;
	switch (op) {
	case UTAP_STAT_COUNT:
		return st->count;
	case UTAP_STAT_SUM:
		return st->sum;
	case UTAP_STAT_MIN:
		return st->min;
	case UTAP_STAT_MAX:
		return st->max;
	case UTAP_STAT_AVG:
		return st->sum / st->count;
	case UTAP_STAT_VARIANCE:
		return variance(st, shift);
	}
	return 0;
}

/* ---- histogram text ---- */

struct hout {
	char *buf;
	size_t size, skip, len;
};

static void hput(struct hout *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, o->len++)
		if (o->len >= o->skip && o->len - o->skip < o->size)
			o->buf[o->len - o->skip] = s[i];
}

static void hpad(struct hout *o, char c, int n)
{
	while (n-- > 0)
		hput(o, &c, 1);
}

static void hnum(struct hout *o, s64 v, int width)
{
	char tmp[24];
	size_t n = utap_format_number(tmp, sizeof(tmp), (u64)v, 10, true, 0, -1, -1, false);

	hpad(o, ' ', width - (int)n);
	hput(o, tmp, n);
}

static int digits(s64 v)
{
	char tmp[24];

	return (int)utap_format_number(tmp, sizeof(tmp), (u64)v, 10, true, 0, -1, -1, false);
}

static s64 row_value(const struct utap_hist_spec *spec, u32 i, const char **prefix)
{
	*prefix = "";
	if (spec->type == UTAP_HIST_LOG)
		return log_bucket_value((int)i);
	if (i == 0) {
		*prefix = "<";
		return spec->start;
	}
	if (i == spec->buckets - 1) {
		*prefix = ">";
		return spec->start + (s64)(i - 2) * spec->interval;
	}
	return spec->start + (s64)(i - 1) * spec->interval;
}

/* A zero row is elided when its neighbours within HIST_ELISION are zero too. */
static bool elided(const struct utap_stat *st, u32 i, u32 low, u32 high)
{
	u32 from = i > low + HIST_ELISION ? i - HIST_ELISION : low;
	u32 to = i + HIST_ELISION < high ? i + HIST_ELISION : high;
	u32 k;

	for (k = from; k <= to; k++)
		if (st->hist[k])
			return false;
	return true;
}

static void data_range(const struct utap_stat *st, const struct utap_hist_spec *spec,
		       u32 *lowp, u32 *highp, s64 *maxp)
{
	u32 i, low = 0, high = 0;
	bool any = false;
	s64 max = 0;

	for (i = 0; i < spec->buckets; i++) {
		if (st->hist[i] > 0) {
			if (!any)
				low = i;
			high = i;
			any = true;
		}
		if (st->hist[i] > max)
			max = st->hist[i];
	}
	/* two empty rows of margin; log histograms stay non-negative unless data is */
	for (i = 0; i < 2; i++) {
		if (spec->type == UTAP_HIST_LOG) {
			if (low != UTAP_HIST_LOG_BUCKET0 && low > 0)
				low--;
		} else if (low > 0) {
			low--;
		}
		if (high < spec->buckets - 1)
			high++;
	}
	if (spec->type == UTAP_HIST_LINEAR) {
		if (low == 0 && st->hist[0] == 0)
			low++;
		if (high == spec->buckets - 1 && st->hist[high] == 0)
			high--;
	}
	*lowp = low;
	*highp = high;
	*maxp = max;
}

/*
 * Width of the value column, as stap computes it: for linear histograms from
 * start and from start + interval * high (one more for a '<' or '>').
 */
static int value_space(const struct utap_hist_spec *spec, u32 low, u32 high)
{
	int a, b;

	if (spec->type == UTAP_HIST_LINEAR) {
		a = digits(spec->start) + (low == 0);
		b = digits(spec->start + spec->interval * (s64)high) + (high == spec->buckets - 1);
	} else {
		a = digits(log_bucket_value((int)low));
		b = digits(log_bucket_value((int)high));
	}
	a = a > b ? a : b;
	return a > 5 ? a : 5;
}

size_t utap_hist_format(char *buf, size_t size, size_t skip, const struct utap_stat *st,
			const struct utap_hist_spec *spec)
{
	struct hout o = { .buf = buf, .size = size, .skip = skip };
	u32 low, high, i;
	s64 max, scale;
	int val_space, cnt_space, dashes;
	bool eliding = false;
	const char *prefix;

	if (!spec || spec->type == UTAP_HIST_NONE || st->count == 0)
		return 0;
	data_range(st, spec, &low, &high, &max);
	scale = max <= HIST_WIDTH ? 1 : (max + HIST_WIDTH - 1) / HIST_WIDTH;
	cnt_space = digits(max);
	val_space = value_space(spec, low, high);
	hpad(&o, ' ', val_space - 5);
	hput(&o, "value |", 7);
	for (dashes = 0; dashes < HIST_WIDTH; dashes++)
		hput(&o, "-", 1);
	hput(&o, " count\n", 7);
	for (i = low; i <= high; i++) {
		s64 v, bars;

		if (elided(st, i, low, high)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			hpad(&o, ' ', val_space);
			hput(&o, " ~\n", 3);
			eliding = false;
		}
		v = row_value(spec, i, &prefix);
		hpad(&o, ' ', val_space - digits(v) - (int)strlen(prefix));
		hput(&o, prefix, strlen(prefix));
		hnum(&o, v, 0);
		hput(&o, " |", 2);
		bars = st->hist[i] / scale;
		hpad(&o, '@', (int)bars);
		hnum(&o, st->hist[i], (int)(HIST_WIDTH - bars + 1 + cnt_space));
		hput(&o, "\n", 1);
	}
	hput(&o, "\n", 1);
	return o.len;
}
