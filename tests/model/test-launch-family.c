/* test-launch-family.c — which sessions belong to the recorded program
 * (hl-launch-family.h): the rule record's streams, its end-of-run search
 * and the recorder's clock share. */
#include <glib.h>
#include <unistd.h>

#include "hl-launch-family.h"

#define SINCE 1000u

static void
test_before (void)
{
  HlLaunchFamily *f = hl_launch_family_new (100, SINCE);
  /* the root's pid, but started before the recorder: a leftover of an
   * earlier process with a reused pid */
  g_assert_cmpint (hl_launch_family_judge (f, 100, 1, SINCE - 1, 0), ==, HL_LAUNCH_FAMILY_BEFORE);
  g_assert_cmpint (hl_launch_family_judge (f, 100, 1, SINCE, 0), ==, HL_LAUNCH_FAMILY_OURS);
  hl_launch_family_free (f);
}

static void
test_descendants (void)
{
  HlLaunchFamily *f = hl_launch_family_new (100, SINCE);
  g_assert_true (hl_launch_family_has (f, 100));
  g_assert_false (hl_launch_family_has (f, 101));
  /* another program's session, started meanwhile */
  g_assert_cmpint (hl_launch_family_judge (f, 300, 1, SINCE + 5, 0), ==, HL_LAUNCH_FAMILY_OTHER);
  g_assert_false (hl_launch_family_has (f, 300));
  /* a grandchild seen before its parent: not ours yet ... */
  g_assert_cmpint (hl_launch_family_judge (f, 102, 101, SINCE + 3, 0), ==, HL_LAUNCH_FAMILY_OTHER);
  /* ... until the child is found */
  g_assert_cmpint (hl_launch_family_judge (f, 101, 100, SINCE + 2, 0), ==, HL_LAUNCH_FAMILY_OURS);
  g_assert_true (hl_launch_family_has (f, 101));
  g_assert_cmpint (hl_launch_family_judge (f, 102, 101, SINCE + 3, 0), ==, HL_LAUNCH_FAMILY_OURS);
  g_assert_true (hl_launch_family_has (f, 102));
  /* the root again (a new session after an exec) */
  g_assert_cmpint (hl_launch_family_judge (f, 100, 1, SINCE + 9, 0), ==, HL_LAUNCH_FAMILY_OURS);
  /* a descendant's exec'ed image started after its parent ended: its
   * ppid is the reaper, its pid says it is ours */
  g_assert_cmpint (hl_launch_family_judge (f, 102, 1, SINCE + 10, 0), ==, HL_LAUNCH_FAMILY_OURS);
  /* a child of another program stays another's */
  g_assert_cmpint (hl_launch_family_judge (f, 301, 300, SINCE + 6, 0), ==, HL_LAUNCH_FAMILY_OTHER);
  hl_launch_family_free (f);
  hl_launch_family_free (NULL);
}

/* A grandchild whose parent ended and removed its own session before the
 * recorder looked (a subshell that ended after its `sleep` child): its
 * ppid is found nowhere, but it names the recorder as its launcher
 * (HEAPLENS_LAUNCHER, which the recorder sets to its own pid). Another
 * recorder's family stays another's. */
static void
test_launcher (void)
{
  uint32_t self = (uint32_t) getpid ();
  HlLaunchFamily *f = hl_launch_family_new (100, SINCE);
  g_assert_cmpint (hl_launch_family_judge (f, 102, 101, SINCE + 3, self + 1), ==, HL_LAUNCH_FAMILY_OTHER);
  g_assert_cmpint (hl_launch_family_judge (f, 102, 101, SINCE + 3, 0), ==, HL_LAUNCH_FAMILY_OTHER);
  g_assert_false (hl_launch_family_has (f, 102));
  g_assert_cmpint (hl_launch_family_judge (f, 102, 101, SINCE + 3, self), ==, HL_LAUNCH_FAMILY_OURS);
  g_assert_true (hl_launch_family_has (f, 102));
  /* its own child, found by ppid now, whatever launcher it names */
  g_assert_cmpint (hl_launch_family_judge (f, 103, 102, SINCE + 4, 0), ==, HL_LAUNCH_FAMILY_OURS);
  /* started before the recorder: never ours, even naming it */
  g_assert_cmpint (hl_launch_family_judge (f, 104, 1, SINCE - 1, self), ==, HL_LAUNCH_FAMILY_BEFORE);
  hl_launch_family_free (f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-family/before", test_before);
  g_test_add_func ("/record-family/descendants", test_descendants);
  g_test_add_func ("/record-family/launcher", test_launcher);
  return g_test_run ();
}
