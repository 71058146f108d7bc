/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h - the byte layout between the module and the runner.
 *
 * Shared by runtime/ (kernel) and translator/runner/run.c (user space). A read()
 * of the module's data file returns whole records, each a utap_wire header
 * followed by len payload bytes. The ctl file takes commands and reports
 * counters as "name value" lines.
 */
#ifndef UTAP_WIRE_H
#define UTAP_WIRE_H

#define UTAP_WIRE_VERSION 1

enum utap_rec_type {
	UTAP_REC_STDOUT = 1,	/* script output */
	UTAP_REC_STDERR = 2,	/* warnings and errors, already formatted */
	UTAP_REC_STREAM = 3,	/* output for a numbered stream (e.g. one file per thread) */
	UTAP_REC_EVENT = 4,	/* a request for the runner (payload: text) */
	UTAP_REC_TRACE = 5,	/* instruction trace records (runtime/itrace/trace_record.h) */
};

struct utap_wire {
	unsigned int len;	/* payload bytes */
	unsigned short type;	/* enum utap_rec_type */
	unsigned short cpu;
	unsigned int stream;
	unsigned int nprints;	/* print calls in this record */
};

/* ctl commands (written as text) */
#define UTAP_CTL_START "start"
#define UTAP_CTL_STOP "stop"

#endif
