/*
 * timer.c - timer.s/sec/ms/msec/us/usec/ns/nsec(N)[.randomize(M)],
 * timer.hz(N) and timer.jiffies(N)[.randomize(M)], with stap's limits and
 * messages. (timer.profile is a tapset alias for a per-CPU perf sample.)
 */
#include "codegen/emit.h"

#include <string.h>

struct timer_data {
	int64_t interval;	/* ns, or jiffies */
	int64_t randomize;
	bool jiffies;
};

struct timer_unit {
	const char *name;
	int64_t scale;		/* ns per unit */
};

static const struct timer_unit timer_units[] = {
	{ "s", 1000000000 }, { "sec", 1000000000 }, { "ms", 1000000 }, { "msec", 1000000 },
	{ "us", 1000 }, { "usec", 1000 }, { "ns", 1 }, { "nsec", 1 },
};

/* stap's bounds for hrtimer probes: 100us to one day */
#define MIN_NS 100000LL
#define MAX_NS (1000000000LL * 60 * 60 * 24)

static const struct timer_unit *find_unit(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(timer_units); i++)
		if (!strcmp(timer_units[i].name, name))
			return &timer_units[i];
	return NULL;
}

/* .randomize(M) after the interval, if any; -1 after an error. */
static int parse_randomize(const struct pp_component *c, int64_t *rnd, struct loc loc)
{
	*rnd = 0;
	if (!c)
		return 0;
	if (strcmp(c->name, "randomize") || !pp_component_arg_num(c, rnd) || c->next) {
		error_at(loc, "unexpected '.%s' in a timer probe point", c->name);
		return -1;
	}
	return 0;
}

static int check_jiffies(struct timer_data *t, struct loc loc)
{
	if (t->interval <= 0 || t->interval > 1000000) {
		error_at(loc, "invalid interval for jiffies timer");
		return -1;
	}
	if (t->randomize < 0 || t->randomize > t->interval) {
		error_at(loc, "invalid randomize for jiffies timer");
		return -1;
	}
	return 0;
}

static int check_hrtimer(struct timer_data *t, int64_t scale, struct loc loc)
{
	if (t->interval < MIN_NS || t->interval > MAX_NS) {
		error_at(loc, "interval value out of range (%lld, %lld)",
			 (long long)(scale < MIN_NS ? MIN_NS / scale : 1), (long long)(MAX_NS / scale));
		return -1;
	}
	if (t->randomize < 0 || t->randomize > t->interval) {
		error_at(loc, "randomization value out of range");
		return -1;
	}
	return 0;
}

static int parse_timer(const struct pp_component *c, struct timer_data *t, struct loc loc)
{
	const struct timer_unit *u = find_unit(c->name);
	int64_t n;

	if (!strcmp(c->name, "profile")) {
		error_at(loc, "timer.profile.tick needs register_timer_hook, which current kernels "
			 "do not have; use timer.profile (a perf cpu-clock sample on every CPU)");
		return -1;
	}
	if (!u && strcmp(c->name, "jiffies") && strcmp(c->name, "hz")) {
		error_at(loc, "unknown timer variant 'timer.%s'", c->name);
		return -1;
	}
	if (!pp_component_arg_num(c, &n)) {
		error_at(loc, "'timer.%s' takes a number", c->name);
		return -1;
	}
	if (!strcmp(c->name, "hz")) {
		if (c->next) {
			error_at(loc, "randomization is not supported for hz timers");
			return -1;
		}
		if (n <= 0) {
			error_at(loc, "frequency must be greater than 0");
			return -1;
		}
		t->interval = (1000000000 + n - 1) / n;
		return check_hrtimer(t, 1, loc);
	}
	if (parse_randomize(c->next, &t->randomize, loc))
		return -1;
	t->interval = n;
	if (!u) {
		t->jiffies = true;
		return check_jiffies(t, loc);
	}
	if (n > MAX_NS / u->scale + 1 || t->randomize > MAX_NS / u->scale + 1) {
		error_at(loc, "interval value out of range (%lld, %lld)",
			 (long long)(u->scale < MIN_NS ? MIN_NS / u->scale : 1),
			 (long long)(MAX_NS / u->scale));
		return -1;
	}
	t->interval *= u->scale;
	t->randomize *= u->scale;
	return check_hrtimer(t, u->scale, loc);
}

static int timer_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	struct timer_data *t = arena_alloc(sizeof(*t));
	struct derived_probe *d;

	(void)s;
	if (!pp->comps->next) {
		error_at(pp->loc, "expected timer.ms(N), timer.s(N), timer.hz(N), "
			 "timer.jiffies(N) ... or timer.profile");
		return -1;
	}
	if (parse_timer(pp->comps->next, t, pp->loc))
		return -1;
	d = new_derived(proto, pp_string(pp));
	d->data = t;
	d->ctx = 0;	/* interrupt context, no registers */
	return 1;
}

static void timer_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	emit_need(em, "timer");
	sb_printf(&em->glue, "static struct utap_timer utap_timers[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct timer_data *t = dps[i]->data;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".interval = %lldULL, .randomize = %lldULL, .jiffies = %d },\n",
			  dps[i]->index, dps[i]->handler, (long long)t->interval,
			  (long long)t->randomize, t->jiffies);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\tutap_timers_start(utap_timers, %d);\n", n);
	sb_printf(&em->unreg, "\tutap_timers_stop(utap_timers, %d);\n", n);
}

/* the names a '*' after the first component stands for */
static const char *const timer_words[] = {
	"hz", "jiffies", "ms", "msec", "ns", "nsec", "randomize", "s", "sec", "us", "usec",
	NULL
};

const struct provider provider_timer = {
	.name = "timer",
	.words = timer_words,
	.resolve = timer_resolve,
	.emit = timer_emit,
};
