/* test-live-discovery.c — hl_live_session_list and friends on segments
 * written into /dev/shm with the format tests' shm writer: one of ours
 * (readable, with what its header says), one named for another uid
 * (refused with the reason), one that is not a session (refused with the
 * reader's reason), and the pid lookup. */
#define _GNU_SOURCE
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-live-discovery.h"
#include "hl-live-session.h"
#include "hl-shm-test-writer.h"

typedef struct
{
  char *ours;     /* /dev/shm paths */
  char *foreign;
  char *corrupt;
  guint32 pid;    /* a pid no process has: the segments' */
} Fixture;

static void
write_segment (const char *path,
               guint32     pid)
{
  HlShmTestSegment seg;
  hl_shm_test_init (&seg, (uint32_t) getuid (), pid, 64, 16384, 64, 256);
  const guint64 frames[] = { 0x401000, 0x402000 };
  hl_shm_test_add_stack (&seg, 1, frames, 2);
  hl_shm_test_live (&seg, 3, 0x10000, 7, 100, 1, pid);
  g_assert_true (g_file_set_contents_full (path, (const char *) seg.base, (gssize) seg.size,
                                           G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  hl_shm_test_clear (&seg);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  /* pids above the kernel's limit (4194304): never a process */
  f->pid = 99000000u + (guint32) getpid () % 100000u;
  f->ours = g_strdup_printf ("/dev/shm/heaplens-%u-%u-disc%u", (unsigned) getuid (), (unsigned) f->pid,
                             (unsigned) getpid ());
  f->foreign = g_strdup_printf ("/dev/shm/heaplens-%u-%u-disc%u", (unsigned) getuid () + 4242,
                                (unsigned) f->pid + 1, (unsigned) getpid ());
  f->corrupt = g_strdup_printf ("/dev/shm/heaplens-%u-%u-disc%u", (unsigned) getuid (), (unsigned) f->pid + 2,
                                (unsigned) getpid ());
  write_segment (f->ours, f->pid);
  write_segment (f->foreign, f->pid + 1);
  g_assert_true (g_file_set_contents (f->corrupt, "not a session", -1, NULL));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_unlink (f->ours);
  g_unlink (f->foreign);
  g_unlink (f->corrupt);
  g_free (f->ours);
  g_free (f->foreign);
  g_free (f->corrupt);
}

static const HlLiveSessionInfo *
find (GPtrArray  *list,
      const char *path)
{
  const char *name = strrchr (path, '/') + 1;
  for (guint i = 0; i < list->len; i++)
    {
      const HlLiveSessionInfo *info = g_ptr_array_index (list, i);
      if (strcmp (info->name, name) == 0)
        return info;
    }
  return NULL;
}

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_ALL_USERS, &error);
  g_assert_no_error (error);
  g_assert_nonnull (list);

  const HlLiveSessionInfo *ours = find (list, f->ours);
  g_assert (ours != NULL);
  g_assert_true (ours->same_user);
  g_assert_true (ours->readable);
  g_assert_null (ours->refusal);
  g_assert_cmpuint (ours->pid, ==, f->pid);
  g_assert_cmpuint (ours->uid, ==, getuid ());
  g_assert_cmpint (ours->state, ==, HL_LIVE_STATE_RUNNING);
  g_assert_false (ours->alive);
  g_assert_nonnull (ours->exe);
  g_assert_nonnull (ours->cmdline);
  g_assert_nonnull (ours->trace_path);

  /* another user's: listed, refused, saying whose it is */
  const HlLiveSessionInfo *foreign = find (list, f->foreign);
  g_assert (foreign != NULL);
  g_assert_false (foreign->same_user);
  g_assert_false (foreign->readable);
  g_assert_cmpuint (foreign->uid, ==, getuid () + 4242);
  g_assert_nonnull (foreign->refusal);
  g_autofree char *uid = g_strdup_printf ("uid %u", (unsigned) getuid () + 4242);
  g_assert_nonnull (strstr (foreign->refusal, uid));

  /* not a session: refused with the reader's reason */
  const HlLiveSessionInfo *corrupt = find (list, f->corrupt);
  g_assert (corrupt != NULL);
  g_assert_true (corrupt->same_user);
  g_assert_false (corrupt->readable);
  g_assert_nonnull (corrupt->refusal);
  g_assert_cmpuint (corrupt->pid, ==, f->pid + 2);

  /* the caller's own only */
  g_autoptr(GPtrArray) own = hl_live_session_list (HL_LIVE_LIST_OWN, NULL);
  g_assert_nonnull (find (own, f->ours));
  g_assert_null (find (own, f->foreign));

  /* names only: nothing opened */
  g_autoptr(GPtrArray) names = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  const HlLiveSessionInfo *named = find (names, f->ours);
  g_assert (named != NULL);
  g_assert_false (named->readable);
  g_assert_null (named->refusal);
  g_assert_cmpuint (named->pid, ==, f->pid);

  /* a copy is a copy */
  g_autoptr(HlLiveSessionInfo) copy = hl_live_session_info_copy (ours);
  g_assert_cmpstr (copy->name, ==, ours->name);
  g_assert_cmpstr (copy->exe, ==, ours->exe);
  g_assert_cmpuint (copy->totals.n_allocs, ==, ours->totals.n_allocs);
}

static void
test_read (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(HlLiveSessionInfo) by_name = hl_live_session_info_read (strrchr (f->ours, '/') + 1);
  g_assert_true (by_name->readable);
  g_assert_cmpuint (by_name->pid, ==, f->pid);
  g_autoptr(HlLiveSessionInfo) by_path = hl_live_session_info_read (f->ours);
  g_assert_true (by_path->readable);
  g_assert_cmpstr (by_path->name, ==, by_name->name);
  g_autoptr(HlLiveSessionInfo) corrupt = hl_live_session_info_read (f->corrupt);
  g_assert_false (corrupt->readable);
  g_assert_nonnull (corrupt->refusal);
  /* the reason alone, not prefixed with the name */
  g_assert_false (g_str_has_prefix (corrupt->refusal, "heaplens-"));
  g_autoptr(HlLiveSessionInfo) missing = hl_live_session_info_read ("heaplens-0-1-doesnotexist");
  g_assert_false (missing->readable);
  g_assert_nonnull (missing->refusal);
}

static void
test_find_pid (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = hl_live_session_find_pid (f->pid, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, strrchr (f->ours, '/') + 1);

  g_autofree char *foreign = hl_live_session_find_pid (f->pid + 1, &error);
  g_assert_null (foreign);
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_assert_nonnull (strstr (error->message, "belongs to uid"));
  g_clear_error (&error);

  g_autofree char *corrupt = hl_live_session_find_pid (f->pid + 2, &error);
  g_assert_null (corrupt);
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_clear_error (&error);

  g_autofree char *none = hl_live_session_find_pid (f->pid + 3, &error);
  g_assert_null (none);
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* the sessions of one pid only */
  g_autoptr(GPtrArray) of_pid = hl_live_session_list_pid (f->pid, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (of_pid->len, ==, 1);
  g_assert_true (((const HlLiveSessionInfo *) g_ptr_array_index (of_pid, 0))->readable);
  g_autoptr(GPtrArray) of_foreign = hl_live_session_list_pid (f->pid + 1, &error);
  g_assert_cmpuint (of_foreign->len, ==, 1);
  g_assert_nonnull (((const HlLiveSessionInfo *) g_ptr_array_index (of_foreign, 0))->refusal);

  /* the session opens by pid */
  g_autoptr(HlLiveSession) session = hl_live_session_open_pid (f->pid, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hl_live_session_get_pid (session), ==, f->pid);
}

/* A FIFO named like a session is never opened for reading (it would
 * block) and never removed; the dead sessions among the fixture's are
 * removed, each with why. Only the fixture's entries are given to
 * hl_live_session_prune: other tests' sessions are not touched. */
static void
test_prune (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *fifo = g_strdup_printf ("/dev/shm/heaplens-%u-%u-disc%u", (unsigned) getuid (),
                                           (unsigned) f->pid + 3, (unsigned) getpid ());
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_live_session_info_free);
  g_ptr_array_add (list, hl_live_session_info_read (fifo));
  g_ptr_array_add (list, hl_live_session_info_read (f->ours));
  g_ptr_array_add (list, hl_live_session_info_read (f->corrupt));
  const HlLiveSessionInfo *fi = g_ptr_array_index (list, 0);
  g_assert_false (fi->readable);
  g_assert_true (fi->not_segment);
  g_assert_nonnull (strstr (fi->refusal, "is a FIFO, not a session segment"));
  g_assert_false (((HlLiveSessionInfo *) g_ptr_array_index (list, 2))->not_segment);

  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) done = hl_live_session_prune (list, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (done->len, ==, 3);
  const HlLivePruneResult *r0 = g_ptr_array_index (done, 0);
  const HlLivePruneResult *r1 = g_ptr_array_index (done, 1);
  const HlLivePruneResult *r2 = g_ptr_array_index (done, 2);
  g_assert_cmpint (r0->action, ==, HL_LIVE_PRUNE_LEFT_ALONE);
  g_assert_true (g_str_has_suffix (r0->message, ": left alone"));
  g_assert_true (g_file_test (fifo, G_FILE_TEST_EXISTS));
  g_assert_cmpint (r1->action, ==, HL_LIVE_PRUNE_REMOVED);
  g_autofree char *want = g_strdup_printf ("removed %s (pid %u ended)", strrchr (f->ours, '/') + 1, (unsigned) f->pid);
  g_assert_cmpstr (r1->message, ==, want);
  g_assert_false (g_file_test (f->ours, G_FILE_TEST_EXISTS));
  g_assert_cmpint (r2->action, ==, HL_LIVE_PRUNE_REMOVED);
  g_assert_nonnull (strstr (r2->message, "invalid: "));
  g_assert_false (g_file_test (f->corrupt, G_FILE_TEST_EXISTS));
  g_unlink (fifo);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/live-discovery/list", Fixture, NULL, fixture_set_up, test_list, fixture_tear_down);
  g_test_add ("/live-discovery/read", Fixture, NULL, fixture_set_up, test_read, fixture_tear_down);
  g_test_add ("/live-discovery/find-pid", Fixture, NULL, fixture_set_up, test_find_pid, fixture_tear_down);
  g_test_add ("/live-discovery/prune", Fixture, NULL, fixture_set_up, test_prune, fixture_tear_down);
  return g_test_run ();
}
