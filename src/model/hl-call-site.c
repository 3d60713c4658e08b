/* hl-call-site.c — call sites: stacks grouped by their symbolized frames. */
#include "hl-call-site.h"

#include <string.h>

GPtrArray *
hl_call_site_key (HlRecording *self,
                  guint32      stack)
{
  guint nf;
  const HlFrameEntry * const *f = hl_recording_get_stack_entries (self, stack, &nf);
  GPtrArray *key = g_ptr_array_sized_new (nf);

  for (guint i = 0; i < nf; i++)
    g_ptr_array_add (key, (gpointer) f[i]);
  return key;
}

guint
hl_call_site_key_hash (gconstpointer key)
{
  const GPtrArray *frames = key;
  guint h = frames->len;

  for (guint i = 0; i < frames->len; i++)
    h = h * 31 + g_direct_hash (frames->pdata[i]);
  return h;
}

gboolean
hl_call_site_key_equal (gconstpointer a,
                        gconstpointer b)
{
  const GPtrArray *x = a, *y = b;

  /* a stack without frames has no pdata: memcmp must not see NULL */
  return x->len == y->len && (x->len == 0 || memcmp (x->pdata, y->pdata, x->len * sizeof (gpointer)) == 0);
}

GHashTable *
hl_call_site_table_new (void)
{
  return g_hash_table_new_full (hl_call_site_key_hash, hl_call_site_key_equal,
                                (GDestroyNotify) g_ptr_array_unref, NULL);
}

const HlFrame *
hl_call_site_frame (HlRecording *self,
                    guint32      stack)
{
  guint n;
  const HlFrameEntry * const *f = hl_recording_get_stack_entries (self, stack, &n);

  for (guint i = 0; i < n; i++)
    if (f[i]->pub.resolved)
      return &f[i]->pub;
  return n > 0 ? &f[0]->pub : NULL;
}
