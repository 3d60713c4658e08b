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

/* ---- The cut ---------------------------------------------------------------
 * The first write of a packet that fails (a full disk: ENOSPC; EFBIG;
 * EIO...) cuts the trace: it ends at its last whole packet (what a short
 * write left of a packet is truncated away), nothing is written after it
 * but the record of the cut (an INFO packet, where there is room), and one
 * line on stderr says so. The events after it count as dropped
 * (HL_DROP_TRACE_WRITE); the session's counters go on to the end. The
 * cut's time (of the first event it lost: also of a packet another thread
 * was still building) and errno go to the session's header. */
static int      cut_errno;  /* 0: not cut (atomic) */
static uint64_t cut_ns;     /* first lost event, >= 1; 0 until cut (atomic) */
static int      cut_fd = -1; /* the trace's descriptor, left open at the cut */
static HlTraceBuffer cut_buf;
static char     cut_line[1400];

/* *WORD = min (*WORD, T), where 0 is no value yet. */
static void
lower_time (uint64_t *word,
            uint64_t  t)
{
  uint64_t old = __atomic_load_n (word, __ATOMIC_RELAXED);
  while ((old == 0 || t < old)
         && !__atomic_compare_exchange_n (word, &old, t, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

/* An event of time T (of the trace's base) is lost to the cut. */
static void
note_lost_at (uint64_t t)
{
  t = t > 0 ? t : 1;
  lower_time (&cut_ns, t);
  if (hl_g.hdr != NULL)
    lower_time (&hl_g.hdr->trace_cut_ns_atomic, t);
}

/* The time of the packet in BUF, else now. */
static uint64_t
packet_time (const void *buf,
             size_t      len)
{
  HlPacketHeader ph;
  if (len < sizeof ph)
    return hl_now ();
  memcpy (&ph, buf, sizeof ph);
  return ph.magic == HL_PACKET_MAGIC ? ph.time_begin_ns : hl_now ();
}

/* Writes LEN bytes of BUF to FD: 0, or the errno of the write that
 * failed, *DONE bytes after the start. */
static int
write_counted (int         fd,
               const void *buf,
               size_t      len,
               size_t     *done)
{
  const uint8_t *p = buf;
  *done = 0;
  while (*done < len)
    {
      ssize_t n = write (fd, p + *done, len - *done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno != 0 ? errno : EIO;
      if (n == 0)
        return ENOSPC;
      *done += (size_t) n;
    }
  return 0;
}

/* Takes the PARTIAL bytes a short write left at the end of FD away. */
static void
truncate_partial (int    fd,
                  size_t partial)
{
  struct stat st;
  if (partial > 0 && fstat (fd, &st) == 0 && st.st_size >= (off_t) partial)
    (void) ftruncate (fd, st.st_size - (off_t) partial);
}

/* Whether LEN more bytes stay within RLIMIT_FSIZE (past it, SIGXFSZ). */
static bool
within_size_limit (uint64_t end)
{
  struct rlimit rl;
  return getrlimit (RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || end <= (uint64_t) rl.rlim_cur;
}

/* "S.mmm" of NS. */
static size_t
fmt_seconds (char     *out,
             uint64_t  ns)
{
  size_t n = hl_fmt_u64 (out, ns / 1000000000u);
  uint64_t ms = ns / 1000000u % 1000u;
  out[n++] = '.';
  out[n++] = (char) ('0' + ms / 100);
  out[n++] = (char) ('0' + ms / 10 % 10);
  out[n++] = (char) ('0' + ms % 10);
  out[n] = '\0';
  return n;
}

static const char *
errno_name (int err)
{
  const char *name = strerrorname_np (err);
  return name != NULL ? name : "EIO";
}

/* The one line of the cut: where and why. */
static void
say_cut (int  err,
         bool by_limit)
{
  if (by_limit)
    {
      hl_sys_warn ("the trace reached the file size limit (ulimit -f): the events after it are dropped, "
                   "the program goes on", NULL, NULL);
      return;
    }
  const char *desc = strerrordesc_np (err);
  char t[32];
  fmt_seconds (t, __atomic_load_n (&cut_ns, __ATOMIC_RELAXED));
  const char *parts[] = { "heaplens: the trace ", hl_g.trace_path, " stopped at ", t, " s: ",
                          desc != NULL ? desc : "write error", " (", errno_name (err),
                          "): the events after it are dropped, the program goes on\n" };
  size_t n = 0;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    n += hl_strlcpy (cut_line + n, parts[i], sizeof cut_line - n);
  if (n >= sizeof cut_line)
    {
      n = sizeof cut_line - 1;
      cut_line[n - 1] = '\n';
    }
  (void) hl_sys_write_all (2, cut_line, n);
}

/* The record of the cut at the trace's end, where there is room: an INFO
 * packet with trace_cut_ns and trace_cut_reason (docs/capture.md). */
static void
write_cut_record (int fd,
                  int err)
{
  char t[24];
  uint64_t at = __atomic_load_n (&cut_ns, __ATOMIC_RELAXED);
  hl_fmt_u64 (t, at);
  const char *keys[] = { "trace_cut_ns", "trace_cut_reason" };
  const char *values[] = { t, errno_name (err) };
  hl_packet_writer_init (&cut_buf.w, cut_buf.own.packet, sizeof cut_buf.own.packet, hl_g.pid, hl_sys_gettid ());
  size_t len = hl_packet_writer_info (&cut_buf.w, at, keys, values, 2);
  if (len == 0 || !within_size_limit (atomic_load (&hl_g.trace_size) + len))
    return;
  size_t done;
  if (write_counted (fd, cut_buf.own.packet, len, &done) != 0)
    truncate_partial (fd, done);
}

/* The write of a packet of the trace (on FD) failed with ERR, PARTIAL
 * bytes of it written: the first failure cuts the trace. errno is kept. */
static void
cut_trace (int         fd,
           int         err,
           size_t      partial,
           const void *buf,
           size_t      len,
           bool        by_limit)
{
  int saved = errno;
  note_lost_at (packet_time (buf, len));
  int none = 0;
  if (!__atomic_compare_exchange_n (&cut_errno, &none, err, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    {
      /* a write that was under way beside the cut: its part goes too */
      truncate_partial (fd, partial);
      errno = saved;
      return;
    }
  /* later events count as dropped (HL_TRACE_EMIT); the descriptor stays
   * open: another thread may be writing to it */
  cut_fd = fd;
  __atomic_store_n (&hl_g.trace_lost, 1, __ATOMIC_RELAXED);
  __atomic_store_n (&hl_g.trace_fd, -1, __ATOMIC_RELEASE);
  truncate_partial (fd, partial);
  struct stat st;
  if (fstat (fd, &st) == 0)
    atomic_store (&hl_g.trace_size, (uint64_t) st.st_size);
  if (hl_g.hdr != NULL)
    __atomic_store_n (&hl_g.hdr->trace_cut_errno_atomic, err, __ATOMIC_RELEASE);
  say_cut (err, by_limit);
  write_cut_record (fd, err);
  errno = saved;
}

bool
hl_trace_is_cut (void)
{
  return __atomic_load_n (&cut_errno, __ATOMIC_ACQUIRE) != 0;
}

/* Appends LEN bytes to the trace, unless that would take the file past
 * the file-size limit (RLIMIT_FSIZE, `ulimit -f`): the kernel would send
 * the program SIGXFSZ, which kills it. A write of the open trace that
 * fails, or would pass the limit, cuts it (above). -1 when not written. */
int
hl_trace_write (int         fd,
                const void *buf,
                size_t      len)
{
  if (hl_trace_is_cut ())
    return -1;
  bool is_trace = fd == __atomic_load_n (&hl_g.trace_fd, __ATOMIC_ACQUIRE);
  uint64_t end = atomic_fetch_add (&hl_g.trace_size, len) + len;
  if (!within_size_limit (end))
    {
      atomic_fetch_sub (&hl_g.trace_size, len);
      if (is_trace)
        cut_trace (fd, EFBIG, 0, buf, len, true);
      else if (atomic_exchange (&hl_g.trace_full, 1) == 0)
        hl_sys_warn ("the trace reached the file size limit (ulimit -f): the events after it are dropped, "
                     "the program goes on", NULL, NULL);
      return -1;
    }
  size_t done;
  int err = write_counted (fd, buf, len, &done);
  if (err == 0)
    return 0;
  if (is_trace)
    cut_trace (fd, err, done, buf, len, false);
  errno = err;
  return -1;
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
  hl_fmt_u64 (ppid, hl_g.ppid);
  hl_fmt_u64 (depth, hl_g.cfg.depth);
  const char *unwinder = hl_g.cfg.unwind == HL_UNWIND_FP ? "fp"
                         : hl_g.cfg.unwind == HL_UNWIND_NONE ? "none" : "libunwind";
  char sample[24];
  hl_fmt_u64 (sample, hl_g.cfg.sample_bytes);
  /* sample_bytes last, and only in sampling mode (docs/trace-format.md) */
  const char *keys[] = { "exe", "cmdline", "host", "page_size", "clock", "unwinder",
                         "depth", "pid", "ppid", "session", "options", "sample_bytes" };
  const char *values[] = { exe, cmdline, un->nodename, page, "monotonic_50ms_then_coarse", unwinder,
                           depth, pid, ppid, hl_g.seg_name + 1,
                           hl_g.cfg.follow ? "follow=all" : "follow=none", sample };
  size_t n_keys = sizeof keys / sizeof keys[0] - (hl_g.cfg.sample_bytes != 0 ? 0 : 1);
  hl_packet_writer_init (&info_buf.w, info_buf.own.packet, sizeof info_buf.own.packet, hl_g.pid, hl_sys_gettid ());
  size_t len = hl_packet_writer_info (&info_buf.w, 0, keys, values, n_keys);
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

/* Session packet slots whose pages are reserved (fallocate), a bit per
 * thread block: a slot's page touched unreserved when /dev/shm has filled
 * up would be SIGBUS in the program. Cleared with each new session. */
static uint64_t slots_reserved[HL_MAX_THREADS / 64];

void
hl_trace_slots_forget (void)
{
  for (size_t i = 0; i < sizeof slots_reserved / sizeof slots_reserved[0]; i++)
    __atomic_store_n (&slots_reserved[i], 0, __ATOMIC_RELAXED);
}

static bool
slot_reserved (uint32_t index)
{
  uint64_t bit = UINT64_C (1) << (index % 64);
  if (__atomic_load_n (&slots_reserved[index / 64], __ATOMIC_ACQUIRE) & bit)
    return true;
  const HlShmPacketSlot *slot = &hl_g.packets[index];
  if (!hl_session_reserve ((uint64_t) ((const uint8_t *) slot - hl_g.seg), sizeof *slot))
    return false;
  __atomic_fetch_or (&slots_reserved[index / 64], bit, __ATOMIC_RELEASE);
  return true;
}

/* The slot block B builds its packets in: the session's (a launcher reads
 * it after a death), else its own (also when /dev/shm has no room left for
 * the slot's pages: the events still reach the trace, only a salvage
 * after a death misses them). Chosen at each begin: a forked child's
 * session is not its parent's. */
static HlShmPacketSlot *
slot_of (HlThreadBlock *b)
{
  if (hl_g.packets != NULL && b->index < hl_g.n_packet_slots && b->index < HL_MAX_THREADS &&
      slot_reserved (b->index))
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

/* The packet B was building when the trace was cut: its events are
 * dropped, and the cut is as early as its first. */
static void
drop_pending (HlThreadBlock *b)
{
  b->trace.begun = 0;
  if (!hl_packet_writer_is_empty (&b->trace.w))
    {
      note_lost_at (b->trace.w.time_begin_ns);
      hl_counters_drop (HL_DROP_TRACE_WRITE, b->trace.w.n_events);
    }
  __atomic_store_n (&b->trace.slot->state_atomic, 0, __ATOMIC_RELEASE);
}

void
hl_trace_flush (HlThreadBlock *b,
                uint64_t       now)
{
  b->last_flush_ns = now;
  if (!b->trace.begun)
    return;
  if (hl_g.trace_fd < 0)
    {
      if (hl_trace_is_cut ())
        drop_pending (b);
      return;
    }
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
  /* the parent's cut is not the child's */
  if (cut_fd >= 0 && hl_sys_fd_is (cut_fd, hl_g.trace_dev, hl_g.trace_ino))
    close (cut_fd);
  cut_fd = -1;
  __atomic_store_n (&cut_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&cut_errno, 0, __ATOMIC_RELEASE);
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
