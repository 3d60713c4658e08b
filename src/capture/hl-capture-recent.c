/* hl-capture-recent.c — the thread's recent stacks: the id of a stack
 * without unwinding it.
 *
 * The cached-CFI unwinder's memo (hl-capture-cfi.c) saves the unwind of the
 * outer part of the stack; the inner part differs from the last stack
 * whenever the program allocates from alternating places. The thread's
 * recent stacks keep every stack word the whole unwind read, keyed by the
 * state of the innermost foreign frame (ip, sp): when the state and those
 * words are what they were, the unwind would give the same frames, so the
 * id is known. The words are compared as independent loads, where an
 * unwind is a chain of dependent ones.
 *
 * The table is 4-way set associative (the tags of a set share a cache
 * line, an entry is read only for its tag). A program that allocates
 * through a wrapper of its own (sqlite3Malloc) reaches malloc from one
 * state for many stacks: keyed by the state alone they evicted each other
 * (sqlite3: 13 stacks on one key, a quarter of its allocations unwound
 * again). Such a key gets a discriminator: the first word (from sp up) two
 * of its stacks differ in, read at every lookup and hashed into the slot
 * with the state, so that those stacks spread over the sets. It is chosen
 * when a set holds a stack of the same full key already (so that a lookup
 * compares the words of one stack: python3 compared two on half of its
 * calls with two per key allowed); the entries filed under an older
 * discriminator are not found any more and age out. (sqlite3: about 550
 * of 1.29M allocations unwound; callgrind, instructions of the preload
 * per run: sqlite3 -31 %, churn and python3 +2 % of the whole run, the
 * lookup's fixed part; 256 entries cost python3's lookups more time in
 * cache misses than they saved.) A lookup looks in the key's home set
 * (no discriminator) first, and in the key table only when nothing
 * there has its tag. A stack filed under a discriminator may also take a
 * second set (hash_set2) when its first is in use: spread by the hash of
 * the word, 24 stacks of one key put five or more into one set about
 * once in four layouts, and those evicted each other on every round
 * (t-wrapper at -O0: a third of the runs, 25-35 % unwound again);
 * python3 and sqlite3 run the same instructions within 0.5 %.
 *
 * The tables are dropped when the stack ids (fork), the rules (dlclose),
 * the operator new ranges, the thread's stack (a block reused by another
 * thread) or the unwinder change. */
#include "hl-capture-private.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

/* word J of entry E: its offset from sp, its value */
#define WORD_OFF(e, j) ((e)->g[(j) / 4].off[(j) % 4])
#define WORD_VAL(e, j) ((e)->g[(j) / 4].val[(j) % 4])

static inline uint64_t
key_mix (uint64_t ip,
         uint64_t sp)
{
  return (ip ^ (sp << 7)) * 0x9e3779b97f4a7c15ull;
}

/* The first of the two ways of the discriminator of (ip, sp). */
static inline HlRecentKey *
keys_of (HlThreadBlock *b,
         uint64_t       ip,
         uint64_t       sp)
{
  return &b->recent_keys[(key_mix (ip, sp) >> 40) & (HL_RECENT_KEYS - 2)];
}

/* The hash of the key (ip, sp, dval): its set is the low bits, its tag
 * (never 0) the high ones. */
static inline uint64_t
slot_hash (uint64_t ip,
           uint64_t sp,
           uint64_t dval)
{
  return (key_mix (ip, sp) ^ dval) * 0xc2b2ae3d27d4eb4full;
}

/* The hash of a stack of a key with a discriminator whose word held
 * DVAL: never the key's home hash, which a word of 0 gave (such a stack
 * went to the home set, where a lookup of the key finds a tag first and
 * then misses the key's other stacks). */
static inline uint64_t
keyed_hash (uint64_t ip,
            uint64_t sp,
            uint64_t dval)
{
  return slot_hash (ip, sp, dval ^ 0x6a09e667f3bcc909ull);
}

static inline uint32_t
hash_set (uint64_t h)
{
  return (uint32_t) (h >> 20) & (HL_RECENT_SETS - 1);
}

static inline uint32_t
hash_tag (uint64_t h)
{
  return (uint32_t) (h >> 32) | 1u;
}

/* The second set a stack filed under a discriminator may take, never its
 * first: a key's stacks spread over the sets by their discriminator
 * word, and 24 stacks of one key (a wrapper's sites) put five or more in
 * one set about once in four layouts, which then evicted each other on
 * every round; a stack whose first set is in use goes to the second. A
 * key without a discriminator keeps to its one set (a lookup of it looks
 * in no other). */
_Static_assert (HL_RECENT_SETS >= 2 && (HL_RECENT_SETS & (HL_RECENT_SETS - 1)) == 0,
                "hash_set2: the sets a power of two, at least 2");

static inline uint32_t
hash_set2 (uint64_t h)
{
  return (hash_set (h) + 1u + ((uint32_t) (h >> 13) & (HL_RECENT_SETS / 2 - 1))) & (HL_RECENT_SETS - 1);
}


/* The discriminator of (ip, sp), NULL when the key has none. */
static inline HlRecentKey *
key_find (HlThreadBlock *b,
          uint64_t       ip,
          uint64_t       sp)
{
  HlRecentKey *k = keys_of (b, ip, sp);
  if (k->ip == ip && k->sp == sp)
    return k;
  k++;
  if (k->ip == ip && k->sp == sp)
    return k;
  return NULL;
}

/* The discriminator word of key K as the stack holds it now. */
static inline uint64_t
disc_value (const HlRecentKey *k,
            uint64_t           sp)
{
  /* a word an unwind from this very state read: in [sp, stack_hi) of the
   * stack the key was made on, which recent_validate checked is ours */
  return *(const uint64_t *) (uintptr_t) (sp + k->disc - 1);
}

static inline void
recent_validate (HlThreadBlock *b)
{
  uint32_t gen = hl_cfi_generation ();
  uint32_t new_ranges = atomic_load_explicit (&hl_g.n_new_ranges, memory_order_relaxed);
  uint32_t unwind = (uint32_t) __atomic_load_n (&hl_g.cfg.unwind, __ATOMIC_RELAXED);
  if (HL_UNLIKELY (b->recent_generation != b->generation || b->recent_cfi_generation != gen
                   || b->recent_new_ranges != new_ranges || b->recent_hi != b->stack_hi
                   || b->recent_unwind != unwind))
    {
      /* an entry counts only under its tag: the entries themselves are
       * not touched (a block's 200 KiB of them cost memory as they are
       * used), nor anything of a block that never held a stack (all
       * zero) */
      if (b->recent_tick != 0)
        {
          memset (b->recent_tag, 0, sizeof b->recent_tag);
          memset (b->recent_keys, 0, sizeof b->recent_keys);
        }
      b->recent_generation = b->generation;
      b->recent_cfi_generation = gen;
      b->recent_new_ranges = new_ranges;
      b->recent_hi = b->stack_hi;
      b->recent_unwind = unwind;
    }
}

/* The key's rbp against the remembered one (HL_RBP_*). */
static bool
recent_rbp_matches (const HlRecentStack *e,
                    uintptr_t            rbp,
                    uintptr_t            sp,
                    uintptr_t            hi)
{
  if (e->rbp_used == HL_RBP_EQUAL)
    return e->rbp == rbp;
  if (e->rbp_used == HL_RBP_NOT_A_FRAME)
    return (rbp & 7) != 0 || rbp < sp || rbp > hi - 16;
  return true;
}

/* Every word of E holds its value at BASE + its offset. The words lie in
 * [sp, stack_hi) of this thread's stack (the stack the entry was made on,
 * checked by recent_validate); the count is a multiple of 4 (padded). The
 * first PAIR_GROUPS groups hold two pairs of neighbouring words each (a
 * frame record: saved rbp and return address), each pair compared with
 * one 16-byte load. */
static inline bool
words_match (const HlRecentStack *e,
             const uint8_t       *base)
{
  const HlRecentGroup *g = e->g, *end = g + e->n_words / 4;
  if (e->pair_groups != 0)
    {
      __m128i a0 = _mm_setzero_si128 (), a1 = _mm_setzero_si128 ();
      for (const HlRecentGroup *pend = g + e->pair_groups; g < pend; g++)
        {
          __m128i w0 = _mm_loadu_si128 ((const __m128i *) (base + g->off[0]));
          __m128i w1 = _mm_loadu_si128 ((const __m128i *) (base + g->off[2]));
          a0 = _mm_or_si128 (a0, _mm_xor_si128 (w0, _mm_loadu_si128 ((const __m128i *) &g->val[0])));
          a1 = _mm_or_si128 (a1, _mm_xor_si128 (w1, _mm_loadu_si128 ((const __m128i *) &g->val[2])));
        }
      a0 = _mm_or_si128 (a0, a1);
      if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (a0, _mm_setzero_si128 ())) != 0xffff)
        return false;
    }
  uint64_t d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  for (; g < end; g++)
    {
      d0 |= *(const uint64_t *) (base + g->off[0]) ^ g->val[0];
      d1 |= *(const uint64_t *) (base + g->off[1]) ^ g->val[1];
      d2 |= *(const uint64_t *) (base + g->off[2]) ^ g->val[2];
      d3 |= *(const uint64_t *) (base + g->off[3]) ^ g->val[3];
    }
  return (d0 | d1 | d2 | d3) == 0;
}

static inline bool
entry_hits (const HlRecentStack *e,
            uint64_t             ip,
            uintptr_t            sp,
            uintptr_t            rbp,
            uint64_t             dval,
            uintptr_t            hi)
{
  if (e->stack_id == 0 || e->ip != ip || e->sp != sp || e->dval != dval)
    return false;
  if (e->rbp_used != HL_RBP_ANY && e->rbp != rbp && !recent_rbp_matches (e, rbp, sp, hi))
    return false;
  return words_match (e, (const uint8_t *) sp);
}

/* The ways of the set starting at FIRST that hold the tag of H (a bit
 * each): the tags of a set share a line and are compared at once, an
 * entry is read only for a matching tag. */
static inline uint32_t
tag_ways (const HlThreadBlock *b,
          uint32_t             first,
          uint64_t             h)
{
  __m128i tags = _mm_loadu_si128 ((const __m128i *) &b->recent_tag[first]);
  __m128i eq = _mm_cmpeq_epi32 (tags, _mm_set1_epi32 ((int) hash_tag (h)));
  return (uint32_t) _mm_movemask_ps (_mm_castsi128_ps (eq));
}

/* The ways holding the tag of H: of its set, else (a discriminated key,
 * TWO) of its second set; *FIRST: that set's first slot. */
static inline uint32_t
find_ways (const HlThreadBlock *b,
           uint64_t             h,
           bool                 two,
           uint32_t            *first)
{
  *first = hash_set (h) * HL_RECENT_WAYS;
  uint32_t ways = tag_ways (b, *first, h);
  if (ways != 0 || !two)
    return ways;
  *first = hash_set2 (h) * HL_RECENT_WAYS;
  return tag_ways (b, *first, h);
}

/* Two ways or more of the set hold the tag (of stacks that differ in the
 * key's rbp only, or a tag collision): each is compared (on its own: the
 * common case keeps few values live around its compare loop). */
static __attribute__ ((noinline)) uint32_t
lookup_ways (HlThreadBlock *b,
             HlRecentStack *e,
             uint32_t       ways,
             uint32_t       first,
             uint64_t       ip,
             uintptr_t      sp,
             uintptr_t      rbp,
             uint64_t       dval)
{
  (void) e;
  while (ways != 0)
    {
      e = &b->recent[first + (uint32_t) __builtin_ctz (ways)];
      ways &= ways - 1;
      if (entry_hits (e, ip, sp, rbp, dval, b->stack_hi))
        {
          e->used = ++b->recent_tick;
          return e->stack_id;
        }
    }
  return 0;
}

uint32_t
hl_recent_lookup (HlThreadBlock *b,
                  void          *entry)
{
  uint64_t ip;
  uintptr_t sp, rbp;
  if (!hl_start_state (b, entry, &ip, &sp, &rbp))
    return 0;
  recent_validate (b);
  /* the key's home set first (no discriminator: most keys); a key that
   * has one left no stack there (put cleared them) */
  uint64_t dval = 0;
  uint64_t h = slot_hash (ip, sp, 0);
  uint32_t first = hash_set (h) * HL_RECENT_WAYS;
  uint32_t ways = tag_ways (b, first, h);
  if (ways == 0)
    {
      HlRecentKey *k = key_find (b, ip, sp);
      if (k == NULL)
        return 0;
      k->used = (uint32_t) b->recent_tick;
      dval = disc_value (k, sp);
      h = keyed_hash (ip, sp, dval);
      ways = find_ways (b, h, true, &first);
      if (ways == 0)
        return 0;
    }
  HlRecentStack *e = &b->recent[first + (uint32_t) __builtin_ctz (ways)];
  if (HL_UNLIKELY ((ways & (ways - 1)) != 0))
    return lookup_ways (b, e, ways, first, ip, sp, rbp, dval);
  if (!entry_hits (e, ip, sp, rbp, dval, b->stack_hi))
    return 0;
  e->used = ++b->recent_tick;
  return e->stack_id;
}

/* 1 + the lowest offset from sp at which the new stack's words (ADDR[i]
 * held VAL[i], N words) and entry E's hold different values, 0 when they
 * agree wherever both read. Two unwinds from one state read the same
 * words until a value differs, so stacks of one key that differ have such
 * a word (unless only the rbp of the key tells them apart). */
static uint64_t
first_difference (const HlRecentStack *e,
                  const uint32_t      *off,
                  const uint64_t      *val,
                  uint32_t             n)
{
  uint64_t best = UINT64_MAX;
  /* the two unwinds read the same words in the same order up to the first
   * value that differs (and the words are put in the same order, pairs
   * first): walking both lists together finds that one at once, then the
   * search for a lower offset skips every word above it (it was
   * quadratic: 900 instructions a call in python3); a word of that common
   * prefix holds the same value in both (one unwind reads a word once, or
   * again with the same value) */
  uint32_t i = 0;
  for (; i < n && i < e->n_words && off[i] == WORD_OFF (e, i); i++)
    if (WORD_VAL (e, i) != val[i])
      {
        best = off[i];
        break;
      }
  for (; i < n; i++)
    {
      if (off[i] >= best)
        continue;
      for (uint32_t j = 0; j < e->n_words; j++)
        if (WORD_OFF (e, j) == off[i])
          {
            if (WORD_VAL (e, j) != val[i])
              best = off[i];
            break;
          }
    }
  return best == UINT64_MAX ? 0 : best + 1;
}

/* Remembers a stack: ADDR[i] held VAL[i] (N words, then the word at ZERO_AT
 * held 0 when ZERO_AT is not 0); each word lies at or above SP. Into an
 * empty way of its set (or, under a discriminator, of its second set),
 * else the one used longer ago; when its set(s) hold a stack of its key
 * (and word) already, the key gets (another) discriminator first. */
static void
recent_put (HlThreadBlock  *b,
            uint64_t        ip,
            uint64_t        sp,
            uint64_t        rbp,
            uint8_t         rbp_used,
            const uint64_t *addr,
            const uint64_t *val,
            uint32_t        n,
            uint64_t        zero_at,
            uint32_t        stack_id)
{
  if (n + (zero_at != 0) > HL_RECENT_WORDS)
    return;
  if (zero_at != 0 && (zero_at < sp || zero_at - sp > UINT32_MAX - 8))
    return;

  /* neighbouring words first, as pairs (all of them in fp mode; in a
   * DWARF unwind the return address and saved rbp of a frame with a frame
   * pointer), then the single words; padded to a multiple of 4. Each word
   * lies within 4 GiB above sp, else the stack is not remembered. */
  uint32_t w_off[HL_RECENT_WORDS + 2];
  uint64_t w_val[HL_RECENT_WORDS + 2];
  uint32_t s_off[HL_RECENT_WORDS + 1];
  uint64_t s_val[HL_RECENT_WORDS + 1];
  uint32_t n_singles = 0, k_words = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t off = addr[i] - sp;
      if (addr[i] < sp || off > UINT32_MAX - 8)
        return;
      uint64_t next = i + 1 < n ? addr[i + 1] - sp : 0;
      if (i + 1 < n && (next == off + 8 || next == off - 8))
        {
          if (addr[i + 1] < sp || next > UINT32_MAX - 8)
            return;
          bool up = next == off + 8;
          w_off[k_words] = (uint32_t) (up ? off : next);
          w_val[k_words] = up ? val[i] : val[i + 1];
          w_off[k_words + 1] = (uint32_t) (up ? next : off);
          w_val[k_words + 1] = up ? val[i + 1] : val[i];
          k_words += 2;
          i++;
        }
      else
        {
          s_off[n_singles] = (uint32_t) off;
          s_val[n_singles++] = val[i];
        }
    }
  if ((k_words & 3) != 0)
    {
      /* two pairs a group: the last one again */
      w_off[k_words] = w_off[k_words - 2];
      w_val[k_words] = w_val[k_words - 2];
      w_off[k_words + 1] = w_off[k_words - 1];
      w_val[k_words + 1] = w_val[k_words - 1];
      k_words += 2;
    }
  uint32_t pair_groups = k_words / 4;
  if (zero_at != 0)
    {
      s_off[n_singles] = (uint32_t) (zero_at - sp);
      s_val[n_singles++] = 0;
    }
  uint32_t first_single = k_words;
  for (uint32_t j = 0; j < n_singles; j++)
    {
      w_off[k_words] = s_off[j];
      w_val[k_words++] = s_val[j];
    }
  for (uint32_t j = first_single; (k_words & 3) != 0; k_words++, j++)
    {
      /* pad with the single words again, from the first (there are
       * some: the pairs filled their groups) */
      w_off[k_words] = w_off[j];
      w_val[k_words] = w_val[j];
    }

  HlRecentKey *k = key_find (b, ip, sp);
  uint64_t dval = k != NULL ? disc_value (k, sp) : 0;
  uint64_t h = k != NULL ? keyed_hash (ip, sp, dval) : slot_hash (ip, sp, 0);
  /* the stacks of this key (and word) in its set(s): when there is one
   * already, the key gets (another) discriminator (from the one used
   * longer ago), so that a lookup compares the words of one stack, not of
   * each of them */
  const HlRecentStack *same[2 * HL_RECENT_WAYS];
  uint32_t n_same = 0;
  for (uint32_t s = 0; s < (k != NULL ? 2u : 1u); s++)
    {
      uint32_t first = (s == 0 ? hash_set (h) : hash_set2 (h)) * HL_RECENT_WAYS;
      for (uint32_t i = first; i < first + HL_RECENT_WAYS; i++)
        {
          const HlRecentStack *e = &b->recent[i];
          if (b->recent_tag[i] == hash_tag (h) && e->ip == ip && e->sp == sp && e->dval == dval)
            same[n_same++] = e;
        }
    }
  if (n_same >= 1)
    {
      const HlRecentStack *older = same[0];
      for (uint32_t j = 1; j < n_same; j++)
        if (same[j]->used < older->used)
          older = same[j];
      uint64_t disc = first_difference (older, w_off, w_val, k_words);
      if (disc != 0 && (k == NULL || disc != k->disc))
        {
          if (k == NULL)
            {
              /* the way whose key was used longer ago */
              k = keys_of (b, ip, sp);
              if (k[1].used < k->used)
                k++;
              k->ip = ip;
              k->sp = sp;
            }
          k->disc = (uint32_t) disc;
          k->used = (uint32_t) b->recent_tick;
          /* the key's stacks filed before are dropped: the home set
           * holds none of a key with a discriminator (a lookup looks
           * there first) */
          for (uint32_t j = 0; j < n_same; j++)
            b->recent_tag[same[j] - b->recent] = 0;
          dval = disc_value (k, sp);
          h = keyed_hash (ip, sp, dval);
        }
    }
  /* an empty way of the set, else the one used longer ago. Under a
   * discriminator, of either set, the first preferred: with the stacks
   * of its tag when a set holds some (a lookup looks in the second set
   * only when the first holds none: a stack put there beside them would
   * never be found), else an empty way of the first set, then of the
   * second, then the one of them used longer ago. */
  uint32_t sets[2] = { hash_set (h) * HL_RECENT_WAYS, hash_set2 (h) * HL_RECENT_WAYS };
  uint32_t from = 0, to = 1;
  if (k != NULL && tag_ways (b, sets[0], h) == 0)
    {
      if (tag_ways (b, sets[1], h) != 0)
        from = 1;
      to = 2;
    }
  uint32_t slot = sets[from];
  bool empty = false;
  for (uint32_t s = from; s < to && !empty; s++)
    for (uint32_t i = sets[s]; i < sets[s] + HL_RECENT_WAYS; i++)
      if (b->recent_tag[i] == 0 || b->recent[i].stack_id == 0)
        {
          slot = i;
          empty = true;
          break;
        }
  for (uint32_t s = from; s < to && !empty; s++)
    for (uint32_t i = sets[s]; i < sets[s] + HL_RECENT_WAYS; i++)
      if (b->recent[i].used < b->recent[slot].used)
        slot = i;
  HlRecentStack *e = &b->recent[slot];
  b->recent_tag[slot] = 0;
  e->stack_id = 0;
  for (uint32_t j = 0; j < k_words / 4; j++)
    {
      HlRecentGroup *g = &e->g[j];
      memcpy (g->off, &w_off[4 * j], sizeof g->off);
      memcpy (g->val, &w_val[4 * j], sizeof g->val);
    }
  e->pair_groups = (uint8_t) pair_groups;
  e->ip = ip;
  e->sp = sp;
  e->rbp = rbp;
  e->dval = dval;
  e->rbp_used = rbp_used;
  e->n_words = (uint16_t) k_words;
  e->stack_id = stack_id;
  e->used = ++b->recent_tick;
  b->recent_tag[slot] = hash_tag (h);
}

void
hl_recent_store (HlThreadBlock *b,
                 uint32_t       stack_id)
{
  const HlCfiMemo *m = &b->memo;
  if (!b->memo_fresh || stack_id == 0 || m->n == 0)
    return;
  recent_validate (b);
  /* (the unwinder may have changed since the unwind: fp mode switches to
   * DWARF inside a check) */
  if (m->generation != b->recent_cfi_generation || b->recent_unwind != HL_UNWIND_LIBUNWIND)
    return;
  uint32_t top = m->n - 1;
  /* a truncated unwind did not read whether the next return address is 0 */
  if (m->end == HL_CFI_END_TRUNC)
    return;
  const HlCfiFrame *f = &m->f[top];
  /* an unwind that ended reading a zero return address read that word too */
  recent_put (b, f->ip, f->sp, f->rbp, m->rbp_used[top] ? HL_RBP_EQUAL : HL_RBP_ANY,
              m->chk_addr, m->chk_val, m->chk_end[top],
              m->end == HL_CFI_END_ZERO ? m->f[0].cfa - 8 : 0, stack_id);
}

void
hl_recent_put (HlThreadBlock      *b,
               const HlStackWords *w,
               uint32_t            stack_id)
{
  if (!w->ok || stack_id == 0)
    return;
  recent_validate (b);
  if (b->recent_unwind != w->unwind)
    return; /* fp mode switched to DWARF since the walk */
  recent_put (b, w->ip, w->sp, w->rbp, w->rbp_used, w->addr, w->val, w->n, 0, stack_id);
}

#else

/* Not x86-64: no recent stacks (every allocation is unwound). */

uint32_t
hl_recent_lookup (HlThreadBlock *b, void *entry)
{
  (void) b;
  (void) entry;
  return 0;
}

void
hl_recent_store (HlThreadBlock *b, uint32_t stack_id)
{
  (void) b;
  (void) stack_id;
}

void
hl_recent_put (HlThreadBlock *b, const HlStackWords *w, uint32_t stack_id)
{
  (void) b;
  (void) w;
  (void) stack_id;
}

#endif
