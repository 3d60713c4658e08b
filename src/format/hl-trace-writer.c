/* hl-trace-writer.c — packet encoder. Runs on the preload's hot path:
 * no allocation, no locks, no syscalls, no stdio. */

#include "hl-trace-writer.h"

#include <string.h>

#include "hl-crc32c.h"
#include "private/hl-trace-encode-private.h"
#include "private/hl-varint.h"

_Static_assert (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "the trace structs are written as they are in memory");

/* Worst case of an event with K integer fields and S string bytes. */
#define EVENT_BOUND(k, s) (2u + HL_VARINT_MAX_BYTES * (1u + (k)) + (s))

void
hl_trace_file_header_init (HlTraceFileHeader *out,
                           uint32_t           pid,
                           uint64_t           start_wall_ns,
                           uint64_t           start_mono_ns,
                           uint32_t           flags)
{
  memset (out, 0, sizeof *out);
  memcpy (out->magic, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE);
  out->version_major = HL_TRACE_VERSION_MAJOR;
  out->version_minor = HL_TRACE_VERSION_MINOR;
  out->header_size = HL_TRACE_FILE_HEADER_SIZE;
  out->byte_order = HL_TRACE_BYTE_ORDER_MARK;
  out->flags = flags;
  out->start_wall_ns = start_wall_ns;
  out->start_mono_ns = start_mono_ns;
  out->pid = pid;
}

void
hl_packet_writer_init (HlPacketWriter *w,
                       void           *buf,
                       size_t          cap,
                       uint32_t        pid,
                       uint32_t        tid)
{
  memset (w, 0, offsetof (HlPacketWriter, prev_frames));
  w->buf = buf;
  w->cap = cap < HL_PACKET_MAX_SIZE ? cap : HL_PACKET_MAX_SIZE;
  w->pid = pid;
  w->tid = tid;
  hl_packet_writer_begin (w, 0);
}

void
hl_packet_writer_begin (HlPacketWriter *w,
                        uint64_t        time_ns)
{
  w->len = HL_PACKET_HEADER_SIZE;
  w->kind = HL_PACKET_KIND_EVENTS;
  w->n_events = 0;
  w->flags = 0;
  w->time_begin_ns = time_ns;
  w->time_last_ns = time_ns;
  w->alloc_id_begin = 0;
  w->next_id = 0;
  w->n_allocs = 0;
  w->prev_id = 0;
  w->prev_stack = 0;
  w->prev_addr = 0;
  w->prev_n_frames = 0;
  hl_pred_reset (&w->pred);
}

bool
hl_packet_writer_is_empty (const HlPacketWriter *w)
{
  return w->n_events == 0;
}

size_t
hl_packet_writer_finish (HlPacketWriter *w)
{
  if (w->n_events == 0 || w->len > w->cap)
    return 0;

  HlPacketHeader h;
  memset (&h, 0, sizeof h);
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) (w->len - HL_PACKET_HEADER_SIZE);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = w->kind;
  h.pid = w->pid;
  h.tid = w->tid;
  h.crc32c = 0;
  h.time_begin_ns = w->time_begin_ns;
  h.time_end_ns = w->time_last_ns;
  h.alloc_id_begin = w->n_allocs > 0 ? w->alloc_id_begin : 0;
  h.alloc_id_end = w->n_allocs > 0 ? w->next_id : 0;
  h.n_events = w->n_events;
  h.flags = w->flags;
  memcpy (w->buf, &h, sizeof h);

  uint32_t crc = hl_crc32c (0, w->buf, w->len);
  memcpy (w->buf + offsetof (HlPacketHeader, crc32c), &crc, sizeof crc);
  return w->len;
}

/* ---- Event helpers ---------------------------------------------------- */

static inline uint8_t *
event_start (HlPacketWriter *w, uint8_t type, uint64_t time_ns)
{
  uint8_t *p = w->buf + w->len;
  uint64_t dt = 0;
  if (time_ns > w->time_last_ns)
    {
      dt = time_ns - w->time_last_ns;
      w->time_last_ns = time_ns;
    }
  if (dt == 0)
    {
      *p++ = type | HL_EVENT_FLAG_NO_TIME;
      return p;
    }
  *p++ = type;
  return hl_varint_put (p, dt);
}

static inline HlWriteStatus
event_end (HlPacketWriter *w, uint8_t *p)
{
  w->len = (size_t) (p - w->buf);
  w->n_events++;
  return HL_WRITE_OK;
}

static inline bool
has_room (const HlPacketWriter *w, size_t bound)
{
  return w->len + bound <= w->cap;
}

static inline size_t
cut_strlen (const char *s, size_t max)
{
  size_t n = 0;
  if (s != NULL)
    while (n < max && s[n] != '\0')
      n++;
  return n;
}

static inline uint8_t *
put_bytes (uint8_t *p, const void *data, size_t n)
{
  p = hl_varint_put (p, n);
  if (n > 0)
    memcpy (p, data, n);
  return p + n;
}

/* Takes NEW_ID as the next allocation id, writing an ID_SKIP before the
 * event when needed. BOUND is the rest of the event. */
static inline HlWriteStatus
take_id (HlPacketWriter *w, uint64_t time_ns, uint64_t id, size_t bound)
{
  if (w->n_allocs == 0)
    {
      if (!has_room (w, bound))
        return HL_WRITE_FULL;
      w->alloc_id_begin = id;
      w->next_id = id;
      return HL_WRITE_OK;
    }
  if (id == w->next_id)
    return has_room (w, bound) ? HL_WRITE_OK : HL_WRITE_FULL;
  if (id < w->next_id || !has_room (w, bound + EVENT_BOUND (1, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_ID_SKIP, time_ns);
  p = hl_varint_put (p, id - w->next_id);
  w->next_id = id;
  w->len = (size_t) (p - w->buf); /* not counted in n_events: readers apply it */
  return HL_WRITE_OK;
}

static inline uint8_t *
put_alloc_tail (HlPacketWriter *w, uint8_t *p, uint64_t size, uint32_t stack_id, uint64_t address)
{
  p = hl_svarint_put (p, (int64_t) ((uint64_t) stack_id - w->prev_stack));
  w->prev_stack = stack_id;
  unsigned cls = hl_pred_class (size);
  p = hl_addr_delta_put (p, address - hl_pred_base (&w->pred, cls, w->prev_addr));
  hl_pred_alloc (&w->pred, cls, w->next_id, address);
  w->prev_addr = address;
  w->prev_id = w->next_id;
  w->next_id++;
  w->n_allocs++;
  return p;
}

/* ---- Events ----------------------------------------------------------- */

HlWriteStatus
hl_packet_writer_alloc (HlPacketWriter *w,
                        uint64_t        time_ns,
                        uint64_t        id,
                        uint64_t        size,
                        uint64_t        alignment,
                        uint32_t        stack_id,
                        uint64_t        address)
{
  bool aligned = alignment != 0 && alignment != HL_TRACE_DEFAULT_ALIGNMENT;
  if (take_id (w, time_ns, id, EVENT_BOUND (4, 0)) != HL_WRITE_OK)
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, aligned ? HL_EVENT_ALLOC_ALIGNED : HL_EVENT_ALLOC, time_ns);
  p = hl_varint_put (p, size);
  if (aligned)
    p = hl_varint_put (p, alignment);
  p = put_alloc_tail (w, p, size, stack_id, address);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_free (HlPacketWriter *w,
                       uint64_t        time_ns,
                       uint64_t        id)
{
  if (!has_room (w, EVENT_BOUND (1, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_FREE, time_ns);
  p = hl_svarint_put (p, (int64_t) (w->prev_id - id));
  w->prev_id = id;
  hl_pred_free (&w->pred, id);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_free_addr (HlPacketWriter *w,
                            uint64_t        time_ns,
                            uint64_t        address)
{
  if (!has_room (w, EVENT_BOUND (1, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_FREE_ADDR, time_ns);
  p = hl_varint_put (p, address);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_realloc (HlPacketWriter *w,
                          uint64_t        time_ns,
                          uint64_t        old_id,
                          uint64_t        new_id,
                          uint64_t        size,
                          uint32_t        stack_id,
                          uint64_t        address)
{
  if (take_id (w, time_ns, new_id, EVENT_BOUND (4, 0)) != HL_WRITE_OK)
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_REALLOC, time_ns);
  p = hl_svarint_put (p, (int64_t) (w->prev_id - old_id));
  hl_pred_free (&w->pred, old_id);
  p = hl_varint_put (p, size);
  p = put_alloc_tail (w, p, size, stack_id, address);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_realloc_addr (HlPacketWriter *w,
                               uint64_t        time_ns,
                               uint64_t        old_address,
                               uint64_t        new_id,
                               uint64_t        size,
                               uint32_t        stack_id,
                               uint64_t        address)
{
  if (take_id (w, time_ns, new_id, EVENT_BOUND (4, 0)) != HL_WRITE_OK)
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_REALLOC_ADDR, time_ns);
  p = hl_varint_put (p, old_address);
  p = hl_varint_put (p, size);
  p = put_alloc_tail (w, p, size, stack_id, address);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_stack (HlPacketWriter *w,
                        uint64_t        time_ns,
                        uint32_t        stack_id,
                        uint32_t        flags,
                        const uint64_t *frames,
                        uint32_t        n_frames)
{
  if (n_frames > HL_TRACE_MAX_FRAMES)
    {
      n_frames = HL_TRACE_MAX_FRAMES;
      flags |= HL_STACK_FLAG_TRUNCATED;
    }
  if (frames == NULL)
    n_frames = 0;

  uint32_t shared = 0;
  uint32_t prev_n = w->prev_n_frames;
  while (shared < n_frames && shared < prev_n
         && frames[n_frames - 1 - shared] == w->prev_frames[prev_n - 1 - shared])
    shared++;
  uint32_t n_new = n_frames - shared;

  if (!has_room (w, EVENT_BOUND (4 + n_new, 0)))
    return HL_WRITE_FULL;

  uint8_t *p = event_start (w, HL_EVENT_STACK, time_ns);
  p = hl_svarint_put (p, (int64_t) ((uint64_t) stack_id - w->prev_stack));
  w->prev_stack = stack_id;
  p = hl_varint_put (p, flags);
  p = hl_varint_put (p, n_frames);
  p = hl_varint_put (p, shared);
  for (uint32_t i = 0; i < n_new; i++)
    {
      uint64_t base = i < prev_n ? w->prev_frames[i] : 0;
      p = hl_svarint_put (p, (int64_t) (frames[i] - base));
    }
  /* The shared tail is already in place at the end of prev_frames; move it
   * to the new depth, then copy the new head. */
  if (shared > 0 && prev_n != n_frames)
    memmove (w->prev_frames + n_new, w->prev_frames + (prev_n - shared),
             shared * sizeof (uint64_t));
  if (n_new > 0)
    memcpy (w->prev_frames, frames, n_new * sizeof (uint64_t));
  w->prev_n_frames = n_frames;
  w->flags |= HL_PACKET_FLAG_HAS_STACKS;
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_module (HlPacketWriter *w,
                         uint64_t        time_ns,
                         uint32_t        flags,
                         uint64_t        start,
                         uint64_t        size,
                         uint64_t        file_offset,
                         const uint8_t  *build_id,
                         size_t          build_id_len,
                         const char     *path)
{
  if (build_id == NULL)
    build_id_len = 0;
  if (build_id_len > HL_TRACE_BUILD_ID_MAX)
    build_id_len = HL_TRACE_BUILD_ID_MAX;
  size_t path_len = cut_strlen (path, HL_TRACE_STRING_MAX);
  if (!has_room (w, EVENT_BOUND (6, build_id_len + path_len)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_MODULE, time_ns);
  p = hl_varint_put (p, flags);
  p = hl_varint_put (p, start);
  p = hl_varint_put (p, size);
  p = hl_varint_put (p, file_offset);
  p = put_bytes (p, build_id, build_id_len);
  p = put_bytes (p, path, path_len);
  w->flags |= HL_PACKET_FLAG_HAS_MODULES;
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_thread (HlPacketWriter *w,
                         uint64_t        time_ns,
                         uint32_t        tid,
                         uint32_t        flags,
                         const char     *name)
{
  size_t len = cut_strlen (name, HL_TRACE_STRING_MAX);
  if (!has_room (w, EVENT_BOUND (3, len)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_THREAD, time_ns);
  p = hl_varint_put (p, tid);
  p = hl_varint_put (p, flags);
  p = put_bytes (p, name, len);
  w->flags |= HL_PACKET_FLAG_HAS_THREADS;
  return event_end (w, p);
}

static HlWriteStatus
write_meta (HlPacketWriter *w, uint64_t time_ns, uint8_t type,
            const char *key, const char *svalue, int64_t ivalue)
{
  size_t klen = cut_strlen (key, HL_TRACE_STRING_MAX);
  size_t vlen = type == HL_EVENT_META_STRING ? cut_strlen (svalue, HL_TRACE_STRING_MAX) : 0;
  if (!has_room (w, EVENT_BOUND (3, klen + vlen)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, type, time_ns);
  p = put_bytes (p, key, klen);
  if (type == HL_EVENT_META_STRING)
    p = put_bytes (p, svalue, vlen);
  else if (type == HL_EVENT_META_INT)
    p = hl_svarint_put (p, ivalue);
  w->flags |= HL_PACKET_FLAG_HAS_META;
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_meta_int (HlPacketWriter *w, uint64_t time_ns, const char *key, int64_t value)
{
  return write_meta (w, time_ns, HL_EVENT_META_INT, key, NULL, value);
}

HlWriteStatus
hl_packet_writer_meta_string (HlPacketWriter *w, uint64_t time_ns, const char *key, const char *value)
{
  return write_meta (w, time_ns, HL_EVENT_META_STRING, key, value, 0);
}

HlWriteStatus
hl_packet_writer_meta_remove (HlPacketWriter *w, uint64_t time_ns, const char *key)
{
  return write_meta (w, time_ns, HL_EVENT_META_REMOVE, key, NULL, 0);
}

HlWriteStatus
hl_packet_writer_mark (HlPacketWriter *w, uint64_t time_ns, const char *text)
{
  return write_meta (w, time_ns, HL_EVENT_MARK, text, NULL, 0);
}

HlWriteStatus
hl_packet_writer_counters (HlPacketWriter *w,
                           uint64_t        time_ns,
                           uint64_t        heap_bytes,
                           uint64_t        rss_bytes,
                           uint64_t        n_allocs,
                           uint64_t        n_frees)
{
  if (!has_room (w, EVENT_BOUND (4, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_COUNTERS, time_ns);
  p = hl_varint_put (p, heap_bytes);
  p = hl_varint_put (p, rss_bytes);
  p = hl_varint_put (p, n_allocs);
  p = hl_varint_put (p, n_frees);
  return event_end (w, p);
}

HlWriteStatus
hl_packet_writer_dropped (HlPacketWriter *w,
                          uint64_t        time_ns,
                          uint64_t        count,
                          uint32_t        reason)
{
  if (!has_room (w, EVENT_BOUND (2, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_DROPPED, time_ns);
  p = hl_varint_put (p, count);
  p = hl_varint_put (p, reason);
  return event_end (w, p);
}

/* A skippable event (type >= 64): its length is written before the
 * payload; the payload of K varints is built after a one-byte length
 * placeholder and moved when the length takes more (it never does:
 * K <= 9 varints are at most 90 bytes, whose length is one byte below 128). */
static HlWriteStatus
write_skippable (HlPacketWriter *w, uint64_t time_ns, uint8_t type,
                 const uint64_t *v, size_t k)
{
  if (!has_room (w, EVENT_BOUND (k + 1, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, type, time_ns);
  uint8_t *len = p++;
  uint8_t *q = p;
  for (size_t i = 0; i < k; i++)
    q = hl_varint_put (q, v[i]);
  *len = (uint8_t) (q - p); /* < 128: one varint byte */
  return event_end (w, q);
}

HlWriteStatus
hl_packet_writer_mmap (HlPacketWriter *w,
                       uint64_t        time_ns,
                       uint64_t        address,
                       uint64_t        size,
                       uint32_t        stack_id,
                       uint32_t        prot,
                       uint32_t        flags)
{
  const uint64_t v[] = { address, size, stack_id, prot, flags };
  return write_skippable (w, time_ns, HL_EVENT_MMAP, v, 5);
}

HlWriteStatus
hl_packet_writer_munmap (HlPacketWriter *w,
                         uint64_t        time_ns,
                         uint64_t        address,
                         uint64_t        size)
{
  const uint64_t v[] = { address, size };
  return write_skippable (w, time_ns, HL_EVENT_MUNMAP, v, 2);
}

HlWriteStatus
hl_packet_writer_mremap (HlPacketWriter *w,
                         uint64_t        time_ns,
                         uint64_t        old_address,
                         uint64_t        old_size,
                         uint64_t        address,
                         uint64_t        size,
                         uint32_t        stack_id,
                         uint32_t        flags)
{
  const uint64_t v[] = { old_address, old_size, address, size, stack_id, flags };
  return write_skippable (w, time_ns, HL_EVENT_MREMAP, v, 6);
}

HlWriteStatus
hl_packet_writer_allocator (HlPacketWriter          *w,
                            uint64_t                 time_ns,
                            const HlAllocatorSample *s)
{
  const uint64_t v[] = { s->flags, s->rss_bytes, s->heap_bytes, s->mmap_bytes, s->arena_bytes,
                         s->in_use_bytes, s->free_bytes, s->mmapped_chunks_bytes, s->mmapped_chunks };
  return write_skippable (w, time_ns, HL_EVENT_ALLOCATOR, v, 9);
}

HlWriteStatus
hl_packet_writer_end (HlPacketWriter *w,
                      uint64_t        time_ns,
                      int32_t         exit_status)
{
  if (!has_room (w, EVENT_BOUND (1, 0)))
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_END, time_ns);
  p = hl_svarint_put (p, exit_status);
  w->flags |= HL_PACKET_FLAG_HAS_END;
  return event_end (w, p);
}

static size_t
varint_len (uint64_t v)
{
  size_t n = 1;
  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

/* Bytes of a record after the one with id PREV_ID. */
static size_t
reach_record_len (const HlReachRecord *r,
                  uint64_t             prev_id)
{
  return varint_len (r->id - prev_id) + varint_len (r->kind) + varint_len (r->stack_id) + varint_len (r->size);
}

HlWriteStatus
hl_packet_writer_reachability (HlPacketWriter      *w,
                               uint64_t             time_ns,
                               const HlReachTotals *totals,
                               const HlReachRecord *rec,
                               size_t               n,
                               size_t              *n_written)
{
  *n_written = 0;
  size_t head = varint_len (totals->flags) + varint_len (totals->scan_ns) + varint_len (totals->roots_bytes)
                + varint_len (totals->blocks_scanned);
  for (int k = 0; k < HL_REACH_KINDS; k++)
    head += varint_len (totals->blocks[k]) + varint_len (totals->bytes[k]);
  /* type, time delta, payload length (a packet's content < 2^21: 3 bytes), record count */
  size_t fixed = 1 + HL_VARINT_MAX_BYTES + 3 + head;
  if (!has_room (w, fixed + 3))
    return HL_WRITE_FULL;
  size_t room = w->cap - w->len - fixed - 3, used = 0, k = 0;
  uint64_t prev = 0;
  while (k < n)
    {
      size_t len = reach_record_len (&rec[k], prev);
      if (used + len > room)
        break;
      used += len;
      prev = rec[k].id;
      k++;
    }
  if (k == 0 && n > 0)
    return HL_WRITE_FULL;
  uint8_t *p = event_start (w, HL_EVENT_REACHABILITY, time_ns);
  p = hl_varint_put (p, head + varint_len (k) + used);
  p = hl_varint_put (p, totals->flags);
  p = hl_varint_put (p, totals->scan_ns);
  p = hl_varint_put (p, totals->roots_bytes);
  p = hl_varint_put (p, totals->blocks_scanned);
  for (int i = 0; i < HL_REACH_KINDS; i++)
    {
      p = hl_varint_put (p, totals->blocks[i]);
      p = hl_varint_put (p, totals->bytes[i]);
    }
  p = hl_varint_put (p, k);
  prev = 0;
  for (size_t i = 0; i < k; i++)
    {
      p = hl_varint_put (p, rec[i].id - prev);
      p = hl_varint_put (p, rec[i].kind);
      p = hl_varint_put (p, rec[i].stack_id);
      p = hl_varint_put (p, rec[i].size);
      prev = rec[i].id;
    }
  *n_written = k;
  return event_end (w, p);
}

size_t
hl_packet_writer_info (HlPacketWriter     *w,
                       uint64_t            time_ns,
                       const char * const *keys,
                       const char * const *values,
                       size_t              n)
{
  if (n > HL_TRACE_INFO_MAX_PAIRS)
    return 0;
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (keys[i] == NULL || values[i] == NULL)
        return 0;
      total += strlen (keys[i]) + strlen (values[i]) + 2;
    }
  if (total > HL_TRACE_INFO_MAX_BYTES
      || HL_PACKET_HEADER_SIZE + EVENT_BOUND (1 + 2 * n, total) > w->cap)
    return 0;

  hl_packet_writer_begin (w, time_ns);
  w->kind = HL_PACKET_KIND_INFO;
  uint8_t *p = event_start (w, HL_EVENT_INFO, time_ns);
  p = hl_varint_put (p, n);
  for (size_t i = 0; i < n; i++)
    {
      p = put_bytes (p, keys[i], strlen (keys[i]));
      p = put_bytes (p, values[i], strlen (values[i]));
    }
  event_end (w, p);
  size_t len = hl_packet_writer_finish (w);
  return len;
}
