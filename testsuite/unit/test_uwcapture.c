// SPDX-License-Identifier: GPL-2.0
/*
 * test_uwcapture - unwind real captured stacks with the runtime code and
 * compare with glibc backtrace() taken at the same moment.
 *
 * The target programs (build/uwprogs/, built like Debian builds: -O2 -g,
 * no frame pointers, plus one frame-pointer build) snapshot their
 * registers and stack at interesting points. Tables come from the
 * builder, for every file mapped at capture time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "uwprogs/uwsnap.h"

#define MAX_FRAMES 128

static char snapdir[] = "/tmp/uwcap.XXXXXX";

struct walk {
	u64 pcs[MAX_FRAMES];
	u8 flags[MAX_FRAMES];
	struct uw_trace tr;
};

static int capture(const char *prog, const char *scenario, struct uwsnap *s)
{
	char path[4096], file[4096];

	snprintf(path, sizeof(path), "%s/%s", uwsnap_progdir(), prog);
	snprintf(file, sizeof(file), "%s/%s.snap", snapdir, scenario);
	if (uwsnap_run(path, scenario, snapdir)) {
		fprintf(stderr, "  cannot run %s %s\n", path, scenario);
		return -1;
	}
	return uwsnap_load(file, s);
}

static void walk(struct uwsnap *s, const struct uw_regs *start, u32 flags,
		 struct walk *w)
{
	struct uw_walk_ops ops;

	uwsnap_ops(s, &ops);
	memset(w, 0, sizeof(*w));
	w->tr.pcs = w->pcs;
	w->tr.frame_flags = w->flags;
	w->tr.max = MAX_FRAMES;
	uw_walk(start, flags, &ops, &w->tr);
}

static void show(const struct uwsnap *s, const struct walk *w)
{
	u32 i, nr;
	const u64 *bt = uwsnap_oracle(s, &nr);

	fprintf(stderr, "  walk: %u frames, stop \"%s\" at %#llx\n", w->tr.nr,
		uw_stop_name(w->tr.stop), (unsigned long long)w->tr.stop_pc);
	for (i = 0; i < w->tr.nr || i < nr; i++)
		fprintf(stderr, "  %2u  %#14llx  %#14llx\n", i,
			i < w->tr.nr ? (unsigned long long)w->pcs[i] : 0ull,
			i < nr ? (unsigned long long)bt[i] : 0ull);
}

/* The whole walk equals the oracle and ends cleanly. */
static void check_complete(const char *prog, const char *scenario,
			   u32 min_frames)
{
	struct uwsnap s;
	struct walk w;
	const u64 *bt;
	u32 nr;

	if (capture(prog, scenario, &s)) {
		CHECK(!"capture failed");
		return;
	}
	bt = uwsnap_oracle(&s, &nr);
	walk(&s, &s.regs, 0, &w);
	CHECK(nr >= min_frames);
	CHECK_INT(w.tr.nr, nr);
	CHECK_MEM(w.pcs, bt, sizeof(u64) * (w.tr.nr < nr ? w.tr.nr : nr));
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_END));
	CHECK_INT(w.tr.inexact, 0);
	if (unit_failed_checks)
		show(&s, &w);
	uwsnap_free(&s);
}

static void chain(void)
{
	check_complete("uwp_c", "chain", 7);
}

static void recursion_30_deep(void)
{
	check_complete("uwp_c", "recurse", 34);
}

static void signal_via_raise(void)
{
	check_complete("uwp_c", "sigraise", 8);
}

static void signal_from_other_thread(void)
{
	check_complete("uwp_c", "sigkill", 7);
}

static void signal_on_sigaltstack(void)
{
	check_complete("uwp_c", "sigalt", 8);
}

static void qsort_callback(void)
{
	check_complete("uwp_c", "qsort", 6);
}

static void thread_ends_at_clone3(void)
{
	check_complete("uwp_c", "thread", 5);
}

static void stack_realigned_drap(void)
{
	check_complete("uwp_c", "drap", 6);
}

static void cxx_destructor_during_throw(void)
{
	check_complete("uwp_cxx", "cxx_dtor", 6);
}

static void cxx_catch(void)
{
	check_complete("uwp_cxx", "cxx_catch", 4);
}

static void non_pie(void)
{
	check_complete("uwp_c_nopie", "chain", 7);
}

static void stripped_binary(void)
{
	check_complete("uwp_c_stripped", "chain", 7);
}

static void frame_pointer_build(void)
{
	check_complete("uwp_c_fp", "recurse", 34);
}

/*
 * Only pc and sp known: leaf2 and leaf1 need only RSP, with_vla's CFA is
 * RBP-based, so the walk must stop right there asking for RBP.
 */
static void partial_registers(void)
{
	struct uwsnap s;
	struct uw_regs start;
	struct walk w;
	const u64 *bt;
	u32 nr;

	if (capture("uwp_c", "partial", &s)) {
		CHECK(!"capture failed");
		return;
	}
	bt = uwsnap_oracle(&s, &nr);
	start = s.regs;
	start.known = UW_BIT(UWT_RIP) | UW_BIT(UWT_RSP);
	walk(&s, &start, 0, &w);
	CHECK_INT(w.tr.nr, 3);
	CHECK_MEM(w.pcs, bt, sizeof(u64) * (w.tr.nr < 3 ? w.tr.nr : 3));
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_UNKNOWN_REG));
	CHECK_HEX(w.tr.stop_pc, bt[2]);
	if (unit_failed_checks)
		show(&s, &w);
	/* with every register known the same stack is complete */
	walk(&s, &s.regs, 0, &w);
	CHECK_INT(w.tr.nr, nr);
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_END));
	uwsnap_free(&s);
}

/*
 * The frame-pointer build with its own table hidden (as if it were JIT
 * code): the validated FP fallback must find the same frames, marked
 * inexact; without the fallback the walk stops at once.
 */
static void frame_pointer_fallback(void)
{
	struct uwsnap s;
	struct walk w;
	const u64 *bt;
	u32 nr, i, inexact = 0;

	if (capture("uwp_c_fp", "chain", &s)) {
		CHECK(!"capture failed");
		return;
	}
	bt = uwsnap_oracle(&s, &nr);
	s.hide = "uwp_c_fp";
	walk(&s, &s.regs, UW_WALK_FP_FALLBACK, &w);
	CHECK_INT(w.tr.nr, nr);
	CHECK_MEM(w.pcs, bt, sizeof(u64) * (w.tr.nr < nr ? w.tr.nr : nr));
	for (i = 0; i < w.tr.nr; i++)
		inexact += !!(w.flags[i] & UW_FRAME_INEXACT);
	CHECK_INT(w.tr.inexact, inexact);
	CHECK(w.tr.inexact >= 4);
	CHECK(!(w.flags[0] & UW_FRAME_INEXACT));
	/* _start clears RBP: the chain ends there, without a table */
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_NO_TABLE));
	if (unit_failed_checks)
		show(&s, &w);
	walk(&s, &s.regs, 0, &w);
	CHECK_INT(w.tr.nr, 1);
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_NO_TABLE));
	uwsnap_free(&s);
}

/* The frame limit: a full stack of exactly MAX frames is still "end". */
static void frame_limit(void)
{
	struct uwsnap s;
	struct uw_walk_ops ops;
	struct uw_trace tr = { 0 };
	u64 pcs[40];
	u32 nr;

	if (capture("uwp_c", "recurse", &s)) {
		CHECK(!"capture failed");
		return;
	}
	uwsnap_oracle(&s, &nr);
	uwsnap_ops(&s, &ops);
	tr.pcs = pcs;
	tr.max = 20;
	uw_walk(&s.regs, 0, &ops, &tr);
	CHECK_INT(tr.nr, 20);
	CHECK_STR(uw_stop_name(tr.stop), uw_stop_name(UW_STOP_MAX_FRAMES));
	tr.max = nr;
	uw_walk(&s.regs, 0, &ops, &tr);
	CHECK_INT(tr.nr, nr);
	CHECK_STR(uw_stop_name(tr.stop), uw_stop_name(UW_STOP_END));
	uwsnap_free(&s);
}

/* A stack page that cannot be read ends the walk with a read fault. */
static void unreadable_stack(void)
{
	struct uwsnap s;
	struct walk w;
	u32 nr;

	if (capture("uwp_c", "chain", &s)) {
		CHECK(!"capture failed");
		return;
	}
	uwsnap_oracle(&s, &nr);
	s.region[0].len = 8;	/* only the first word survives */
	walk(&s, &s.regs, 0, &w);
	CHECK(w.tr.nr >= 1 && w.tr.nr < nr);
	CHECK_STR(uw_stop_name(w.tr.stop), uw_stop_name(UW_STOP_READ_FAULT));
	uwsnap_free(&s);
}

int main(void)
{
	char cmd[64];

	unit_prog = "test_uwcapture";
	if (!mkdtemp(snapdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(chain);
	RUN(recursion_30_deep);
	RUN(signal_via_raise);
	RUN(signal_from_other_thread);
	RUN(signal_on_sigaltstack);
	RUN(qsort_callback);
	RUN(thread_ends_at_clone3);
	RUN(stack_realigned_drap);
	RUN(cxx_destructor_during_throw);
	RUN(cxx_catch);
	RUN(non_pie);
	RUN(stripped_binary);
	RUN(frame_pointer_build);
	RUN(partial_registers);
	RUN(frame_pointer_fallback);
	RUN(frame_limit);
	RUN(unreadable_stack);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", snapdir);
	if (system(cmd))
		return 1;
	return unit_done();
}
