/* hl-launch-family.c — the sessions of a recorded program
 * (hl-launch-family.h). */
#include "hl-launch-family.h"

#include <glib.h>
#include <unistd.h>

struct HlLaunchFamily
{
  uint32_t    root;
  uint32_t    launcher; /* this process: HEAPLENS_LAUNCHER of the family */
  uint64_t    since_wall_ns;
  GHashTable *pids; /* the root's descendants found so far */
};

HlLaunchFamily *
hl_launch_family_new (uint32_t root_pid,
                      uint64_t since_wall_ns)
{
  HlLaunchFamily *f = g_new0 (HlLaunchFamily, 1);
  f->root = root_pid;
  f->launcher = (uint32_t) getpid ();
  f->since_wall_ns = since_wall_ns;
  f->pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  return f;
}

void
hl_launch_family_free (HlLaunchFamily *family)
{
  if (family == NULL)
    return;
  g_hash_table_destroy (family->pids);
  g_free (family);
}

bool
hl_launch_family_has (const HlLaunchFamily *family,
                      uint32_t              pid)
{
  return pid == family->root || g_hash_table_contains (family->pids, GUINT_TO_POINTER (pid));
}

HlLaunchFamilyVerdict
hl_launch_family_judge (HlLaunchFamily *family,
                        uint32_t        pid,
                        uint32_t        ppid,
                        uint64_t        start_wall_ns,
                        uint32_t        launcher_pid)
{
  if (start_wall_ns < family->since_wall_ns)
    return HL_LAUNCH_FAMILY_BEFORE;
  /* an image exec'ed after its parent ended has the reaper for its ppid:
   * its pid, found with an earlier image, says it is ours; a grandchild
   * whose parent ended and removed its session names us as its launcher */
  if (launcher_pid != family->launcher && !hl_launch_family_has (family, pid)
      && !hl_launch_family_has (family, ppid))
    return HL_LAUNCH_FAMILY_OTHER;
  if (pid != family->root)
    g_hash_table_add (family->pids, GUINT_TO_POINTER (pid));
  return HL_LAUNCH_FAMILY_OURS;
}
