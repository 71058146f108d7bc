/*
 * writers.c - every trace format the runner writes from a whole run (drcov,
 * callgrind, lcov; pprof, of sampled stacks): a file each and a row here. The streaming formats
 * (qtrace, lackey) are the encoders of runtime/formats/ (stream.c's table),
 * which tout.c runs on raw steps as the module does.
 */
#include "runner/trace/tout_int.h"

#include <string.h>

extern const struct tout_writer tout_drcov;
extern const struct tout_writer tout_callgrind;
extern const struct tout_writer tout_lcov;
extern const struct tout_writer tout_pprof;

static const struct tout_writer *const writers[] = {
	&tout_drcov,
	&tout_callgrind,
	&tout_lcov,
	&tout_pprof,
};

const char *tout_writer_name(unsigned int i)
{
	return i < ARRAY_LEN(writers) ? writers[i]->name : NULL;
}

const struct tout_writer *tout_writer(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(writers); i++)
		if (strlen(writers[i]->name) == len && !memcmp(writers[i]->name, name, len))
			return writers[i];
	return NULL;
}

bool tout_format_known(const char *name, size_t len)
{
	return utap_fmt_codec(name, len) || tout_writer(name, len);
}

const char *tout_formats(void)
{
	static char list[256];
	const struct utap_fmt_codec *c;
	const char *w;
	size_t n = 0;

	if (list[0])
		return list;
	for (unsigned int i = 0; (c = utap_fmt_codec_nth(i)); i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", c->name);
	for (unsigned int i = 0; (w = tout_writer_name(i)); i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", w);
	return list;
}
