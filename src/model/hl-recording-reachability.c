/* hl-recording-reachability.c — the preload's leak scan at exit
 * (REACHABILITY events, docs/trace-format.md 5.3): its totals and the
 * blocks it found lost, per stack. */
#include "hl-recording-builder-private.h"

#include <string.h>
#include "hl-trace-reader.h"

G_STATIC_ASSERT ((int) HL_REACH_KINDS == (int) HL_REACHABILITY_KINDS);
G_STATIC_ASSERT ((int) HL_REACH_DEFINITELY_LOST == (int) HL_REACHABILITY_DEFINITELY_LOST);
G_STATIC_ASSERT ((int) HL_REACH_POSSIBLY_LOST == (int) HL_REACHABILITY_POSSIBLY_LOST);

void
hl_recording_append_reachability (HlRecording  *self,
                                  guint64       time_ns,
                                  const guint8 *data,
                                  gsize         size)
{
  HlReachTotals t;
  HlReachReader r;
  HlReachRecord rec;

  if (data == NULL || !hl_reach_read (data, size, &t, &r))
    return;
  if ((t.flags & HL_REACH_FLAG_FIRST) != 0 || !self->reach_present)
    {
      /* a scan's first event: its totals, and no records of an earlier one */
      self->reach_present = TRUE;
      self->reach.complete = (t.flags & HL_REACH_FLAG_INCOMPLETE) == 0;
      self->reach.on_demand = (t.flags & HL_REACH_FLAG_ON_DEMAND) != 0;
      self->reach.time_ns = time_ns;
      self->reach.scan_ns = t.scan_ns;
      self->reach.roots_bytes = t.roots_bytes;
      self->reach.blocks_scanned = t.blocks_scanned;
      for (guint k = 0; k < HL_REACHABILITY_KINDS; k++)
        {
          self->reach.blocks[k] = t.blocks[k];
          self->reach.bytes[k] = t.bytes[k];
        }
      g_array_set_size (self->reach_blocks, 0);
    }
  while (hl_reach_next (&r, &rec))
    {
      HlReachabilityBlock b = { rec.id, rec.size, hl_recording_builder_stack_index (self, rec.stack_id),
                                (HlReachabilityKind) rec.kind };
      g_array_append_val (self->reach_blocks, b);
    }
}

gboolean
hl_recording_get_reachability (HlRecording    *self,
                               HlReachability *out)
{
  g_return_val_if_fail (HL_IS_RECORDING (self) && out != NULL, FALSE);
  if (!self->reach_present)
    {
      memset (out, 0, sizeof *out);
      return FALSE;
    }
  *out = self->reach;
  return TRUE;
}

const HlReachabilityBlock *
hl_recording_get_reachability_blocks (HlRecording *self,
                                      guint       *n)
{
  g_return_val_if_fail (HL_IS_RECORDING (self) && n != NULL, NULL);
  *n = self->reach_blocks->len;
  return (const HlReachabilityBlock *) (gpointer) self->reach_blocks->data;
}

gint
hl_reachability_stack_compare (gconstpointer a,
                               gconstpointer b)
{
  const HlReachabilityStack *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (x->blocks != y->blocks)
    return x->blocks > y->blocks ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

GArray *
hl_recording_get_reachability_stacks (HlRecording        *self,
                                      HlReachabilityKind  kind,
                                      guint               top)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlReachabilityStack));
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (HL_IS_RECORDING (self), out);
  for (guint i = 0; i < self->reach_blocks->len; i++)
    {
      const HlReachabilityBlock *b = &g_array_index (self->reach_blocks, HlReachabilityBlock, i);
      gpointer at;
      HlReachabilityStack *e;

      if (b->kind != kind || kind == HL_REACHABILITY_STILL_REACHABLE)
        continue;
      at = g_hash_table_lookup (index, GUINT_TO_POINTER (b->stack + 1));
      if (at == NULL)
        {
          HlReachabilityStack fresh = { b->stack, kind, 0, 0 };
          g_array_append_val (out, fresh);
          g_hash_table_insert (index, GUINT_TO_POINTER (b->stack + 1), GUINT_TO_POINTER (out->len));
          e = &g_array_index (out, HlReachabilityStack, out->len - 1);
        }
      else
        e = &g_array_index (out, HlReachabilityStack, GPOINTER_TO_UINT (at) - 1);
      e->blocks++;
      e->bytes += b->size;
    }
  g_array_sort (out, hl_reachability_stack_compare);
  if (top > 0 && out->len > top)
    g_array_set_size (out, top);
  return out;
}

const char *
hl_recording_get_reachability_kind_name (HlReachabilityKind kind)
{
  switch (kind)
    {
    case HL_REACHABILITY_STILL_REACHABLE: return "still_reachable";
    case HL_REACHABILITY_POSSIBLY_LOST:   return "possibly_lost";
    case HL_REACHABILITY_INDIRECTLY_LOST: return "indirectly_lost";
    case HL_REACHABILITY_DEFINITELY_LOST: return "definitely_lost";
    default:                              return "unknown";
    }
}
