/* hl-capture-init.c — bootstrap (real functions, static buffer for dlsym's
 * own allocations), start-up of the session and the end of the process. */
#define _GNU_SOURCE
#include "hl-capture-private.h"
#include "hl-capture-sample.h"

#include <sys/resource.h>

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

HlRealAlloc hl_real;
HlGlobal hl_g = { .trace_fd = -1, .live_dir = hl_live_dir_none, .clock_word = hl_clock_none };
__thread HlTls hl_tls __attribute__ ((tls_model ("initial-exec")));

/* ---- Bootstrap buffer --------------------------------------------------- *
 * dlsym() may allocate (dlerror state) before the real functions are known.
 * Those requests are served from this buffer; free() recognises its
 * pointers and ignores them, realloc() copies them out. It never runs out in
 * practice (dlsym asks for well under 1 KiB); if it does, we say so and
 * abort rather than return NULL into the loader. */

#define HL_BOOTSTRAP_SIZE (64u * 1024u)
static uint8_t bootstrap_buf[HL_BOOTSTRAP_SIZE] __attribute__ ((aligned (64)));
static _Atomic size_t bootstrap_used;

bool
hl_bootstrap_owns (const void *p)
{
  const uint8_t *q = p;
  return q >= bootstrap_buf && q < bootstrap_buf + HL_BOOTSTRAP_SIZE;
}

void *
hl_bootstrap_alloc (size_t size,
                    size_t align)
{
  if (align < 16)
    align = 16;
  size_t used = atomic_load (&bootstrap_used);
  for (;;)
    {
      size_t start = (used + align - 1) & ~(align - 1);
      if (start + size + 16 > HL_BOOTSTRAP_SIZE || start + size < start)
        {
          static const char msg[] = "heaplens: bootstrap buffer exhausted\n";
          (void) hl_sys_write_all (2, msg, sizeof msg - 1);
          abort ();
        }
      /* 16 bytes before each block remember its size, for realloc */
      size_t hdr = start + 16;
      hdr = (hdr + align - 1) & ~(align - 1);
      if (atomic_compare_exchange_weak (&bootstrap_used, &used, hdr + size))
        {
          memcpy (bootstrap_buf + hdr - sizeof (size_t), &size, sizeof size);
          memset (bootstrap_buf + hdr, 0, size);
          return bootstrap_buf + hdr;
        }
    }
}

size_t hl_bootstrap_size (const void *p);

size_t
hl_bootstrap_size (const void *p)
{
  size_t size;
  memcpy (&size, (const uint8_t *) p - sizeof (size_t), sizeof size);
  return size;
}

/* Loaded late, the function the program is bound to: the global scope's
 * definition. In a non-PIE program that takes the function's address,
 * dlsym (RTLD_DEFAULT) gives the program's canonical PLT entry instead,
 * which jumps through a GOT slot we would patch: NULL then. */
static void *
late_dlsym (const char *name)
{
  void *f = dlsym (RTLD_DEFAULT, name);
  Dl_info di;
  const ElfW (Sym) *sym = NULL;
  /* a defined symbol starts there (its name may be an alias:
   * __libc_malloc); a canonical PLT entry is an undefined one */
  if (f != NULL && dladdr1 (f, &di, (void **) &sym, RTLD_DL_SYMENT) != 0 && di.dli_saddr == f && sym != NULL
      && sym->st_shndx != SHN_UNDEF)
    return f;
  return NULL;
}

bool
hl_real_resolvable_late (void)
{
  static const char *const names[] = { "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc",
                                       "memalign", "valloc", "pvalloc", "malloc_usable_size", "free" };
  bool ok = true;
  hl_tls.guard++;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && ok; i++)
    ok = late_dlsym (names[i]) != NULL;
  hl_tls.guard--;
  return ok;
}

void *
hl_dlsym_next (const char *name)
{
  return hl_g.late ? late_dlsym (name) : dlsym (RTLD_NEXT, name);
}

static void *
must_dlsym (const char *name)
{
  void *f = hl_dlsym_next (name);
  if (f == NULL)
    {
      hl_sys_warn ("cannot find the real ", name, "");
      abort ();
    }
  return f;
}

void
hl_real_resolve (void)
{
  static _Atomic int resolving;
  if (atomic_exchange (&resolving, 1) != 0)
    {
      /* Another thread resolves: wait for it (it holds no lock of ours). */
      while (atomic_load_explicit ((_Atomic (void *) *) &hl_real.free, memory_order_acquire) == NULL)
        sched_yield ();
      return;
    }
  hl_tls.guard++;
  HlRealAlloc r;
  r.malloc = must_dlsym ("malloc");
  r.calloc = must_dlsym ("calloc");
  r.realloc = must_dlsym ("realloc");
  r.posix_memalign = must_dlsym ("posix_memalign");
  r.aligned_alloc = must_dlsym ("aligned_alloc");
  r.memalign = must_dlsym ("memalign");
  r.valloc = must_dlsym ("valloc");
  r.pvalloc = must_dlsym ("pvalloc");
  r.malloc_usable_size = must_dlsym ("malloc_usable_size");
  r.free = must_dlsym ("free");
  hl_real.malloc = r.malloc;
  hl_real.calloc = r.calloc;
  hl_real.realloc = r.realloc;
  hl_real.posix_memalign = r.posix_memalign;
  hl_real.aligned_alloc = r.aligned_alloc;
  hl_real.memalign = r.memalign;
  hl_real.valloc = r.valloc;
  hl_real.pvalloc = r.pvalloc;
  hl_real.malloc_usable_size = r.malloc_usable_size;
  atomic_store_explicit ((_Atomic (void *) *) &hl_real.free, (void *) r.free, memory_order_release);
  hl_tls.guard--;
}

bool
hl_real_in_libc (void *f)
{
  Dl_info info;
  if (f == NULL || dladdr (f, &info) == 0 || info.dli_fname == NULL)
    return false;
  const char *slash = strrchr (info.dli_fname, '/');
  const char *base = slash != NULL ? slash + 1 : info.dli_fname;
  return strncmp (base, "libc.so.", 8) == 0;
}

/* ---- Own text range ------------------------------------------------------ */

static int
find_self_cb (struct dl_phdr_info *info,
              size_t               size,
              void                *data)
{
  uintptr_t probe = (uintptr_t) data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD)
        continue;
      uintptr_t s = info->dlpi_addr + ph->p_vaddr;
      if (s < lo)
        lo = s;
      if (s + ph->p_memsz > hi)
        hi = s + ph->p_memsz;
    }
  if (probe >= lo && probe < hi)
    {
      hl_g.self_lo = lo;
      hl_g.self_hi = hi;
      return 1;
    }
  return 0;
}

/* ---- Exit ------------------------------------------------------------------ */

/* exit() runs on_exit handlers in reverse order of registration. We
 * register during start-up, usually before libc registers the loader's
 * destructor pass, so this runs last of all, after every destructor: the
 * END event then follows everything. If it ran earlier, later events are
 * still written (one packet each). */
static void
on_exit_cb (int   status,
            void *arg)
{
  hl_g.exit_status = status;
  atomic_store (&hl_g.exit_status_known, 1);
  if (hl_active ())
    {
      atomic_store (&hl_g.clean_exit, 1);
      hl_capture_finish (status, true, false, true);
    }
}

/* Destructors: write what is buffered, in case exit handlers never run. */
__attribute__ ((destructor (101))) static void
hl_capture_destructor (void)
{
  if (!hl_active () || atomic_load (&hl_g.ended))
    return;
  hl_tls.guard++;
  hl_flush_all_for_exit ();
  hl_tls.guard--;
}

/* ---- Start --------------------------------------------------------------- */

extern char **environ;

void
hl_capture_ensure_init (void)
{
  if (atomic_load (&hl_g.state) != HL_STATE_NONE || hl_tls.guard > 0)
    return;
  /* loaded into a running process: only heaplens__attach starts */
  if (hl_g.late && !hl_g.attaching)
    return;
  /* Before libc has set up the environment our configuration is unknown:
   * pass through until then. */
  if (environ == NULL)
    return;
  hl_capture_init ();
}

/* The tables' room. Under a finite address-space limit (RLIMIT_AS,
 * `ulimit -v`) their reservations (about 1.5 GiB with the defaults: the
 * session's 650 MiB, the thread blocks' 900 MiB; touched only as used)
 * would count against the program's limit. Under a finite file-size
 * limit (RLIMIT_FSIZE, `ulimit -f`) the session's segment, a file, must
 * not be larger (sizing it past the limit sends the program SIGXFSZ).
 * And /dev/shm may be small (a container's is 64 MiB by default): a page
 * of the segment touched past its free space is SIGBUS in the program.
 * The tables are shrunk until the reservations take an eighth of the
 * address space at most, and the segment fits the file size and half of
 * /dev/shm's free space (what a second recorded program leaves to a
 * third, and so on), halving the largest part each time (the live table,
 * the thread blocks, the stacks) down to a floor; one line says so. */
#define HL_FIT_MIN_LIVE    (UINT64_C (1) << 14)
#define HL_FIT_MIN_STACKS  (UINT64_C (1) << 12)
#define HL_FIT_MIN_THREADS 64u

static uint64_t
soft_limit (int resource)
{
  struct rlimit rl;
  if (getrlimit (resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  return (uint64_t) rl.rlim_cur;
}

/* "the address space is limited (ulimit -v)" and the others that hold,
 * joined, into OUT. */
static void
limits_text (char *out, size_t cap, bool as, bool fsize, bool shm, uint64_t shm_free)
{
  size_t n = 0;
  out[0] = '\0';
  char small[64], num[24];
  hl_fmt_u64 (num, shm_free >> 20);
  size_t k0 = hl_strlcpy (small, "/dev/shm is small (", sizeof small);
  k0 += hl_strlcpy (small + k0, num, sizeof small - k0);
  hl_strlcpy (small + k0, " MiB free)", sizeof small - k0);
  const char *parts[3] = { as ? "the address space is limited (ulimit -v)" : NULL,
                           fsize ? "the file size is limited (ulimit -f)" : NULL,
                           shm ? small : NULL };
  for (int k = 0; k < 3; k++)
    if (parts[k] != NULL)
      {
        if (n > 0)
          n += hl_strlcpy (out + n, " and ", cap - n);
        n += hl_strlcpy (out + n, parts[k], cap - n);
      }
}

static bool
fit_limits (void)
{
  uint64_t as = soft_limit (RLIMIT_AS), fsize = soft_limit (RLIMIT_FSIZE);
  uint64_t shm = hl_session_shm_free ();
  uint64_t shm_room = shm == UINT64_MAX ? UINT64_MAX : shm / 2;
  HlConfig *cfg = &hl_g.cfg;
  uint64_t budget = as == UINT64_MAX ? UINT64_MAX : as / 8;
  bool shrunk = false, by_as = false, by_fsize = false, by_shm = false;
  for (;;)
    {
      uint64_t live = hl_live_region_size (cfg->live_slots);
      uint64_t blocks = (uint64_t) hl_g.max_threads * HL_BLOCK_STRIDE;
      uint64_t session = hl_session_size (cfg);
      /* the session's packet slots, one a thread block */
      uint64_t slots = (uint64_t) hl_g.max_threads * sizeof (HlShmPacketSlot);
      bool over_as = session + blocks > budget, over_fsize = session > fsize, over_shm = session > shm_room;
      if (!over_as && !over_fsize && !over_shm)
        break;
      by_as |= over_as;
      by_fsize |= over_fsize;
      by_shm |= over_shm;
      uint64_t stacks = session - live - slots;
      /* the file size, /dev/shm: only the session's parts */
      blocks = over_as ? blocks + slots : slots;
      if (live >= blocks && live >= stacks && cfg->live_slots > HL_FIT_MIN_LIVE)
        cfg->live_slots /= 2;
      else if (blocks >= stacks && hl_g.max_threads > HL_FIT_MIN_THREADS)
        hl_g.max_threads /= 2;
      else if (cfg->max_stacks > HL_FIT_MIN_STACKS)
        cfg->max_stacks /= 2;
      else if (cfg->live_slots > HL_FIT_MIN_LIVE)
        cfg->live_slots /= 2;
      else if (hl_g.max_threads > HL_FIT_MIN_THREADS)
        hl_g.max_threads /= 2;
      else
        {
          char why[160];
          limits_text (why, sizeof why, over_as, over_fsize, over_shm, shm);
          hl_sys_warn (why, ": no room for the smallest tables; not recording", NULL);
          return false;
        }
      shrunk = true;
    }
  if (!shrunk)
    return true;
  char why[160], what[160], num[24];
  limits_text (why, sizeof why, by_as, by_fsize, by_shm, shm);
  size_t n = hl_strlcpy (what, "; tables shrunk to ", sizeof what);
  hl_fmt_u64 (num, cfg->max_stacks);
  n += hl_strlcpy (what + n, num, sizeof what - n);
  n += hl_strlcpy (what + n, " stacks, ", sizeof what - n);
  hl_fmt_u64 (num, cfg->live_slots);
  n += hl_strlcpy (what + n, num, sizeof what - n);
  n += hl_strlcpy (what + n, " live blocks, ", sizeof what - n);
  hl_fmt_u64 (num, hl_g.max_threads);
  n += hl_strlcpy (what + n, num, sizeof what - n);
  hl_strlcpy (what + n, " threads", sizeof what - n);
  hl_sys_warn (why, what, NULL);
  return true;
}

void
hl_capture_init (void)
{
  int expected = HL_STATE_NONE;
  if (!atomic_compare_exchange_strong (&hl_g.state, &expected, HL_STATE_INIT))
    return;
  int saved_errno = errno;
  hl_tls.guard++;
  if (hl_real.free == NULL)
    hl_real_resolve ();

  hl_allocator_init ();
  hl_config_load (&hl_g.cfg);
  if (hl_g.cfg.sample_bytes != 0)
    hl_sample_init ();
  hl_live_init ();
  hl_exec_unfollow_environ ();
  hl_g.pid = (uint32_t) getpid ();
  hl_g.ppid = (uint32_t) getppid ();
  hl_g.start_mono_ns = hl_clock_start ();
  hl_g.start_wall_ns = hl_sys_wall_ns ();
  atomic_store (&hl_g.next_id_block, 1);
  atomic_store (&hl_g.next_sample_ns, 0);

  dl_iterate_phdr (find_self_cb, (void *) (uintptr_t) &hl_capture_init);

  bool fits = true;
  if (hl_g.blocks == NULL)
    {
      hl_g.max_threads = HL_MAX_THREADS;
      fits = fit_limits ();
      if (fits)
        hl_g.blocks = hl_sys_map_anon ((size_t) hl_g.max_threads * HL_BLOCK_STRIDE);
    }
  if (!fits || hl_g.blocks == NULL || hl_session_create () != 0)
    {
      if (fits)
        hl_sys_warn ("cannot create the shared-memory session; not recording", NULL, NULL);
      atomic_store (&hl_g.state, HL_STATE_DISABLED);
      hl_tls.guard--;
      errno = saved_errno;
      return;
    }
  hl_unwind_init ();
  hl_thread_init_key ();
  hl_process_atfork ();
  /* attached: the program's signal dispositions are left alone (a crash
   * while attached loses the packets not yet written) */
  if (!hl_g.late)
    hl_process_install_signals ();
  static bool on_exit_done;
  if (!on_exit_done)
    on_exit (on_exit_cb, NULL);
  on_exit_done = true;
  if (hl_g.cfg.trace && hl_trace_open () != 0)
    hl_sys_warn ("cannot write the trace ", hl_g.trace_path, "; recording to shared memory only");
  hl_session_running ();

  atomic_store (&hl_g.state, HL_STATE_ACTIVE);
  HlThreadBlock *b = hl_thread_block ();
  if (b != NULL)
    {
      uint64_t now = hl_now ();
      hl_modules_scan (b, now);
      hl_counters_tick (b, now, true);
      hl_trace_flush (b, now);
    }
  hl_tls.guard--;
  errno = saved_errno;
}

__attribute__ ((constructor (101))) static void
hl_capture_constructor (void)
{
  if (hl_attach_detect_late ())
    {
      hl_g.late = true;
      /* a non-PIE program that takes malloc's address: heaplens__attach
       * says so, nothing is resolved (must_dlsym would abort) */
      hl_g.late_unbindable = !hl_real_resolvable_late ();
      if (hl_real.free == NULL && !hl_g.late_unbindable)
        hl_real_resolve ();
      dl_iterate_phdr (find_self_cb, (void *) (uintptr_t) &hl_capture_init);
      return;
    }
  if (hl_real.free == NULL)
    hl_real_resolve ();
  hl_capture_ensure_init ();
}
