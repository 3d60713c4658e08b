/* hl-trace-index.c — trailing index: encode, append, load (or walk). */
#define _POSIX_C_SOURCE 200809L

#include "hl-trace-index.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl-crc32c.h"
#include "private/hl-trace-reader-private.h"
#include "private/hl-varint.h"

#define ENTRY_MAX_BYTES (10u * HL_VARINT_MAX_BYTES)

/* ---- Encoding --------------------------------------------------------- */

static void
finish_packet (uint8_t *pkt, size_t content_size, uint16_t kind, uint32_t pid, uint32_t n)
{
  HlPacketHeader h;
  memset (&h, 0, sizeof h);
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) content_size;
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = kind;
  h.pid = pid;
  h.n_events = n;
  memcpy (pkt, &h, sizeof h);
  uint32_t crc = hl_crc32c (0, pkt, HL_PACKET_HEADER_SIZE + content_size);
  memcpy (pkt + offsetof (HlPacketHeader, crc32c), &crc, 4);
}

uint8_t *
hl_trace_index_encode (const HlTraceIndexEntry *entries,
                       size_t                   n_entries,
                       uint32_t                 pid,
                       uint64_t                 data_end,
                       size_t                  *size)
{
  size_t per_packet = (HL_PACKET_MAX_CONTENT - HL_VARINT_MAX_BYTES) / ENTRY_MAX_BYTES;
  size_t n_packets = (n_entries + per_packet - 1) / per_packet;
  uint8_t *out = malloc (n_packets * HL_PACKET_MAX_SIZE + HL_INDEX_TAIL_SIZE);
  if (out == NULL)
    return NULL;
  size_t len = 0;
  for (size_t first = 0; first < n_entries; first += per_packet)
    {
      size_t n = n_entries - first < per_packet ? n_entries - first : per_packet;
      uint8_t *pkt = out + len;
      uint8_t *p = hl_varint_put (pkt + HL_PACKET_HEADER_SIZE, n);
      uint64_t prev_end = 0, prev_time = 0, prev_id = 0;
      for (size_t i = first; i < first + n; i++)
        {
          const HlTraceIndexEntry *e = &entries[i];
          p = hl_varint_put (p, e->offset - prev_end);
          p = hl_varint_put (p, e->size);
          p = hl_varint_put (p, e->kind);
          p = hl_varint_put (p, e->tid);
          p = hl_varint_put (p, e->flags);
          p = hl_varint_put (p, e->n_events);
          p = hl_svarint_put (p, (int64_t) (e->time_begin_ns - prev_time));
          p = hl_varint_put (p, e->time_end_ns - e->time_begin_ns);
          p = hl_svarint_put (p, (int64_t) (e->alloc_id_begin - prev_id));
          p = hl_varint_put (p, e->alloc_id_end - e->alloc_id_begin);
          prev_end = e->offset + e->size;
          prev_time = e->time_begin_ns;
          prev_id = e->alloc_id_end;
        }
      size_t content = (size_t) (p - pkt) - HL_PACKET_HEADER_SIZE;
      finish_packet (pkt, content, HL_PACKET_KIND_INDEX, pid, (uint32_t) n);
      len += HL_PACKET_HEADER_SIZE + content;
    }
  uint8_t *tail = out + len;
  uint64_t fields[3] = { data_end, n_packets, n_entries };
  memcpy (tail + HL_PACKET_HEADER_SIZE, fields, sizeof fields);
  finish_packet (tail, HL_INDEX_TAIL_CONTENT_SIZE, HL_PACKET_KIND_INDEX_TAIL, pid, 0);
  *size = len + HL_INDEX_TAIL_SIZE;
  return out;
}

/* ---- Loading ---------------------------------------------------------- */

static int
index_add (HlTraceIndex *x, size_t *cap, const HlTraceIndexEntry *e)
{
  if (x->n_entries == *cap)
    {
      size_t c = *cap ? *cap * 2 : 256;
      HlTraceIndexEntry *n = realloc (x->entries, c * sizeof *n);
      if (n == NULL)
        return -1;
      x->entries = n;
      *cap = c;
    }
  x->entries[x->n_entries++] = *e;
  return 0;
}

void
hl_trace_index_entry_from_packet (HlTraceIndexEntry  *e,
                                  const HlPacketView *pkt)
{
  e->offset = pkt->offset;
  e->size = pkt->header.header_size + pkt->header.content_size;
  e->kind = pkt->header.kind;
  e->tid = pkt->header.tid;
  e->flags = pkt->header.flags;
  e->n_events = pkt->header.n_events;
  e->time_begin_ns = pkt->header.time_begin_ns;
  e->time_end_ns = pkt->header.time_end_ns;
  e->alloc_id_begin = pkt->header.alloc_id_begin;
  e->alloc_id_end = pkt->header.alloc_id_end;
}

/* Decodes the trailing index; -1 when absent or inconsistent. */
static int
load_trailing (const HlTraceReader *r, HlTraceIndex *x)
{
  if (r->size < r->data_start + HL_INDEX_TAIL_SIZE)
    return -1;
  HlPacketView pkt;
  uint64_t tail_at = r->size - HL_INDEX_TAIL_SIZE;
  if (hl_trace_reader_packet_at (r, tail_at, &pkt, NULL) != 0
      || pkt.header.kind != HL_PACKET_KIND_INDEX_TAIL
      || pkt.header.content_size != HL_INDEX_TAIL_CONTENT_SIZE)
    return -1;
  uint64_t fields[3];
  memcpy (fields, pkt.content, sizeof fields);
  uint64_t first = fields[0], n_packets = fields[1], n_entries = fields[2];
  if (first < r->data_start || first > tail_at || n_packets > (tail_at - first) / HL_PACKET_HEADER_SIZE
      || n_entries > r->size / HL_PACKET_HEADER_SIZE)
    return -1;
  size_t cap = 0;
  uint64_t at = first, prev_end_all = r->data_start;
  for (uint64_t k = 0; k < n_packets; k++)
    {
      if (hl_trace_reader_packet_at (r, at, &pkt, NULL) != 0 || pkt.header.kind != HL_PACKET_KIND_INDEX)
        return -1;
      const uint8_t *p = pkt.content, *end = p + pkt.header.content_size;
      uint64_t n, prev_end = 0, prev_time = 0, prev_id = 0;
      if ((p = hl_varint_get (p, end, &n)) == NULL || n > pkt.header.content_size)
        return -1;
      for (uint64_t i = 0; i < n; i++)
        {
          uint64_t gap, size, kind, tid, flags, n_events, tlen, idlen;
          int64_t dt, did;
          if ((p = hl_varint_get (p, end, &gap)) == NULL || (p = hl_varint_get (p, end, &size)) == NULL
              || (p = hl_varint_get (p, end, &kind)) == NULL || (p = hl_varint_get (p, end, &tid)) == NULL
              || (p = hl_varint_get (p, end, &flags)) == NULL || (p = hl_varint_get (p, end, &n_events)) == NULL
              || (p = hl_svarint_get (p, end, &dt)) == NULL || (p = hl_varint_get (p, end, &tlen)) == NULL
              || (p = hl_svarint_get (p, end, &did)) == NULL || (p = hl_varint_get (p, end, &idlen)) == NULL)
            return -1;
          HlTraceIndexEntry e;
          e.offset = prev_end + gap;
          e.size = (uint32_t) size;
          e.kind = (uint16_t) kind;
          e.tid = (uint32_t) tid;
          e.flags = (uint32_t) flags;
          e.n_events = (uint32_t) n_events;
          e.time_begin_ns = prev_time + (uint64_t) dt;
          e.time_end_ns = e.time_begin_ns + tlen;
          e.alloc_id_begin = prev_id + (uint64_t) did;
          e.alloc_id_end = e.alloc_id_begin + idlen;
          if (e.offset < prev_end || e.offset < prev_end_all || size < HL_PACKET_HEADER_SIZE
              || size > HL_PACKET_MAX_SIZE || e.offset > first || first - e.offset < size
              || kind > UINT16_MAX || tid > UINT32_MAX || flags > UINT32_MAX || n_events > UINT32_MAX
              || e.time_end_ns < e.time_begin_ns || e.alloc_id_end < e.alloc_id_begin)
            return -1;
          prev_end = e.offset + size;
          prev_end_all = prev_end;
          prev_time = e.time_begin_ns;
          prev_id = e.alloc_id_end;
          if (index_add (x, &cap, &e) != 0)
            return -1;
        }
      at += (uint64_t) pkt.header.header_size + pkt.header.content_size;
    }
  if (at != tail_at || x->n_entries != n_entries)
    return -1;
  x->from_file = true;
  x->data_end = first;
  return 0;
}

bool
hl_trace_index_present (const HlTraceReader *r)
{
  HlTraceIndex x;
  memset (&x, 0, sizeof x);
  bool present = load_trailing (r, &x) == 0;
  free (x.entries);
  return present;
}

/* Whether the file's last HL_INDEX_TAIL_SIZE bytes start like an
 * INDEX_TAIL packet header (magic or kind), damaged or not. */
static bool
looks_like_tail (const HlTraceReader *r)
{
  if (r->size < r->data_start + HL_INDEX_TAIL_SIZE)
    return false;
  HlPacketHeader h;
  memcpy (&h, r->data + r->size - HL_INDEX_TAIL_SIZE, sizeof h);
  /* Both the packet magic and the INDEX_TAIL kind: a plain trace whose
   * last packet happens to be HL_INDEX_TAIL_SIZE bytes long is not damaged. */
  return h.magic == HL_PACKET_MAGIC && h.kind == HL_PACKET_KIND_INDEX_TAIL;
}

/* Says in X's note why its packets were walked: the walk met INDEX
 * packets, or the end looks like a tail (a damaged index), or neither (a
 * trace that did not finish, or recorded without `record`). */
static void
walk_note (const HlTraceReader *r, HlTraceIndex *x)
{
  if (x->n_index_packets > 0 || looks_like_tail (r))
    snprintf (x->note, sizeof x->note, "walked (the trailing index is damaged: ignored)");
  else
    snprintf (x->note, sizeof x->note, "walked (no trailing index: a recording cut short, or made without `record`)");
}

static int
walk_headers (const HlTraceReader *r, HlTraceIndex *x, bool verify_crc)
{
  HlTraceReader tmp = *r;
  tmp.pos = tmp.data_start;
  memset (&tmp.stats, 0, sizeof tmp.stats);
  HlPacketView pkt;
  size_t cap = 0;
  while ((verify_crc ? hl_trace_reader_next_packet (&tmp, &pkt, NULL)
                     : hl_trace_reader_next_header (&tmp, &pkt, NULL)) > 0)
    {
      HlTraceIndexEntry e;
      hl_trace_index_entry_from_packet (&e, &pkt);
      if (index_add (x, &cap, &e) != 0)
        return -1;
    }
  x->from_file = false;
  x->data_end = r->size;
  x->n_index_packets = tmp.stats.packets_index;
  return 0;
}

static int
finish_index (HlTraceIndex *x)
{
  x->max_end_ns = malloc ((x->n_entries + 1) * sizeof *x->max_end_ns);
  if (x->max_end_ns == NULL)
    return -1;
  uint64_t m = 0;
  for (size_t i = 0; i < x->n_entries; i++)
    {
      if (x->entries[i].time_end_ns > m)
        m = x->entries[i].time_end_ns;
      x->max_end_ns[i] = m;
    }
  return 0;
}

int
hl_trace_index_load (const HlTraceReader *r,
                     HlTraceIndex       **out,
                     HlFormatError       *err)
{
  *out = NULL;
  HlTraceIndex *x = calloc (1, sizeof *x);
  if (x == NULL)
    goto oom;
  if (load_trailing (r, x) != 0)
    {
      free (x->entries);
      memset (x, 0, sizeof *x);
      if (walk_headers (r, x, false) != 0)
        goto oom;
      walk_note (r, x);
    }
  if (finish_index (x) != 0)
    goto oom;
  *out = x;
  return 0;
oom:
  hl_trace_index_free (x);
  hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory building the index");
  return -1;
}

void
hl_trace_index_free (HlTraceIndex *index)
{
  if (index == NULL)
    return;
  free (index->entries);
  free (index->max_end_ns);
  free (index);
}

size_t
hl_trace_index_find_time (const HlTraceIndex *index,
                          uint64_t            time_ns)
{
  size_t lo = 0, hi = index->n_entries;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (index->max_end_ns[mid] >= time_ns)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

size_t
hl_trace_index_find_thread (const HlTraceIndex *index,
                            uint32_t            tid,
                            size_t              from)
{
  size_t i = from;
  while (i < index->n_entries && index->entries[i].tid != tid)
    i++;
  return i < index->n_entries ? i : index->n_entries;
}

/* ---- Appending -------------------------------------------------------- */

int
hl_trace_index_append_file (const char    *path,
                            HlFormatError *err)
{
  HlTraceReader *r;
  if (hl_trace_reader_open_file (path, &r, err) != 0)
    return -1;
  if (hl_trace_index_present (r))
    {
      hl_trace_reader_free (r);
      return 0;
    }
  HlTraceIndex x;
  memset (&x, 0, sizeof x);
  int rc = -1;
  uint8_t *buf = NULL;
  size_t size = 0;
  if (walk_headers (r, &x, true) != 0
      || (buf = hl_trace_index_encode (x.entries, x.n_entries, r->header.pid, r->size, &size)) == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory building the index");
      goto out;
    }
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot open %s for writing: %s", path, strerror (errno));
      goto out;
    }
  /* The index says where it starts: the file must not have grown since. */
  off_t end = lseek (fd, 0, SEEK_END);
  if (end < 0 || (uint64_t) end != r->size)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "%s is still being written", path);
      close (fd);
      goto out;
    }
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (fd, buf + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot write the index to %s: %s", path,
                               n < 0 ? strerror (errno) : "short write");
          close (fd);
          goto out;
        }
      done += (size_t) n;
    }
  if (close (fd) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot write the index to %s: %s", path, strerror (errno));
      goto out;
    }
  rc = 0;
out:
  free (buf);
  free (x.entries);
  hl_trace_reader_free (r);
  return rc;
}
