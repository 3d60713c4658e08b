/* hl-trace-release.c — giving back the memory of bytes a reader is done
 * with (hl_trace_reader_release_before). */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */

#include <sys/mman.h>
#include <unistd.h>

#include "private/hl-trace-reader-private.h"

void
hl_trace_reader_release_before (HlTraceReader *r,
                                uint64_t       offset)
{
  const uint8_t *base = r->image != NULL ? r->image : (const uint8_t *) r->mapping;
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE), start, end;

  /* Borrowed memory (open_memory) is the caller's to manage. */
  if (base == NULL || base != r->data || page == 0 || (page & (page - 1)) != 0)
    return;
  if (offset > r->size)
    offset = r->size;
  if (offset <= r->data_start)
    return;
  /* Whole pages strictly after the file header and before OFFSET. */
  start = ((uintptr_t) (base + r->data_start) + page - 1) & ~(page - 1);
  end = (uintptr_t) (base + offset) & ~(page - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}
