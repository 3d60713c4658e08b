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
      /* named by its address: found by it in a later recording */
      if (f != NULL && like == 0 && !f->resolved)
        hl_flame_data_set_address (data, index, f->address);
    }
  g_free (seen.keys);
  g_free (seen.values);
  hl_flame_data_finish (data);
  return data;
}

typedef struct
{
  GWeakRef recording;
  gboolean inverted;
} Resolver;

static void
resolver_free (gpointer p)
{
  Resolver *r = p;

  g_weak_ref_clear (&r->recording);
  g_free (r);
}

static GStrv
resolve_address (gpointer user_data,
                 guint64  address)
{
  Resolver *r = user_data;
  g_autoptr(HlRecording) recording = g_weak_ref_get (&r->recording);
  g_autoptr(GPtrArray) frames = NULL;
  GPtrArray *keys;

  if (recording == NULL)
    return NULL;
  frames = hl_recording_get_address_frames (recording, address);
  if (frames->len == 0)
    return NULL;
  keys = g_ptr_array_new ();
  /* innermost first: reversed for a top-down graph */
  for (guint i = 0; i < frames->len; i++)
    {
      const HlFrame *f = g_ptr_array_index (frames, r->inverted ? i : frames->len - 1 - i);

      g_ptr_array_add (keys, g_strdup_printf ("%s/%s", f->module_name, f->function));
    }
  g_ptr_array_add (keys, NULL);
  return (GStrv) g_ptr_array_free (keys, FALSE);
}

void
hl_adapter_flame_set_recording (HlFlameData *data,
                                HlRecording *recording,
                                gboolean     inverted)
{
  Resolver *r = g_new0 (Resolver, 1);
  /* the process: a live session and its trace say the same pid */
  const char *origin = hl_recording_get_info (recording, "pid");

  g_weak_ref_init (&r->recording, recording);
  r->inverted = inverted;
  hl_flame_data_set_resolver (data, origin, resolve_address, r, resolver_free);
}

HlCallNode
hl_adapter_flame_node_call_node (const HlFlameData *data,
                                 guint              node)
{
  guint value = GPOINTER_TO_UINT (hl_flame_data_get_node (data, node)->user_data);

  return value == 0 ? HL_CALL_NODE_NONE : value - 1;
}
