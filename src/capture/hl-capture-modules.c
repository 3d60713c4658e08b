/* hl-capture-modules.c — the module map in the trace: every loaded ELF
 * object (path, load range, file offset, GNU build-id) at start, and the
 * changes after every dlopen()/dlclose(), which are interposed.
 *
 * MODULE start/size cover the object's PT_LOAD segments (start = load bias +
 * lowest p_vaddr, page-aligned down); file_offset is that segment's p_offset
 * (page-aligned down). A reader computes the load bias as start minus the
 * p_vaddr of the segment at file_offset in the ELF file.
 *
 * dlopen() is called from the preload, which changes the "caller" glibc uses
 * for the library search (the caller's DT_RPATH/DT_RUNPATH). When the file
 * name has no '/' and the calling object has such an entry, the call is a
 * tail call (the real caller stays the caller) and the new modules are
 * recorded on the next allocation instead of at once. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#define HL_MAX_MODULES 4096

typedef struct
{
  uint64_t start;
  uint64_t size;
  uint32_t seen;
} HlKnownModule;

static HlKnownModule known[HL_MAX_MODULES];
static uint32_t n_known;
static uint32_t scan_round;
static _Atomic int scanning;

typedef struct
{
  HlThreadBlock *b;
  uint64_t       now;
  bool           new_libstdcxx;
} ScanCtx;

static size_t
find_build_id (struct dl_phdr_info *info,
               const uint8_t      **out)
{
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      const uint8_t *p = (const uint8_t *) (info->dlpi_addr + ph->p_vaddr);
      const uint8_t *end = p + ph->p_memsz;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *nh = (const ElfW (Nhdr) *) p;
          size_t name_sz = (nh->n_namesz + 3u) & ~3u;
          size_t desc_sz = (nh->n_descsz + 3u) & ~3u;
          const uint8_t *name = p + sizeof *nh;
          const uint8_t *desc = name + name_sz;
          if (desc + desc_sz > end)
            break;
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp (name, "GNU", 4) == 0)
            {
              *out = desc;
              return nh->n_descsz > HL_TRACE_BUILD_ID_MAX ? HL_TRACE_BUILD_ID_MAX : nh->n_descsz;
            }
          p = desc + desc_sz;
        }
    }
  return 0;
}

static int
scan_cb (struct dl_phdr_info *info,
         size_t               size,
         void                *data)
{
  ScanCtx *ctx = data;
  uint64_t lo = UINT64_MAX, hi = 0, file_off = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD)
        continue;
      uint64_t s = info->dlpi_addr + ph->p_vaddr;
      if (s < lo)
        {
          lo = s;
          file_off = ph->p_offset;
        }
      if (s + ph->p_memsz > hi)
        hi = s + ph->p_memsz;
    }
  if (hi == 0)
    return 0;
  uint64_t page = 4096;
  uint64_t start = lo & ~(page - 1);
  file_off &= ~(page - 1);
  for (uint32_t i = 0; i < n_known; i++)
    if (known[i].start == start)
      {
        known[i].seen = scan_round;
        return 0;
      }
  if (n_known < HL_MAX_MODULES)
    known[n_known++] = (HlKnownModule) { start, hi - start, scan_round };

  const char *path = info->dlpi_name;
  char exe[1024];
  if (path == NULL || path[0] == '\0')
    {
      ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
      exe[n > 0 ? n : 0] = '\0';
      path = exe;
    }
  if (strstr (path, "libstdc++") != NULL)
    ctx->new_libstdcxx = true;
  const uint8_t *bid = NULL;
  size_t bid_len = find_build_id (info, &bid);
  HL_TRACE_EMIT (ctx->b, ctx->now,
                 hl_packet_writer_module (w_, ctx->now, HL_MODULE_FLAG_LOADED, start, hi - start,
                                          file_off, bid, bid_len, path));
  return 0;
}

void
hl_modules_scan (HlThreadBlock *b,
                 uint64_t       now)
{
  if (atomic_exchange (&scanning, 1) != 0)
    return;
  atomic_store (&hl_g.modules_dirty, 0);
  hl_tls.guard++;
  scan_round++;
  ScanCtx ctx = { b, now, false };
  dl_iterate_phdr (scan_cb, &ctx);
  /* attached: modules loaded since get their slots patched */
  if (hl_g.late && hl_active ())
    (void) hl_got_patch_all ();
  for (uint32_t i = 0; i < n_known;)
    {
      if (known[i].seen != scan_round)
        {
          HL_TRACE_EMIT (b, now, hl_packet_writer_module (w_, now, HL_MODULE_FLAG_UNLOADED,
                                                          known[i].start, known[i].size, 0,
                                                          NULL, 0, ""));
          known[i] = known[--n_known];
        }
      else
        i++;
    }
  if (ctx.new_libstdcxx)
    {
      hl_unwind_refresh_new_ranges ();
      (void) dlerror (); /* a variant missing in this libstdc++ set the error */
    }
  /* module events must precede, in the file, the allocations that use them */
  hl_trace_flush (b, now);
  hl_tls.guard--;
  atomic_store (&scanning, 0);
}

void
hl_modules_reset (void)
{
  n_known = 0;
  scan_round = 0;
  atomic_store (&scanning, 0);
}

/* ---- Interposed: dlopen, dlclose --------------------------------------- */

static bool
caller_has_search_path (const void *caller)
{
  Dl_info info;
  struct link_map *lm = NULL;
  if (dladdr1 (caller, &info, (void **) &lm, RTLD_DL_LINKMAP) == 0 || lm == NULL || lm->l_ld == NULL)
    return true; /* unknown: keep the caller */
  for (const ElfW (Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++)
    if (d->d_tag == DT_RPATH || d->d_tag == DT_RUNPATH)
      return true;
  return false;
}

static void
after_module_change (void)
{
  if (!hl_active () || hl_tls.guard > 0)
    {
      atomic_store (&hl_g.modules_dirty, 1);
      return;
    }
  int e = errno;
  HlThreadBlock *b = hl_thread_block ();
  if (b != NULL)
    {
      atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
      hl_modules_scan (b, hl_now ());
      atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
    }
  errno = e;
}

typedef void *(*DlopenFunc) (const char *, int);
typedef int (*DlcloseFunc) (void *);
static DlopenFunc real_dlopen;
static DlcloseFunc real_dlclose;

HL_EXPORT void *
dlopen (const char *file,
        int         mode)
{
  if (real_dlopen == NULL)
    real_dlopen = (DlopenFunc) hl_dlsym_next ("dlopen");
  if (file != NULL && strchr (file, '/') == NULL
      && caller_has_search_path (__builtin_return_address (0)))
    {
      atomic_store (&hl_g.modules_dirty, 1);
      atomic_store (&hl_g.next_sample_ns, 0); /* rescan on the next call */
      return real_dlopen (file, mode);        /* tail call */
    }
  void *h = real_dlopen (file, mode);
  if (h != NULL)
    after_module_change ();
  return h;
}

HL_EXPORT int
dlclose (void *handle)
{
  if (real_dlclose == NULL)
    real_dlclose = (DlcloseFunc) hl_dlsym_next ("dlclose");
  int rc = real_dlclose (handle);
  if (rc == 0)
    {
      hl_cfi_invalidate ();
      after_module_change ();
    }
  return rc;
}
