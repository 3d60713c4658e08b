/* hl-capture-cfi.c — a DWARF unwinder with the unwind rule cached per
 * return address.
 *
 * For each return address we need three things from the .eh_frame CFI:
 * how to compute the CFA (rsp or rbp plus an offset), where the caller's
 * rbp was saved (CFA-relative, or unchanged), and that the return address
 * sits at CFA-8. They are computed once per address (the FDE found through
 * _dl_find_object and the .eh_frame_hdr search table, the CIE and FDE
 * programs run up to the address) and kept in a lock-free table of 64-bit
 * words: afterwards a frame costs a hash probe and two loads. Anything this
 * does not handle — a CFA expression, a signal frame, a register rule we do
 * not model, memory outside the thread's stack — makes hl_cfi_unwind()
 * return 0 and the caller uses libunwind's unw_backtrace for that stack.
 *
 * x86-64 only (DWARF registers: rbp 6, rsp 7, return address 16).
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <string.h>

#if defined(__x86_64__)
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA  16

/* Rule word: | tag:32 | kind:2 | cfa_rbp:1 | rbp_saved:1 | rbp_off:8 (/8) | cfa_off:20 (signed) |
 * kind 0 = empty, 1 = rule, 2 = stop (outermost frame), 3 = unsupported. */
enum
{
  KIND_RULE = 1,
  KIND_STOP = 2,
  KIND_UNSUPPORTED = 3,
};

#define CACHE_BITS 16
#define CACHE_SIZE (1u << CACHE_BITS)

static _Atomic uint64_t *cache;

static inline uint64_t
hash_ip (uint64_t ip)
{
  return ip * 0x9e3779b97f4a7c15ull;
}

static inline uint64_t
pack (uint64_t ip, uint32_t kind, bool cfa_rbp, bool rbp_saved, int rbp_off, int32_t cfa_off)
{
  uint64_t tag = (hash_ip (ip) >> 32) & 0xffffffffu;
  return (tag << 32) | ((uint64_t) kind << 30) | ((uint64_t) cfa_rbp << 29)
         | ((uint64_t) rbp_saved << 28) | ((uint64_t) (uint8_t) (int8_t) (rbp_off / 8) << 20)
         | ((uint64_t) cfa_off & 0xfffffu);
}

/* ---- Reading CFI ----------------------------------------------------------- */

typedef struct
{
  const uint8_t *p, *end;
  bool bad;
} Reader;

static uint64_t
uleb (Reader *r)
{
  uint64_t v = 0;
  unsigned shift = 0;
  while (r->p < r->end)
    {
      uint8_t b = *r->p++;
      if (shift < 64)
        v |= (uint64_t) (b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80))
        return v;
    }
  r->bad = true;
  return 0;
}

static int64_t
sleb (Reader *r)
{
  int64_t v = 0;
  unsigned shift = 0;
  uint8_t b = 0;
  while (r->p < r->end)
    {
      b = *r->p++;
      if (shift < 64)
        v |= (int64_t) ((uint64_t) (b & 0x7f) << shift);
      shift += 7;
      if (!(b & 0x80))
        {
          if (shift < 64 && (b & 0x40))
            v |= -((int64_t) 1 << shift);
          return v;
        }
    }
  r->bad = true;
  return 0;
}

static bool
need (Reader *r, size_t n)
{
  if ((size_t) (r->end - r->p) < n)
    {
      r->bad = true;
      return false;
    }
  return true;
}

/* A pointer with DW_EH_PE encoding ENC; DATA_BASE for datarel. */
static uint64_t
read_encoded (Reader *r, uint8_t enc, uint64_t data_base)
{
  if (enc == 0xff)
    return 0;
  const uint8_t *start = r->p;
  uint64_t v = 0;
  switch (enc & 0x0f)
    {
    case 0x00: if (!need (r, 8)) return 0; memcpy (&v, r->p, 8); r->p += 8; break;
    case 0x01: v = uleb (r); break;
    case 0x02: { uint16_t x; if (!need (r, 2)) return 0; memcpy (&x, r->p, 2); r->p += 2; v = x; } break;
    case 0x03: { uint32_t x; if (!need (r, 4)) return 0; memcpy (&x, r->p, 4); r->p += 4; v = x; } break;
    case 0x04: if (!need (r, 8)) return 0; memcpy (&v, r->p, 8); r->p += 8; break;
    case 0x09: v = (uint64_t) sleb (r); break;
    case 0x0a: { int16_t x; if (!need (r, 2)) return 0; memcpy (&x, r->p, 2); r->p += 2; v = (uint64_t) (int64_t) x; } break;
    case 0x0b: { int32_t x; if (!need (r, 4)) return 0; memcpy (&x, r->p, 4); r->p += 4; v = (uint64_t) (int64_t) x; } break;
    case 0x0c: if (!need (r, 8)) return 0; memcpy (&v, r->p, 8); r->p += 8; break;
    default: r->bad = true; return 0;
    }
  switch (enc & 0x70)
    {
    case 0x00: break;
    case 0x10: v += (uint64_t) (uintptr_t) start; break;
    case 0x30: v += data_base; break;
    default: r->bad = true; return 0;
    }
  if (enc & 0x80)
    r->bad = true; /* indirect: not for pc_begin */
  return v;
}

typedef struct
{
  int     cfa_reg;
  int64_t cfa_off;
  int     rbp_state;   /* 0 same value, 1 saved at CFA+rbp_off, 2 unsupported */
  int64_t rbp_off;
  int     ra_state;    /* 0 at CFA-8 (offset rule), 1 undefined (outermost), 2 unsupported, 3 not yet set */
  int64_t ra_off;
} CfiState;

/* Runs a CFA program until the location passes TARGET. */
static bool
run_program (Reader *r, CfiState *s, const CfiState *initial, uint64_t loc, uint64_t target,
             uint64_t code_align, int64_t data_align)
{
  CfiState stack[8];
  int depth = 0;
  while (r->p < r->end && !r->bad)
    {
      uint8_t op = *r->p++;
      uint8_t hi = op & 0xc0, lo = op & 0x3f;
      uint64_t reg, delta;
      int64_t off;
      if (hi == 0x40)
        {
          loc += lo * code_align;
          if (loc > target)
            return true;
          continue;
        }
      if (hi == 0x80)
        {
          reg = lo;
          off = (int64_t) uleb (r) * data_align;
          goto set_offset;
        }
      if (hi == 0xc0)
        {
          reg = lo;
          goto restore;
        }
      switch (op)
        {
        case 0x00: break;
        case 0x02: if (!need (r, 1)) return false; delta = *r->p++; goto advance;
        case 0x03: { uint16_t x; if (!need (r, 2)) return false; memcpy (&x, r->p, 2); r->p += 2; delta = x; } goto advance;
        case 0x04: { uint32_t x; if (!need (r, 4)) return false; memcpy (&x, r->p, 4); r->p += 4; delta = x; } goto advance;
        case 0x05: reg = uleb (r); off = (int64_t) uleb (r) * data_align; goto set_offset;
        case 0x11: reg = uleb (r); off = sleb (r) * data_align; goto set_offset;
        case 0x2f: reg = uleb (r); off = -(int64_t) uleb (r) * data_align; goto set_offset;
        case 0x06: reg = uleb (r); goto restore;
        case 0x07: reg = uleb (r);
          if (reg == REG_RA) s->ra_state = 1;
          else if (reg == REG_RBP) s->rbp_state = 2;
          break;
        case 0x08: reg = uleb (r);
          if (reg == REG_RBP) s->rbp_state = 0;
          else if (reg == REG_RA) s->ra_state = 2;
          break;
        case 0x09: reg = uleb (r); (void) uleb (r);
          if (reg == REG_RBP) s->rbp_state = 2;
          if (reg == REG_RA) s->ra_state = 2;
          break;
        case 0x0a: if (depth == 8) return false; stack[depth++] = *s; break;
        case 0x0b: if (depth == 0) return false; *s = stack[--depth]; break;
        case 0x0c: s->cfa_reg = (int) uleb (r); s->cfa_off = (int64_t) uleb (r); break;
        case 0x12: s->cfa_reg = (int) uleb (r); s->cfa_off = sleb (r) * data_align; break;
        case 0x0d: s->cfa_reg = (int) uleb (r); break;
        case 0x0e: s->cfa_off = (int64_t) uleb (r); break;
        case 0x13: s->cfa_off = sleb (r) * data_align; break;
        case 0x0f: s->cfa_reg = -1; { uint64_t n = uleb (r); if (!need (r, n)) return false; r->p += n; } break;
        case 0x10:
        case 0x16:
          reg = uleb (r);
          { uint64_t n = uleb (r); if (!need (r, n)) return false; r->p += n; }
          if (reg == REG_RBP) s->rbp_state = 2;
          if (reg == REG_RA) s->ra_state = 2;
          break;
        case 0x14: reg = uleb (r); (void) uleb (r); if (reg == REG_RBP) s->rbp_state = 2; if (reg == REG_RA) s->ra_state = 2; break;
        case 0x15: reg = uleb (r); (void) sleb (r); if (reg == REG_RBP) s->rbp_state = 2; if (reg == REG_RA) s->ra_state = 2; break;
        case 0x2e: (void) uleb (r); break;
        default: return false; /* DW_CFA_set_loc and anything unknown */
        }
      continue;
    advance:
      loc += delta * code_align;
      if (loc > target)
        return true;
      continue;
    set_offset:
      if (reg == REG_RBP)
        {
          s->rbp_state = 1;
          s->rbp_off = off;
        }
      else if (reg == REG_RA)
        {
          s->ra_state = 0;
          s->ra_off = off;
        }
      continue;
    restore:
      if (initial != NULL)
        {
          if (reg == REG_RBP)
            {
              s->rbp_state = initial->rbp_state;
              s->rbp_off = initial->rbp_off;
            }
          else if (reg == REG_RA)
            {
              s->ra_state = initial->ra_state;
              s->ra_off = initial->ra_off;
            }
        }
      continue;
    }
  return !r->bad;
}

/* Computes the rule word for return address IP (looking up IP - 1). */
static uint64_t
compute_rule (uint64_t ip)
{
  uint64_t pc = ip - 1;
  uint64_t unsupported = pack (ip, KIND_UNSUPPORTED, 0, 0, 0, 0);
  struct dl_find_object dfo;
  if (_dl_find_object ((void *) (uintptr_t) pc, &dfo) != 0 || dfo.dlfo_eh_frame == NULL)
    return unsupported;
  const uint8_t *hdr = dfo.dlfo_eh_frame;
  uint64_t hdr_base = (uint64_t) (uintptr_t) hdr;
  if (hdr[0] != 1)
    return unsupported;
  uint8_t ptr_enc = hdr[1], count_enc = hdr[2], table_enc = hdr[3];
  Reader r = { hdr + 4, hdr + 4 + 16, false };
  (void) read_encoded (&r, ptr_enc, hdr_base);
  uint64_t count = read_encoded (&r, count_enc, hdr_base);
  if (r.bad || table_enc != 0x3b || count == 0)
    return unsupported;
  /* table of (int32 initial_location, int32 fde), datarel to hdr */
  const int32_t *table = (const int32_t *) r.p;
  uint64_t lo = 0, hi = count;
  while (hi - lo > 1)
    {
      uint64_t mid = (lo + hi) / 2;
      if (hdr_base + (uint64_t) (int64_t) table[2 * mid] <= pc)
        lo = mid;
      else
        hi = mid;
    }
  if (hdr_base + (uint64_t) (int64_t) table[2 * lo] > pc)
    return unsupported;
  const uint8_t *fde = hdr + table[2 * lo + 1];

  uint32_t fde_len;
  memcpy (&fde_len, fde, 4);
  if (fde_len == 0 || fde_len == 0xffffffffu)
    return unsupported;
  Reader f = { fde + 8, fde + 4 + fde_len, false };
  int32_t cie_delta;
  memcpy (&cie_delta, fde + 4, 4);
  const uint8_t *cie = fde + 4 - cie_delta;
  uint32_t cie_len;
  memcpy (&cie_len, cie, 4);
  if (cie_len == 0 || cie_len == 0xffffffffu)
    return unsupported;
  Reader c = { cie + 8, cie + 4 + cie_len, false };
  if (!need (&c, 1))
    return unsupported;
  uint8_t version = *c.p++;
  const char *aug = (const char *) c.p;
  size_t aug_len = strnlen (aug, (size_t) (c.end - c.p));
  c.p += aug_len + 1;
  uint64_t code_align = uleb (&c);
  int64_t data_align = sleb (&c);
  if (version == 1)
    c.p++;
  else
    (void) uleb (&c);
  uint8_t fde_enc = 0x00;
  if (aug[0] == 'z')
    {
      uint64_t n = uleb (&c);
      const uint8_t *aug_end = c.p + n;
      for (size_t i = 1; i < aug_len && !c.bad; i++)
        {
          if (aug[i] == 'R')
            {
              if (!need (&c, 1)) break;
              fde_enc = *c.p++;
            }
          else if (aug[i] == 'P')
            {
              if (!need (&c, 1)) break;
              uint8_t penc = *c.p++;
              Reader tmp = c;
              (void) read_encoded (&tmp, penc & 0x7f, hdr_base);
              c.p = tmp.p;
            }
          else if (aug[i] == 'L')
            c.p++;
          else if (aug[i] == 'S')
            return unsupported; /* signal frame */
          else
            return unsupported;
        }
      c.p = aug_end;
    }
  else if (aug[0] != '\0')
    return unsupported;
  if (c.bad)
    return unsupported;

  uint64_t pc_begin = read_encoded (&f, fde_enc, hdr_base);
  uint64_t pc_range = read_encoded (&f, fde_enc & 0x0f, 0);
  if (f.bad || pc < pc_begin || pc >= pc_begin + pc_range)
    return unsupported;
  if (aug[0] == 'z')
    {
      uint64_t n = uleb (&f);
      if (!need (&f, n))
        return unsupported;
      f.p += n;
    }

  CfiState s = { .cfa_reg = REG_RSP, .cfa_off = 8, .rbp_state = 0, .ra_state = 3 };
  if (!run_program (&c, &s, NULL, pc_begin, UINT64_MAX, code_align, data_align))
    return unsupported;
  CfiState initial = s;
  if (!run_program (&f, &s, &initial, pc_begin, pc, code_align, data_align))
    return unsupported;

  if (s.ra_state == 1)
    return pack (ip, KIND_STOP, 0, 0, 0, 0);
  if (s.ra_state != 0 || s.ra_off != -8 || s.rbp_state == 2)
    return unsupported;
  if (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP)
    return unsupported;
  if (s.cfa_off < -(1 << 19) || s.cfa_off >= (1 << 19) || (s.cfa_off & 7) != 0)
    return unsupported;
  if (s.rbp_state == 1 && (s.rbp_off < -1024 || s.rbp_off > 1016 || (s.rbp_off & 7) != 0))
    return unsupported;
  return pack (ip, KIND_RULE, s.cfa_reg == REG_RBP, s.rbp_state == 1, (int) s.rbp_off, (int32_t) s.cfa_off);
}

static inline uint64_t
rule_of (uint64_t ip)
{
  uint64_t h = hash_ip (ip);
  uint32_t tag = (uint32_t) (h >> 32);
  uint32_t idx = (uint32_t) (h >> (64 - CACHE_BITS - 8)) & (CACHE_SIZE - 1);
  for (int probe = 0; probe < 4; probe++)
    {
      uint64_t w = atomic_load_explicit (&cache[(idx + probe) & (CACHE_SIZE - 1)], memory_order_relaxed);
      if (w == 0)
        break;
      if ((uint32_t) (w >> 32) == tag)
        return w;
    }
  uint64_t w = compute_rule (ip);
  for (int probe = 0; probe < 4; probe++)
    {
      uint64_t expected = 0;
      if (atomic_compare_exchange_strong (&cache[(idx + probe) & (CACHE_SIZE - 1)], &expected, w))
        return w;
    }
  atomic_store_explicit (&cache[idx], w, memory_order_relaxed); /* replace */
  return w;
}

bool
hl_cfi_init (void)
{
  if (cache == NULL)
    cache = hl_sys_map_anon (CACHE_SIZE * sizeof (uint64_t));
  return cache != NULL;
}

static _Atomic uint32_t memo_generation = 1;

uint32_t
hl_cfi_generation (void)
{
  return atomic_load_explicit (&memo_generation, memory_order_relaxed);
}

void
hl_cfi_invalidate (void)
{
  /* the per-thread first levels are dropped through the memo generation */
  if (cache != NULL)
    for (uint32_t i = 0; i < CACHE_SIZE; i++)
      atomic_store_explicit (&cache[i], 0, memory_order_relaxed);
  atomic_fetch_add (&memo_generation, 1);
}

#define END_STOP  HL_CFI_END_STOP
#define END_TRUNC HL_CFI_END_TRUNC
#define END_ZERO  HL_CFI_END_ZERO

/* The unwind from the state (ip, sp, rbp) of remembered frame R gives the
 * same frames as last time if every word it read then is unchanged
 * (frames are stored outermost first: R's caller is R - 1). */
/* Returns -1 when unchanged, else the frame K whose step to K - 1 no
 * longer holds: a match at any frame >= K would fail there too. */
static int64_t
tail_failed_at (const HlCfiMemo *m,
                uint32_t         r)
{
  for (uint32_t k = r; k > 0; k--)
    {
      const HlCfiFrame *f = &m->f[k];
      if (*(const uint64_t *) (f->cfa - 8) != m->f[k - 1].ip)
        return k;
      uint64_t slot = f->rbp_slot & ~(uint64_t) 7;
      uint64_t rbp = slot ? *(const uint64_t *) slot : f->rbp;
      if (m->rbp_used[k - 1] && rbp != m->f[k - 1].rbp)
        return k;
    }
  return 0;
}

static int64_t
tail_unchanged (const HlCfiMemo *m,
                uint32_t         r)
{
  /* the common case, all words unchanged, without a branch per word; a
   * frame that did not save rbp passes its rbp on unchanged, so only the
   * saved ones are checked */
  uint64_t d = 0, d2 = 0;
  uint32_t i = 0, e = m->chk_end[r];
  for (; i + 2 <= e; i += 2)
    {
      d |= *(const uint64_t *) m->chk_addr[i] ^ m->chk_val[i];
      d2 |= *(const uint64_t *) m->chk_addr[i + 1] ^ m->chk_val[i + 1];
    }
  if (i < e)
    d |= *(const uint64_t *) m->chk_addr[i] ^ m->chk_val[i];
  d |= d2;
  if (HL_UNLIKELY (d != 0))
    return tail_failed_at (m, r);
  if (m->end == END_ZERO && *(const uint64_t *) (m->f[0].cfa - 8) != 0)
    return 0;
  return -1;
}

/* Puts the N_HEAD frames of HEAD (innermost first) at [tail, tail + n_head)
 * of the memo, outermost first, with their check words (frames below TAIL
 * keep theirs): one pass over the new frames. */
static void
memo_store (HlCfiMemo        *m,
            uint32_t          tail,
            const HlCfiFrame *head,
            uint32_t          n_head)
{
  uint64_t prev_ip = 0, prev_rbp = 0;
  uint32_t used = 0, i = 0;
  if (tail > 0)
    {
      prev_ip = m->f[tail - 1].ip;
      prev_rbp = m->f[tail - 1].rbp;
      used = m->rbp_used[tail - 1];
      i = m->chk_end[tail - 1];
    }
  for (uint32_t j = tail, k = n_head; k-- > 0; j++)
    {
      const HlCfiFrame *f = &head[k];
      m->f[j] = *f;
      uint64_t at = f->rbp_slot & ~(uint64_t) 7;
      uint32_t slot = at != 0;
      if (HL_LIKELY (j > 0))
        {
          m->chk_addr[i] = f->cfa - 8;
          m->chk_val[i++] = prev_ip;
          /* written always (there is room), kept when it counts */
          m->chk_addr[i] = at;
          m->chk_val[i] = prev_rbp;
          i += slot & used;
        }
      m->chk_end[j] = (uint16_t) i;
      used = (uint32_t) (f->rbp_slot & 1) | ((slot ^ 1) & used);
      m->rbp_used[j] = (uint8_t) used;
      prev_ip = f->ip;
      prev_rbp = f->rbp;
    }
}

void
hl_unwind_fill (uint64_t      *frames,
                HlThreadBlock *b)
{
  const HlCfiMemo *m = &b->memo;
  for (uint32_t i = b->lazy_from; i < b->lazy_to; i++)
    frames[i] = m->f[m->n - 1 - i].ip;
  b->lazy_from = b->lazy_to = 0;
}

/* Unwinds from the caller of the outermost preload frame. Returns the
 * number of frames, or 0 when a frame needs libunwind.
 *
 * Deep stacks repeat their outer part from one allocation to the next, so
 * the last stack is remembered with the state (ip, sp, rbp) of each frame
 * and the stack words its unwind read. When the unwind reaches a state
 * equal to that of a remembered frame and those words are unchanged, the
 * rest of the stack is the remembered one: the unwind is a function of the
 * state and of those words only. The memo is kept outermost first so that
 * the shared outer part stays in place. */
uint32_t
hl_cfi_unwind (uint64_t      *frames,
               uint32_t       max,
               bool          *truncated,
               uint64_t      *hash,
               HlThreadBlock *b,
               void          *entry)
{
  *hash = 0;
  b->lazy_from = b->lazy_to = 0;
  b->memo_fresh = 0;
  uintptr_t hi = b->stack_hi;
  uint64_t ip;
  uintptr_t sp, rbp;
  if (cache == NULL || max > HL_CFI_MEMO_MAX
      || !hl_start_state (b, entry != NULL ? entry : __builtin_frame_address (0), &ip, &sp, &rbp))
    return 0;

  uint32_t gen = atomic_load_explicit (&memo_generation, memory_order_relaxed);
  HlCfiMemo *m = &b->memo;
  HlCfiFrame *head = b->head;
  if (HL_UNLIKELY (b->cfi_generation != gen))
    {
      memset (b->rule_ip, 0, sizeof b->rule_ip);
      b->cfi_generation = gen;
    }
  bool use_memo = m->generation == gen && m->n > 0 && m->stack_hi == hi;
  int64_t r = use_memo ? (int64_t) m->n - 1 : -1; /* innermost remembered frame */
  uint32_t n = 0;
  uint32_t end = END_ZERO;
  int64_t matched = -1;
  int64_t below = r + 1; /* a match is only possible at remembered frames < below */
  *truncated = false;
  for (;;)
    {
      if (ip == 0)
        {
          end = END_ZERO;
          break;
        }
      if (n == max)
        {
          *truncated = true;
          end = END_TRUNC;
          break;
        }
      /* remembered frames have increasing sp from inner to outer */
      while (r >= 0 && m->f[r].sp < sp)
        r--;
      if (r >= 0 && r < below && m->f[r].sp == sp && m->f[r].ip == ip
          && (m->f[r].rbp == rbp || !m->rbp_used[r])
          && (m->end != END_TRUNC || n + (uint32_t) r + 1 >= max))
        {
          int64_t failed = tail_unchanged (m, (uint32_t) r);
          if (failed < 0)
            {
              matched = r;
              break;
            }
          below = failed;
        }
      HlCfiFrame *cf = &head[n];
      cf->ip = ip;
      cf->sp = sp;
      cf->rbp = rbp;
      frames[n++] = ip;
      /* a small per-thread table in front of the shared one (L1-resident) */
      uint32_t l1 = (uint32_t) (ip ^ (ip >> 8)) & 255u;
      uint64_t w;
      if (HL_LIKELY (b->rule_ip[l1] == ip))
        w = b->rule_word[l1];
      else
        {
          w = rule_of (ip);
          b->rule_ip[l1] = ip;
          b->rule_word[l1] = w;
        }
      uint32_t kind = (uint32_t) (w >> 30) & 3;
      if (kind == KIND_STOP)
        {
          cf->cfa = sp;
          cf->rbp_slot = 0;
          end = END_STOP;
          break;
        }
      if (kind != KIND_RULE)
        return 0;
      int32_t cfa_off = (int32_t) ((uint32_t) (w << 12)) >> 12;
      uint64_t cfa_rbp = (w >> 29) & 1;
      uintptr_t cfa = (cfa_rbp ? rbp : sp) + (uintptr_t) (intptr_t) cfa_off;
      if (cfa < sp + 8 || cfa > hi || (cfa & 7))
        return 0;
      cf->cfa = cfa;
      cf->rbp_slot = cfa_rbp;
      if ((w >> 28) & 1)
        {
          int rbp_off = (int8_t) (uint8_t) (w >> 20) * 8;
          uintptr_t at = cfa + (uintptr_t) (intptr_t) rbp_off;
          if (at < sp || at > hi - 8)
            return 0;
          cf->rbp_slot = at | cfa_rbp; /* at is 8-aligned: cfa is */
          rbp = *(const uintptr_t *) at;
        }
      ip = *(const uint64_t *) (cfa - 8);
      sp = cfa;
    }

  uint32_t n_head = n;
  uint32_t tail = 0;
  bool hash_ok = true;
  if (matched >= 0)
    {
      tail = (uint32_t) matched + 1;
      if (n + tail > max)
        {
          /* keep the memo whole; report the first max frames */
          for (uint32_t k = 0; n < max; k++)
            frames[n++] = m->f[matched - k].ip;
          *truncated = true;
          hash_ok = false;
        }
      else
        {
          /* the tail stays in the memo (hl_unwind_fill) unless the memo
           * will not be kept */
          if (tail + n_head > HL_CFI_MEMO_MAX)
            for (uint32_t k = 0; k < tail; k++)
              frames[n + k] = m->f[matched - k].ip;
          else
            {
              b->lazy_from = n;
              b->lazy_to = n + tail;
            }
          n += tail;
          *truncated = m->end == END_TRUNC;
        }
      end = m->end;
    }
  /* the stack hash: continue from the remembered outer part */
  uint32_t ha, hb;
  if (matched >= 0)
    {
      ha = m->f[matched].ha;
      hb = m->f[matched].hb;
    }
  else
    hl_stack_hash_seed (&ha, &hb);
  hl_stack_hash_fold (&ha, &hb, &head[0].ip, sizeof (HlCfiFrame) / sizeof (uint64_t), n_head, &head[0].ha);
  if (hash_ok)
    *hash = hl_stack_hash_final (ha, hb, n);
  /* new memo: the remembered tail stays at [0, tail), the head goes above */
  uint32_t total = tail + n_head;
  if (total <= HL_CFI_MEMO_MAX)
    {
      memo_store (m, tail, head, n_head);
      m->n = total;
      m->end = end;
      m->generation = gen;
      m->stack_hi = hi;
      b->memo_fresh = 1;
    }
  else
    m->n = 0;
  return n;
}

#else

bool
hl_cfi_init (void)
{
  return false;
}

uint32_t
hl_cfi_generation (void)
{
  return 0;
}

void
hl_cfi_invalidate (void)
{
}

uint32_t
hl_cfi_unwind (uint64_t *frames, uint32_t max, bool *truncated, uint64_t *hash, HlThreadBlock *b, void *entry)
{
  (void) entry;
  *hash = 0;
  return 0;
}

void
hl_unwind_fill (uint64_t *frames, HlThreadBlock *b)
{
  (void) frames;
  (void) b;
}

#endif
