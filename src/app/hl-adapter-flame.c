/* hl-adapter-flame.c — the flame graph's data from the model's flame
 * layout. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-flame.h"
#include "hl-cost.h"

/* Frame → the first node made from it (+ 1; 0: none yet), open
 * addressing: one lookup per rect, a few hundred distinct frames. */
typedef struct
{
  const HlFrame **keys;
  guint          *values;
  gsize           mask;
  gsize           used;
} FrameMap;

static inline gsize
frame_slot (const FrameMap *m,
            const HlFrame  *f)
{
  gsize i = (gsize) (((guint64) (guintptr) f * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) & m->mask;

  while (m->keys[i] != NULL && m->keys[i] != f)
    i = (i + 1) & m->mask;
  return i;
}

static void
frame_map_insert (FrameMap      *m,
                  const HlFrame *f,
                  guint          value)
{
  gsize i;

  if ((m->used + 1) * 2 > m->mask + 1)
    {
      FrameMap bigger = { g_new0 (const HlFrame *, (m->mask + 1) * 2), g_new (guint, (m->mask + 1) * 2),
                          (m->mask + 1) * 2 - 1, m->used };

      for (gsize j = 0; j <= m->mask; j++)
        if (m->keys[j] != NULL)
          {
            gsize k = frame_slot (&bigger, m->keys[j]);

            bigger.keys[k] = m->keys[j];
            bigger.values[k] = m->values[j];
          }
      g_free (m->keys);
      g_free (m->values);
      *m = bigger;
    }
  i = frame_slot (m, f);
  m->keys[i] = f;
  m->values[i] = value;
  m->used++;
}

HlFlameData *
hl_adapter_flame_data (HlFlameLayout *layout)
{
  HlCostKind kind = hl_flame_layout_get_kind (layout);
  HlFlameData *data = hl_flame_data_new (_("all"), hl_cost_is_bytes (kind));
  const HlFlameRect *rects;
  guint n;
  FrameMap seen = { g_new0 (const HlFrame *, 1024), g_new (guint, 1024), 1023, 0 };

  rects = hl_flame_layout_get_rects (layout, &n);
  hl_flame_data_reserve (data, n);
  hl_flame_data_set_total (data, hl_flame_layout_get_total (layout));
  /* Both arrays are in the same pre-order, so rect i becomes node i. A
   * frame met before takes its strings from the node it made (a pointer
   * looked up, not three names hashed: 10⁵ stacks make 5 × 10⁵ nodes). */
  for (guint i = 1; i < n; i++)
    {
      const HlFrame *f = rects[i].frame;
      gsize slot = f != NULL ? frame_slot (&seen, f) : 0;
      guint like = f != NULL && seen.keys[slot] != NULL ? seen.values[slot] : 0;
      guint index;

      if (like != 0)
        index = hl_flame_data_add_like (data, rects[i].parent, like - 1, rects[i].width,
                                        GUINT_TO_POINTER (rects[i].node + 1));
      else
        index = hl_flame_data_add (data, rects[i].parent,
                                   f ? f->function : "??",
                                   f ? f->module_name : "",
                                   f ? f->file : NULL,
                                   f ? f->line : 0,
                                   rects[i].width,
                                   f ? f->is_inline : FALSE,
                                   GUINT_TO_POINTER (rects[i].node + 1));
      g_assert (index == i);
      if (f != NULL && like == 0)
        frame_map_insert (&seen, f, index + 1);
    }
  g_free (seen.keys);
  g_free (seen.values);
  hl_flame_data_finish (data);
  return data;
}

HlCallNode
hl_adapter_flame_node_call_node (const HlFlameData *data,
                                 guint              node)
{
  guint value = GPOINTER_TO_UINT (hl_flame_data_get_node (data, node)->user_data);

  return value == 0 ? HL_CALL_NODE_NONE : value - 1;
}
