/* hl-capture-leakscan.c — which blocks live at a clean exit are leaks: a
 * conservative reachability scan, as LeakSanitizer and Valgrind memcheck
 * do, with memcheck's categories (docs/capture.md, "Leaks at exit").
 *
 * The live blocks are the live table's (address, size, id, stack), copied
 * into memory of our own and sorted by address (radix sort: glibc's qsort
 * may call malloc). The roots are every private writable mapping of
 * /proc/self/maps — the modules' data and bss, other threads' stacks and
 * TLS, anonymous memory of the program — except the mappings that hold the
 * start of a live block (malloc's heaps, its arenas, mmap'd chunks) and
 * [heap], shared mappings (the session segment), and the preload's own
 * memory (its data and bss, and what hl_sys_map_anon mapped: packets and
 * tables full of block addresses); of the exiting thread's stack only
 * [sp, top), its callee-saved registers spilled into our frame first.
 * /proc/self/maps gives what dl_iterate_phdr would (the modules' writable
 * PT_LOADs are its rw-p lines and the anonymous bss after them) without
 * taking the loader's lock at exit.
 *
 * Other threads still run. Every byte is read with process_vm_readv on
 * ourselves, so memory unmapped meanwhile gives EFAULT (counted: the
 * scan is then incomplete), never SIGSEGV. Blocks allocated during the
 * scan are not known (their contents are not scanned); blocks freed
 * during it may still be counted.
 *
 * Marking: every aligned word that points at a block's first byte marks
 * it reached by a start pointer, into [start, start + size) by an interior
 * pointer. A block reached through a start-pointer chain from a root is
 * still reachable by a start pointer, possibly lost by interior pointers
 * only (what reaches the memory holding the pointer does not matter:
 * memcheck's own rule, though its manual files a start pointer inside a
 * possibly-lost block under "possibly lost"); Valgrind's default
 * heuristics make some interior pointers count as start pointers (below).
 * The rest are lost: taken in address order,
 * each block not yet reached leads a clique, and every unreached block
 * found from it (through any pointer) is indirectly lost — so a cycle has
 * one definitely-lost head, as memcheck reports it. Worklists, not
 * recursion; no allocation but mmap. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK        (64u * 1024u)  /* bytes read per process_vm_readv */
#define BATCH_IOV    256u           /* blocks read per call */
#define MAPS_BUF     (64u * 1024u)

enum
{
  ST_UNREACHED = 0,
  ST_POSSIBLE  = 1,
  ST_REACHABLE = 2,
  ST_INDIRECT  = 3,
  ST_LEADER    = 4, /* unreached, leading its clique: definitely lost */
};

/* Valgrind's default leak-check heuristics (--leak-check-heuristics=all
 * but multipleinheritance): an interior pointer that an allocator or a
 * runtime keeps on purpose counts as a start pointer. length64: to byte 8
 * of a block whose first word is its size less 8 (sqlite3's allocator);
 * newarray: to byte 8 of a block whose first word divides its size less 8
 * (C++ new[] of objects with destructors, the count first); stdstring: to
 * byte 24 of a block whose first two words are a length and a capacity
 * that fit (libstdc++'s old std::string). */
enum
{
  H_CHECKED = 1u << 0,
  H_AT8     = 1u << 1,
  H_AT24    = 1u << 2,
  H_YOUNG   = 1u << 8, /* a scan on demand: allocated in its last YOUNG_NS,
                        * taken as a root and counted in no kind */
};

/* A scan on demand runs while the program does: a block allocated in the
 * last few ms may have its only pointer in a register of a running call
 * (another thread's, or ours: the scan runs inside an allocation call).
 * Those blocks are scanned as roots and left out of the kinds. Two coarse
 * clock ticks (docs/capture.md, "Leaks on demand"). */
#define YOUNG_NS (8u * 1000u * 1000u)

typedef struct
{
  uint64_t addr;
  uint64_t size;
  uint64_t id;
  uint32_t stack_id;
  uint16_t state;
  uint16_t heur;   /* H_*: read once, when an interior pointer may need it */
} Block;

typedef struct
{
  Block    *blocks;
  uint64_t  n;
  uint64_t  lo, hi;        /* the first block's start, the last block's end */
  uint32_t *work;          /* block indices to scan */
  uint64_t  n_work, cap_work;
  uint8_t  *buf;           /* CHUNK bytes */
  pid_t     pid;
  bool      incomplete;
  bool      unavailable;   /* process_vm_readv refused (seccomp, ENOSYS) */
  int       read_errno;
  uint64_t  roots_bytes;
  uint64_t  blocks_scanned;
  /* the current clique (phase 2): its leader, or UINT64_MAX in phase 1 */
  uint64_t  leader;
  uintptr_t stack_sp, stack_hi;   /* the exiting thread's [sp, top) */
  uint64_t  young_from;    /* blocks allocated at or after (ns since start)
                            * are young (H_YOUNG); UINT64_MAX: none */
  uint64_t  n_young;
} Scan;

/* ---- Memory of our own -------------------------------------------------- */

static void *
map_array (uint64_t n,
           size_t   elem)
{
  if (n == 0)
    n = 1;
  if (n > (UINT64_C (1) << 40) / elem)
    return NULL;
  return hl_sys_map_anon ((size_t) (n * elem));
}

static void
unmap_array (void     *p,
             uint64_t  n,
             size_t    elem)
{
  if (p != NULL)
    hl_sys_unmap_anon (p, (size_t) ((n == 0 ? 1 : n) * elem));
}

/* ---- Sorting (LSD radix on 8-bit digits; passes where every key shares
 * the digit are skipped) --------------------------------------------------- */

static void
radix_sort (Block    *a,
            Block    *tmp,
            uint64_t  n,
            bool      by_id)
{
  static uint64_t count[256];
  for (unsigned shift = 0; shift < 64; shift += 8)
    {
      memset (count, 0, sizeof count);
      for (uint64_t i = 0; i < n; i++)
        count[((by_id ? a[i].id : a[i].addr) >> shift) & 0xff]++;
      bool trivial = false;
      for (unsigned d = 0; d < 256; d++)
        if (count[d] == n)
          trivial = true;
      if (trivial)
        continue;
      uint64_t sum = 0;
      for (unsigned d = 0; d < 256; d++)
        {
          uint64_t c = count[d];
          count[d] = sum;
          sum += c;
        }
      for (uint64_t i = 0; i < n; i++)
        tmp[count[((by_id ? a[i].id : a[i].addr) >> shift) & 0xff]++] = a[i];
      memcpy (a, tmp, (size_t) n * sizeof *a);
    }
}

/* ---- The live blocks ----------------------------------------------------- */

/* Copies the table's consistent entries (address read again after the
 * fields) into S->blocks; false when memory cannot be had. */
static bool
copy_blocks (Scan *s)
{
  uint64_t slots = hl_live_backed_slots ();
  uint64_t n = 0;
  for (uint64_t i = 0; i < slots; i++)
    if (__atomic_load_n (&hl_g.live_slots[i].address_atomic, __ATOMIC_RELAXED) > HL_SHM_LIVE_BUSY)
      n++;
  /* room for blocks entered while we count */
  uint64_t cap = n + n / 8 + 64;
  s->blocks = map_array (cap, sizeof (Block));
  if (s->blocks == NULL)
    return false;
  s->n = 0;
  for (uint64_t i = 0; i < slots && s->n < cap; i++)
    {
      HlShmLiveEntry *e = &hl_g.live_slots[i];
      uint64_t a = __atomic_load_n (&e->address_atomic, __ATOMIC_ACQUIRE);
      if (a <= HL_SHM_LIVE_BUSY)
        continue;
      HlShmLiveSlot slot;
      hl_shm_live_unpack (a, e->id_time, e->size_time, e->stack_tid, &slot);
      if (__atomic_load_n (&e->address_atomic, __ATOMIC_ACQUIRE) != a)
        continue;
      bool young = slot.time_ns >= s->young_from;
      s->blocks[s->n++] = (Block) { a, slot.size, slot.alloc_id, slot.stack_id,
                                    young ? ST_REACHABLE : ST_UNREACHED, young ? H_YOUNG : 0 };
    }
  Block *tmp = map_array (s->n, sizeof (Block));
  if (tmp == NULL)
    return false;
  radix_sort (s->blocks, tmp, s->n, false);
  unmap_array (tmp, s->n, sizeof (Block));
  /* cap is what was mapped: kept in n_work's place until the end */
  s->cap_work = cap;
  if (s->n > 0)
    {
      s->lo = s->blocks[0].addr;
      s->hi = 0;
      for (uint64_t i = 0; i < s->n; i++)
        if (s->blocks[i].addr + s->blocks[i].size > s->hi)
          s->hi = s->blocks[i].addr + s->blocks[i].size;
    }
  return true;
}

/* The block holding V ([start, start + size), or start itself for a
 * block of 0 bytes), or UINT64_MAX. */
static inline uint64_t
find_block (const Scan *s,
            uint64_t    v)
{
  uint64_t lo = 0, hi = s->n;
  while (lo < hi)
    {
      uint64_t mid = lo + (hi - lo) / 2;
      if (s->blocks[mid].addr <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return UINT64_MAX;
  const Block *b = &s->blocks[lo - 1];
  return v < b->addr + b->size || v == b->addr ? lo - 1 : UINT64_MAX;
}

/* Whether a block starts in [LO, HI). */
static bool
holds_block_start (const Scan *s,
                   uint64_t    lo,
                   uint64_t    hi)
{
  uint64_t a = 0, b = s->n;
  while (a < b)
    {
      uint64_t mid = a + (b - a) / 2;
      if (s->blocks[mid].addr < lo)
        a = mid + 1;
      else
        b = mid;
    }
  return a < s->n && s->blocks[a].addr < hi;
}

/* ---- Marking ------------------------------------------------------------- */

static inline void
push (Scan     *s,
      uint64_t  i)
{
  /* a block is pushed at most twice in phase 1 (reached, then upgraded)
   * and once in phase 2: the list has room for 2n + 1 */
  if (s->n_work < s->cap_work)
    s->work[s->n_work++] = (uint32_t) i;
}

static ssize_t read_self (Scan *s, const struct iovec *remote, unsigned long n, size_t total);

/* Whether the interior pointer V into B counts as a start pointer (the
 * heuristics above); B's first words are read once. */
static bool
heuristic_start (Scan     *s,
                 Block    *b,
                 uint64_t  v)
{
  uint64_t off = v - b->addr;
  if ((off != 8 || b->size < 8) && (off != 24 || b->size < 25))
    return false;
  if ((b->heur & H_CHECKED) == 0)
    {
      uint64_t w[3] = { 0, 0, 0 };
      size_t len = b->size >= 24 ? 24 : 8;
      struct iovec local = { w, len }, remote = { (void *) (uintptr_t) b->addr, len };
      b->heur = (uint16_t) ((b->heur & H_YOUNG) | H_CHECKED);
      if ((ssize_t) syscall (SYS_process_vm_readv, s->pid, &local, 1ul, &remote, 1ul, 0ul) == (ssize_t) len)
        {
          uint64_t rest = b->size - 8;
          if (w[0] == rest || (w[0] > 0 && w[0] <= rest && rest % w[0] == 0))
            b->heur |= H_AT8;
          if (b->size >= 25 && w[0] <= w[1] && w[1] <= b->size - 25)
            b->heur |= H_AT24;
        }
    }
  return (b->heur & (off == 8 ? H_AT8 : H_AT24)) != 0;
}

/* A pointer V found in memory of state FROM (ST_REACHABLE for a root). */
static inline void
found (Scan     *s,
       uint64_t  v,
       uint32_t  from)
{
  uint64_t i = find_block (s, v);
  if (i == UINT64_MAX)
    return;
  Block *b = &s->blocks[i];
  if (s->leader != UINT64_MAX)
    {
      /* phase 2: unreached blocks found from a lost one are indirectly
       * lost, an earlier clique's leader included */
      if (i == s->leader || (b->state != ST_UNREACHED && b->state != ST_LEADER))
        return;
      bool was_leader = b->state == ST_LEADER;
      b->state = ST_INDIRECT;
      if (!was_leader) /* a leader's clique was scanned already */
        push (s, i);
      return;
    }
  /* as memcheck does it: the kind of this pointer decides, whatever
   * reached the memory it is in (a start pointer inside a possibly-lost
   * block makes its target still reachable) */
  (void) from;
  uint32_t to = v == b->addr || heuristic_start (s, b, v) ? ST_REACHABLE : ST_POSSIBLE;
  if (b->state < to)
    {
      b->state = to;
      push (s, i);
    }
}

static inline void
scan_words (Scan          *s,
            const uint8_t *p,
            size_t         len,
            uint32_t       from)
{
  const uint8_t *end = p + (len & ~(size_t) 7);
  for (; p < end; p += 8)
    {
      uint64_t v;
      memcpy (&v, p, 8);
      if (v >= s->lo && v <= s->hi)
        found (s, v, from);
    }
}

/* process_vm_readv on ourselves: N remote ranges into the buffer. */
static ssize_t
read_self (Scan               *s,
           const struct iovec *remote,
           unsigned long       n,
           size_t              total)
{
  struct iovec local = { s->buf, total };
  ssize_t r = (ssize_t) syscall (SYS_process_vm_readv, s->pid, &local, 1ul, remote, n, 0ul);
  if (r < 0 && errno != EFAULT && errno != ENOMEM && errno != EINTR)
    {
      s->unavailable = true;
      s->read_errno = errno;
    }
  return r;
}

/* Scans [LO, HI) as roots, in chunks; a page that cannot be read is
 * skipped and makes the scan incomplete. */
static void
scan_range (Scan      *s,
            uintptr_t  lo,
            uintptr_t  hi)
{
  lo = (lo + 7) & ~(uintptr_t) 7;
  while (lo < hi && !s->unavailable)
    {
      size_t len = hi - lo < CHUNK ? hi - lo : CHUNK;
      struct iovec remote = { (void *) lo, len };
      ssize_t r = read_self (s, &remote, 1, len);
      if (r > 0)
        {
          scan_words (s, s->buf, (size_t) r, ST_REACHABLE);
          s->roots_bytes += (uint64_t) r;
        }
      if (r == (ssize_t) len)
        {
          lo += len;
          continue;
        }
      s->incomplete = true;
      /* past the page that failed */
      uintptr_t at = lo + (r > 0 ? (uintptr_t) r : 0);
      lo = (at + 4096) & ~(uintptr_t) 4095;
    }
}

/* Scans the blocks on the worklist (and those they reach), batched: one
 * call reads up to BATCH_IOV blocks of at most CHUNK bytes together. */
static void
drain (Scan *s)
{
  struct iovec remote[BATCH_IOV];
  uint32_t idx[BATCH_IOV];
  while (s->n_work > 0 && !s->unavailable)
    {
      unsigned n = 0;
      size_t total = 0;
      while (s->n_work > 0 && n < BATCH_IOV)
        {
          uint32_t i = s->work[s->n_work - 1];
          Block *b = &s->blocks[i];
          size_t len = b->size & ~(uint64_t) 7;
          if (len > CHUNK)
            {
              if (n > 0)
                break; /* alone, below */
              s->n_work--;
              s->blocks_scanned++;
              uint32_t from = s->leader != UINT64_MAX ? ST_INDIRECT : b->state;
              /* a large block in chunks, as a root is read, with its state */
              for (uint64_t off = 0; off < len && !s->unavailable; off += CHUNK)
                {
                  size_t part = len - off < CHUNK ? (size_t) (len - off) : CHUNK;
                  struct iovec one = { (void *) (uintptr_t) (b->addr + off), part };
                  ssize_t r = read_self (s, &one, 1, part);
                  if (r > 0)
                    scan_words (s, s->buf, (size_t) r, from);
                  if (r != (ssize_t) part)
                    s->incomplete = true;
                }
              goto next;
            }
          if (total + len > CHUNK)
            break;
          s->n_work--;
          if (len == 0)
            continue;
          remote[n] = (struct iovec) { (void *) (uintptr_t) b->addr, len };
          idx[n++] = i;
          total += len;
        }
      /* the states before scanning: what the words found inherit */
      uint32_t from[BATCH_IOV];
      for (unsigned k = 0; k < n; k++)
        from[k] = s->leader != UINT64_MAX ? ST_INDIRECT : s->blocks[idx[k]].state;
      unsigned k = 0;
      while (k < n && !s->unavailable)
        {
          size_t want = 0;
          for (unsigned j = k; j < n; j++)
            want += remote[j].iov_len;
          ssize_t r = read_self (s, &remote[k], n - k, want);
          size_t got = r > 0 ? (size_t) r : 0, off = 0;
          /* whole blocks read; the one at the fault is skipped */
          while (k < n && off + remote[k].iov_len <= got)
            {
              scan_words (s, s->buf + off, remote[k].iov_len, from[k]);
              s->blocks_scanned++;
              off += remote[k].iov_len;
              k++;
            }
          if (k < n && (size_t) r != want)
            {
              s->incomplete = true;
              k++;
            }
        }
    next:;
    }
}

/* ---- Roots ----------------------------------------------------------------- */

static uintptr_t
parse_hex (const char **p,
           const char  *end)
{
  uintptr_t v = 0;
  for (; *p < end; (*p)++)
    {
      char c = **p;
      unsigned d;
      if (c >= '0' && c <= '9')
        d = (unsigned) (c - '0');
      else if (c >= 'a' && c <= 'f')
        d = (unsigned) (c - 'a' + 10);
      else
        break;
      v = v << 4 | d;
    }
  return v;
}

/* Scans [LO, HI) without the preload's own ranges (its image and what it
 * mapped). */
static void
scan_without_own (Scan      *s,
                  uintptr_t  lo,
                  uintptr_t  hi)
{
  uint32_t n_own;
  const HlSysRange *own = hl_sys_own_ranges (&n_own);
  uintptr_t self_lo = hl_g.self_lo & ~(uintptr_t) 4095;
  uintptr_t self_hi = (hl_g.self_hi + 4095) & ~(uintptr_t) 4095;
  while (lo < hi)
    {
      /* the lowest own range that overlaps [lo, hi) */
      uintptr_t cut_lo = hi, cut_hi = hi;
      if (self_lo < hi && self_hi > lo)
        {
          cut_lo = self_lo;
          cut_hi = self_hi;
        }
      for (uint32_t i = 0; i < n_own; i++)
        {
          uintptr_t a = __atomic_load_n (&own[i].lo, __ATOMIC_ACQUIRE);
          uintptr_t b = __atomic_load_n (&own[i].hi, __ATOMIC_ACQUIRE);
          if (a < b && a < hi && b > lo && a < cut_lo)
            {
              cut_lo = a;
              cut_hi = b;
            }
        }
      if (cut_lo > lo)
        scan_range (s, lo, cut_lo < hi ? cut_lo : hi);
      lo = cut_hi > cut_lo ? cut_hi : hi;
      if (cut_lo >= hi)
        break;
    }
}

/* One line of /proc/self/maps: "lo-hi perms offset dev inode   path". */
static void
root_line (Scan       *s,
           const char *p,
           const char *end)
{
  uintptr_t lo = parse_hex (&p, end);
  if (p >= end || *p != '-')
    return;
  p++;
  uintptr_t hi = parse_hex (&p, end);
  if (end - p < 5 || p[1] != 'r' || p[2] != 'w' || p[4] != 'p')
    return; /* not readable, not writable, or shared */
  /* the path: after the fifth field */
  const char *q = p + 5;
  for (int field = 0; field < 3 && q < end; field++)
    {
      while (q < end && *q == ' ')
        q++;
      while (q < end && *q != ' ')
        q++;
    }
  while (q < end && *q == ' ')
    q++;
  size_t plen = (size_t) (end - q);
  if (plen > 0 && q[0] == '[' && !(plen >= 7 && memcmp (q, "[stack]", 7) == 0)
      && !(plen >= 6 && memcmp (q, "[anon:", 6) == 0))
    return; /* [heap] (malloc's), [vvar], [vsyscall] ... */
  if (holds_block_start (s, lo, hi))
    return; /* an arena, a heap of one, an mmap'd chunk */
  if (s->stack_sp >= lo && s->stack_sp < hi)
    {
      s->stack_hi = hi;
      return; /* the exiting thread's stack: from sp only, below */
    }
  scan_without_own (s, lo, hi);
}

static void
scan_maps (Scan *s)
{
  int fd = (int) syscall (SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      s->incomplete = true;
      return;
    }
  /* the text read after the CHUNK bytes root_line reads memory into */
  char *text = (char *) s->buf + CHUNK;
  size_t have = 0;
  for (;;)
    {
      ssize_t r = (ssize_t) syscall (SYS_read, fd, text + have, MAPS_BUF - have);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      have += (size_t) r;
      size_t start = 0;
      for (size_t i = 0; i < have; i++)
        if (text[i] == '\n')
          {
            root_line (s, text + start, text + i);
            start = i + 1;
          }
      memmove (text, text + start, have - start);
      have -= start;
      if (have == MAPS_BUF)
        have = 0; /* a line longer than the buffer: dropped */
    }
  (void) syscall (SYS_close, fd);
}

/* The exiting thread: callee-saved registers spilled into this frame, then
 * its stack from here to the top of its mapping. Not inlined, so that the
 * frame is below everything of the program's. */
static __attribute__ ((noinline)) void
scan_own_stack (Scan *s)
{
  __builtin_unwind_init ();
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__ volatile ("mov %%rsp, %0" : "=r" (sp));
#elif defined(__aarch64__)
  __asm__ volatile ("mov %0, sp" : "=r" (sp));
#else
  sp = (uintptr_t) __builtin_frame_address (0) - 256;
#endif
  if (s->stack_hi > sp)
    scan_range (s, sp, s->stack_hi);
}

/* ---- Phase 2 and the records ---------------------------------------------- */

static void
cliques (Scan *s)
{
  for (uint64_t i = 0; i < s->n && !s->unavailable; i++)
    {
      if (s->blocks[i].state != ST_UNREACHED)
        continue;
      s->blocks[i].state = ST_LEADER;
      s->leader = i;
      push (s, i);
      drain (s);
    }
  s->leader = UINT64_MAX;
}

static HlReachKind
kind_of (uint32_t state)
{
  switch (state)
    {
    case ST_REACHABLE: return HL_REACH_STILL_REACHABLE;
    case ST_POSSIBLE:  return HL_REACH_POSSIBLY_LOST;
    case ST_INDIRECT:  return HL_REACH_INDIRECTLY_LOST;
    default:           return HL_REACH_DEFINITELY_LOST;
    }
}

/* Writes the totals and the records of blocks not still reachable, in
 * REACHABILITY events of as many packets as they take. */
static void
write_events (Scan                *s,
              const HlReachTotals *t0)
{
  int fd = hl_trace_fd_checked ();
  if (fd < 0)
    return;
  /* the records, sorted by id, in the blocks' place (their order is not
   * needed any more) */
  uint64_t n = 0;
  for (uint64_t i = 0; i < s->n; i++)
    if (s->blocks[i].state != ST_REACHABLE)
      s->blocks[n++] = s->blocks[i];
  Block *tmp = map_array (n, sizeof (Block));
  HlReachRecord *rec = map_array (n, sizeof (HlReachRecord));
  if ((tmp == NULL && n > 0) || (rec == NULL && n > 0))
    {
      unmap_array (tmp, n, sizeof (Block));
      unmap_array (rec, n, sizeof (HlReachRecord));
      return;
    }
  radix_sort (s->blocks, tmp, n, true);
  for (uint64_t i = 0; i < n; i++)
    rec[i] = (HlReachRecord) { s->blocks[i].id, s->blocks[i].size, s->blocks[i].stack_id,
                               (uint32_t) kind_of (s->blocks[i].state) };
  static HlPacketWriter w;
  static uint8_t packet[HL_PACKET_MAX_SIZE];
  HlReachTotals t = *t0;
  uint64_t done = 0;
  do
    {
      uint64_t now = hl_now ();
      hl_packet_writer_init (&w, packet, sizeof packet, hl_g.pid, hl_sys_gettid ());
      hl_packet_writer_begin (&w, now);
      size_t wrote = 0;
      while (hl_packet_writer_reachability (&w, now, &t, rec + done, (size_t) (n - done), &wrote) == HL_WRITE_OK)
        {
          t.flags &= ~(uint32_t) HL_REACH_FLAG_FIRST;
          done += wrote;
          if (done == n)
            break;
        }
      size_t len = hl_packet_writer_finish (&w);
      if (len == 0 || hl_trace_write (fd, packet, len) != 0)
        break;
    }
  while (done < n);
  unmap_array (tmp, n, sizeof (Block));
  unmap_array (rec, n, sizeof (HlReachRecord));
}

/* An INFO packet of one pair. */
static void
write_info (const char *key,
            const char *value)
{
  int fd = hl_trace_fd_checked ();
  if (fd < 0)
    return;
  static HlPacketWriter w;
  static uint8_t packet[1024];
  const char *keys[1] = { key };
  const char *values[1] = { value };
  hl_packet_writer_init (&w, packet, sizeof packet, hl_g.pid, hl_sys_gettid ());
  size_t len = hl_packet_writer_info (&w, hl_now (), keys, values, 1);
  if (len > 0)
    (void) hl_trace_write (fd, packet, len);
}

/* One scan, exit's or on demand's: HL_SHM_LEAK_SCAN_DONE with its totals
 * in *T (its events written to the trace), or why not (*READ_ERRNO:
 * process_vm_readv's). One at a time: a scan on demand that is running
 * when the program exits leaves the exit without one. */
static _Atomic int scanning;

static uint32_t
scan (bool           on_demand,
      uint64_t       now,
      HlReachTotals *t,
      int           *read_errno)
{
  memset (t, 0, sizeof *t);
  *read_errno = 0;
  if (!hl_g.cfg.leak_scan)
    return HL_SHM_LEAK_SCAN_OFF;
  if (hl_g.trace_fd < 0 || hl_g.live_slots == NULL)
    return HL_SHM_LEAK_SCAN_NO_TRACE;
  /* a sampled recording knows only its sampled blocks, an attached one
   * none of those allocated before the attach: every block they point to
   * would look lost */
  if (hl_g.cfg.sample_bytes != 0)
    return HL_SHM_LEAK_SCAN_SAMPLED;
  if (hl_g.late)
    return HL_SHM_LEAK_SCAN_ATTACHED;
  if (atomic_exchange (&scanning, 1) != 0)
    return HL_SHM_LEAK_SCAN_NONE;
  uint64_t t_start = hl_sys_fine_ns ();
  /* not on the stack, which is scanned: it holds the heap's bounds */
  static Scan s;
  memset (&s, 0, sizeof s);
  s.pid = (pid_t) hl_g.pid;
  s.leader = UINT64_MAX;
  s.young_from = on_demand ? (now > YOUNG_NS ? now - YOUNG_NS : 0) : UINT64_MAX;
  s.buf = map_array (CHUNK + MAPS_BUF, 1);
  bool ok = s.buf != NULL && copy_blocks (&s);
  uint64_t cap_blocks = s.cap_work;
  if (ok)
    {
      s.cap_work = 2 * s.n + 1;
      s.work = map_array (s.cap_work, sizeof (uint32_t));
      ok = s.work != NULL;
    }
  /* the young blocks are roots (their state already reachable) */
  for (uint64_t i = 0; ok && i < s.n; i++)
    if ((s.blocks[i].heur & H_YOUNG) != 0)
      {
        push (&s, i);
        s.n_young++;
      }
  if (ok && s.n > 0)
    {
      s.stack_sp = (uintptr_t) __builtin_frame_address (0);
      scan_maps (&s);
      scan_own_stack (&s);
      drain (&s);
      cliques (&s);
    }
  uint32_t status = HL_SHM_LEAK_SCAN_DONE;
  if (!ok)
    status = HL_SHM_LEAK_SCAN_NO_MEMORY;
  else if (s.unavailable)
    {
      status = HL_SHM_LEAK_SCAN_UNREADABLE;
      *read_errno = s.read_errno;
    }
  else
    {
      t->flags = HL_REACH_FLAG_FIRST | (on_demand ? HL_REACH_FLAG_ON_DEMAND : 0u);
      if (s.incomplete || __atomic_load_n (&hl_g.live->n_dropped_atomic, __ATOMIC_RELAXED) > 0)
        t->flags |= HL_REACH_FLAG_INCOMPLETE;
      for (uint64_t i = 0; i < s.n; i++)
        {
          if ((s.blocks[i].heur & H_YOUNG) != 0)
            continue;
          HlReachKind k = kind_of (s.blocks[i].state);
          t->blocks[k]++;
          t->bytes[k] += s.blocks[i].size;
        }
      t->roots_bytes = s.roots_bytes;
      t->blocks_scanned = s.blocks_scanned;
      t->scan_ns = hl_sys_fine_ns () - t_start;
      write_events (&s, t);
    }
  unmap_array (s.work, s.cap_work, sizeof (uint32_t));
  unmap_array (s.blocks, cap_blocks, sizeof (Block));
  unmap_array (s.buf, CHUNK + MAPS_BUF, 1);
  atomic_store (&scanning, 0);
  return status;
}

void
hl_leakscan_run (void)
{
  int saved_errno = errno;
  HlReachTotals t;
  int read_errno;
  uint32_t status = scan (false, 0, &t, &read_errno);
  char msg[96];
  switch (status)
    {
    case HL_SHM_LEAK_SCAN_SAMPLED:
      write_info ("leak_scan", "skipped: sampling mode records only sampled blocks");
      break;
    case HL_SHM_LEAK_SCAN_ATTACHED:
      write_info ("leak_scan", "skipped: attached (blocks allocated before the attach are unknown)");
      break;
    case HL_SHM_LEAK_SCAN_UNREADABLE:
      {
        size_t k = hl_strlcpy (msg, "skipped: process_vm_readv failed, errno ", sizeof msg);
        hl_fmt_u64 (msg + k, (uint64_t) read_errno);
        write_info ("leak_scan", msg);
      }
      break;
    case HL_SHM_LEAK_SCAN_NO_MEMORY:
      write_info ("leak_scan", "skipped: no memory for the scan");
      break;
    case HL_SHM_LEAK_SCAN_NONE:
      write_info ("leak_scan", "skipped: a scan on demand was running at the exit");
      break;
    default:
      break;   /* done, or off / no trace: nothing to say (as before) */
    }
  errno = saved_errno;
}

/* Publishes the scan's outcome in the session header (a sequence made odd
 * while the fields are written, even after). */
static void
publish (uint32_t             status,
         const HlReachTotals *t,
         int                  read_errno,
         uint64_t             now)
{
  HlShmLeakScan *l = &hl_g.hdr->leak_scan;
  uint32_t seq = __atomic_load_n (&l->seq_atomic, __ATOMIC_RELAXED);
  __atomic_store_n (&l->seq_atomic, seq | 1u, __ATOMIC_RELAXED);
  atomic_thread_fence (memory_order_release);
  for (int k = 0; k < HL_REACH_KINDS; k++)
    {
      __atomic_store_n (&l->blocks[k], t->blocks[k], __ATOMIC_RELAXED);
      __atomic_store_n (&l->bytes[k], t->bytes[k], __ATOMIC_RELAXED);
    }
  __atomic_store_n (&l->time_ns, now, __ATOMIC_RELAXED);
  __atomic_store_n (&l->scan_ns, t->scan_ns, __ATOMIC_RELAXED);
  __atomic_store_n (&l->status, status, __ATOMIC_RELAXED);
  __atomic_store_n (&l->flags,
                    status == HL_SHM_LEAK_SCAN_UNREADABLE ? (uint32_t) read_errno
                                                          : t->flags & (uint32_t) HL_REACH_FLAG_INCOMPLETE,
                    __ATOMIC_RELAXED);
  __atomic_store_n (&l->seq_atomic, (seq | 1u) + 1u, __ATOMIC_RELEASE);
}

void
hl_leakscan_poll (HlThreadBlock *b,
                  uint64_t       now)
{
  /* where an allocator sample may run (hl_allocator_tick): not inside the
   * real allocator, an mmap, a signal handler's shadow block or our own
   * nested call */
  if (b == NULL || b->is_shadow || b->strip_self != 0 || hl_tls.in_real != 0 || hl_tls.in_mmap != 0
      || hl_tls.guard != 1 || hl_g.hdr == NULL
      /* the exit's own scan follows (its last tick comes first) */
      || atomic_load_explicit (&hl_g.ended, memory_order_relaxed)
      || (__atomic_fetch_and (&hl_g.hdr->control_atomic, ~(uint32_t) HL_SHM_CONTROL_LEAK_SCAN, __ATOMIC_ACQ_REL)
          & HL_SHM_CONTROL_LEAK_SCAN) == 0)
    return;
  int saved_errno = errno;
  /* this thread's events first, so that the scan's follow them */
  hl_callsites_flush (b, now);
  hl_trace_flush (b, now);
  HlReachTotals t;
  int read_errno;
  uint32_t status = scan (true, now, &t, &read_errno);
  if (status != HL_SHM_LEAK_SCAN_NONE)
    publish (status, &t, read_errno, now);
  errno = saved_errno;
}
