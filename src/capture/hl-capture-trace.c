/* hl-capture-trace.c — the trace file: opened 0600, O_NOFOLLOW, O_EXCL,
 * O_APPEND; the file header and the INFO packet at start; per-thread packets
 * written whole with one write(2) each (HL_PACKET_MAX_SIZE bytes at most, so
 * packets of different threads never tear). */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* hl_trace_open runs at the start and in a fork child, one thread at a
 * time: its buffers are static, not on the stack, which in a fork child
 * is the forking thread's and may be a small thread's (they took 3.5 KiB
 * of it). */
static HlTraceBuffer info_buf;
static struct
{
  char           exe_for_name[256]; /* expand_template */
  char           base[1024];        /* open_trace */
  char           cmdline[2048];
  char           exe[1024];
  struct utsname un;
} open_scratch;

/* Expands %p (pid), %e (executable name) and %% of the template. */
static void
expand_template (char *out, size_t cap, const char *tmpl, bool *had_pid)
{
  char *exe = open_scratch.exe_for_name;
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof open_scratch.exe_for_name - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char *base = strrchr (exe, '/');
  base = base ? base + 1 : exe;
  size_t len = 0;
  *had_pid = false;
  for (const char *t = tmpl; *t && len + 24 < cap; t++)
    {
      if (t[0] == '%' && t[1] == 'p')
        {
          len += hl_fmt_u64 (out + len, hl_g.pid);
          *had_pid = true;
          t++;
        }
      else if (t[0] == '%' && t[1] == 'e')
        {
          len += hl_strlcpy (out + len, base, cap - len - 24);
          t++;
        }
      else if (t[0] == '%' && t[1] == '%')
        {
          out[len++] = '%';
          t++;
        }
      else
        out[len++] = *t;
    }
  out[len] = '\0';
}

static int
open_exclusive (const char *path)
{
  return open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
}

/* PATH, then PATH.<pid> (first for a forked child whose template has no
 * %p), then PATH.<pid>.1, .2, ... : never overwrites an existing file. */
static int
open_trace (void)
{
  char *base = open_scratch.base;
  bool had_pid;
  expand_template (base, sizeof open_scratch.base - 48, hl_g.cfg.output, &had_pid);
  char *path = hl_g.trace_path;
  int fd = -1;
  for (int attempt = 0; attempt < 100; attempt++)
    {
      size_t len = hl_strlcpy (path, base, sizeof hl_g.trace_path - 48);
      int k = (hl_g.forked && !had_pid) ? attempt + 1 : attempt;
      if (k >= 1)
        {
          path[len++] = '.';
          len += hl_fmt_u64 (path + len, hl_g.pid);
        }
      if (k >= 2)
        {
          path[len++] = '.';
          hl_fmt_u64 (path + len, (uint64_t) k - 1);
        }
      fd = open_exclusive (path);
      if (fd >= 0 || errno != EEXIST)
        break;
    }
  return fd;
}

/* Appends LEN bytes to the trace, unless that would take the file past
 * the file-size limit (RLIMIT_FSIZE, `ulimit -f`): the kernel would send
 * the program SIGXFSZ, which kills it. Then nothing is written (the
 * packet's events count as dropped), and one line says so, once. -1 when
 * not written. */
int
hl_trace_write (int         fd,
                const void *buf,
                size_t      len)
{
  uint64_t end = atomic_fetch_add (&hl_g.trace_size, len) + len;
  struct rlimit rl;
  if (getrlimit (RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && end > (uint64_t) rl.rlim_cur)
    {
      atomic_fetch_sub (&hl_g.trace_size, len);
      if (atomic_exchange (&hl_g.trace_full, 1) == 0)
        hl_sys_warn ("the trace reached the file size limit (ulimit -f): the events after it are dropped, "
                     "the program goes on", NULL, NULL);
      return -1;
    }
  return hl_sys_write_all (fd, buf, len);
}

int
hl_trace_open (void)
{
  int fd = open_trace ();
  if (fd < 0)
    return -1;
  /* keep the descriptor away from the low numbers a program may dup2 onto */
  int high = fcntl (fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0)
    {
      close (fd);
      fd = high;
    }
  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, hl_g.pid, hl_g.start_wall_ns, hl_g.start_mono_ns,
                             HL_TRACE_FLAG_COARSE_CLOCK);
  atomic_store (&hl_g.trace_size, 0);
  atomic_store (&hl_g.trace_full, 0);
  if (hl_trace_write (fd, &fh, sizeof fh) != 0)
    {
      close (fd);
      return -1;
    }

  /* INFO */
  char *cmdline = open_scratch.cmdline;
  size_t c = hl_sys_read_file ("/proc/self/cmdline", cmdline, sizeof open_scratch.cmdline - 1);
  for (size_t i = 0; i + 1 < c; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = ' ';
  cmdline[c] = '\0';
  char *exe = open_scratch.exe;
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof open_scratch.exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  struct utsname *un = &open_scratch.un;
  if (uname (un) != 0)
    memset (un, 0, sizeof *un);
  char page[24], pid[24], ppid[24], depth[24];
  hl_fmt_u64 (page, (uint64_t) sysconf (_SC_PAGESIZE));
  hl_fmt_u64 (pid, hl_g.pid);
  hl_fmt_u64 (ppid, (uint64_t) getppid ());
  hl_fmt_u64 (depth, hl_g.cfg.depth);
  const char *unwinder = hl_g.cfg.unwind == HL_UNWIND_FP ? "fp"
                         : hl_g.cfg.unwind == HL_UNWIND_NONE ? "none" : "libunwind";
  const char *keys[] = { "exe", "cmdline", "host", "page_size", "clock", "unwinder",
                         "depth", "pid", "ppid", "session", "options" };
  const char *values[] = { exe, cmdline, un->nodename, page, "monotonic_50ms_then_coarse", unwinder,
                           depth, pid, ppid, hl_g.seg_name + 1,
                           hl_g.cfg.follow ? "follow=all" : "follow=none" };
  hl_packet_writer_init (&info_buf.w, info_buf.own.packet, sizeof info_buf.own.packet, hl_g.pid, hl_sys_gettid ());
  size_t len = hl_packet_writer_info (&info_buf.w, 0, keys, values, sizeof keys / sizeof keys[0]);
  if (len > 0 && hl_trace_write (fd, info_buf.own.packet, len) != 0)
    {
      close (fd);
      return -1;
    }
  struct stat st;
  if (fstat (fd, &st) == 0)
    {
      hl_g.trace_dev = (uint64_t) st.st_dev;
      hl_g.trace_ino = (uint64_t) st.st_ino;
    }
  hl_g.trace_fd = fd;
  return 0;
}

void
hl_trace_buffer_init (HlTraceBuffer *t,
                      uint32_t       pid,
                      uint32_t       tid)
{
  t->slot = &t->own;
  hl_packet_writer_init (&t->w, t->own.packet, sizeof t->own.packet, pid, tid);
  t->begun = 0;
}

/* The slot block B builds its packets in: the session's (a launcher reads
 * it after a death), else its own. Chosen at each begin: a forked child's
 * session is not its parent's. */
static HlShmPacketSlot *
slot_of (HlThreadBlock *b)
{
  if (hl_g.packets != NULL && b->index < hl_g.n_packet_slots)
    return &hl_g.packets[b->index];
  return &b->trace.own;
}

static __attribute__ ((noinline)) void
begin_packet (HlThreadBlock *b,
              uint64_t       now)
{
  HlTraceBuffer *t = &b->trace;
  HlShmPacketSlot *s = slot_of (b);
  t->slot = s;
  t->w.buf = s->packet;
  hl_packet_writer_begin (&t->w, now);
  s->pid = t->w.pid;
  s->tid = t->w.tid;
  s->time_begin_ns = t->w.time_begin_ns;
  s->alloc_id_begin = 0;
  __atomic_store_n (&s->state_atomic, 0, __ATOMIC_RELEASE);
  t->begun = 1;
}

HlPacketWriter *
hl_trace_writer (HlThreadBlock *b,
                 uint64_t       now)
{
  if (HL_UNLIKELY (!b->trace.begun))
    begin_packet (b, now);
  return &b->trace.w;
}

void
hl_trace_flush (HlThreadBlock *b,
                uint64_t       now)
{
  b->last_flush_ns = now;
  if (hl_g.trace_fd < 0 || !b->trace.begun)
    return;
  b->trace.begun = 0;
  HlShmPacketSlot *s = b->trace.slot;
  if (hl_packet_writer_is_empty (&b->trace.w))
    {
      __atomic_store_n (&s->state_atomic, 0, __ATOMIC_RELEASE);
      return;
    }
  uint32_t n_events = b->trace.w.n_events;
  size_t len = hl_packet_writer_finish (&b->trace.w);
  /* a launcher that finds it so after a death looks for it in the trace */
  __atomic_store_n (&s->state_atomic, (uint64_t) len | HL_SHM_PACKET_FLUSHING, __ATOMIC_RELEASE);
  int saved = errno;
  int fd = hl_trace_fd_checked ();
  if (fd < 0 || hl_trace_write (fd, s->packet, len) != 0)
    hl_counters_drop (HL_DROP_TRACE_WRITE, n_events);
  __atomic_store_n (&s->state_atomic, 0, __ATOMIC_RELEASE);
  errno = saved;
}

/* The trace opened again by its path, for appending, when the path still
 * names the trace (its device and inode), on a high descriptor; else -1. */
static int
reopen_same_trace (void)
{
  int fd = open (hl_g.trace_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (!hl_sys_fd_is (fd, hl_g.trace_dev, hl_g.trace_ino))
    {
      close (fd);
      return -1;
    }
  int high = fcntl (fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0)
    {
      close (fd);
      fd = high;
    }
  return fd;
}

void
hl_trace_forget (void)
{
  int fd = hl_g.trace_fd;
  if (hl_sys_fd_is (fd, hl_g.trace_dev, hl_g.trace_ino))
    close (fd);
  hl_g.trace_fd = -1;
  hl_g.trace_lost = 0;
}

/* must match hl-trace-compress-stream.c's */
#define COMPRESS_TMP_SUFFIX ".tmp-compress"

void
hl_trace_unlink_compress_tmp (void)
{
  char path[sizeof hl_g.trace_path + sizeof COMPRESS_TMP_SUFFIX];
  if (hl_g.trace_path[0] == '\0')
    return;
  size_t n = hl_strlcpy (path, hl_g.trace_path, sizeof path);
  hl_strlcpy (path + n, COMPRESS_TMP_SUFFIX, sizeof path - n);
  int saved = errno;
  (void) unlink (path);
  errno = saved;
}

int
hl_trace_fd_checked (void)
{
  int fd = __atomic_load_n (&hl_g.trace_fd, __ATOMIC_ACQUIRE);
  if (fd < 0)
    return -1;
  int saved = errno;
  if (hl_sys_fd_is (fd, hl_g.trace_dev, hl_g.trace_ino))
    {
      errno = saved;
      return fd;
    }
  /* closed by the program, its number maybe reused for a file of the
   * program's: never written again, never closed by us */
  int again = reopen_same_trace ();
  if (again < 0)
    __atomic_store_n (&hl_g.trace_lost, 1, __ATOMIC_RELAXED);
  if (!__atomic_compare_exchange_n (&hl_g.trace_fd, &fd, again, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    {
      /* another thread found it closed first: its descriptor (FD now) */
      if (again >= 0)
        close (again);
      again = fd;
    }
  errno = saved;
  return again;
}
