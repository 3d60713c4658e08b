/* hl-attach.h — attaching to a running process that was not started
 * under the preload (issue 28): the checks that refuse a process, each
 * with its reason and its remedy, before anything is done to it; the
 * injection (ptrace remote calls of the process's dlopen and of the
 * preload's heaplens__attach, src/model/hl-inject.c) with its steps; the
 * detach request. Shared by `heaplens-cli attach` and the application's
 * Attach dialog. docs/capture.md, "Attach". No GTK.
 *
 * The injection must run on one thread from its first step to its last
 * (ptrace ties a tracee to the thread that seized it): hl_attach_run is
 * synchronous, hl_attach_async runs it on a worker thread. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define HL_ATTACH_ERROR (hl_attach_error_quark ())

typedef enum
{
  HL_ATTACH_ERROR_NOT_FOUND,   /* no such process */
  HL_ATTACH_ERROR_REFUSED,     /* the checks refuse it: the message says why and what to do */
  HL_ATTACH_ERROR_DECLINED,    /* the process's dlopen or the preload said no (the message says why) */
  HL_ATTACH_ERROR_EXITED,      /* the process exited during the attach */
  HL_ATTACH_ERROR_FAILED,      /* a ptrace, /proc or file step failed */
  HL_ATTACH_ERROR_NO_SESSION,  /* the preload was loaded but no session appeared */
} HlAttachError;

GQuark hl_attach_error_quark (void);

/* What the checks learnt of a process that can be attached to. */
typedef struct
{
  guint32  pid;
  char     comm[32];          /* /proc/PID/comm */
  gboolean preload_loaded;    /* libheaplens-preload.so is in its maps already */
  char     session[256];      /* its running session, "" when none */
} HlAttachTarget;

/* TRUE when PID can be attached to (TARGET filled in), else FALSE with
 * ERROR (HL_ATTACH_ERROR_NOT_FOUND or _REFUSED; the message, translated,
 * says the reason and the remedy): another user's process, Yama's
 * ptrace_scope, a process under a debugger, a 32-bit, statically linked
 * or sanitizer-built program, a non-PIE program that takes malloc's
 * address, a process recorded already. Reads /proc and the executable;
 * nothing touches the process. */
gboolean hl_attach_check          (guint32          pid,
                                   HlAttachTarget  *target,
                                   GError         **error);

/* The name of PID's running session (only one an attach made when
 * ATTACHED_ONLY), or NULL when none. */
char    *hl_attach_find_session   (guint32          pid,
                                   gboolean         attached_only);

typedef struct
{
  const char *preload;     /* libheaplens-preload.so; NULL: hl_launch_env_find_preload () */
  const char *trace_path;  /* absolute, taken literally; NULL: COMM.PID.hltrace in a folder of
                            * hl_launch_folder_create (hl_attach_async only) */
} HlAttachOptions;

typedef enum
{
  HL_ATTACH_STEP_STOPPING,   /* "Stopping threads…" */
  HL_ATTACH_STEP_LOADING,    /* "Loading the preload…" */
  HL_ATTACH_STEP_PATCHING,   /* "Patching the allocator's slots…" */
  HL_ATTACH_STEP_RECORDING,  /* "Recording: N allocator slots patched" (the slots counted) */
} HlAttachStep;

/* TEXT: the step in words, translated. */
typedef void (*HlAttachProgressFunc) (HlAttachStep  step,
                                      const char   *text,
                                      gpointer      user_data);

typedef struct
{
  char    *session;         /* its name in /dev/shm */
  char    *trace_path;
  guint64  stopped_ns;      /* how long the calling thread was stopped */
  guint64  all_stopped_ns;  /* how long every thread was */
  guint    slots_patched;   /* asked of the preload when PROGRESS is given, else 0 */
} HlAttachResult;

void     hl_attach_result_free    (HlAttachResult  *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlAttachResult, hl_attach_result_free)

/* Injects the preload into TARGET's process (checked by hl_attach_check)
 * and waits (2 s at most) for its session: TRUE with RESULT filled in, or
 * FALSE with ERROR (DECLINED, EXITED, FAILED, NO_SESSION; the process is
 * left as it was). The preload's configuration file
 * (/dev/shm/heaplens-attach-UID-PID) names the trace, this process as its
 * launcher (the session is kept for it after the end: the caller unlinks
 * it) and the HEAPLENS_* tunables of this environment. PROGRESS (may be
 * NULL) is called on this thread at each step. */
gboolean hl_attach_run            (const HlAttachTarget    *target,
                                   const HlAttachOptions   *options,
                                   HlAttachProgressFunc     progress,
                                   gpointer                 progress_data,
                                   HlAttachResult          *result,
                                   GError                 **error);

/* hl_attach_check, then hl_attach_run, on a worker thread. PROGRESS is
 * called in the thread-default main context of the caller (PROGRESS_DATA
 * freed with PROGRESS_NOTIFY once the task is done). CANCELLABLE stops it
 * before the process is touched; once its threads are stopped the attach
 * goes to its end. */
void            hl_attach_async   (guint32                  pid,
                                   const HlAttachOptions   *options,
                                   GCancellable            *cancellable,
                                   HlAttachProgressFunc     progress,
                                   gpointer                 progress_data,
                                   GDestroyNotify           progress_notify,
                                   GAsyncReadyCallback      callback,
                                   gpointer                 user_data);
HlAttachResult *hl_attach_finish  (GAsyncResult            *result,
                                   GError                 **error);

/* Asks the attached session NAME of process PID to detach (the control
 * word, docs/shm-layout.md): the allocator is put back, the trace
 * finished, the process goes on. It takes effect at the process's next
 * allocation. */
gboolean hl_attach_request_detach (const char              *name,
                                   guint32                  pid,
                                   GError                 **error);

G_END_DECLS
