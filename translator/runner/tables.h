/* tables.h - the runner's table service for files mapped after translation. */
#ifndef UTAP_TABLES_H
#define UTAP_TABLES_H

#include <stddef.h>

/* An event record from the module; answers "tables SEQ PATH" on fd (/proc/MOD/tables). */
void tables_event(int fd, const char *payload, size_t len);
/* The vDSO's tables, sent once before the session starts. */
void tables_send_vdso(int fd);

#endif
