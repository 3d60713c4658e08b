/* hl-capture-hooks.c — the interposed allocator family.
 *
 * Every entry point: real functions resolved on first use (dlsym's own
 * allocations come from the bootstrap buffer), calls from inside the preload
 * (TLS guard) pass straight through, errno is what the real function left,
 * failed calls are not recorded, and a free is recorded before the real free
 * so that an allocation reusing the address in another thread is never seen
 * first.
 *
 * C++ operator new/delete are not interposed: libstdc++ implements them with
 * malloc/free, which we see. The operator new frames are removed from the
 * top of the stack (hl-capture-unwind.c) so the site is the caller of new.
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"
#include "hl-capture-record.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t hl_bootstrap_size (const void *p);

#define HL_ENSURE_REAL(fallback)                 \
  do                                             \
    {                                            \
      if (HL_UNLIKELY (hl_real.free == NULL))    \
        {                                        \
          if (hl_tls.guard > 0)                  \
            return fallback;                     \
          hl_real_resolve ();                    \
        }                                        \
    }                                            \
  while (0)

/* A call of the real allocator: hl_tls.in_real is raised meanwhile, so
 * that the mmaps it makes (another allocator than glibc's calls mmap
 * through the PLT; glibc's own are internal calls we never see) are not
 * counted twice, and mallinfo2 is never called while this thread may hold
 * an arena lock (hl-capture-mmap.c). */
#define HL_REAL(call)               \
  ({                                \
    hl_tls.in_real++;               \
    __typeof__ (call) r_ = (call);  \
    hl_tls.in_real--;               \
    r_;                             \
  })

/* True when this call should be recorded. */
static inline bool
hl_should_record (void)
{
  if (HL_UNLIKELY (hl_tls.guard > 0))
    return false;
  int st = atomic_load_explicit (&hl_g.state, memory_order_acquire);
  if (HL_LIKELY (st == HL_STATE_ACTIVE))
    return true;
  if (st == HL_STATE_NONE)
    {
      hl_capture_ensure_init ();
      return hl_active ();
    }
  return false;
}

HL_EXPORT void *
malloc (size_t size)
{
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, 16));
  void *p = HL_REAL (hl_real.malloc (size));
  if (p != NULL && hl_should_record ())
    {
      int e = errno;
      hl_record_alloc (p, size, 0, __builtin_frame_address (0));
      errno = e;
    }
  return p;
}

HL_EXPORT void *
calloc (size_t nmemb,
        size_t size)
{
  size_t total;
  if (__builtin_mul_overflow (nmemb, size, &total))
    total = SIZE_MAX;
  HL_ENSURE_REAL (total == SIZE_MAX ? NULL : hl_bootstrap_alloc (total, 16));
  void *p = HL_REAL (hl_real.calloc (nmemb, size));
  if (p != NULL && hl_should_record ())
    {
      int e = errno;
      hl_record_alloc (p, total, 0, __builtin_frame_address (0));
      errno = e;
    }
  return p;
}

HL_EXPORT void
free (void *p)
{
  if (p == NULL)
    return;
  if (HL_UNLIKELY (hl_bootstrap_owns (p)))
    return;
  HL_ENSURE_REAL ();
  if (hl_should_record ())
    {
      int e = errno;
      hl_record_free (p);
      errno = e;
    }
  hl_tls.in_real++;
  hl_real.free (p);
  hl_tls.in_real--;
}

void cfree (void *p);

HL_EXPORT void
cfree (void *p)
{
  free (p);
}

HL_EXPORT void *
realloc (void   *old,
         size_t  size)
{
  if (HL_UNLIKELY (old != NULL && hl_bootstrap_owns (old)))
    {
      void *n = malloc (size);
      if (n != NULL)
        {
          size_t old_size = hl_bootstrap_size (old);
          memcpy (n, old, old_size < size ? old_size : size);
        }
      return n;
    }
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, 16));
  if (old == NULL)
    return malloc (size);
  if (!hl_should_record ())
    return HL_REAL (hl_real.realloc (old, size));

  int e = errno;
  HlReallocState st;
  hl_record_realloc_begin (old, &st);
  errno = e;
  void *p = HL_REAL (hl_real.realloc (old, size));
  e = errno;
  hl_record_realloc_end (old, p, size, &st, __builtin_frame_address (0));
  errno = e;
  return p;
}

HL_EXPORT void *
reallocarray (void   *old,
              size_t  nmemb,
              size_t  size)
{
  size_t total;
  if (__builtin_mul_overflow (nmemb, size, &total))
    {
      errno = ENOMEM;
      return NULL;
    }
  return realloc (old, total);
}

static void *
aligned_common (void *p,
                size_t size,
                size_t alignment)
{
  if (p != NULL && hl_should_record ())
    {
      int e = errno;
      hl_record_alloc (p, size, alignment, __builtin_frame_address (0));
      errno = e;
    }
  return p;
}

HL_EXPORT int
posix_memalign (void   **out,
                size_t   alignment,
                size_t   size)
{
  HL_ENSURE_REAL ((*out = hl_bootstrap_alloc (size, alignment)) != NULL ? 0 : ENOMEM);
  int rc = HL_REAL (hl_real.posix_memalign (out, alignment, size));
  if (rc == 0)
    aligned_common (*out, size, alignment);
  return rc;
}

HL_EXPORT void *
aligned_alloc (size_t alignment,
               size_t size)
{
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, alignment));
  return aligned_common (HL_REAL (hl_real.aligned_alloc (alignment, size)), size, alignment);
}

HL_EXPORT void *
memalign (size_t alignment,
          size_t size)
{
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, alignment));
  return aligned_common (HL_REAL (hl_real.memalign (alignment, size)), size, alignment);
}

HL_EXPORT void *
valloc (size_t size)
{
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, 4096));
  return aligned_common (HL_REAL (hl_real.valloc (size)), size, (size_t) sysconf (_SC_PAGESIZE));
}

HL_EXPORT void *
pvalloc (size_t size)
{
  HL_ENSURE_REAL (hl_bootstrap_alloc (size, 4096));
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  void *p = HL_REAL (hl_real.pvalloc (size));
  /* pvalloc rounds the size up to whole pages; that is what the program
   * gets (and what Valgrind counts). */
  size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  return aligned_common (p, rounded, page);
}

HL_EXPORT size_t
malloc_usable_size (void *p)
{
  if (p == NULL)
    return 0;
  if (hl_bootstrap_owns (p))
    return hl_bootstrap_size (p);
  HL_ENSURE_REAL (0);
  return hl_real.malloc_usable_size (p);
}
