/* hl-launch-clock.c — the recorder keeps the clock of the program it runs
 * (hl-launch-clock.h).
 *
 * The thread wakes every tick_ns () (half the coarse clock's resolution,
 * 1 to 4 ms; absolute deadlines: a late wake-up does not shift the next)
 * and stores CLOCK_MONOTONIC_COARSE into the clock word of every session
 * it keeps: the clock the preload reads without a recorder, so the times
 * are the same (the finer CLOCK_MONOTONIC made python3's trace 6 %
 * larger: more distinct time deltas). It looks for sessions in /dev/shm
 * at every tick of the first 64, then every DISCOVER_TICKS: the program's own
 * and its descendants' (hl-launch-family.h), as record's streams find
 * them (hl_live_session_list). A session is validated by the shm reader first, then its header page alone is mapped
 * for writing; an ended session is let go. Every access to a mapped
 * segment runs under hl_shm_guard_run: a segment its owner shrank raises
 * SIGBUS, which must not take the recorder (the application) down; such a
 * session is let go. */
#define _GNU_SOURCE
#include "hl-launch-clock.h"

#include <fcntl.h>
#include <glib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hl-live-discovery.h"
#include "hl-launch-family.h"
#include "hl-shm-guard.h"
#include "hl-shm-layout.h"

#define DISCOVER_TICKS  16u      /* once a session is kept: look for new ones every 16 ticks */
#define MAX_TRIES       64u      /* a session not known to be ours is looked at this often */

typedef struct
{
  char        *name;
  HlShmHeader *header; /* its first page, mapped for writing */
} Kept;

struct HlLaunchClock
{
  GThread    *thread;
  GMutex      lock;    /* stop, and the wait between ticks */
  GCond       wake;
  atomic_int  stop;
  HlLaunchFamily *family; /* the program and its descendants found so far */
  GHashTable *tries;   /* name -> times looked at without a decision; G_MAXUINT: decided */
  GArray     *kept;    /* Kept */
};

static uint64_t
now_ns (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* The header page of segment NAME, mapped for writing, when it is still
 * the session of PID started at START_WALL_NS; NULL otherwise. */
static HlShmHeader *
map_header (const char *name,
            guint32     pid,
            guint64     start_wall_ns)
{
  g_autofree char *path = g_strconcat ("/dev/shm/", name, NULL);
  int fd = open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == getuid ()
      && st.st_size >= HL_SHM_HEADER_SIZE)
    map = mmap (NULL, HL_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return NULL;
  HlShmHeader *h = map;
  /* the same session the reader validated, not a new one of that name */
  if (memcmp (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) != 0 || h->version != HL_SHM_VERSION
      || h->pid != pid || h->start_wall_ns != start_wall_ns)
    {
      munmap (map, HL_SHM_HEADER_SIZE);
      return NULL;
    }
  return h;
}

static void
decide (HlLaunchClock *c,
        const char    *name)
{
  g_hash_table_insert (c->tries, g_strdup (name), GUINT_TO_POINTER (G_MAXUINT));
}

/* Session NAME, found in /dev/shm: kept, let go, or looked at again. */
static void
discover (HlLaunchClock *c,
          const char    *name)
{
  guint tries = GPOINTER_TO_UINT (g_hash_table_lookup (c->tries, name));
  if (tries == G_MAXUINT)
    return;
  g_autoptr(HlLiveSessionInfo) info = hl_live_session_info_read (name);
  if (!info->readable)
    return; /* not ready yet (being created), or not a session: looked at again */
  HlLaunchFamilyVerdict verdict = hl_launch_family_judge (c->family, info->pid, info->ppid, info->start_wall_ns,
                                                          info->launcher_pid);
  gboolean ended = info->state == HL_LIVE_STATE_ENDED || info->state == HL_LIVE_STATE_RESTARTED;
  if (verdict == HL_LAUNCH_FAMILY_BEFORE || (verdict == HL_LAUNCH_FAMILY_OURS && ended))
    {
      /* not the program's; or over already (a short-lived child): nothing
       * to keep, but its children are ours (judged so) */
      decide (c, name);
      return;
    }
  if (verdict == HL_LAUNCH_FAMILY_OTHER)
    {
      /* another program's, or a descendant whose parent is not found yet */
      if (++tries >= MAX_TRIES)
        decide (c, name);
      else
        g_hash_table_insert (c->tries, g_strdup (name), GUINT_TO_POINTER (tries));
      return;
    }
  decide (c, name);
  Kept k = { .name = g_strdup (name), .header = map_header (name, info->pid, info->start_wall_ns) };
  if (k.header == NULL)
    {
      g_free (k.name);
      return;
    }
  g_array_append_val (c->kept, k);
}

/* The caller's sessions in /dev/shm (each read under the SIGBUS guard,
 * hl-live-discovery.h). */
static void
discover_all (HlLaunchClock *c)
{
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    discover (c, ((const HlLiveSessionInfo *) g_ptr_array_index (list, i))->name);
}

static void
let_go (Kept *k)
{
  munmap (k->header, HL_SHM_HEADER_SIZE);
  g_free (k->name);
}

/* The clock word's period: half the coarse clock's resolution (its value
 * changes once a tick of the kernel: 4 ms with HZ=250), 1 to 4 ms. */
static long
tick_ns (void)
{
  struct timespec res;
  long half = clock_getres (CLOCK_MONOTONIC_COARSE, &res) == 0 && res.tv_sec == 0 ? res.tv_nsec / 2 : 0;
  return half < 1000000L ? 1000000L : half > 4000000L ? 4000000L : half;
}

/* Sleeps until DEADLINE (CLOCK_MONOTONIC ns, as g_get_monotonic_time's
 * microseconds) or the stop, whichever comes first: the program's exit
 * does not wait for a tick. */
static void
sleep_until (HlLaunchClock *c,
             uint64_t       deadline)
{
  gint64 until = (gint64) (deadline / 1000u);
  g_mutex_lock (&c->lock);
  while (!atomic_load (&c->stop) && g_cond_wait_until (&c->wake, &c->lock, until))
    ;
  g_mutex_unlock (&c->lock);
}

typedef struct
{
  HlShmHeader *header;
  uint64_t     now;
  bool         ended;
} Tick;

/* One session's tick: ended, or its word stored. */
static void
tick_guarded (gpointer data)
{
  Tick *t = data;
  t->ended = __atomic_load_n (&t->header->state_atomic, __ATOMIC_ACQUIRE) == HL_SHM_STATE_ENDED;
  if (!t->ended)
    __atomic_store_n (&t->header->clock_ns_atomic, t->now, __ATOMIC_RELEASE);
}

static void
zero_guarded (gpointer data)
{
  __atomic_store_n (&((Tick *) data)->header->clock_ns_atomic, 0, __ATOMIC_RELEASE);
}

static gpointer
keep_clock (gpointer data)
{
  HlLaunchClock *c = data;
  uint64_t period = (uint64_t) tick_ns ();
  /* ticks are scheduled on CLOCK_MONOTONIC; the word gets the coarse clock */
  uint64_t deadline = now_ns (CLOCK_MONOTONIC);
  for (guint tick = 0; !atomic_load (&c->stop); tick++)
    {
      /* the program's session appears within milliseconds of its start:
       * looked for at every tick until it is kept, then (descendants)
       * every DISCOVER_TICKS */
      bool looking = c->kept->len == 0 && tick < DISCOVER_TICKS * 4;
      if (looking || tick % DISCOVER_TICKS == 0)
        discover_all (c);
      Tick t = { .now = now_ns (CLOCK_MONOTONIC_COARSE) };
      for (guint i = 0; i < c->kept->len;)
        {
          Kept *k = &g_array_index (c->kept, Kept, i);
          t.header = k->header;
          bool ok = hl_shm_guard_run (tick_guarded, &t);
          if (!ok || t.ended)
            {
              /* ended: 0, so that what runs after the end (destructors, a
               * failed exec that goes on) reads the clock itself at once;
               * shrunk (SIGBUS): not written again */
              if (ok)
                (void) hl_shm_guard_run (zero_guarded, &t);
              let_go (k);
              g_array_remove_index_fast (c->kept, i);
              continue;
            }
          i++;
        }
      /* nothing to keep (no session yet, or all ended): only look for
       * new ones, every DISCOVER_TICKS */
      guint skip = !looking && c->kept->len == 0 ? DISCOVER_TICKS - tick % DISCOVER_TICKS : 1;
      tick += skip - 1;
      deadline += skip * period;
      uint64_t now = now_ns (CLOCK_MONOTONIC);
      if (deadline <= now)
        deadline = now + period; /* behind (the thread was not run): from now */
      sleep_until (c, deadline);
    }
  return NULL;
}

HlLaunchClock *
hl_launch_clock_start (pid_t    pid,
                       uint64_t since_wall_ns)
{
  HlLaunchClock *c = g_new0 (HlLaunchClock, 1);
  c->family = hl_launch_family_new ((uint32_t) pid, since_wall_ns);
  c->tries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  c->kept = g_array_new (FALSE, FALSE, sizeof (Kept));
  g_mutex_init (&c->lock);
  g_cond_init (&c->wake);
  c->thread = g_thread_try_new ("hl-clock", keep_clock, c, NULL);
  if (c->thread == NULL)
    {
      hl_launch_clock_stop (c);
      return NULL;
    }
  return c;
}

void
hl_launch_clock_stop (HlLaunchClock *c)
{
  if (c == NULL)
    return;
  if (c->thread != NULL)
    {
      g_mutex_lock (&c->lock);
      atomic_store (&c->stop, 1);
      g_cond_signal (&c->wake);
      g_mutex_unlock (&c->lock);
      g_thread_join (c->thread);
    }
  for (guint i = 0; i < c->kept->len; i++)
    {
      Tick t = { .header = g_array_index (c->kept, Kept, i).header };
      /* 0 (a descendant that outlives the program reads the clock itself) */
      (void) hl_shm_guard_run (zero_guarded, &t);
      let_go (&g_array_index (c->kept, Kept, i));
    }
  g_array_unref (c->kept);
  hl_launch_family_free (c->family);
  g_hash_table_unref (c->tries);
  g_cond_clear (&c->wake);
  g_mutex_clear (&c->lock);
  g_free (c);
}
