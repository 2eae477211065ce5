/*
 * inject.h - internals shared by the files of liblatscope-cupti.so (not installed, no ABI).
 */
#ifndef LAT_PRELOAD_INJECT_H
#define LAT_PRELOAD_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capfile.h"

#define LAT_EXPORT __attribute__((visibility("default")))

/* Reads the LATSCOPE_* environment once; true when a trace directory is set. */
int inj_configure(void);
/* Interns s[0..n) (copied) and returns its id, emitting its LCAP_STR record on first use. */
uint32_t inj_intern(const char *s, size_t n);
/* Appends one record to this process's file (opened on first use). Never blocks on I/O for
 * long, never fails loudly: a record that cannot be stored is counted as lost. */
void inj_emit(uint16_t type, const void *p, size_t n);
/* Emits an LCAP_STATUS record with a message. */
void inj_status(int code, int cupti_rc, const char *msg);
/* The calling thread's kernel TID (cached per thread). */
uint32_t inj_tid(void);
/* CLOCK_MONOTONIC ns. */
int64_t inj_now_ns(void);
/* True while NVTX events should be kept (capture window, --nvtx). */
int inj_nvtx_enabled(void);
/* Records one NVTX event now on this thread; msg (copied and interned) or msg_id names it. */
void inj_nvtx_record(uint32_t op, uint32_t domain, const char *msg, uint32_t msg_id,
                     uint64_t range_id);
/* True when NVTX capture was asked for (LATSCOPE_NVTX). */
int inj_nvtx_wanted(void);

#endif
