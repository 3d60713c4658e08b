/* hl-recording-load-batch.c — decoded events kept past their cursor (strings and
 * frames copied), applied in order (hl_recording_load_apply_event,
 * hl-recording-builder.c). */
#include "hl-recording-loader-private.h"

/* ---- Two-stage loading: a thread decodes, the caller applies ------------ *
 * The walk and the event decoding (varints, prefix-shared stacks, address
 * prediction, decompression) run on a second thread and hand over batches
 * of decoded events; pointers into the cursor are copied into the batch. */

HlDecodedBatch *
hl_decoded_batch_new (void)
{
  HlDecodedBatch *b = g_new0 (HlDecodedBatch, 1);

  b->events = g_array_sized_new (FALSE, FALSE, sizeof (HlEvent), HL_DECODED_BATCH_EVENTS);
  b->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  b->strings = g_string_chunk_new (4096);
  b->blocks = g_ptr_array_new_with_free_func (g_free);
  return b;
}

void
hl_decoded_batch_free (HlDecodedBatch *b)
{
  g_array_unref (b->events);
  g_array_unref (b->frames);
  g_string_chunk_free (b->strings);
  g_ptr_array_unref (b->blocks);
  g_free (b);
}

void
hl_decoded_batch_reset (HlDecodedBatch *b)
{
  g_array_set_size (b->events, 0);
  g_array_set_size (b->frames, 0);
  g_string_chunk_clear (b->strings);
  g_ptr_array_set_size (b->blocks, 0);
  b->last_offset = 0;
  b->corrupt_packets = 0;
  b->last = FALSE;
}

static const char *
keep (HlDecodedBatch *b,
      const char     *s)
{
  return s != NULL ? g_string_chunk_insert (b->strings, s) : NULL;
}

void
hl_decoded_batch_add (HlDecodedBatch *b,
                      const HlEvent  *ev)
{
  HlEvent copy = *ev;

  switch (ev->type)
    {
    case HL_EVENT_STACK:
      copy.u.stack.frames = (const guint64 *) (gsize) b->frames->len;
      g_array_append_vals (b->frames, ev->u.stack.frames, ev->u.stack.n_frames);
      break;
    case HL_EVENT_MODULE:
      copy.u.module.path = keep (b, ev->u.module.path);
      copy.u.module.build_id = ev->u.module.build_id_len > 0
        ? (const guint8 *) g_string_chunk_insert_len (b->strings, (const char *) ev->u.module.build_id,
                                                      ev->u.module.build_id_len)
        : NULL;
      break;
    case HL_EVENT_THREAD:
      copy.u.thread.name = keep (b, ev->u.thread.name);
      break;
    case HL_EVENT_META_INT:
    case HL_EVENT_META_STRING:
    case HL_EVENT_META_REMOVE:
      copy.u.meta.key = keep (b, ev->u.meta.key);
      copy.u.meta.string_value = keep (b, ev->u.meta.string_value);
      break;
    case HL_EVENT_MARK:
      copy.u.mark.text = keep (b, ev->u.mark.text);
      break;
    case HL_EVENT_REACHABILITY:
      copy.u.reach.data = ev->u.reach.size > 0
        ? (const guint8 *) g_string_chunk_insert_len (b->strings, (const char *) ev->u.reach.data, ev->u.reach.size)
        : NULL;
      break;
    case HL_EVENT_ALLOCATOR:
      {
        /* the sample lives in the cursor */
        HlAllocatorSample *s = g_memdup2 (ev->u.allocator, sizeof *ev->u.allocator);
        g_ptr_array_add (b->blocks, s);
        copy.u.allocator = s;
      }
      break;
    case HL_EVENT_INFO:
      {
        const char **keys = g_new (const char *, ev->u.info.n + 1);
        const char **values = g_new (const char *, ev->u.info.n + 1);
        for (guint32 i = 0; i < ev->u.info.n; i++)
          {
            keys[i] = keep (b, ev->u.info.keys[i]);
            values[i] = keep (b, ev->u.info.values[i]);
          }
        g_ptr_array_add (b->blocks, keys);
        g_ptr_array_add (b->blocks, values);
        copy.u.info.keys = keys;
        copy.u.info.values = values;
      }
      break;
    default:
      break;
    }
  g_array_append_val (b->events, copy);
}

int
hl_decoded_batch_add_packet (HlDecodedBatch     *b,
                             HlEventCursor      *cursor,
                             const HlPacketView *pkt)
{
  HlFormatError err;
  int erc;

  hl_event_cursor_init (cursor, pkt);
  /* Decoded in place: most events (allocations, frees) hold no pointer
   * into the cursor and need no copy; the others go through
   * hl_decoded_batch_add(), which keeps their strings and frames. */
  for (;;)
    {
      HlEvent *slot, ev;

      g_array_set_size (b->events, b->events->len + 1);
      slot = &g_array_index (b->events, HlEvent, b->events->len - 1);
      erc = hl_event_cursor_next (cursor, slot, &err);
      if (erc <= 0)
        {
          g_array_set_size (b->events, b->events->len - 1);
          break;
        }
      if (!hl_event_type_is_plain (slot->type))
        {
          ev = *slot;
          g_array_set_size (b->events, b->events->len - 1);
          hl_decoded_batch_add (b, &ev);
        }
    }
  if (erc < 0)
    b->corrupt_packets++;
  b->last_offset = pkt->offset;
  return erc;
}

void
hl_decoded_batch_apply (HlDecodedBatch *b,
                        HlRecording    *rec)
{
  for (guint i = 0; i < b->events->len; i++)
    {
      HlEvent *ev = &g_array_index (b->events, HlEvent, i);
      if (ev->type == HL_EVENT_STACK)
        ev->u.stack.frames = &g_array_index (b->frames, guint64, (gsize) ev->u.stack.frames);
      hl_recording_load_apply_event (rec, ev);
    }
  if (b->events->len > 0)
    hl_recording_aggregate_packets_done (rec, b->last_offset);
}
