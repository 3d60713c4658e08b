/* test-format-model.c — model frames (format 4.0, codec 3,
 * docs/trace-format.md 7d): the split with the model and the join give
 * the bytes back exactly for random traces, cut and damaged ones and an
 * allocator-like trace; on the allocator-like trace the model predicts
 * most stacks and addresses, with every kind of token; hostile columns
 * (cut or flipped at every byte) are refused or join to some bytes, never
 * out of bounds; a codec-3 frame is refused by the codec-2 join and the
 * other way round; the committed 4.0 compressed golden file reads to its
 * committed dump. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-format-test-check.h"
#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-columns.h"
#include "hl-trace-dump.h"
#include "hl-trace-model.h"
#include "hl-trace-writer.h"
#include "hl-trace-zstd.h"

static size_t split_of[HL_COL_COUNT];

/* Split with the model, then join; with PLANES, addr and free as planes. */
static bool
roundtrip_planes (const uint8_t *raw, size_t n, HlColumns *keep, bool planes)
{
  return hl_check_columns_roundtrip (raw, n, true, planes ? (1u << HL_COL_ADDR) | (1u << HL_COL_FREE) : 0u,
                                     split_of, keep);
}

static bool
roundtrip (const uint8_t *raw, size_t n)
{
  return roundtrip_planes (raw, n, NULL, false) && roundtrip_planes (raw, n, NULL, true);
}

/* ---- An allocator-like trace ------------------------------------------ */

typedef struct
{
  uint8_t *data;
  size_t   size, cap;
} Bytes;

static void
append (Bytes *b, const void *p, size_t n)
{
  if (b->size + n > b->cap)
    {
      b->cap = (b->size + n) * 2;
      b->data = realloc (b->data, b->cap);
    }
  memcpy (b->data + b->size, p, n);
  b->size += n;
}

#define THREADS 2
#define LIVE    64

typedef struct
{
  HlPacketWriter w;
  uint8_t        buf[HL_PACKET_MAX_SIZE];
  uint64_t       live_id[LIVE], live_addr[LIVE], live_size[LIVE];
  int            n_live;
} Thread;

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd (void)
{
  return hl_gen_xorshift (&rng);
}

/* A tiny allocator like malloc's: LIFO lists per 16-byte class, a bump
 * pointer; sometimes a deeper entry (tcache full, another bin). */
static uint64_t lists[64][32];
static int      n_list[64];
static uint64_t bump = 0x555555560000ull;

static uint64_t
chunk (uint64_t size)
{
  uint64_t c = (size + 23) & ~(uint64_t) 15;
  return c < 32 ? 32 : c;
}

static uint64_t
sim_malloc (uint64_t size)
{
  unsigned c = (unsigned) (chunk (size) >> 4) % 64;
  if (n_list[c] > 0)
    {
      int k = n_list[c] > 3 && rnd () % 8 == 0 ? n_list[c] - 3 : n_list[c] - 1;
      uint64_t a = lists[c][k];
      memmove (&lists[c][k], &lists[c][k + 1], (size_t) (n_list[c] - 1 - k) * 8);
      n_list[c]--;
      return a;
    }
  uint64_t a = bump + 16;
  bump += chunk (size);
  return a;
}

static void
sim_free (uint64_t addr, uint64_t size)
{
  unsigned c = (unsigned) (chunk (size) >> 4) % 64;
  if (n_list[c] == 32)
    return;
  lists[c][n_list[c]++] = addr;
}

static void
flush (Thread *t, Bytes *out, uint64_t clock)
{
  size_t n = hl_packet_writer_finish (&t->w);
  if (n > 0)
    append (out, t->buf, n);
  hl_packet_writer_begin (&t->w, clock);
}

/* Events retried after a flush when the packet is full. */
#define WRITE(t, call)                       \
  do                                         \
    {                                        \
      if ((call) == HL_WRITE_FULL)           \
        {                                    \
          flush (t, out, clock);             \
          if ((call) != HL_WRITE_OK)         \
            abort ();                        \
        }                                    \
    }                                        \
  while (0)

static void
allocator_trace (Bytes *out, size_t n_events)
{
  static Thread threads[THREADS];
  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, 4242, 1700000000000000000ull, 5000, HL_TRACE_FLAG_COARSE_CLOCK);
  append (out, &fh, sizeof fh);
  uint64_t clock = 100, next_id = 1;
  for (int i = 0; i < THREADS; i++)
    {
      hl_packet_writer_init (&threads[i].w, threads[i].buf, 4096 + 2048 * (size_t) i, 4242, 4242 + (uint32_t) i);
      hl_packet_writer_begin (&threads[i].w, clock);
    }
  /* a program's loop: the same 12 call sites in turn, sizes per site */
  static const uint64_t sizes[12] = { 24, 40, 24, 100, 56, 24, 200, 40, 16, 72, 24, 1000 };
  for (uint32_t s = 1; s <= 12; s++)
    for (int i = 0; i < THREADS; i++)
      {
        uint64_t frames[3] = { 0x401000 + s * 16, 0x402000 + s * 8, 0x403000 };
        Thread *t = &threads[i];
        WRITE (t, hl_packet_writer_stack (&t->w, clock, s + 100 * (uint32_t) i, 0, frames, 3));
      }
  unsigned site[THREADS] = { 0 };
  for (size_t e = 0; e < n_events; e++)
    {
      Thread *t = &threads[rnd () % 16 == 0 ? 1 : 0];
      int ti = (int) (t - threads);
      if (rnd () % 4096 == 0)
        clock += 4000000;
      if (t->n_live == LIVE || (t->n_live > 0 && rnd () % 2 == 0))
        {
          int v = rnd () % 4 == 0 ? (int) (rnd () % (uint64_t) t->n_live) : t->n_live - 1;
          WRITE (t, hl_packet_writer_free (&t->w, clock, t->live_id[v]));
          sim_free (t->live_addr[v], t->live_size[v]);
          t->live_id[v] = t->live_id[t->n_live - 1];
          t->live_addr[v] = t->live_addr[t->n_live - 1];
          t->live_size[v] = t->live_size[t->n_live - 1];
          t->n_live--;
          continue;
        }
      unsigned s = rnd () % 16 == 0 ? (unsigned) (rnd () % 12) : site[ti];
      site[ti] = (s + 1) % 12;
      uint64_t size = sizes[s] + (rnd () % 8 == 0 ? rnd () % 64 : 0);
      uint64_t addr = sim_malloc (size);
      uint32_t stack = s + 1 + 100 * (uint32_t) ti;
      uint64_t id = next_id++;
      WRITE (t, hl_packet_writer_alloc (&t->w, clock, id, size, 0, stack, addr));
      t->live_id[t->n_live] = id;
      t->live_addr[t->n_live] = addr;
      t->live_size[t->n_live] = size;
      t->n_live++;
    }
  for (int i = 0; i < THREADS; i++)
    flush (&threads[i], out, clock);
}

/* ---- Non-canonical varints (6.0) -------------------------------------- */

/* One EVENTS packet written by hand: STACK 1 (two new frames), ALLOC of
 * it, STACK 2 whose n_shared varint is not canonical, ALLOC of it, FREE
 * of id 2 whose delta svarint is not canonical. The model keeps both as
 * they were: the second STACK in form 0, the free as HL_FTOK_PLAIN. */
static size_t
noncanonical_packet (uint8_t *out)
{
  uint8_t c[256], *p = c;
  *p++ = HL_EVENT_STACK | HL_EVENT_FLAG_NO_TIME;
  p = hl_svarint_put (p, 1);
  p = hl_varint_put (p, 0);
  p = hl_varint_put (p, 2);
  p = hl_varint_put (p, 0);
  p = hl_svarint_put (p, 0x401000);
  p = hl_svarint_put (p, 0x402000);
  *p++ = HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME;
  p = hl_varint_put (p, 40);
  p = hl_svarint_put (p, 0);
  p = hl_addr_delta_put (p, 0x555555560010ull);
  *p++ = HL_EVENT_STACK | HL_EVENT_FLAG_NO_TIME;
  p = hl_svarint_put (p, 1);
  p = hl_varint_put (p, 0);
  p = hl_varint_put (p, 2);
  *p++ = 0x81; /* n_shared 1 in two bytes */
  *p++ = 0x00;
  p = hl_svarint_put (p, 0x10);
  *p++ = HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME;
  p = hl_varint_put (p, 40);
  p = hl_svarint_put (p, 0);
  p = hl_addr_delta_put (p, 0x40);
  *p++ = HL_EVENT_FREE | HL_EVENT_FLAG_NO_TIME;
  *p++ = 0x80; /* svarint 0 (prev_id - 2) in two bytes */
  *p++ = 0x00;
  HlPacketHeader h = { 0 };
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) (p - c);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_EVENTS;
  h.pid = h.tid = 4242;
  h.alloc_id_begin = 1;
  h.alloc_id_end = 3;
  h.n_events = 5;
  h.flags = HL_PACKET_FLAG_HAS_STACKS;
  h.crc32c = hl_crc32c (hl_crc32c (0, &h, sizeof h), c, h.content_size);
  memcpy (out, &h, sizeof h);
  memcpy (out + sizeof h, c, h.content_size);
  return sizeof h + h.content_size;
}

/* ---- Hostile columns --------------------------------------------------- */

/* Every column of C cut at every byte (must be refused) and flipped at
 * every byte (refused or joined, never out of bounds: ASan watches). */
static void
hostile (const HlColumns *c, size_t n, const size_t *split, size_t *runs, size_t *ok)
{
  uint8_t *out = malloc (n + 1);
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      const uint8_t *d[HL_COL_COUNT];
      size_t len[HL_COL_COUNT];
      for (int j = 0; j < HL_COL_COUNT; j++)
        {
          d[j] = c->data[j];
          len[j] = c->len[j];
        }
      for (size_t l = 0; l < c->len[i]; l++)
        {
          len[i] = l;
          (*runs)++;
          *ok += hl_trace_columns_join_any (d, len, split, HL_JOIN_MODEL, out, n) != 0;
        }
      len[i] = c->len[i];
      uint8_t *copy = malloc (c->len[i] + 1);
      d[i] = copy;
      for (size_t k = 0; k < c->len[i]; k++)
        {
          memcpy (copy, c->data[i], c->len[i]);
          copy[k] ^= (uint8_t) (0x81u >> (k % 3));
          (*runs)++;
          *ok += hl_trace_columns_join_any (d, len, split, HL_JOIN_MODEL, out, n) <= 0;
        }
      free (copy);
    }
  free (out);
}

int
main (void)
{
  hl_tap_plan (15);

  /* 1. random traces, every kind, several threads and packet sizes */
  bool all = true;
  for (uint32_t seed = 1; seed <= 12; seed++)
    {
      HlGenOptions o = { seed, 2000 + seed * 500, 1 + seed % 4, seed % 3 ? 0 : 2048, (int) (seed & 1) };
      HlGenTrace t;
      hl_gen_trace (&t, &o);
      all &= roundtrip (t.data + HL_TRACE_FILE_HEADER_SIZE, t.size - HL_TRACE_FILE_HEADER_SIZE);
      hl_gen_trace_clear (&t);
    }
  hl_tap_ok (all, "model split then join gives 12 random traces back byte for byte, with and without planes");

  /* 2. cut, damaged, garbage: verbatim chunks, which the model skips */
  HlGenOptions o = { 77, 3000, 2, 4096, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  const uint8_t *raw = t.data + HL_TRACE_FILE_HEADER_SIZE;
  size_t n = t.size - HL_TRACE_FILE_HEADER_SIZE;
  uint8_t *bad = malloc (n);
  bool cut_ok = true;
  /* (every 211th and 149th byte: each roundtrip maps four models, and the
   * fuzz target covers every offset) */
  for (size_t k = 1; k < n; k += 211)
    cut_ok &= roundtrip (raw, n - k);
  hl_tap_ok (cut_ok, "a run cut anywhere joins back exactly");
  bool flip_ok = true;
  for (size_t k = 0; k < n; k += 149)
    {
      memcpy (bad, raw, n);
      bad[k] ^= (uint8_t) (1u << (k % 8));
      flip_ok &= roundtrip (bad, n);
    }
  hl_tap_ok (flip_ok, "a run with a flipped bit anywhere (non-canonical varints included) joins back exactly");
  for (size_t k = 0; k < n; k++)
    bad[k] = (uint8_t) (k * 2654435761u >> 13);
  hl_tap_ok (roundtrip (bad, n), "garbage joins back exactly (verbatim)");

  /* 3. an allocator-like trace: exact, and mostly predicted */
  Bytes a = { 0 };
  allocator_trace (&a, 60000);
  const uint8_t *araw = a.data + HL_TRACE_FILE_HEADER_SIZE;
  size_t an = a.size - HL_TRACE_FILE_HEADER_SIZE;
  HlColumns c = { 0 };
  bool exact = roundtrip_planes (araw, an, &c, false);
  hl_tap_ok (exact && roundtrip (araw, an), "an allocator-like trace (%zu bytes, two threads) joins back exactly", an);
  size_t kinds[HL_MTOK_ADDR_DEEP + 1] = { 0 }, last = 0, stack_raw = 0, allocs = c.len[HL_COL_MTOK];
  for (size_t i = 0; i < allocs; i++)
    {
      uint8_t tok = c.data[HL_COL_MTOK][i];
      unsigned tt = tok & 0x7fu;
      if (tt == HL_MTOK_ADDR_LAST)
        last++;
      else
        kinds[tt >= HL_MTOK_ADDR_DEEP ? HL_MTOK_ADDR_DEEP : tt]++;
      stack_raw += (tok & HL_MTOK_STACK_RAW) != 0;
    }
  printf ("# %zu allocations: top %zu carve %zu next %zu raw %zu freed %zu step %zu deep %zu near last %zu; stacks "
          "written %zu\n",
          allocs, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], kinds[6], last, stack_raw);
  hl_tap_ok (allocs > 20000 && kinds[HL_MTOK_ADDR_TOP] > 0 && kinds[HL_MTOK_ADDR_CARVE] > 0
               && kinds[HL_MTOK_ADDR_NEXT] > 0 && kinds[HL_MTOK_ADDR_FREED] > 0 && kinds[HL_MTOK_ADDR_STEP] > 0
               && kinds[HL_MTOK_ADDR_DEEP] > 0 && last > 0 && (kinds[HL_MTOK_ADDR_RAW] + last) * 10 < allocs
               && stack_raw * 4 < allocs,
             "the model predicts most addresses (every kind of token seen, the others near the class's last) "
             "and most stacks");

  /* 3b. which allocation a free refers to (5.0's free cursors) */
  size_t fkinds[HL_FTOK_RAW + 1] = { 0 }, frees = c.len[HL_COL_FID], bad_tok = 0;
  for (size_t i = 0; i < frees; i++)
    {
      uint8_t f = c.data[HL_COL_FID][i];
      if (f > HL_FTOK_RAW)
        bad_tok++;
      else
        fkinds[f]++;
    }
  size_t cursor_hits = frees - fkinds[HL_FTOK_PREV] - fkinds[HL_FTOK_RAW] - bad_tok;
  printf ("# %zu frees: prev %zu cursor %zu raw %zu\n", frees, fkinds[HL_FTOK_PREV], cursor_hits, fkinds[HL_FTOK_RAW]);
  hl_tap_ok (frees > 20000 && bad_tok == 0 && fkinds[HL_FTOK_PREV] > 0 && cursor_hits > 0 && fkinds[HL_FTOK_RAW] > 0
               && fkinds[HL_FTOK_PREV] + cursor_hits > frees / 3,
             "a token per free; the free cursors predict a third of the freed ids (every kind of token seen)");

  /* 4. hostile model columns */
  size_t runs = 0, ok = 0;
  HlColumns sc = { 0 };
  Bytes small = { 0 };
  allocator_trace (&small, 300);
  const uint8_t *sraw = small.data + HL_TRACE_FILE_HEADER_SIZE;
  size_t sn = small.size - HL_TRACE_FILE_HEADER_SIZE;
  bool small_ok = roundtrip_planes (sraw, sn, &sc, true);
  size_t psplit[HL_COL_COUNT];
  memcpy (psplit, split_of, sizeof psplit);
  hostile (&sc, sn, psplit, &runs, &ok);
  hl_tap_ok (small_ok && runs > 1000 && ok == runs,
             "%zu cut or flipped model columns: refused when cut, never out of bounds", runs);
  hl_trace_columns_clear (&sc);

  /* 5. the codecs do not mix */
  {
    const uint8_t *d[HL_COL_COUNT];
    static const size_t none[HL_COL_COUNT];
    for (int i = 0; i < HL_COL_COUNT; i++)
      d[i] = c.data[i];
    uint8_t *out = malloc (an);
    bool refused = hl_trace_columns_join_any (d, c.len, none, HL_JOIN_COLUMNS, out, an) != 0;
    HlColumns v2 = { 0 };
    hl_trace_columns_split (araw, an, &v2);
    for (int i = 0; i < HL_COL_COUNT; i++)
      d[i] = v2.data[i];
    refused &= hl_trace_columns_join_any (d, v2.len, none, HL_JOIN_MODEL, out, an) != 0;
    hl_tap_ok (refused, "model columns do not join as codec 2, nor codec-2 columns as a model frame");
    hl_trace_columns_clear (&v2);
    free (out);
  }

  /* 6. smaller than the columns of 3.0 */
  {
    const HlTraceCodec *z = hl_trace_codec_zstd (9);
    HlColumns v2 = { 0 };
    hl_trace_columns_split (araw, an, &v2);
    size_t s2 = 0, s3 = 0;
    for (int i = 0; i < HL_COL_COUNT; i++)
      {
        uint8_t *buf = malloc (z->compress_bound (z->user, an) + 64);
        if (v2.len[i] > 0)
          s2 += z->compress (z->user, v2.data[i], v2.len[i], buf, z->compress_bound (z->user, an) + 64);
        if (c.len[i] > 0)
          s3 += z->compress (z->user, c.data[i], c.len[i], buf, z->compress_bound (z->user, an) + 64);
        free (buf);
      }
    printf ("# compressed columns: 3.0 %zu bytes, 4.0 %zu bytes\n", s2, s3);
    hl_tap_ok (s3 * 100 < s2 * 85, "the model columns compress at least 15%% smaller than 3.0's (%zu vs %zu)", s3, s2);
    hl_trace_columns_clear (&v2);
  }
  hl_trace_columns_clear (&c);

  /* 7. the model's state survives every value (hostile frames) */
  {
    HlTraceModel *m = hl_trace_model_new ();
    bool fine = m != NULL;
    for (int i = 0; fine && i < 200000; i++)
      {
        uint64_t v = rnd (), size = i % 3 ? rnd () : UINT64_MAX - (uint64_t) (i % 40);
        if (i % 1000 == 0)
          hl_trace_model_packet (m, (uint32_t) v, rnd ());
        uint64_t addr;
        unsigned tok = (unsigned) (v % 130);
        if (!hl_trace_model_addr (m, size, tok, &addr))
          addr = rnd ();
        hl_trace_model_alloc (m, size, hl_trace_model_stack (m) + v % 3, addr, tok);
        hl_trace_model_free_id (m, i % 5 ? m->prev_id - v % 7 : v);
        fine = hl_trace_model_find (m, size, addr) <= HL_MTOK_ADDR_SITE;
      }
    hl_trace_model_free (m);
    hl_tap_ok (fine, "200,000 random model steps stay in bounds");
  }

  /* 7b. non-canonical varints are kept as they were (6.0) */
  {
    uint8_t pk[512];
    size_t pn = noncanonical_packet (pk);
    HlColumns nc = { 0 };
    bool nc_exact = roundtrip_planes (pk, pn, &nc, false) && roundtrip (pk, pn);
    static const uint8_t want_hdr[] = { 1, 2, 0, 2, 0, 0 }; /* form 1 with its counts; form 0 */
    bool hdr = nc.len[HL_COL_STACKHDR] == sizeof want_hdr
               && memcmp (nc.data[HL_COL_STACKHDR], want_hdr, sizeof want_hdr) == 0;
    bool plain = nc.len[HL_COL_FID] == 1 && nc.data[HL_COL_FID][0] == HL_FTOK_PLAIN;
    hl_tap_ok (nc_exact && hdr && plain,
               "a non-canonical n_shared and free delta join back exactly (STACK in form 0, free token %u)",
               (unsigned) HL_FTOK_PLAIN);
    hl_trace_columns_clear (&nc);
  }

  /* 8. the committed compressed golden files: 6.0 (codec 5), 5.0 (codec
   * 4, tests/format/data/v5/) and 4.0 (codec 3, v4/) */
  static const char *const goldens[][2] = {
    { "basic-model", "6.0, model frame with addresses near the class's last" },
    { "v5/basic-model", "5.0, model frame with free cursors" },
    { "v4/basic-model", "4.0, model frame" },
  };
  for (int g = 0; g < 3; g++)
    hl_tap_ok (hl_check_golden_dump (goldens[g][0], hl_trace_codec_zstd (3)),
               "%s.hltrace (%s) reads to its committed dump", goldens[g][0], goldens[g][1]);
  free (bad);
  free (a.data);
  free (small.data);
  hl_gen_trace_clear (&t);
  return hl_tap_finish ();
}
