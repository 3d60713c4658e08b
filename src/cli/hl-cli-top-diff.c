/* hl-cli-top-diff.c — `top --diff-after D`: the live blocks allocated
 * after a moment, by call site (hl-cli-top-diff.h). */
#include "hl-config.h"

#include "hl-cli-top-diff.h"

#include <stdlib.h>
#include <string.h>

#include "hl-sample-weight-core.h"
#include "hl-shm-layout.h"

typedef struct
{
  uint64_t    since_ns, sample_bytes;
  GHashTable *by_stack; /* stack id + 1 -> HlTopDiffSite index + 1 */
  GArray     *sites;
} Collect;

static void
live_cb (void                *user_data,
         const HlShmLiveSlot *slot)
{
  Collect *c = user_data;
  if (slot->time_ns < c->since_ns)
    return;
  gpointer key = GUINT_TO_POINTER (slot->stack_id + 1u);
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (c->by_stack, key));
  if (at == 0)
    {
      HlTopDiffSite s = { slot->stack_id, 0, 0 };
      g_array_append_val (c->sites, s);
      at = c->sites->len;
      g_hash_table_insert (c->by_stack, key, GUINT_TO_POINTER (at));
    }
  HlTopDiffSite *s = &g_array_index (c->sites, HlTopDiffSite, at - 1);
  uint64_t w = hl_sample_weight_of (c->sample_bytes, slot->size, slot->alloc_id);
  s->blocks += w;
  s->bytes += slot->size * w;
}

static gint
by_bytes (gconstpointer a,
          gconstpointer b)
{
  const HlTopDiffSite *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

GArray *
hl_top_diff_collect (HlShmReader   *r,
                     uint64_t       since_ns,
                     uint64_t       sample_bytes,
                     uint64_t      *blocks,
                     uint64_t      *bytes,
                     HlFormatError *err)
{
  /* the entries' times are whole grains, rounded down: an allocation in
   * the grain of SINCE_NS is in */
  Collect c = { (since_ns >> HL_SHM_LIVE_TIME_SHIFT) << HL_SHM_LIVE_TIME_SHIFT, sample_bytes,
                g_hash_table_new (NULL, NULL), g_array_new (FALSE, FALSE, sizeof (HlTopDiffSite)) };
  int rc = hl_shm_reader_live (r, live_cb, &c, err);
  g_hash_table_unref (c.by_stack);
  if (rc != 0)
    {
      g_array_unref (c.sites);
      return NULL;
    }
  g_array_sort (c.sites, by_bytes);
  *blocks = *bytes = 0;
  for (guint i = 0; i < c.sites->len; i++)
    {
      *blocks += g_array_index (c.sites, HlTopDiffSite, i).blocks;
      *bytes += g_array_index (c.sites, HlTopDiffSite, i).bytes;
    }
  return c.sites;
}

gboolean
hl_top_diff_parse_duration (const char *text,
                            uint64_t   *ns)
{
  static const struct { const char *unit; double ns; } units[] = {
    { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
  };
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end == text || !(v > 0) || v > 1e7)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strcmp (end, units[i].unit) == 0)
      {
        *ns = (uint64_t) (v * units[i].ns);
        return *ns > 0;
      }
  return FALSE;
}
