/*
 * test_kprobes - the translate-time parsers of the kernel probe families:
 * /proc/kallsyms with the kprobe blacklist (ksyms.c), C parameter lists
 * (cparams.c) and tracepoint declarations in trace headers (tphdr.c).
 */
#include "unit.h"
#include "kernel/kbtf.h"
#include "kernel/ksyms.h"
#include "probes/cparams.h"
#include "probes/tphdr.h"
#include "codegen/emit.h"

#include <stdarg.h>
#include <unistd.h>

/* cparams.c's emitting half is exercised by the guest tests. */
void emit_line(struct emitter *em, const char *fmt, ...) { (void)em; (void)fmt; }
void emit_need(struct emitter *em, const char *name) { (void)em; (void)name; }
const char *emit_new_long(struct emitter *em) { (void)em; return "t0"; }
const char *emit_new_str(struct emitter *em) { (void)em; return "s0"; }
const char *c_near(const struct node *n) { (void)n; return "\"\""; }
struct val emit_value(struct emitter *em, struct node *n)
{
	(void)em;
	(void)n;
	return (struct val){ .type = TY_LONG, .c = "0" };
}
const char *c_string_literal(const char *s, size_t len) { (void)len; return s; }
void dump_expr(struct strbuf *sb, const struct node *e) { (void)sb; (void)e; }

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T ksys_read\n"
	"ffffffff81002000 t helper\n"
	"ffffffff81003000 t helper\n"
	"ffffffff81004000 T notify_die\n"
	"ffffffff81005000 D some_data\n"
	"ffffffff83000000 T _sinittext\n"
	"ffffffff83000100 t early_setup\n"
	"ffffffff83001000 T _einittext\n"
	"ffffffffc0001000 t v9fs_read\t[9p]\n"
	"garbage line\n";

static const char blacklist[] =
	"0xffffffff81004000-0xffffffff81004100\tnotify_die\n";

TEST(kallsyms_lookup)
{
	struct ksyms *k = ksyms_parse(kallsyms, blacklist, "test");
	long i;

	CHECK_INT(k->n, 10);
	i = ksyms_find(k, "ksys_read", NULL);
	CHECK(i >= 0 && ksym_is_function(&k->syms[i]) && !k->syms[i].unprobeable);
	CHECK_INT(ksyms_count_functions(k, "helper", NULL), 2);
	i = ksyms_find(k, "some_data", NULL);
	CHECK(i >= 0 && !ksym_is_function(&k->syms[i]));
	CHECK_INT(ksyms_find(k, "v9fs_read", NULL), -1);
	i = ksyms_find(k, "v9fs_read", "9p");
	CHECK(i >= 0 && !strcmp(k->syms[i].module, "9p"));
	CHECK_INT(ksyms_find(k, "no_such", NULL), -1);
}

TEST(kallsyms_unprobeable)
{
	struct ksyms *k = ksyms_parse(kallsyms, blacklist, "test");

	/* the blacklist's ranges and the init text, freed after boot */
	CHECK(k->syms[ksyms_find(k, "notify_die", NULL)].unprobeable);
	CHECK(k->syms[ksyms_find(k, "early_setup", NULL)].unprobeable);
	CHECK(!k->syms[ksyms_find(k, "helper", NULL)].unprobeable);
	/* without addresses (an unprivileged /proc/kallsyms) nothing can be told */
	k = ksyms_parse("0000000000000000 T notify_die\n", blacklist, "test");
	CHECK(!k->syms[0].unprobeable);
}

TEST(params)
{
	struct cparam *p;
	int n = cparams_parse("bool preempt, struct task_struct *prev,\n\t unsigned int prev_state", &p);

	CHECK_INT(n, 3);
	CHECK_STR(p[0].name, "preempt");
	CHECK_STR(p[1].name, "prev");
	CHECK_STR(p[1].type, "struct task_struct*");
	CHECK_STR(p[2].type, "unsigned int");
	CHECK_INT(cparams_find(p, n, "prev_state"), 2);
	CHECK_INT(cparams_find(p, n, "next"), -1);
}

TEST(params_odd_shapes)
{
	struct cparam *p;
	int n;

	CHECK_INT(cparams_parse("void", &p), 0);
	CHECK_INT(cparams_parse("  ", &p), 0);
	n = cparams_parse("const char __user *const __user *argv, int (*fn)(void *, int), char comm[16]",
			  &p);
	CHECK_INT(n, 3);
	CHECK_STR(p[0].name, "argv");
	CHECK_STR(p[0].type, "const char* const*");
	CHECK_STR(p[1].name, "fn");
	CHECK_STR(p[2].name, "comm");
	/* unnamed parameters, as in some syscall prototypes */
	n = cparams_parse("unsigned long, int __user *, size_t", &p);
	CHECK_INT(n, 3);
	CHECK(!p[0].name && !p[1].name && !p[2].name);
	CHECK_INT(cparams_parse("int a, int (b", &p), -1);
}

static const char sched_like[] =
	"#undef TRACE_SYSTEM\n"
	"#define TRACE_SYSTEM demo\n"
	"#if !defined(_TRACE_DEMO_H) || defined(TRACE_HEADER_MULTI_READ)\n"
	"#define _TRACE_DEMO_H\n"
	"/* TRACE_EVENT(in_comment, TP_PROTO(int x), TP_ARGS(x)) */\n"
	"TRACE_EVENT(plain,\n"
	"\tTP_PROTO(struct task_struct *p, int n),\n"
	"\tTP_ARGS(p, n),\n"
	"\tTP_STRUCT__entry(__field(int, n)),\n"
	"\tTP_fast_assign(__entry->n = n;),\n"
	"\tTP_printk(\"n=%d (%s), [x\", __entry->n, \")\")\n"
	");\n"
	"DECLARE_EVENT_CLASS(cls, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"DEFINE_EVENT(cls, from_class, TP_PROTO(int a), TP_ARGS(a));\n"
	"#define DEFINE_WRAP(name) \\\n"
	"\tDEFINE_EVENT(cls, demo_##name, TP_PROTO(int a), TP_ARGS(a))\n"
	"DEFINE_WRAP(one);\n"
	"DEFINE_WRAP(two);\n"
	"#ifdef CONFIG_DEMO_ON\n"
	"#define TRACE_EVENT_DEMO TRACE_EVENT\n"
	"#else\n"
	"#define TRACE_EVENT_DEMO TRACE_EVENT_NOP\n"
	"#endif\n"
	"TRACE_EVENT_DEMO(gated, TP_PROTO(long v), TP_ARGS(v), , , );\n"
	"#if IS_ENABLED(CONFIG_DEMO_MOD)\n"
	"DECLARE_TRACE(modular, TP_PROTO(void *p, unsigned long len), TP_ARGS(p, len));\n"
	"#endif\n"
	"#ifndef CONFIG_DEMO_ON\n"
	"DECLARE_TRACE(without_demo, TP_PROTO(void), TP_ARGS());\n"
	"#endif\n"
	"#define BPF_LIKE(template, call, proto, args) DEFINE_EVENT(template, call, PARAMS(proto), PARAMS(args))\n"
	"BPF_LIKE(cls, nested_params, TP_PROTO(int *err), TP_ARGS(err));\n"
	"#endif\n";

static const struct tp_event *find_event(const struct tp_events *ev, const char *name)
{
	for (int i = 0; i < ev->n; i++)
		if (!strcmp(ev->ev[i].name, name))
			return &ev->ev[i];
	return NULL;
}

static struct kconfig *config_file(const char *text)
{
	char path[] = "/tmp/test_kprobes_configXXXXXX";
	int fd = mkstemp(path);
	struct kconfig *k;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return NULL;
	close(fd);
	k = kconfig_read(path);
	unlink(path);
	return k;
}

TEST(trace_header)
{
	struct tp_events ev = { 0 };
	const struct tp_event *e;

	tphdr_scan(sched_like, "trace/events/demo.h", "file_name",
		   config_file("CONFIG_DEMO_ON=y\nCONFIG_DEMO_MOD=m\n"), &ev);
	e = find_event(&ev, "plain");
	CHECK(e && !strcmp(e->system, "demo") && !strcmp(e->proto, "struct task_struct *p, int n"));
	CHECK(e && e->nparams == 2 && !strcmp(e->header->path, "trace/events/demo.h"));
	CHECK(e && strstr(e->header->forward, "struct task_struct;") != NULL);
	CHECK(find_event(&ev, "from_class") && !find_event(&ev, "cls"));
	CHECK(find_event(&ev, "demo_one") && find_event(&ev, "demo_two"));
	CHECK(find_event(&ev, "gated") != NULL);
	e = find_event(&ev, "modular");
	CHECK(e && !strcmp(e->proto, "void *p, unsigned long len"));
	CHECK(!find_event(&ev, "without_demo"));
	e = find_event(&ev, "nested_params");
	CHECK(e && !strcmp(e->proto, "int *err"));
	CHECK(!find_event(&ev, "in_comment"));
	CHECK_INT(ev.n, 7);
}

TEST(trace_header_config_off)
{
	struct tp_events ev = { 0 };
	const struct tp_event *e;

	tphdr_scan(sched_like, "trace/events/demo.h", "file_name", config_file("CONFIG_OTHER=y\n"),
		   &ev);
	CHECK(!find_event(&ev, "gated") && !find_event(&ev, "modular"));
	e = find_event(&ev, "without_demo");
	CHECK(e && e->nparams == 0);
	/* unknown configuration: both sides of a condition count */
	ev = (struct tp_events){ 0 };
	tphdr_scan(sched_like, "trace/events/demo.h", "file_name", NULL, &ev);
	CHECK(find_event(&ev, "modular") && find_event(&ev, "without_demo"));
}

TEST(trace_header_private)
{
	struct tp_events ev = { 0 };

	tphdr_scan("#define TRACE_SYSTEM br\n#include \"../../../net/bridge/br_private.h\"\n"
		   "TRACE_EVENT(br_x, TP_PROTO(struct net_bridge *br), TP_ARGS(br), , , );\n",
		   "trace/events/bridge.h", "bridge", NULL, &ev);
	CHECK(ev.n == 1 && ev.ev[0].header->private);
}

/* ---- BTF ---- */

struct blob {
	unsigned char types[1024], strs[256];
	size_t ntypes, nstrs;
};

static uint32_t str(struct blob *b, const char *s)
{
	uint32_t off = (uint32_t)b->nstrs;

	memcpy(b->strs + b->nstrs, s, strlen(s) + 1);
	b->nstrs += strlen(s) + 1;
	return off;
}

static void u32s(struct blob *b, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		uint32_t v = va_arg(ap, uint32_t);

		memcpy(b->types + b->ntypes, &v, 4);
		b->ntypes += 4;
	}
	va_end(ap);
}

/* BTF of a header, b's types and b's strings, split on BASE if not NULL. */
static struct btf *blob_btf(const struct blob *b, const struct btf *base)
{
	unsigned char raw[2048];
	uint32_t hdr[6] = { 0x0001eb9f, 24, 0, (uint32_t)b->ntypes, (uint32_t)b->ntypes,
			    (uint32_t)b->nstrs };
	const char *why = NULL;

	memcpy(raw, hdr, sizeof(hdr));
	memcpy(raw + 24, b->types, b->ntypes);
	memcpy(raw + 24 + b->ntypes, b->strs, b->nstrs);
	return btf_parse_split(raw, 24 + b->ntypes + b->nstrs, base, &why);
}

#define INFO(kind, vlen, kflag) (((uint32_t)(kflag) << 31) | ((uint32_t)(kind) << 24) | (vlen))

/*
 * 1 int (signed, 4), 2 struct inner { int x; }, 3 struct outer { long pad;
 * struct inner in; unsigned flags:3; int *p; } via an anonymous union,
 * 4 pointer to outer, 5 long, 6 unsigned int, 7 int*, 8 union { int *p; },
 * 9 proto long (struct outer *o, int n), 10 func "f".
 */
static size_t demo_nstrs;	/* the string section's length, where a split one's starts */

static struct btf *demo_btf(void)
{
	static struct blob b;

	memset(&b, 0, sizeof(b));
	str(&b, "");
	u32s(&b, 4, str(&b, "int"), INFO(1, 0, 0), 4u, (1u << 24) | 32u);
	u32s(&b, 6, str(&b, "inner"), INFO(4, 1, 0), 4u, str(&b, "x"), 1u, 0u);
	u32s(&b, 15, str(&b, "outer"), INFO(4, 4, 1), 32u, str(&b, "pad"), 5u, 0u,
	     str(&b, "in"), 2u, 64u, str(&b, "flags"), 6u, (3u << 24) | 96u, str(&b, ""), 8u, 128u);
	u32s(&b, 3, 0u, INFO(2, 0, 0), 3u);
	u32s(&b, 4, str(&b, "long"), INFO(1, 0, 0), 8u, (1u << 24) | 64u);
	u32s(&b, 4, str(&b, "unsigned int"), INFO(1, 0, 0), 4u, 32u);
	u32s(&b, 3, 0u, INFO(2, 0, 0), 1u);
	u32s(&b, 6, 0u, INFO(5, 1, 0), 8u, str(&b, "p"), 7u, 0u);
	u32s(&b, 7, 0u, INFO(13, 2, 0), 5u, str(&b, "o"), 4u, str(&b, "n"), 1u);
	u32s(&b, 3, str(&b, "f"), INFO(12, 0, 1), 9u);
	demo_nstrs = b.nstrs;
	return blob_btf(&b, NULL);
}

/* A split blob's string: offsets continue after the base's strings. */
static uint32_t sstr(struct blob *b, const char *s)
{
	return (uint32_t)demo_nstrs + str(b, s);
}

/*
 * A module's split BTF on demo_btf(): 11 struct mod { struct outer *o;
 * long n; }, 12 pointer to 11, 13 proto int (struct mod *m, unsigned
 * int k), 14 func "mod_f", 15 struct inner { long y; } (the module's own,
 * which its types and names find before the base's).
 */
static struct btf *demo_split_btf(const struct btf *base)
{
	static struct blob b;

	memset(&b, 0, sizeof(b));
	u32s(&b, 9, sstr(&b, "mod"), INFO(4, 2, 0), 16u, sstr(&b, "o"), 4u, 0u,
	     sstr(&b, "n"), 5u, 64u);
	u32s(&b, 3, 0u, INFO(2, 0, 0), 11u);
	u32s(&b, 7, 0u, INFO(13, 2, 0), 1u, sstr(&b, "m"), 12u, sstr(&b, "k"), 6u);
	u32s(&b, 3, sstr(&b, "mod_f"), INFO(12, 0, 1), 13u);
	u32s(&b, 6, sstr(&b, "inner"), INFO(4, 1, 0), 8u, sstr(&b, "y"), 5u, 0u);
	return blob_btf(&b, base);
}

TEST(btf_functions_and_members)
{
	struct btf *b = demo_btf();
	uint32_t proto, type, mtype, off, bits;
	struct btf_info i;

	CHECK(b != NULL);
	if (!b)
		return;
	proto = btf_func_proto(b, "f");
	CHECK_INT(proto, 9);
	CHECK_INT(btf_func_proto(b, "g"), 0);
	CHECK_INT(btf_proto_nparams(b, proto), 2);
	CHECK_STR(btf_proto_param(b, proto, 0, &type), "o");
	CHECK_STR(btf_type_name(b, type), "struct outer*");
	CHECK_STR(btf_type_name(b, btf_proto_return(b, proto)), "long");
	btf_resolve(b, type, &i);
	CHECK(i.cls == BTF_C_PTR && i.size == 8 && i.target == 3);
	CHECK(btf_member(b, 3, "in", &mtype, &off, &bits) && mtype == 2 && off == 64 && !bits);
	CHECK(btf_member(b, 3, "flags", &mtype, &off, &bits) && off == 96 && bits == 3);
	/* a member of an anonymous union is the outer struct's */
	CHECK(btf_member(b, 3, "p", &mtype, &off, &bits) && off == 128 && mtype == 7);
	CHECK(!btf_member(b, 3, "x", &mtype, &off, &bits));
	btf_resolve(b, 1, &i);
	CHECK(i.cls == BTF_C_INT && i.size == 4 && i.is_signed);
	btf_resolve(b, 6, &i);
	CHECK(i.cls == BTF_C_INT && !i.is_signed);
}

TEST(btf_split)
{
	struct btf *base = demo_btf(), *m = base ? demo_split_btf(base) : NULL;
	uint32_t proto, type, mtype, off, bits;
	struct btf_info i;

	CHECK(m != NULL);
	if (!m)
		return;
	/* the module's functions only, typed by ids of both */
	proto = btf_func_proto(m, "mod_f");
	CHECK_INT(proto, 13);
	CHECK_INT(btf_func_proto(m, "f"), 0);
	CHECK_STR(btf_proto_param(m, proto, 0, &type), "m");
	CHECK_STR(btf_type_name(m, type), "struct mod*");
	CHECK_STR(btf_proto_param(m, proto, 1, &type), "k");
	CHECK_STR(btf_type_name(m, type), "unsigned int");
	CHECK_STR(btf_type_name(m, btf_proto_return(m, proto)), "int");
	/* a module struct's member of a base type, and a walk into the base */
	CHECK(btf_member(m, 11, "n", &mtype, &off, &bits) && mtype == 5 && off == 64);
	CHECK(btf_member(m, 11, "o", &mtype, &off, &bits) && mtype == 4);
	btf_resolve(m, mtype, &i);
	CHECK(i.cls == BTF_C_PTR && i.target == 3);
	CHECK(btf_member(m, i.target, "flags", &mtype, &off, &bits) && off == 96 && bits == 3);
	/* names: the module's own first, then the base's */
	CHECK_INT(btf_find_type(m, "struct mod"), 11);
	CHECK_INT(btf_find_type(m, "struct inner"), 15);
	CHECK_INT(btf_find_type(m, "struct outer"), 3);
	CHECK_INT(btf_find_type(base, "struct mod"), 0);
	CHECK_INT(btf_find_pointer(m, 11), 12);
	CHECK_INT(btf_find_pointer(m, 3), 4);
	/* ids past the split's last are nothing */
	btf_resolve(m, 16, &i);
	CHECK(i.cls == BTF_C_VOID);
}

TEST(btf_damaged)
{
	const char *why = NULL;
	uint32_t hdr[8] = { 0x0001eb9f, 24, 0, 8, 8, 1, 0x0c000000, 0 };

	CHECK(!btf_parse("nope", 4, &why) && why);
	/* a type section that runs past the file */
	hdr[3] = 64;
	why = NULL;
	CHECK(!btf_parse(hdr, sizeof(hdr), &why) && why);
}

/*
 * 1 struct loop { 16 anonymous members, each a struct loop }: a damaged
 * file whose anonymous members nest into themselves. Looking up a member
 * it lacks ends (the search is bounded in all, not only in depth: 16^32
 * otherwise).
 */
TEST(btf_anonymous_loop)
{
	static struct blob b;
	uint32_t mtype, off, bits;
	struct btf *btf;

	memset(&b, 0, sizeof(b));
	str(&b, "");
	u32s(&b, 3, str(&b, "loop"), INFO(4, 16, 0), 8u);
	for (int i = 0; i < 16; i++)
		u32s(&b, 3, 0u, 1u, 0u);
	btf = blob_btf(&b, NULL);
	CHECK(btf != NULL);
	CHECK(btf && !btf_member(btf, 1, "nope", &mtype, &off, &bits));
}

int main(void)
{
	unit_prog = "test_kprobes";
	RUN(kallsyms_lookup);
	RUN(kallsyms_unprobeable);
	RUN(params);
	RUN(params_odd_shapes);
	RUN(trace_header);
	RUN(trace_header_config_off);
	RUN(trace_header_private);
	RUN(btf_functions_and_members);
	RUN(btf_split);
	RUN(btf_damaged);
	RUN(btf_anonymous_loop);
	return unit_done();
}
