/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - statistics aggregates (pure core): count, sum, min, max, average,
 * variance and one optional histogram, with SystemTap's bucket layout and
 * its histogram text.
 */
#ifndef UTAP_STATS_H
#define UTAP_STATS_H

#include "port.h"

#define UTAP_HIST_LOG_BUCKETS 128
#define UTAP_HIST_LOG_BUCKET0 64	/* the bucket of 0; negatives below */
#define UTAP_HIST_MAX_BUCKETS 128	/* linear: (stop - start) / interval + 3 at most */

enum utap_hist_type { UTAP_HIST_NONE, UTAP_HIST_LOG, UTAP_HIST_LINEAR };

struct utap_hist_spec {
	u8 type;		/* enum utap_hist_type */
	u8 bit_shift;		/* @variance(x, shift): fixed-point bits */
	u32 buckets;
	s64 start, stop, interval;	/* linear */
};

enum utap_stat_op { UTAP_STAT_COUNT, UTAP_STAT_SUM, UTAP_STAT_MIN, UTAP_STAT_MAX,
		    UTAP_STAT_AVG, UTAP_STAT_VARIANCE };

struct utap_stat {
	s64 count, sum, min, max;
	s64 mean;		/* running mean << bit_shift (Welford, as stap's avg_s) */
	s64 m2;			/* sum of squared deviations, shifted twice */
	/*
	 * stap aggregates the CPUs' variances with the total-variance formula;
	 * these sums of each CPU's count*mean, count*mean^2 and
	 * (count-1)*variance let merging give its result exactly.
	 */
	s64 cm, cm2, cvar;
	s64 hist[];		/* spec->buckets counters */
};

/* Bucket count for a linear histogram, or 0 when the parameters are invalid. */
u32 utap_hist_linear_buckets(s64 start, s64 stop, s64 interval);
size_t utap_stat_size(const struct utap_hist_spec *spec);
void utap_stat_add(struct utap_stat *st, const struct utap_hist_spec *spec, s64 v);
void utap_stat_merge(struct utap_stat *dst, const struct utap_stat *src,
		     const struct utap_hist_spec *spec);
/* The value of an aggregate op; count 0 gives 0 for every op (callers check emptiness). */
s64 utap_stat_get(const struct utap_stat *st, const struct utap_hist_spec *spec, int op);
/*
 * SystemTap's histogram text, bytes [skip, skip + size) of it into buf (so a
 * long histogram can be produced in pieces); returns the whole length.
 */
size_t utap_hist_format(char *buf, size_t size, size_t skip, const struct utap_stat *st,
			const struct utap_hist_spec *spec);

#endif
