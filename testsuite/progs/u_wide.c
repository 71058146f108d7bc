/*
 * u_wide - wide strings for the UTF-16/UTF-32 readers: show() gets "aé€😀"
 * in UTF-16 (the emoji as a surrogate pair) and in UTF-32, a UTF-16 string
 * with a lone low surrogate, a UTF-32 one with a value past U+10FFFF, and
 * an address that is not mapped.
 */
#include <uchar.h>

__attribute__((noipa)) int show(const char16_t *s16, const char32_t *s32, const char16_t *bad16,
				const char32_t *bad32, const void *unmapped)
{
	return s16[0] + s32[0] + bad16[0] + bad32[0] + (unmapped != 0);
}

int main(void)
{
	static const char16_t s16[] = u"a\u00e9\u20ac\U0001F600";
	static const char32_t s32[] = U"a\u00e9\u20ac\U0001F600";
	static const char16_t bad16[] = { 'o', 'k', 0xdc00, 0 };
	static const char32_t bad32[] = { 'z', 0x110000, 0 };

	return show(s16, s32, bad16, bad32, (const void *)16) == 0;
}
