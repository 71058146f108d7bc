/*
 * tphdr.h - the kernel's tracepoints as its trace headers declare them
 * (include/trace/events/ *.h and arch/x86/include/asm/trace/ *.h): system,
 * name, TP_PROTO and the header to #include, read at translate time.
 */
#ifndef UTAP_PROBES_TPHDR_H
#define UTAP_PROBES_TPHDR_H

#include "sema/sema.h"

struct cparam;

struct tp_header {
	const char *path;	/* for #include <...>: "trace/events/sched.h" */
	/*
	 * "struct x; union y; ..." for every struct and union the header names:
	 * declared before it, they keep TP_PROTO parameters from getting a
	 * prototype-only scope when the header does not include their definitions.
	 */
	const char *forward;
	/* includes files of its own subsystem ("../../../net/bridge/..."): not usable in a module */
	bool private;
};

struct tp_event {
	const char *system;	/* TRACE_SYSTEM */
	const char *name;
	const char *proto;	/* inside TP_PROTO(...): "bool preempt, struct task_struct *prev" */
	const struct tp_header *header;
	struct cparam *params;
	int nparams;
};

struct tp_events {
	struct tp_event *ev;
	int n, cap;
};

/* A kernel configuration (.config) for evaluating #if in headers. */
struct kconfig;
struct kconfig *kconfig_read(const char *path);	/* NULL config: every condition is unknown */

/*
 * Appends the tracepoints one header declares to out. Conditions on CONFIG_
 * symbols are evaluated against cfg; other conditions count as true.
 * Function-like macros the header defines (wrappers of DEFINE_EVENT ...)
 * are expanded. Pure: for tests.
 */
void tphdr_scan(const char *text, const char *header, const char *default_system,
		const struct kconfig *cfg, struct tp_events *out);

/*
 * The kernel header that defines "enum name { ... }", for an enum a TP_PROTO
 * passes by value (it must be complete there); NULL if none is found.
 */
const char *tphdr_enum_header(struct session *s, const char *name);

/*
 * The type of the kernel variable NAME as "extern TYPE NAME;" in the
 * target kernel's headers declares it ("unsigned long", "struct net",
 * "struct task_struct *", "char []"), and in *header the header; NULL if
 * no header declares it (a static, or a variable only its file knows).
 */
const char *tphdr_extern_type(struct session *s, const char *name, const char **header);

/* The kernel's include/ sources (Debian: the headers' -common tree); NULL if not installed. */
const char *tphdr_source_tree(struct session *s);

/* Every tracepoint of the session's target kernel headers (not filtered by existence). */
const struct tp_events *tphdr_events(struct session *s);

#endif /* UTAP_PROBES_TPHDR_H */
