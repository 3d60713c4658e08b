/* hl-capture-record.h — what one allocator call records: the stack, the
 * call-site counters, the live table, the counters and the trace event. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  bool     known;    /* OLD was in the live table (and was removed) */
  uint64_t id;
  uint64_t size;
  uint32_t stack_id;
  uint64_t old_usable; /* sampling mode: OLD's malloc_usable_size */
} HlReallocState;

/* ENTRY is the frame of the interposed function (__builtin_frame_address
 * (0) there): the unwind starts from it instead of walking the preload's own
 * frames. */
void hl_record_alloc         (void *p, size_t size, size_t alignment, void *entry);
void hl_record_free          (void *p);
void hl_record_realloc_begin (void *old, HlReallocState *st);
void hl_record_realloc_end   (void *old, void *p, size_t size, HlReallocState *st, void *entry);
