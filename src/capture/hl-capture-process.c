/* hl-capture-process.c — the end of a recording (everything flushed, the
 * END event, the session ended), fork (the child gets its own session and
 * trace, or none with HEAPLENS_FOLLOW=none) and the program's own _exit.
 * Exec: hl-capture-exec.c; fatal signals: hl-capture-signals.c. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

/* ---- Flushing everything --------------------------------------------------- */

static HlTraceBuffer emergency;

/* Flushes every thread's packet that is not being appended to right now
 * (async-signal-safe: only write(2)). */
void
hl_flush_all_for_exit (void)
{
  if (hl_g.blocks == NULL)
    return;
  uint64_t now = hl_now ();
  uint32_t max = atomic_load (&hl_g.blocks_max);
  for (uint32_t i = 0; i < max; i++)
    {
      HlThreadBlock *b = hl_thread_block_at (i);
      if (!atomic_load_explicit (&b->in_use, memory_order_acquire))
        continue;
      if (b == hl_tls.block ? hl_tls.guard > 1 : atomic_load (&b->busy) != 0)
        continue;
      hl_callsites_flush (b, now);
      hl_trace_flush (b, now);
    }
}

static void
write_end (int status)
{
  int fd = hl_trace_fd_checked ();
  if (fd < 0)
    return;
  uint64_t now = hl_now ();
  hl_packet_writer_init (&emergency.w, emergency.own.packet, sizeof emergency.own.packet, hl_g.pid,
                         hl_sys_gettid ());
  hl_packet_writer_begin (&emergency.w, now);
  hl_packet_writer_end (&emergency.w, now, status);
  size_t len = hl_packet_writer_finish (&emergency.w);
  (void) hl_trace_write (fd, emergency.own.packet, len);
}

/* Writes what is buffered, the END event, and marks the session ended.
 * Events after this point are written one packet each; the session stays
 * ACTIVE so that destructors running later are still counted. */
void
hl_capture_finish (int  exit_status,
                   bool have_status,
                   bool by_exec,
                   bool clean)
{
  /* a vfork child shares our memory and descriptors until it execs or
   * _exits: it must not end the parent's recording */
  if ((uint32_t) getpid () != hl_g.pid)
    return;
  if (atomic_exchange (&hl_g.ended, 1) != 0)
    return;
  hl_tls.guard++;
  hl_unwind_report ();
  int status = have_status ? exit_status : -1;
  HlThreadBlock *b = hl_thread_block_current ();
  if (b != NULL && hl_tls.guard == 1)
    hl_counters_tick (b, hl_now (), true);
  hl_flush_all_for_exit ();
  if (hl_g.late)
    hl_attach_end_info ();
  /* The leak scan, at a clean exit, in every process of the family */
  if (clean)
    hl_leakscan_run ();
  write_end (status);
  hl_session_end (status, by_exec);
  hl_tls.guard--;
}

/* ---- exec ------------------------------------------------------------------ */

/* The record of an exec that replaced the image, written after its END:
 * an INFO packet with replaced_by_exec (PROGRAM, as the exec was given
 * it) and replaced_by_exec_ns (when, on the trace's clock), which
 * `report` shows instead of the END's -1. An exec that failed (PROGRAM
 * NULL) writes replaced_by_exec empty: the image goes on, and its next
 * END is its exit status. A second thread's exec meanwhile writes none
 * (one buffer, taken or skipped). */
#define HL_EXEC_PROGRAM_MAX 1024u

static HlPacketWriter exec_writer;
static uint8_t exec_packet[HL_EXEC_PROGRAM_MAX + 256];
static atomic_flag exec_busy = ATOMIC_FLAG_INIT;

void
hl_capture_note_exec (const char *program)
{
  if ((uint32_t) getpid () != hl_g.pid || atomic_flag_test_and_set (&exec_busy))
    return;
  int fd = hl_trace_fd_checked ();
  if (fd >= 0)
    {
      uint64_t now = hl_now ();
      char name[HL_EXEC_PROGRAM_MAX], when[24];
      hl_strlcpy (name, program != NULL ? program : "", sizeof name);
      hl_fmt_u64 (when, now);
      const char *keys[2] = { "replaced_by_exec", "replaced_by_exec_ns" };
      const char *values[2] = { name, program != NULL ? when : "" };
      hl_packet_writer_init (&exec_writer, exec_packet, sizeof exec_packet, hl_g.pid, hl_sys_gettid ());
      size_t len = hl_packet_writer_info (&exec_writer, now, keys, values, 2);
      if (len > 0)
        (void) hl_trace_write (fd, exec_packet, len);
    }
  atomic_flag_clear (&exec_busy);
}

/* ---- fork ------------------------------------------------------------------ */

static void
atfork_prepare (void)
{
  hl_tls.guard++;
  if (hl_active () && hl_thread_block_current () != NULL && hl_tls.guard == 1)
    hl_trace_flush (hl_tls.block, hl_now ());
}

static void
atfork_parent (void)
{
  hl_tls.guard--;
}

static void
atfork_child (void)
{
  if (atomic_load (&hl_g.state) != HL_STATE_ACTIVE)
    {
      hl_tls.guard--;
      return;
    }
  atomic_store (&hl_g.state, HL_STATE_INIT);
  hl_g.forked = 1;
  hl_g.ppid = hl_g.pid; /* still the parent's: it may have ended already */
  hl_g.pid = (uint32_t) getpid ();
  hl_trace_forget ();
  hl_session_detach ();
  hl_sys_rss_reset ();
  hl_modules_reset ();
  hl_thread_after_fork_child ();
  hl_mmap_after_fork_child ();
  atomic_store (&hl_g.ended, 0);
  atomic_store (&hl_g.clean_exit, 0);
  atomic_store (&hl_g.exit_status_known, 0);
  if (!hl_g.cfg.follow)
    {
      atomic_store (&hl_g.state, HL_STATE_DISABLED);
      hl_tls.guard--;
      return;
    }
  hl_g.start_mono_ns = hl_clock_start ();
  hl_g.start_wall_ns = hl_sys_wall_ns ();
  atomic_store (&hl_g.next_id_block, 1);
  atomic_store (&hl_g.next_sample_ns, 0);
  if (hl_session_create () != 0)
    {
      atomic_store (&hl_g.state, HL_STATE_DISABLED);
      hl_tls.guard--;
      return;
    }
  if (hl_g.cfg.trace)
    (void) hl_trace_open ();
  hl_session_running ();
  atomic_store (&hl_g.modules_dirty, 1); /* scanned on the first event */
  atomic_store (&hl_g.state, HL_STATE_ACTIVE);
  hl_tls.guard--;
}

void
hl_process_atfork (void)
{
  static bool done;
  if (!done)
    pthread_atfork (atfork_prepare, atfork_parent, atfork_child);
  done = true;
}

/* ---- _exit ---------------------------------------------------------------
 * A program's own call to _exit()/_Exit() skips the exit handlers: finish
 * the recording first. (exit() reaches libc's _exit internally, after our
 * on_exit handler has run.) */

typedef void (*ExitFunc) (int);

HL_EXPORT void
_exit (int status)
{
  static ExitFunc real;
  if (real == NULL)
    real = (ExitFunc) hl_dlsym_next ("_exit");
  if (hl_active () && hl_tls.guard == 0)
    hl_capture_finish (status, true, false, true);
  real (status);
  __builtin_unreachable ();
}

HL_EXPORT void
_Exit (int status)
{
  _exit (status);
}

