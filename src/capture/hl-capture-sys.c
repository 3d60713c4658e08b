/* hl-capture-sys.c — every operating-system call of the preload's own work
 * (clock, write, mmap, /proc), in one place. No stdio, no allocation. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t
hl_sys_coarse_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint64_t
hl_sys_fine_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint64_t
hl_sys_wall_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint32_t
hl_sys_gettid (void)
{
  return (uint32_t) syscall (SYS_gettid);
}

uintptr_t
hl_sys_brk (void)
{
  int saved = errno;
  uintptr_t now = (uintptr_t) syscall (SYS_brk, 0);
  errno = saved;
  return now;
}

int
hl_sys_write_all (int         fd,
                  const void *buf,
                  size_t      len)
{
  const uint8_t *p = buf;
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      p += n;
      len -= (size_t) n;
    }
  return 0;
}

/* One line on stderr: "heaplens: A B C\n". */
void
hl_sys_warn (const char *a,
             const char *b,
             const char *c)
{
  char line[512];
  size_t n = hl_strlcpy (line, "heaplens: ", sizeof line);
  const char *parts[3] = { a, b, c };
  for (int i = 0; i < 3; i++)
    if (parts[i] != NULL && n < sizeof line - 2)
      n += hl_strlcpy (line + n, parts[i], sizeof line - 1 - n);
  if (n > sizeof line - 2)
    n = sizeof line - 2;
  line[n++] = '\n';
  int saved = errno;
  (void) hl_sys_write_all (2, line, n);
  errno = saved;
}

/* The preload's own mappings are raw system calls, never the program's
 * mmap (which the preload interposes: hl-capture-mmap.c). */
void *
hl_sys_mmap (void   *addr,
             size_t  len,
             int     prot,
             int     flags,
             int     fd,
             off_t   offset)
{
  return (void *) syscall (SYS_mmap, addr, len, prot, flags, fd, offset);
}

int
hl_sys_munmap (void   *addr,
               size_t  len)
{
  return (int) syscall (SYS_munmap, addr, len);
}

void *
hl_sys_mremap (void   *old,
               size_t  old_len,
               size_t  new_len,
               int     flags,
               void   *new_addr)
{
  return (void *) syscall (SYS_mremap, old, old_len, new_len, flags, new_addr);
}

#define OWN_RANGES_MAX 64u

static HlSysRange own_ranges[OWN_RANGES_MAX];
static uint32_t   n_own_ranges; /* atomic */

void *
hl_sys_map_anon (size_t size)
{
  void *p = hl_sys_mmap (NULL, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  /* a free entry (one unmapped), else a new one; past the last one the
   * mapping is not registered (the leak scan may then scan it: a few
   * blocks would look reachable) */
  uint32_t n = __atomic_load_n (&n_own_ranges, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n; i++)
    {
      uintptr_t zero = 0;
      if (__atomic_compare_exchange_n (&own_ranges[i].lo, &zero, (uintptr_t) p, false,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        {
          __atomic_store_n (&own_ranges[i].hi, (uintptr_t) p + size, __ATOMIC_RELEASE);
          return p;
        }
    }
  uint32_t i = __atomic_fetch_add (&n_own_ranges, 1, __ATOMIC_ACQ_REL);
  if (i < OWN_RANGES_MAX)
    {
      __atomic_store_n (&own_ranges[i].hi, (uintptr_t) p + size, __ATOMIC_RELAXED);
      __atomic_store_n (&own_ranges[i].lo, (uintptr_t) p, __ATOMIC_RELEASE);
    }
  return p;
}

void
hl_sys_unmap_anon (void   *p,
                   size_t  size)
{
  uint32_t n = __atomic_load_n (&n_own_ranges, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < OWN_RANGES_MAX; i++)
    if (__atomic_load_n (&own_ranges[i].lo, __ATOMIC_ACQUIRE) == (uintptr_t) p)
      {
        __atomic_store_n (&own_ranges[i].hi, 0, __ATOMIC_RELAXED);
        __atomic_store_n (&own_ranges[i].lo, 0, __ATOMIC_RELEASE);
        break;
      }
  (void) hl_sys_munmap (p, size);
}

const HlSysRange *
hl_sys_own_ranges (uint32_t *n)
{
  uint32_t k = __atomic_load_n (&n_own_ranges, __ATOMIC_ACQUIRE);
  *n = k < OWN_RANGES_MAX ? k : OWN_RANGES_MAX;
  return own_ranges;
}

/* All signals blocked (OLD: the mask before) / the mask put back: raw
 * rt_sigprocmask, the kernel's 8-byte set. */
void
hl_sys_block_signals (uint64_t *old)
{
  uint64_t all = ~(uint64_t) 0;
  (void) syscall (SYS_rt_sigprocmask, SIG_SETMASK, &all, old, sizeof all);
}

void
hl_sys_restore_signals (const uint64_t *old)
{
  (void) syscall (SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, sizeof *old);
}

/* The descriptor of /proc/self/statm, kept between samples above 500 (as
 * the trace's: the program's descriptors keep their usual numbers), with
 * its device and inode: a program may close it and put a file of its own
 * on the number, which we then neither read nor close. */
static int statm_fd = -1;
static uint32_t statm_pid;
static uint64_t statm_dev, statm_ino;

bool
hl_sys_fd_is (int      fd,
              uint64_t dev,
              uint64_t ino)
{
  struct stat st;
  return fd >= 0 && fstat (fd, &st) == 0 && (uint64_t) st.st_dev == dev && (uint64_t) st.st_ino == ino;
}

static bool
statm_is_ours (void)
{
  return hl_sys_fd_is (statm_fd, statm_dev, statm_ino);
}

void
hl_sys_rss_reset (void)
{
  if (statm_is_ours ())
    close (statm_fd);
  statm_fd = -1;
}

static int
statm_open (void)
{
  int fd = open ("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int high = fcntl (fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0)
    {
      close (fd);
      fd = high;
    }
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return -1;
    }
  statm_dev = st.st_dev;
  statm_ino = st.st_ino;
  return fd;
}

uint64_t
hl_sys_rss_bytes (void)
{
  if (statm_fd < 0 || statm_pid != hl_g.pid || !statm_is_ours ())
    {
      statm_fd = statm_open ();
      statm_pid = hl_g.pid;
      if (statm_fd < 0)
        return 0;
    }
  char buf[128];
  ssize_t n = pread (statm_fd, buf, sizeof buf - 1, 0);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  const char *p = buf;
  while (*p && *p != ' ')
    p++;
  while (*p == ' ')
    p++;
  uint64_t pages = 0;
  while (*p >= '0' && *p <= '9')
    pages = pages * 10 + (uint64_t) (*p++ - '0');
  return pages * (uint64_t) sysconf (_SC_PAGESIZE);
}

size_t
hl_sys_read_file (const char *path,
                  char       *buf,
                  size_t      cap)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t len = 0;
  while (len < cap)
    {
      ssize_t n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  close (fd);
  return len;
}

bool
hl_sys_proc_stat (uint32_t  pid,
                  char     *state,
                  uint64_t *start_ticks,
                  char     *comm,
                  size_t    comm_cap)
{
  char path[40], buf[512];
  size_t n = hl_strlcpy (path, "/proc/", sizeof path);
  hl_fmt_u64 (path + n, pid);
  hl_strlcpy (path + strlen (path), "/stat", sizeof path - strlen (path));
  size_t len = hl_sys_read_file (path, buf, sizeof buf - 1);
  if (len == 0)
    return false;
  buf[len] = '\0';
  /* "pid (comm) S ppid ..." : the name may hold ')' and spaces, the last
   * ')' ends it */
  char *open_paren = strchr (buf, '(');
  char *close_paren = strrchr (buf, ')');
  if (open_paren == NULL || close_paren == NULL || close_paren < open_paren || close_paren[1] != ' ')
    return false;
  size_t clen = (size_t) (close_paren - open_paren - 1);
  if (comm_cap > 0)
    {
      if (clen >= comm_cap)
        clen = comm_cap - 1;
      memcpy (comm, open_paren + 1, clen);
      comm[clen] = '\0';
    }
  char *p = close_paren + 2;
  *state = *p;
  /* starttime is field 22; the state is field 3 */
  for (int field = 3; field < 22; field++)
    {
      while (*p != ' ' && *p != '\0')
        p++;
      if (*p == '\0')
        return false;
      p++;
    }
  uint64_t v = 0;
  while (*p >= '0' && *p <= '9')
    v = v * 10 + (uint64_t) (*p++ - '0');
  *start_ticks = v;
  return true;
}

uint64_t
hl_sys_random64 (void)
{
  uint64_t v = 0;
  if (getrandom (&v, sizeof v, GRND_NONBLOCK) != (ssize_t) sizeof v)
    v = hl_sys_wall_ns () ^ ((uint64_t) getpid () << 32);
  return v;
}

size_t
hl_fmt_u64 (char     *out,
            uint64_t  v)
{
  char tmp[24];
  size_t n = 0;
  do
    {
      tmp[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  return n;
}

size_t
hl_fmt_hex (char     *out,
            uint64_t  v)
{
  static const char digits[] = "0123456789abcdef";
  char tmp[20];
  size_t n = 0;
  do
    {
      tmp[n++] = digits[v & 15];
      v >>= 4;
    }
  while (v != 0);
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  return n;
}

/* Copies at most CAP-1 bytes, always terminates; returns the bytes copied. */
size_t
hl_strlcpy (char       *dst,
            const char *src,
            size_t      cap)
{
  size_t n = 0;
  if (cap == 0)
    return 0;
  while (src[n] != '\0' && n + 1 < cap)
    {
      dst[n] = src[n];
      n++;
    }
  dst[n] = '\0';
  return n;
}
