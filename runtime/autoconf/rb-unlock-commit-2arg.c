/* ring_buffer_unlock_commit() took the event as a second argument before 6.3. */
#include <linux/ring_buffer.h>

int utap_feature(struct trace_buffer *b, struct ring_buffer_event *e);
int utap_feature(struct trace_buffer *b, struct ring_buffer_event *e)
{
	return ring_buffer_unlock_commit(b, e);
}
