/* hl-trace-release.c — giving back the memory of bytes a reader is done
 * with (hl_trace_reader_release_before). */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */

#include <sys/mman.h>
#include <unistd.h>

#include "private/hl-trace-reader-private.h"

/* Bytes given back at once, at least: each madvise() flushes the TLB of
 * every core the process runs on (an interrupt to each: costly in a VM),
 * and a costs-only load applies a run every 32 KiB or so (python3's
 * 32 MiB image: 1,007 calls, 9 % of its report's time; 8 calls now). */
#define RELEASE_STEP ((uint64_t) 4 << 20)

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
  if (offset <= r->data_start || offset < r->released_before + RELEASE_STEP)
    return;
  r->released_before = offset;
  /* Whole pages strictly after the file header and before OFFSET. */
  start = ((uintptr_t) (base + r->data_start) + page - 1) & ~(page - 1);
  end = (uintptr_t) (base + offset) & ~(page - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}
