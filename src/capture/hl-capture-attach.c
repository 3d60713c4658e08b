/* hl-capture-attach.c — the preload loaded into a running process by
 * `heaplens-cli attach` (a remote dlopen, src/cli/hl-inject.c), and its
 * detach.
 *
 * Late load: the program's modules are bound to the C library's malloc,
 * not to ours (dlsym (RTLD_DEFAULT, "malloc") is not our malloc). The
 * constructor then only resolves the real functions (the ones the program
 * is bound to, found with RTLD_DEFAULT) and nothing starts until the
 * attach calls heaplens__attach (a second remote call, on the same
 * stopped thread). It reads its configuration from the file the attach
 * wrote, /dev/shm/heaplens-attach-<uid>-<pid> (0600, owned by our uid,
 * opened O_NOFOLLOW, checked, then unlinked: the process has none of
 * record's environment), starts as at start-up (session segment, trace,
 * module map), writes the heap at the attach in an INFO packet, names
 * the threads from /proc/self/task/TID/comm and redirects the allocator
 * by GOT patching (hl-capture-got.c).
 *
 * Detach: a flag in the session header (HL_SHM_CONTROL_DETACH), polled
 * at the counters' tick; the slots are put back, the recording ends as at
 * exit (END, session ENDED) and every hook passes through from then on
 * (HL_STATE_DETACHED). A second attach starts a new session and trace
 * (the library stays loaded: heaplens__attach again). */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* heaplens__attach's answers (hl-attach.c says each in words) */
enum
{
  HL_ATTACH_OK = 0,
  HL_ATTACH_PRELOADED = 1,  /* the program runs under the preload already */
  HL_ATTACH_RUNNING = 2,    /* an attach records already */
  HL_ATTACH_CONFIG = 3,     /* no configuration file, or an unsafe one */
  HL_ATTACH_NO_SESSION = 4, /* the session could not be created (a line on stderr says why) */
  HL_ATTACH_NOT_OURS = 5,   /* our functions' addresses are not ours (linked without -Bsymbolic-functions) */
  HL_ATTACH_UNBINDABLE = 6, /* a non-PIE program that takes malloc's address (canonical PLT entries) */
};

HL_EXPORT int heaplens__attach (void);
/* The GOT slots patched now: the application's attach calls it after
 * heaplens__attach to show how many (a remote call, still stopped). */
HL_EXPORT unsigned heaplens__attach_slots (void);

/* ---- The configuration ------------------------------------------------- */

#define HL_ATTACH_CONF_MAX 8192u

static char   conf[HL_ATTACH_CONF_MAX];
static size_t conf_len;

const char *
hl_env_get (const char *name)
{
  if (!hl_g.late)
    return getenv (name);
  size_t n = strlen (name);
  for (size_t i = 0; i < conf_len;)
    {
      const char *line = conf + i;
      size_t len = strlen (line);
      if (len > n && strncmp (line, name, n) == 0 && line[n] == '=')
        return line + n + 1;
      i += len + 1;
    }
  return NULL;
}

static void
conf_path (char *out, size_t cap)
{
  char num[24];
  size_t n = hl_strlcpy (out, "/dev/shm/heaplens-attach-", cap);
  hl_fmt_u64 (num, (uint64_t) geteuid ());
  n += hl_strlcpy (out + n, num, cap - n);
  n += hl_strlcpy (out + n, "-", cap - n);
  hl_fmt_u64 (num, (uint64_t) getpid ());
  hl_strlcpy (out + n, num, cap - n);
}

/* Reads KEY=VALUE lines; false when the file is missing or not safe: not
 * a regular file of our uid with mode 0600 or stricter, or too large. */
static bool
read_conf (void)
{
  char path[96];
  conf_path (path, sizeof path);
  conf_len = 0;
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
            && (st.st_mode & 077) == 0 && st.st_size >= 0 && (uint64_t) st.st_size < HL_ATTACH_CONF_MAX;
  size_t got = 0;
  while (ok && got < (size_t) st.st_size)
    {
      ssize_t r = read (fd, conf + got, (size_t) st.st_size - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t) r;
    }
  close (fd);
  (void) unlink (path);
  if (!ok)
    return false;
  conf[got] = '\0';
  for (size_t i = 0; i < got; i++)
    if (conf[i] == '\n')
      conf[i] = '\0';
  conf_len = got;
  return true;
}

/* ---- Late load ---------------------------------------------------------- */

/* The modules in load order: a preload (LD_PRELOAD, /etc/ld.so.preload)
 * is loaded before the C library, a dlopen into a running process after
 * it. (dlsym (RTLD_DEFAULT, "malloc") cannot tell: in a non-PIE program
 * that takes malloc's address it is the program's PLT entry, not ours,
 * even under LD_PRELOAD.) */
typedef struct
{
  uintptr_t self;
  bool      seen_libc;
  bool      late;
} LateCtx;

static int
late_cb (struct dl_phdr_info *info,
         size_t               size,
         void                *data)
{
  LateCtx *c = data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && c->self >= lo && c->self - lo < ph->p_memsz)
        {
          c->late = c->seen_libc;
          return 1;
        }
    }
  const char *name = info->dlpi_name != NULL ? strrchr (info->dlpi_name, '/') : NULL;
  name = name != NULL ? name + 1 : info->dlpi_name;
  if (name != NULL && strncmp (name, "libc.so", 7) == 0)
    c->seen_libc = true;
  return 0;
}

bool
hl_attach_detect_late (void)
{
  LateCtx c = { (uintptr_t) &hl_attach_detect_late, false, false };
  hl_tls.guard++;
  dl_iterate_phdr (late_cb, &c);
  hl_tls.guard--;
  return c.late;
}

/* ---- INFO packets ------------------------------------------------------- */

static HlPacketWriter info_writer;
static uint8_t info_packet[2048];
static atomic_flag info_busy = ATOMIC_FLAG_INIT;

static void
write_info (const char *const *keys, const char *const *values, size_t n)
{
  if (atomic_flag_test_and_set (&info_busy))
    return;
  int fd = hl_trace_fd_checked ();
  if (fd >= 0)
    {
      uint64_t now = hl_now ();
      hl_packet_writer_init (&info_writer, info_packet, sizeof info_packet, hl_g.pid, hl_sys_gettid ());
      size_t len = hl_packet_writer_info (&info_writer, now, keys, values, n);
      if (len > 0)
        (void) hl_trace_write (fd, info_packet, len);
    }
  atomic_flag_clear (&info_busy);
}

void
hl_attach_count_unknown (uint64_t usable_bytes)
{
  __atomic_add_fetch (&hl_g.attach_unknown_frees_atomic, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&hl_g.attach_unknown_bytes_atomic, usable_bytes, __ATOMIC_RELAXED);
}

/* The frees of blocks allocated before the attach, at the end. */
void
hl_attach_end_info (void)
{
  char n[24], bytes[24];
  hl_fmt_u64 (n, __atomic_load_n (&hl_g.attach_unknown_frees_atomic, __ATOMIC_RELAXED));
  hl_fmt_u64 (bytes, __atomic_load_n (&hl_g.attach_unknown_bytes_atomic, __ATOMIC_RELAXED));
  const char *keys[] = { "attach_frees_before", "attach_frees_before_bytes" };
  const char *values[] = { n, bytes };
  write_info (keys, values, 2);
}

/* The heap at the attach: the allocator's bytes in use (mallinfo2) and
 * the RSS, with the threads and slots found. */
static void
start_info (uint32_t threads, uint32_t slots_patched)
{
  uint64_t in_use = 0;
  struct mallinfo2 (*mi) (void) = (struct mallinfo2 (*) (void)) dlsym (RTLD_DEFAULT, "mallinfo2");
  if (mi != NULL)
    in_use = (uint64_t) mi ().uordblks;
  char heap[24], rss[24], nt[24], ns[24], nm[24];
  hl_fmt_u64 (heap, in_use);
  hl_fmt_u64 (rss, hl_sys_rss_bytes ());
  hl_fmt_u64 (nt, threads);
  hl_fmt_u64 (ns, slots_patched);
  hl_fmt_u64 (nm, hl_got_modules_patched ());
  const char *keys[] = { "attached", "attach_heap_bytes", "attach_rss_bytes", "attach_threads",
                         "attach_got_slots", "attach_got_modules" };
  const char *values[] = { "1", heap, rss, nt, ns, nm };
  write_info (keys, values, sizeof keys / sizeof keys[0]);
}

/* ---- Threads there before the attach ----------------------------------- */

struct hl_dirent64
{
  uint64_t       d_ino;
  int64_t        d_off;
  unsigned short d_reclen;
  unsigned char  d_type;
  char           d_name[];
};

/* A THREAD name event for every task of the process, from its comm. */
static uint32_t
name_threads (HlThreadBlock *b)
{
  int fd = open ("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  uint32_t n = 0;
  static uint8_t buf[8192] __attribute__ ((aligned (8)));
  for (;;)
    {
      long got = syscall (SYS_getdents64, fd, buf, sizeof buf);
      if (got <= 0)
        break;
      for (long off = 0; off + (long) sizeof (struct hl_dirent64) <= got;)
        {
          struct hl_dirent64 *d = (struct hl_dirent64 *) (void *) (buf + off);
          if (d->d_reclen == 0 || off + d->d_reclen > got)
            break;
          off += d->d_reclen;
          uint64_t tid = 0;
          const char *p = d->d_name;
          for (; *p >= '0' && *p <= '9' && tid < UINT32_MAX; p++)
            tid = tid * 10 + (uint64_t) (*p - '0');
          if (*p != '\0' || tid == 0 || tid >= UINT32_MAX)
            continue;
          char path[64], name[32];
          size_t k = hl_strlcpy (path, "/proc/self/task/", sizeof path);
          k += hl_fmt_u64 (path + k, tid);
          hl_strlcpy (path + k, "/comm", sizeof path - k);
          size_t len = hl_sys_read_file (path, name, 17);
          name[len] = '\0';
          if (len > 0 && name[len - 1] == '\n')
            name[len - 1] = '\0';
          uint64_t now = hl_now ();
          hl_resources_thread_name ((uint32_t) tid, name);
          HL_TRACE_EMIT (b, now, hl_packet_writer_thread (w_, now, (uint32_t) tid, HL_THREAD_FLAG_NAME, name));
          n++;
        }
    }
  close (fd);
  return n;
}

/* ---- The functions redirected ------------------------------------------ */

void cfree (void *p);

static void
set_got_targets (void)
{
  static const char *const names[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "cfree", "posix_memalign", "aligned_alloc",
    "memalign", "valloc", "pvalloc", "malloc_usable_size",
    "dlopen", "dlclose", "_exit", "_Exit", "pthread_setname_np", "prctl",
    "execve", "execv", "execvp", "execvpe", "execl", "execle", "execlp", "fexecve", "execveat",
    "posix_spawn", "posix_spawnp", "mmap", "mmap64", "munmap", "mremap",
  };
  void *const ours[] = {
    (void *) malloc, (void *) calloc, (void *) realloc, (void *) reallocarray, (void *) free, (void *) cfree,
    (void *) posix_memalign, (void *) aligned_alloc, (void *) memalign, (void *) valloc, (void *) pvalloc,
    (void *) malloc_usable_size,
    (void *) dlopen, (void *) dlclose, (void *) _exit, (void *) _Exit, (void *) pthread_setname_np, (void *) prctl,
    (void *) execve, (void *) execv, (void *) execvp, (void *) execvpe, (void *) execl, (void *) execle,
    (void *) execlp, (void *) fexecve, (void *) execveat, (void *) posix_spawn, (void *) posix_spawnp,
    (void *) hl_hook_mmap, (void *) hl_hook_mmap64, (void *) munmap, (void *) mremap,
  };
  _Static_assert (sizeof names / sizeof names[0] == sizeof ours / sizeof ours[0], "one function a name");
  _Static_assert (sizeof names / sizeof names[0] <= HL_GOT_MAX_TARGETS, "room for the targets");
  hl_got_set_targets (names, ours, sizeof names / sizeof names[0]);
}

static bool
ours (const void *f)
{
  return (uintptr_t) f >= hl_g.self_lo && (uintptr_t) f < hl_g.self_hi;
}

/* ---- Attach, detach ---------------------------------------------------- */

HL_EXPORT int
heaplens__attach (void)
{
  if (!hl_g.late)
    return HL_ATTACH_PRELOADED;
  if (hl_g.late_unbindable)
    return HL_ATTACH_UNBINDABLE;
  int st = atomic_load (&hl_g.state);
  if (st == HL_STATE_ACTIVE || st == HL_STATE_INIT)
    return HL_ATTACH_RUNNING;
  int saved_errno = errno;
  if (!read_conf ())
    {
      errno = saved_errno;
      return HL_ATTACH_CONFIG;
    }
  if (st != HL_STATE_NONE)
    {
      /* a second attach: the last one's session and trace are ended */
      hl_trace_forget ();
      hl_session_detach ();
      hl_sys_rss_reset ();
      hl_modules_reset ();
      hl_thread_new_epoch ();
      atomic_store (&hl_g.ended, 0);
      atomic_store (&hl_g.exit_status_known, 0);
      __atomic_store_n (&hl_g.attach_unknown_frees_atomic, 0, __ATOMIC_RELAXED);
      __atomic_store_n (&hl_g.attach_unknown_bytes_atomic, 0, __ATOMIC_RELAXED);
      atomic_store (&hl_g.state, HL_STATE_NONE);
    }
  hl_g.attaching = true;
  hl_capture_init ();
  hl_g.attaching = false;
  if (!hl_active ())
    {
      errno = saved_errno;
      return HL_ATTACH_NO_SESSION;
    }
  hl_tls.guard++;
  if (!ours ((const void *) malloc) || !ours ((const void *) free))
    {
      hl_sys_warn ("the preload's own functions resolve elsewhere: not attaching", NULL, NULL);
      hl_tls.guard--;
      hl_capture_finish (-1, false, false, false);
      atomic_store (&hl_g.state, HL_STATE_DETACHED);
      errno = saved_errno;
      return HL_ATTACH_NOT_OURS;
    }
  __atomic_fetch_or (&hl_g.hdr->flags, (uint32_t) HL_SHM_FLAG_ATTACHED, __ATOMIC_RELEASE);
  HlThreadBlock *b = hl_thread_block ();
  uint32_t threads = b != NULL ? name_threads (b) : 0;
  set_got_targets ();
  (void) hl_got_patch_all ();
  start_info (threads, hl_got_slots ());
  if (b != NULL)
    hl_trace_flush (b, hl_now ());
  hl_tls.guard--;
  errno = saved_errno;
  return HL_ATTACH_OK;
}

HL_EXPORT unsigned
heaplens__attach_slots (void)
{
  return hl_got_slots ();
}

void
hl_attach_poll (HlThreadBlock *b,
                uint64_t       now)
{
  if (!hl_g.late || hl_g.hdr == NULL
      || (__atomic_load_n (&hl_g.hdr->control_atomic, __ATOMIC_ACQUIRE) & HL_SHM_CONTROL_DETACH) == 0)
    return;
  static _Atomic int detaching;
  if (atomic_exchange (&detaching, 1) != 0)
    return;
  if (hl_active ())
    {
      hl_tls.guard++;
      (void) hl_got_restore_all ();
      char when[24];
      hl_fmt_u64 (when, now);
      const char *keys[] = { "detached_ns" };
      const char *values[] = { when };
      if (b != NULL)
        {
          hl_callsites_flush (b, now);
          hl_trace_flush (b, now);
        }
      write_info (keys, values, 1);
      hl_tls.guard--;
      hl_capture_finish (-1, false, false, false);
      atomic_store (&hl_g.state, HL_STATE_DETACHED);
    }
  atomic_store (&detaching, 0);
}
