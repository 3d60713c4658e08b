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
} HlReallocState;

void hl_record_alloc         (void *p, size_t size, size_t alignment);
void hl_record_free          (void *p);
void hl_record_realloc_begin (void *old, HlReallocState *st);
void hl_record_realloc_end   (void *old, void *p, size_t size, HlReallocState *st);
