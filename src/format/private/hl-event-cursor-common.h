/* hl-event-cursor-common.h — the common events' path of
 * hl_event_cursor_next(), inline, for a loop that decodes packets at the
 * pace of the program (the costs thread of `record`: a call for each
 * event was 3 % of its instructions):
 *
 *   while ((rc = hl_event_cursor_next_inline (&c, &ev, &err)) > 0) ...
 *
 * The same events, errors and cursor states as hl_event_cursor_next().
 * Plain C11, libc only; it brings the format's private encodings
 * (hl-trace-encode-private.h) with it: include it in one loop's file, not
 * in a header. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hl-trace-encode-private.h"
#include "hl-trace-reader.h"
#include "hl-varint.h"

/* The common events (ALLOC, FREE: nearly all of a trace) decoded with
 * nothing between: false, the cursor untouched, for anything else or
 * anything wrong, which hl_event_cursor_next()'s general decoding then
 * takes (and reports). Checks what that does, in its order; the cursor
 * changes only once the event is known to be whole (a costs thread spent
 * a third of its time in the general path's set-up). Always inlined:
 * with two callers in hl-event-cursor.c (next and next_batch) gcc made it
 * a call of its own, 2.7 % more instructions for a report that decodes
 * the events (callgrind, churn 2.5 M pairs). */
static inline __attribute__ ((always_inline)) bool
hl_event_cursor_next_common (HlEventCursor *c,
                             HlEvent       *ev)
{
  const uint8_t *p = c->base + c->pos, *end = c->base + c->size;
  uint8_t type = *p++;
  uint64_t dt = 0;

  if (type & HL_EVENT_FLAG_NO_TIME)
    type &= (uint8_t) ~HL_EVENT_FLAG_NO_TIME;
  else if ((p = hl_varint_get (p, end, &dt)) == NULL)
    return false;
  if (type != HL_EVENT_ALLOC && type != HL_EVENT_FREE)
    return false;
  uint64_t t = c->time_ns + dt;
  if (t < c->time_ns || t > c->pkt->header.time_end_ns)
    return false;
  if (type == HL_EVENT_ALLOC)
    {
      uint64_t size, delta;
      int64_t stack_delta;

      if ((p = hl_varint_get (p, end, &size)) == NULL || (p = hl_svarint_get (p, end, &stack_delta)) == NULL)
        return false;
      uint64_t stack = c->prev_stack + (uint64_t) stack_delta;
      if (stack > UINT32_MAX || (p = hl_addr_delta_get (p, end, &delta)) == NULL ||
          c->next_id >= c->pkt->header.alloc_id_end)
        return false;
      unsigned cls = hl_pred_class (size);
      uint64_t addr = hl_pred_base (&c->pred, cls, c->prev_addr) + delta;
      hl_pred_alloc (&c->pred, cls, c->next_id, addr);
      c->prev_addr = addr;
      c->prev_stack = stack;
      ev->u.alloc.size = size;
      ev->u.alloc.alignment = 0;
      ev->u.alloc.stack_id = (uint32_t) stack;
      ev->u.alloc.address = addr;
      ev->u.alloc.id = c->next_id;
      c->prev_id = c->next_id++;
    }
  else
    {
      int64_t delta;

      if ((p = hl_svarint_get (p, end, &delta)) == NULL)
        return false;
      c->prev_id -= (uint64_t) delta;
      ev->u.free.id = c->prev_id;
      ev->u.free.address = 0;
      hl_pred_free (&c->pred, c->prev_id);
    }
  ev->type = (HlEventType) type;
  ev->time_ns = t;
  ev->tid = c->pkt->header.tid;
  ev->offset = c->content_offset + c->pos;
  c->time_ns = t;
  c->pos = (size_t) (p - c->base);
  c->n_decoded++;
  return true;
}

/* Every other event, the end of the packet and the cursor's failure: the
 * general decoding (hl-event-cursor.c), which reports what is wrong. */
int hl_event_cursor_next_general (HlEventCursor *c,
                                  HlEvent       *ev,
                                  HlFormatError *err);

/* hl_event_cursor_next(), which is this. */
static inline int
hl_event_cursor_next_inline (HlEventCursor *c,
                             HlEvent       *ev,
                             HlFormatError *err)
{
  if (!c->failed && c->pos < c->size && hl_event_cursor_next_common (c, ev))
    return 1;
  return hl_event_cursor_next_general (c, ev, err);
}
