/* hl-format-test-gen.c — see hl-format-test-gen.h. */
#define _POSIX_C_SOURCE 200809L
#include "hl-format-test-gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-trace-codec.h"
#include "hl-trace-dump.h"
#include "hl-trace-writer.h"

#define MAX_THREADS 8

static uint64_t rng_state;

uint64_t
hl_gen_xorshift (uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static uint64_t
rnd (void)
{
  return hl_gen_xorshift (&rng_state);
}

static uint64_t
rnd_below (uint64_t n)
{
  return n == 0 ? 0 : rnd () % n;
}

static void *
grow (void *p, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return p;
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  p = realloc (p, c * elem);
  if (p == NULL)
    abort ();
  *cap = c;
  return p;
}

static void
append_bytes (HlGenTrace *t, const void *d, size_t n)
{
  t->data = grow (t->data, &t->cap, t->size + n, 1);
  memcpy (t->data + t->size, d, n);
  t->size += n;
}

static size_t
add_string (HlGenTrace *t, const char *s, size_t len)
{
  t->strings = grow (t->strings, &t->cap_strings, t->n_strings + len + 1, 1);
  size_t at = t->n_strings;
  memcpy (t->strings + at, s, len);
  t->strings[at + len] = '\0';
  t->n_strings += len + 1;
  return at + 1;
}

static HlGenEvent *
add_event (HlGenTrace *t, HlEventType type, uint64_t time, uint32_t tid)
{
  t->events = grow (t->events, &t->cap_events, t->n_events + 1, sizeof *t->events);
  HlGenEvent *g = &t->events[t->n_events++];
  memset (g, 0, sizeof *g);
  g->ev.type = type;
  g->ev.time_ns = time;
  g->ev.tid = tid;
  return g;
}

typedef struct
{
  HlPacketWriter w;
  uint8_t        buf[HL_PACKET_MAX_SIZE];
  uint32_t       tid;
  uint64_t       time;
} GenThread;

static void
flush (HlGenTrace *t, GenThread *th)
{
  size_t n = hl_packet_writer_finish (&th->w);
  if (n > 0)
    {
      append_bytes (t, th->buf, n);
      t->n_packets++;
    }
  hl_packet_writer_begin (&th->w, th->time);
}

static void
random_name (char *buf, size_t max_len, size_t *len)
{
  size_t n = 1 + rnd_below (max_len);
  for (size_t i = 0; i < n; i++)
    buf[i] = (char) ('a' + rnd_below (26));
  buf[n] = '\0';
  *len = n;
}

void
hl_gen_trace (HlGenTrace *t, const HlGenOptions *opt)
{
  memset (t, 0, sizeof *t);
  rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t) opt->seed * 0x2545F4914F6CDD1Dull);
  if (rng_state == 0)
    rng_state = 1;
  t->pid = 4242;

  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, t->pid, 1700000000000000000ull, 5000, 0);
  append_bytes (t, &fh, sizeof fh);

  unsigned n_threads = opt->n_threads < 1 ? 1 : opt->n_threads > MAX_THREADS ? MAX_THREADS : opt->n_threads;
  GenThread *threads = calloc (n_threads, sizeof *threads);
  uint64_t clock = 100;
  size_t cap = opt->packet_cap ? opt->packet_cap : HL_PACKET_MAX_SIZE;
  for (unsigned i = 0; i < n_threads; i++)
    {
      threads[i].tid = t->pid + i;
      threads[i].time = clock;
      hl_packet_writer_init (&threads[i].w, threads[i].buf, cap, t->pid, threads[i].tid);
    }

  /* INFO packet */
  {
    const char *keys[] = { "exe", "cmdline", "host", "page_size", "clock", "unwinder" };
    const char *values[] = { "/usr/bin/demo", "demo\x1f--flag", "testhost", "4096", "monotonic", "fp" };
    size_t n = hl_packet_writer_info (&threads[0].w, clock, keys, values, 6);
    if (n == 0)
      abort ();
    append_bytes (t, threads[0].buf, n);
    t->n_packets++;
    HlGenEvent *g = add_event (t, HL_EVENT_INFO, clock, threads[0].tid);
    g->ev.u.info.n = 6;
    hl_packet_writer_begin (&threads[0].w, clock);
  }

  /* Live allocations, stacks */
  size_t cap_live = 0, n_live = 0;
  uint64_t *live_id = NULL, *live_addr = NULL;
  size_t cap_live2 = 0;
  uint32_t n_stacks = 0;
  uint64_t freed_addr[16];
  size_t n_freed = 0;
  uint64_t next_id = 1;
  uint64_t frames[HL_TRACE_MAX_FRAMES + 8];
  uint64_t base_frames[HL_TRACE_MAX_FRAMES + 8];
  for (unsigned i = 0; i < HL_TRACE_MAX_FRAMES + 8; i++)
    base_frames[i] = 0x555555554000ull + rnd_below (1 << 20);

  for (size_t k = 0; k < opt->n_events; k++)
    {
      GenThread *th = &threads[rnd_below (n_threads)];
      clock += rnd_below (8) == 0 ? rnd_below (1000000) : rnd_below (3000);
      th->time = clock;
      unsigned kind = (unsigned) rnd_below (opt->all_kinds ? 100 : 60);
      HlWriteStatus st;
      HlGenEvent tmp;
      memset (&tmp, 0, sizeof tmp);
      tmp.ev.time_ns = clock;
      tmp.ev.tid = th->tid;
      bool again;
      do
        {
          again = false;
          char s1[64], s2[64];
          size_t l1, l2;
          if (kind < 30 || n_live == 0)
            {
              /* new stack sometimes, then an allocation */
              uint32_t stack;
              if (n_stacks == 0 || rnd_below (4) == 0)
                {
                  stack = ++n_stacks;
                  uint32_t n = (uint32_t) rnd_below (40);
                  if (rnd_below (50) == 0 && cap >= 4096)
                    n = HL_TRACE_MAX_FRAMES + 3; /* cut and flagged */
                  uint32_t keep = (uint32_t) rnd_below (n + 1);
                  for (uint32_t i = 0; i < n; i++)
                    frames[i] = i < n - keep ? 0x7f0000000000ull + rnd () % 0x100000 : base_frames[i];
                  uint32_t flags = rnd_below (10) == 0 ? HL_STACK_FLAG_TRUNCATED : 0;
                  st = hl_packet_writer_stack (&th->w, clock, stack, flags, frames, n);
                  if (st == HL_WRITE_FULL)
                    {
                      flush (t, th);
                      st = hl_packet_writer_stack (&th->w, clock, stack, flags, frames, n);
                    }
                  if (st == HL_WRITE_FULL) /* too deep for this small packet */
                    {
                      n_stacks--;
                      stack = 0;
                      goto allocate;
                    }
                  HlGenEvent *g = add_event (t, HL_EVENT_STACK, clock, th->tid);
                  g->ev.u.stack.id = stack;
                  if (n > HL_TRACE_MAX_FRAMES)
                    {
                      n = HL_TRACE_MAX_FRAMES;
                      flags |= HL_STACK_FLAG_TRUNCATED;
                    }
                  g->ev.u.stack.flags = flags;
                  g->ev.u.stack.n_frames = n;
                  t->frames = grow (t->frames, &t->cap_frames, t->n_frames + n, sizeof (uint64_t));
                  g->frames_at = t->n_frames;
                  if (n > 0)
                    memcpy (t->frames + t->n_frames, frames, n * sizeof (uint64_t));
                  t->n_frames += n;
                }
              else
                stack = (uint32_t) (1 + rnd_below (n_stacks));
              if (rnd_below (20) == 0)
                stack = 0;
            allocate:;
              uint64_t id = next_id;
              next_id += 1 + (rnd_below (3) == 0 ? rnd_below (5) : 0);
              uint64_t size = rnd_below (8) == 0 ? rnd () % (1u << 30) : rnd_below (300);
              uint64_t align = rnd_below (10) == 0 ? (uint64_t) 1 << rnd_below (13) : 0;
              uint64_t addr = rnd_below (30) == 0 ? rnd () : 0x555555600000ull + rnd_below (1 << 24) * 16;
              if (n_freed > 0 && rnd_below (3) != 0)
                addr = freed_addr[--n_freed]; /* malloc reuses what was freed last */
              bool is_realloc = opt->all_kinds && n_live > 0 && rnd_below (6) == 0;
              if (is_realloc)
                {
                  size_t victim = rnd_below (n_live);
                  bool by_addr = rnd_below (5) == 0;
                  if (by_addr)
                    st = hl_packet_writer_realloc_addr (&th->w, clock, live_addr[victim], id, size, stack, addr);
                  else
                    st = hl_packet_writer_realloc (&th->w, clock, live_id[victim], id, size, stack, addr);
                  if (st == HL_WRITE_FULL)
                    {
                      flush (t, th);
                      again = true;
                      next_id = id;
                      continue;
                    }
                  HlGenEvent *g = add_event (t, by_addr ? HL_EVENT_REALLOC_ADDR : HL_EVENT_REALLOC, clock, th->tid);
                  g->ev.u.realloc.old_id = by_addr ? HL_ID_NONE : live_id[victim];
                  g->ev.u.realloc.old_address = by_addr ? live_addr[victim] : 0;
                  g->ev.u.realloc.id = id;
                  g->ev.u.realloc.size = size;
                  g->ev.u.realloc.stack_id = stack;
                  g->ev.u.realloc.address = addr;
                  live_id[victim] = id;
                  live_addr[victim] = addr;
                }
              else
                {
                  st = hl_packet_writer_alloc (&th->w, clock, id, size, align, stack, addr);
                  if (st == HL_WRITE_FULL)
                    {
                      flush (t, th);
                      again = true;
                      next_id = id;
                      continue;
                    }
                  HlGenEvent *g = add_event (t, align == 0 || align == HL_TRACE_DEFAULT_ALIGNMENT
                                                  ? HL_EVENT_ALLOC : HL_EVENT_ALLOC_ALIGNED, clock, th->tid);
                  g->ev.u.alloc.id = id;
                  g->ev.u.alloc.size = size;
                  g->ev.u.alloc.alignment = align == HL_TRACE_DEFAULT_ALIGNMENT ? 0 : align;
                  g->ev.u.alloc.stack_id = stack;
                  g->ev.u.alloc.address = addr;
                  live_id = grow (live_id, &cap_live, n_live + 1, sizeof *live_id);
                  live_addr = grow (live_addr, &cap_live2, n_live + 1, sizeof *live_addr);
                  live_id[n_live] = id;
                  live_addr[n_live] = addr;
                  n_live++;
                }
            }
          else if (kind < 60)
            {
              size_t victim = rnd_below (n_live);
              bool by_addr = opt->all_kinds && rnd_below (8) == 0;
              st = by_addr ? hl_packet_writer_free_addr (&th->w, clock, live_addr[victim])
                           : hl_packet_writer_free (&th->w, clock, live_id[victim]);
              if (st == HL_WRITE_FULL)
                {
                  flush (t, th);
                  again = true;
                  continue;
                }
              if (n_freed == 16)
                {
                  memmove (freed_addr, freed_addr + 1, 15 * sizeof *freed_addr);
                  n_freed--;
                }
              freed_addr[n_freed++] = live_addr[victim];
              HlGenEvent *g = add_event (t, by_addr ? HL_EVENT_FREE_ADDR : HL_EVENT_FREE, clock, th->tid);
              g->ev.u.free.id = by_addr ? HL_ID_NONE : live_id[victim];
              g->ev.u.free.address = by_addr ? live_addr[victim] : 0;
              live_id[victim] = live_id[n_live - 1];
              live_addr[victim] = live_addr[n_live - 1];
              n_live--;
            }
          else
            {
              HlGenEvent *g = &tmp;
              random_name (s1, 40, &l1);
              random_name (s2, 60, &l2);
              switch (kind % 9)
                {
                case 0:
                  {
                    uint8_t bid[20];
                    for (int i = 0; i < 20; i++)
                      bid[i] = (uint8_t) rnd ();
                    size_t bl = rnd_below (21);
                    uint32_t flags = HL_MODULE_FLAG_LOADED;
                    uint64_t start = 0x7f0000000000ull + rnd_below (1 << 20) * 4096, size = rnd_below (1 << 24), off = rnd_below (1 << 16) * 4096;
                    st = hl_packet_writer_module (&th->w, clock, flags, start, size, off, bid, bl, s2);
                    g->ev.type = HL_EVENT_MODULE;
                    g->ev.u.module.flags = flags;
                    g->ev.u.module.start = start;
                    g->ev.u.module.size = size;
                    g->ev.u.module.file_offset = off;
                    g->ev.u.module.build_id_len = (uint32_t) bl;
                    g->str_at[0] = add_string (t, (const char *) bid, bl);
                    g->str_at[1] = add_string (t, s2, l2);
                    break;
                  }
                case 1:
                  {
                    uint32_t tid = (uint32_t) rnd (), flags = (uint32_t) rnd_below (8);
                    st = hl_packet_writer_thread (&th->w, clock, tid, flags, s1);
                    g->ev.type = HL_EVENT_THREAD;
                    g->ev.u.thread.tid = tid;
                    g->ev.u.thread.flags = flags;
                    g->str_at[0] = add_string (t, s1, l1);
                    break;
                  }
                case 2:
                  {
                    int64_t v = (int64_t) rnd ();
                    st = hl_packet_writer_meta_int (&th->w, clock, s1, v);
                    g->ev.type = HL_EVENT_META_INT;
                    g->ev.u.meta.int_value = v;
                    g->str_at[0] = add_string (t, s1, l1);
                    break;
                  }
                case 3:
                  st = hl_packet_writer_meta_string (&th->w, clock, s1, s2);
                  g->ev.type = HL_EVENT_META_STRING;
                  g->ev.u.meta.is_string = true;
                  g->str_at[0] = add_string (t, s1, l1);
                  g->str_at[1] = add_string (t, s2, l2);
                  break;
                case 4:
                  st = hl_packet_writer_meta_remove (&th->w, clock, s1);
                  g->ev.type = HL_EVENT_META_REMOVE;
                  g->str_at[0] = add_string (t, s1, l1);
                  break;
                case 5:
                  st = hl_packet_writer_mark (&th->w, clock, s2);
                  g->ev.type = HL_EVENT_MARK;
                  g->str_at[0] = add_string (t, s2, l2);
                  break;
                case 6:
                  {
                    uint64_t a = rnd (), b = rnd_below (1 << 30), c = rnd_below (1000000), d = rnd_below (1000000);
                    st = hl_packet_writer_counters (&th->w, clock, a, b, c, d);
                    g->ev.type = HL_EVENT_COUNTERS;
                    g->ev.u.counters.heap_bytes = a;
                    g->ev.u.counters.rss_bytes = b;
                    g->ev.u.counters.n_allocs = c;
                    g->ev.u.counters.n_frees = d;
                    break;
                  }
                case 7:
                  {
                    uint64_t n = rnd_below (100000);
                    uint32_t reason = (uint32_t) (1 + rnd_below (4));
                    st = hl_packet_writer_dropped (&th->w, clock, n, reason);
                    g->ev.type = HL_EVENT_DROPPED;
                    g->ev.u.dropped.count = n;
                    g->ev.u.dropped.reason = reason;
                    break;
                  }
                default:
                  {
                    int32_t status = (int32_t) rnd ();
                    st = hl_packet_writer_end (&th->w, clock, status);
                    g->ev.type = HL_EVENT_END;
                    g->ev.u.end.exit_status = status;
                    break;
                  }
                }
              if (st == HL_WRITE_FULL)
                {
                  flush (t, th);
                  again = true;
                  continue;
                }
              HlGenEvent *dst = add_event (t, g->ev.type, clock, th->tid);
              *dst = *g;
            }
        }
      while (again);
    }
  for (unsigned i = 0; i < n_threads; i++)
    flush (t, &threads[i]);
  free (threads);
  free (live_id);
  free (live_addr);
}

void
hl_gen_trace_clear (HlGenTrace *t)
{
  free (t->data);
  free (t->events);
  free (t->frames);
  free (t->strings);
  memset (t, 0, sizeof *t);
}

static bool
str_eq (const HlGenTrace *t, size_t at, const char *got)
{
  if (at == 0)
    return got == NULL;
  return got != NULL && strcmp (t->strings + at - 1, got) == 0;
}

const char *
hl_gen_event_compare (const HlGenTrace *t, const HlGenEvent *g, const HlEvent *got)
{
  const HlEvent *w = &g->ev;
  if (w->type != got->type)
    return "type";
  if (w->time_ns != got->time_ns)
    return "time";
  if (w->tid != got->tid)
    return "tid";
  switch (w->type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
      if (w->u.alloc.id != got->u.alloc.id) return "alloc id";
      if (w->u.alloc.size != got->u.alloc.size) return "alloc size";
      if (w->u.alloc.alignment != got->u.alloc.alignment) return "alloc alignment";
      if (w->u.alloc.stack_id != got->u.alloc.stack_id) return "alloc stack";
      if (w->u.alloc.address != got->u.alloc.address) return "alloc address";
      return NULL;
    case HL_EVENT_FREE:
    case HL_EVENT_FREE_ADDR:
      if (w->u.free.id != got->u.free.id) return "free id";
      if (w->u.free.address != got->u.free.address) return "free address";
      return NULL;
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
      if (w->u.realloc.old_id != got->u.realloc.old_id) return "realloc old id";
      if (w->u.realloc.old_address != got->u.realloc.old_address) return "realloc old address";
      if (w->u.realloc.id != got->u.realloc.id) return "realloc id";
      if (w->u.realloc.size != got->u.realloc.size) return "realloc size";
      if (w->u.realloc.stack_id != got->u.realloc.stack_id) return "realloc stack";
      if (w->u.realloc.address != got->u.realloc.address) return "realloc address";
      return NULL;
    case HL_EVENT_STACK:
      if (w->u.stack.id != got->u.stack.id) return "stack id";
      if (w->u.stack.flags != got->u.stack.flags) return "stack flags";
      if (w->u.stack.n_frames != got->u.stack.n_frames) return "stack depth";
      if (w->u.stack.n_frames > 0
          && memcmp (t->frames + g->frames_at, got->u.stack.frames, w->u.stack.n_frames * sizeof (uint64_t)) != 0)
        return "stack frames";
      return NULL;
    case HL_EVENT_MODULE:
      if (w->u.module.flags != got->u.module.flags || w->u.module.start != got->u.module.start
          || w->u.module.size != got->u.module.size || w->u.module.file_offset != got->u.module.file_offset)
        return "module fields";
      if (w->u.module.build_id_len != got->u.module.build_id_len
          || memcmp (t->strings + g->str_at[0] - 1, got->u.module.build_id, w->u.module.build_id_len) != 0)
        return "module build-id";
      if (!str_eq (t, g->str_at[1], got->u.module.path)) return "module path";
      return NULL;
    case HL_EVENT_THREAD:
      if (w->u.thread.tid != got->u.thread.tid || w->u.thread.flags != got->u.thread.flags) return "thread fields";
      if (!str_eq (t, g->str_at[0], got->u.thread.name)) return "thread name";
      return NULL;
    case HL_EVENT_META_INT:
    case HL_EVENT_META_STRING:
    case HL_EVENT_META_REMOVE:
      if (!str_eq (t, g->str_at[0], got->u.meta.key)) return "meta key";
      if (w->u.meta.is_string != got->u.meta.is_string) return "meta kind";
      if (w->type == HL_EVENT_META_INT && w->u.meta.int_value != got->u.meta.int_value) return "meta int";
      if (w->type == HL_EVENT_META_STRING && !str_eq (t, g->str_at[1], got->u.meta.string_value)) return "meta string";
      return NULL;
    case HL_EVENT_MARK:
      return str_eq (t, g->str_at[0], got->u.mark.text) ? NULL : "mark text";
    case HL_EVENT_COUNTERS:
      return memcmp (&w->u.counters, &got->u.counters, sizeof w->u.counters) == 0 ? NULL : "counters";
    case HL_EVENT_DROPPED:
      return w->u.dropped.count == got->u.dropped.count && w->u.dropped.reason == got->u.dropped.reason ? NULL : "dropped";
    case HL_EVENT_INFO:
      if (got->u.info.n != w->u.info.n) return "info count";
      return strcmp (got->u.info.keys[0], "exe") == 0 && strcmp (got->u.info.values[0], "/usr/bin/demo") == 0 ? NULL : "info pairs";
    case HL_EVENT_END:
      return w->u.end.exit_status == got->u.end.exit_status ? NULL : "exit status";
    default:
      return "unexpected type";
    }
}

char *
hl_gen_dump_file (const char *path, const HlTraceCodec *codec, HlTraceReaderStats *st)
{
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_file_codec (path, codec, &r, &err) != 0)
    return NULL;
  char *text = NULL;
  size_t len;
  FILE *f = open_memstream (&text, &len);
  if (f == NULL)
    {
      hl_trace_reader_free (r);
      return NULL;
    }
  hl_trace_dump (r, f, HL_DUMP_NO_SUMMARY, NULL);
  fclose (f);
  if (st != NULL)
    hl_trace_reader_stats (r, st);
  hl_trace_reader_free (r);
  return text;
}
