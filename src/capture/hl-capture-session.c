/* hl-capture-session.c — the shared-memory session segment
 * /dev/shm/heaplens-<uid>-<pid>-<nonce>: created O_EXCL, mode 0600, sized
 * sparse (MAP_NORESERVE: a page costs memory only once touched), header and
 * regions laid out as in hl-shm-layout.h.
 *
 * End-of-life rule: at exit the state becomes ENDED (exit status, end time)
 * with a release store. A reader that has the segment mapped keeps seeing
 * it after it is unlinked, so by default the preload unlinks the name right
 * after marking the end. With HEAPLENS_KEEP_SESSION=1 (set by `heaplens-cli
 * record` and by the application when it launches a program) the name is
 * left for the launcher, which unlinks it once it has read the final
 * counters; `heaplens-cli sessions --prune` removes the segments of dead
 * processes.
 *
 * Backed pages: a page of the sparse segment that tmpfs cannot find room
 * for when it is first touched is SIGBUS in the program (another process
 * filled /dev/shm). So every page is reserved with fallocate before it is
 * written: the fixed parts when the segment is made (header, metadata,
 * counters, the tables' headers, the first level of hash buckets, the
 * live table's directory and first blocks), the growing parts in chunks as
 * they grow (resources nodes RES_CHUNK at a time, call-site records
 * CS_CHUNK at a time, a level of hash buckets when its first stack comes,
 * a live-table block when it is claimed: hl-capture-live.c). When a
 * reservation fails, the table stops growing and counts drops, and the
 * header gets HL_SHM_FLAG_SHM_FULL; the trace goes on. The descriptor
 * stays open for this, above 500, checked (device, inode) before each
 * use and opened again by name if the program took the number. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#define RES_CHUNK (256u * 1024u) /* resources nodes: about 2,700 stacks */
#define CS_CHUNK  (64u * 1024u)  /* call-site records: 1,638 stacks */

/* The segment's descriptor, for fallocate (-1: none). */
static int      seg_fd = -1;
static uint64_t seg_dev, seg_ino;
static bool     reserve_unsupported; /* fallocate refused by the kernel or a filter: as before */
/* Reserved so far: resources region bytes, call-site region bytes, bucket
 * levels (bit K). */
static uint64_t res_reserved, cs_reserved;
static uint32_t levels_reserved;

static uint64_t
align_up (uint64_t v,
          uint64_t a)
{
  return (v + a - 1) & ~(a - 1);
}

static uint64_t
pow2_at_least (uint64_t v)
{
  uint64_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

static void
make_name (char *out,
           size_t cap)
{
  char num[24];
  size_t n = hl_strlcpy (out, "/" HL_SHM_NAME_PREFIX, cap);
  hl_fmt_u64 (num, (uint64_t) getuid ());
  n += hl_strlcpy (out + n, num, cap - n);
  n += hl_strlcpy (out + n, "-", cap - n);
  hl_fmt_u64 (num, hl_g.pid);
  n += hl_strlcpy (out + n, num, cap - n);
  n += hl_strlcpy (out + n, "-", cap - n);
  hl_fmt_hex (num, hl_sys_random64 () & 0xffffffffffull);
  hl_strlcpy (out + n, num, cap - n);
}

/* The regions of a session for CFG, laid out from HL_SHM_HEADER_SIZE. */
typedef struct
{
  uint64_t     n_buckets, res_nodes;
  HlShmRegion  res, cs, live, meta, cnt, pkt;
  uint64_t     total;
} SessionLayout;

static void
session_layout (const HlConfig *cfg,
                SessionLayout  *l)
{
  uint64_t n_buckets = pow2_at_least (cfg->max_stacks);
  uint64_t res_nodes = sizeof (HlShmResourcesHeader) + n_buckets * 4u;
  res_nodes = align_up (res_nodes, 64);
  uint64_t res_size = align_up (res_nodes + cfg->max_stacks * 96u + 65536u, 4096);
  if (res_size > UINT32_MAX)
    res_size = (uint64_t) UINT32_MAX & ~(uint64_t) 4095;
  uint64_t n_sites = cfg->max_stacks + 1;
  uint64_t cs_size = align_up (sizeof (HlShmCallsitesHeader) + n_sites * sizeof (HlShmCallsite), 4096);
  uint64_t live_size = align_up (hl_live_region_size (cfg->live_slots), 4096);
  uint64_t meta_size = align_up (sizeof (HlShmMetadata), 4096);
  uint64_t cnt_size = align_up (sizeof (HlShmCounters), 4096);
  /* a packet slot per thread block (hl_g.max_threads: fit_limits may have
   * shrunk them), touched only as threads use them */
  uint64_t pkt_size = align_up (sizeof (HlShmPacketsHeader) + (uint64_t) hl_g.max_threads * sizeof (HlShmPacketSlot),
                                4096);

  uint64_t off = HL_SHM_HEADER_SIZE;
  l->n_buckets = n_buckets;
  l->res_nodes = res_nodes;
  l->res = (HlShmRegion) { off, res_size };
  off += res_size;
  l->cs = (HlShmRegion) { off, cs_size };
  off += cs_size;
  l->live = (HlShmRegion) { off, live_size };
  off += live_size;
  l->meta = (HlShmRegion) { off, meta_size };
  off += meta_size;
  l->cnt = (HlShmRegion) { off, cnt_size };
  off += cnt_size;
  l->pkt = (HlShmRegion) { off, pkt_size };
  off += pkt_size;
  l->total = off;
}

/* ---- The descriptor, reservations ------------------------------------ */

static void
keep_fd (int fd)
{
  struct stat st;
  int high = fcntl (fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0)
    {
      close (fd);
      fd = high;
    }
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      seg_fd = -1;
      return;
    }
  seg_fd = fd;
  seg_dev = (uint64_t) st.st_dev;
  seg_ino = (uint64_t) st.st_ino;
}

/* Closed only while it is still ours: after a fork, in a child, or when
 * the program put a file of its own on the number. */
static void
drop_fd (void)
{
  if (seg_fd >= 0 && hl_sys_fd_is (seg_fd, seg_dev, seg_ino))
    close (seg_fd);
  seg_fd = -1;
}

/* The segment's descriptor, opened again by name when the program closed
 * ours (closefrom) or took its number; -1 when it cannot be (unlinked). */
static int
session_fd (void)
{
  if (seg_fd >= 0 && hl_sys_fd_is (seg_fd, seg_dev, seg_ino))
    return seg_fd;
  seg_fd = -1;
  int fd = shm_open (hl_g.seg_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  uint64_t dev = seg_dev, ino = seg_ino;
  keep_fd (fd);
  if (seg_fd >= 0 && (seg_dev != dev || seg_ino != ino))
    {
      close (seg_fd); /* another segment under our name: not ours to grow */
      seg_fd = -1;
      seg_dev = dev;
      seg_ino = ino;
    }
  return seg_fd;
}

bool
hl_session_reserve (uint64_t offset,
                    uint64_t length)
{
  if (hl_g.seg == NULL || offset >= hl_g.seg_size)
    return false;
  if (length > hl_g.seg_size - offset)
    length = hl_g.seg_size - offset;
  if (length == 0 || __atomic_load_n (&reserve_unsupported, __ATOMIC_RELAXED))
    return true;
  int saved = errno;
  bool ok = false;
  int fd = session_fd ();
  for (int attempt = 0; fd >= 0 && attempt < 16; attempt++)
    {
      if (fallocate (fd, 0, (off_t) offset, (off_t) length) == 0)
        {
          ok = true;
          break;
        }
      if (errno == EINTR)
        continue;
      if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EPERM)
        {
          /* a kernel or a seccomp filter without fallocate: pages are
           * found when touched, as without reservations */
          __atomic_store_n (&reserve_unsupported, true, __ATOMIC_RELAXED);
          ok = true;
        }
      break;
    }
  if (!ok && hl_g.hdr != NULL)
    __atomic_fetch_or (&hl_g.hdr->flags, (uint32_t) HL_SHM_FLAG_SHM_FULL, __ATOMIC_RELAXED);
  errno = saved;
  return ok;
}

/* Raises *DONE (bytes of a region reserved from its start) to cover END,
 * in chunks of CHUNK; BASE is the region's offset, LIMIT its size. */
static bool
reserve_upto (uint64_t *done,
              uint64_t  base,
              uint64_t  limit,
              uint64_t  end,
              uint64_t  chunk)
{
  uint64_t have = __atomic_load_n (done, __ATOMIC_ACQUIRE);
  if (end <= have)
    return true;
  uint64_t want = align_up (end, chunk);
  if (want > limit)
    want = limit;
  if (end > want || !hl_session_reserve (base + have, want - have))
    return false;
  while (have < want && !__atomic_compare_exchange_n (done, &have, want, true, __ATOMIC_RELEASE,
                                                       __ATOMIC_ACQUIRE))
    ;
  return true;
}

bool
hl_session_reserve_node (uint64_t node_end)
{
  HlShmHeader *h = hl_g.hdr;
  if (h == NULL)
    return false;
  if (reserve_upto (&res_reserved, h->resources.offset, h->resources.size, node_end, RES_CHUNK))
    return true;
  /* the table stops growing: readers walk nodes up to the watermark, so
   * hold it where the pages end (a node being reserved past it is not
   * published) */
  uint64_t have = __atomic_load_n (&res_reserved, __ATOMIC_ACQUIRE);
  __atomic_store_n (&hl_g.res->watermark_atomic, have, __ATOMIC_RELEASE);
  return false;
}

/* The bucket level a stack of ID enters, as hl-capture-stacks.c lays
 * them out: level 0 the first n/256 words (reserved at the start),
 * level 1 the n/16 after them, level 2 the second half. */
static bool
reserve_level (uint64_t id)
{
  uint64_t n = (uint64_t) hl_g.res_bucket_mask + 1;
  if (n < 256 || id <= n >> 8)
    return true;
  unsigned k = id <= n >> 4 ? 1 : 2;
  if (__atomic_load_n (&levels_reserved, __ATOMIC_ACQUIRE) & (1u << k))
    return true;
  uint64_t first = k == 1 ? n >> 8 : n >> 1, words = k == 1 ? n >> 4 : n >> 1;
  uint64_t base = (uint64_t) ((uint8_t *) (void *) hl_g.res_buckets - hl_g.seg);
  if (!hl_session_reserve (base + first * 4u, words * 4u))
    return false;
  __atomic_fetch_or (&levels_reserved, 1u << k, __ATOMIC_RELEASE);
  return true;
}

bool
hl_session_reserve_stack (uint64_t id)
{
  HlShmHeader *h = hl_g.hdr;
  if (h == NULL)
    return false;
  uint64_t end = sizeof (HlShmCallsitesHeader) + (id + 1) * sizeof (HlShmCallsite);
  return reserve_upto (&cs_reserved, h->callsites.offset, h->callsites.size, end, CS_CHUNK)
         && reserve_level (id);
}

/* The fixed parts of a new segment (its header is reserved already). */
static bool
reserve_start (const SessionLayout *l)
{
  uint64_t level0 = l->n_buckets < 256 ? l->n_buckets : l->n_buckets >> 8;
  uint64_t res_head = sizeof (HlShmResourcesHeader) + level0 * 4u;
  return hl_session_reserve (l->res.offset, res_head)
         && reserve_upto (&res_reserved, l->res.offset, l->res.size, l->res_nodes + 1, RES_CHUNK)
         && reserve_upto (&cs_reserved, l->cs.offset, l->cs.size, sizeof (HlShmCallsitesHeader)
                          + sizeof (HlShmCallsite), CS_CHUNK)
         && hl_session_reserve (l->meta.offset, l->meta.size) && hl_session_reserve (l->cnt.offset, l->cnt.size);
}

uint64_t
hl_session_shm_free (void)
{
  struct statvfs v;
  if (statvfs ("/dev/shm", &v) != 0)
    return UINT64_MAX;
  return (uint64_t) v.f_bavail * (uint64_t) v.f_frsize;
}

uint64_t
hl_session_size (const HlConfig *cfg)
{
  SessionLayout l;
  session_layout (cfg, &l);
  return l.total;
}

int
hl_session_create (void)
{
  const HlConfig *cfg = &hl_g.cfg;
  SessionLayout l;
  session_layout (cfg, &l);
  uint64_t n_buckets = l.n_buckets, res_nodes = l.res_nodes, total = l.total;
  HlShmRegion r_res = l.res, r_cs = l.cs, r_live = l.live, r_meta = l.meta, r_cnt = l.cnt;

  /* a segment past the file-size limit: sizing it would send SIGXFSZ
   * (fit_limits shrank the tables; the program may have lowered the
   * limit since, before a fork) */
  struct rlimit rl;
  if (getrlimit (RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && total > (uint64_t) rl.rlim_cur)
    {
      errno = EFBIG;
      return -1;
    }
  /* nor one larger than /dev/shm's free space: a page touched past it
   * would be SIGBUS in the program (a forked child, /dev/shm fuller than
   * at the start: unrecorded) */
  if (total > hl_session_shm_free ())
    {
      errno = ENOSPC;
      return -1;
    }
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; attempt++)
    {
      make_name (hl_g.seg_name, sizeof hl_g.seg_name);
      fd = shm_open (hl_g.seg_name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        return -1;
    }
  if (fd < 0)
    return -1;
  if (fchmod (fd, 0600) != 0 || ftruncate (fd, (off_t) total) != 0)
    {
      close (fd);
      shm_unlink (hl_g.seg_name);
      return -1;
    }
  void *map = hl_sys_mmap (NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (map == MAP_FAILED)
    {
      close (fd);
      shm_unlink (hl_g.seg_name);
      return -1;
    }
  keep_fd (fd);
  res_reserved = cs_reserved = 0;
  levels_reserved = 0;
  hl_g.seg = map;
  hl_g.seg_size = total;
  if (!hl_session_reserve (0, HL_SHM_HEADER_SIZE) || !reserve_start (&l))
    {
      hl_session_detach ();
      shm_unlink (hl_g.seg_name);
      errno = ENOSPC;
      return -1;
    }

  HlShmHeader *h = map;
  hl_g.hdr = h;
  h->version = HL_SHM_VERSION;
  h->header_size = HL_SHM_HEADER_SIZE;
  h->segment_size = total;
  h->pid = hl_g.pid;
  h->ppid = hl_g.ppid;
  h->launcher_pid = hl_g.cfg.launcher_pid;
  h->uid = (uint32_t) getuid ();
  h->start_wall_ns = hl_g.start_wall_ns;
  h->start_mono_ns = hl_g.start_mono_ns;
  h->flags = HL_SHM_FLAG_COARSE_CLOCK;
  h->sample_bytes = cfg->sample_bytes;
  h->resources = r_res;
  h->callsites = r_cs;
  h->live = r_live;
  h->metadata = r_meta;
  h->counters = r_cnt;
  h->packets = l.pkt;
  ssize_t n = readlink ("/proc/self/exe", h->exe, HL_SHM_EXE_MAX - 1);
  h->exe[n > 0 ? n : 0] = '\0';
  size_t c = hl_sys_read_file ("/proc/self/cmdline", h->cmdline, HL_SHM_CMDLINE_MAX - 2);
  h->cmdline[c] = '\0';
  h->cmdline[c + 1] = '\0';

  hl_g.res_base = hl_g.seg + r_res.offset;
  hl_g.res_size = r_res.size;
  hl_g.res = (HlShmResourcesHeader *) hl_g.res_base;
  hl_g.res->n_buckets = (uint32_t) n_buckets;
  hl_g.res->nodes_offset = (uint32_t) res_nodes;
  hl_g.res_buckets = (uint32_t *) (hl_g.res_base + sizeof (HlShmResourcesHeader));
  hl_g.res_bucket_mask = (uint32_t) (n_buckets - 1);
  __atomic_store_n (&hl_g.res->watermark_atomic, res_nodes, __ATOMIC_RELEASE);

  HlShmCallsitesHeader *ch = (HlShmCallsitesHeader *) (hl_g.seg + r_cs.offset);
  ch->n_slots = cfg->max_stacks + 1;
  hl_g.callsites = (HlShmCallsite *) (ch + 1);
  hl_g.n_callsites = cfg->max_stacks + 1;

  hl_g.live = (HlShmLiveHeader *) (hl_g.seg + r_live.offset);
  hl_g.live_slots = (HlShmLiveEntry *) (hl_g.live + 1);
  hl_g.live_mask = cfg->live_slots - 1;
  if (!hl_live_attach ())
    {
      hl_session_detach ();
      shm_unlink (hl_g.seg_name);
      errno = ENOSPC;
      return -1;
    }

  hl_g.meta = (HlShmMetadata *) (hl_g.seg + r_meta.offset);
  hl_g.counters = (HlShmCounters *) (hl_g.seg + r_cnt.offset);
  HlShmPacketsHeader *ph = (HlShmPacketsHeader *) (hl_g.seg + l.pkt.offset);
  hl_trace_slots_forget ();
  if (l.pkt.size > 0 && !hl_session_reserve (l.pkt.offset, sizeof *ph))
    {
      hl_session_detach ();
      shm_unlink (hl_g.seg_name);
      errno = ENOSPC;
      return -1;
    }
  ph->n_slots = hl_g.max_threads;
  ph->slot_size = sizeof (HlShmPacketSlot);
  hl_g.packets = (HlShmPacketSlot *) (ph + 1);
  hl_g.n_packet_slots = hl_g.max_threads;
  hl_g.clock_word = &h->clock_ns_atomic; /* 0 until a recorder keeps it */
  __atomic_store_n (&h->state_atomic, HL_SHM_STATE_STARTING, __ATOMIC_RELEASE);
  /* The magic last: a reader that sees it sees the whole header. */
  uint64_t magic;
  memcpy (&magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE);
  __atomic_store_n ((uint64_t *) (void *) h->magic, magic, __ATOMIC_RELEASE);
  return 0;
}

void
hl_session_running (void)
{
  if (hl_g.hdr == NULL)
    return;
  if (hl_g.trace_fd >= 0)
    hl_strlcpy (hl_g.hdr->trace_path, hl_g.trace_path, HL_SHM_PATH_MAX);
  __atomic_store_n (&hl_g.hdr->heartbeat_ns_atomic, hl_now (), __ATOMIC_RELEASE);
  __atomic_store_n (&hl_g.hdr->state_atomic, HL_SHM_STATE_RUNNING, __ATOMIC_RELEASE);
}

void
hl_session_end (int  exit_status,
                bool by_exec)
{
  HlShmHeader *h = hl_g.hdr;
  if (h == NULL)
    return;
  /* Left to the launcher only while it will look for it: one that is
   * gone (a program that outlived `record`, a daemon) or ending would
   * leave the segment in /dev/shm. Exactly one side unlinks: KEPT and
   * the launcher's ABANDONED are set by one atomic OR each, and the one
   * that finds the other's bit already there leaves the name to it
   * (docs/shm-layout.md §1). */
  HlLauncherState launcher = hl_g.cfg.keep_session ? hl_launcher_state () : HL_LAUNCHER_GONE;
  bool kept = launcher == HL_LAUNCHER_WAITS;
  uint32_t set = (kept ? HL_SHM_FLAG_KEPT : 0u) | (by_exec ? HL_SHM_FLAG_ENDED_BY_EXEC : 0u);
  uint32_t old = __atomic_fetch_or (&h->flags, set, __ATOMIC_SEQ_CST);
  if (kept && (old & HL_SHM_FLAG_ABANDONED))
    kept = false;
  h->exit_status = exit_status;
  h->ended_ns = hl_now ();
  __atomic_store_n (&h->heartbeat_ns_atomic, h->ended_ns, __ATOMIC_RELEASE);
  __atomic_store_n (&h->state_atomic, HL_SHM_STATE_ENDED, __ATOMIC_RELEASE);
  if (!kept)
    shm_unlink (hl_g.seg_name);
  /* a killed `record` left the file it was compressing the trace to */
  if (hl_g.cfg.keep_session && launcher == HL_LAUNCHER_GONE)
    hl_trace_unlink_compress_tmp ();
}

/* In a forked child: the mapping is the parent's segment, which the child
 * must not write. Unmap it; the child creates its own. */
void
hl_session_detach (void)
{
  hl_g.clock_word = hl_clock_none;
  drop_fd ();
  if (hl_g.seg != NULL)
    hl_sys_munmap (hl_g.seg, hl_g.seg_size);
  hl_g.seg = NULL;
  hl_g.hdr = NULL;
  hl_g.res = NULL;
  hl_g.res_base = NULL;
  hl_g.callsites = NULL;
  hl_g.n_callsites = 0;
  hl_g.live = NULL;
  hl_g.live_slots = NULL;
  hl_live_detach ();
  hl_g.meta = NULL;
  hl_g.counters = NULL;
  hl_g.packets = NULL;
  hl_g.n_packet_slots = 0;
}
