/* entropy-gen — an allocation workload whose information content is known
 * (not a test; bench/entropy.sh). L blocks are allocated, then each of N
 * replacements frees one of the L live blocks chosen uniformly and
 * allocates a new one in its place, of a size drawn uniformly from
 * [MIN, MAX], from one of S call sites drawn uniformly (site k's stack is
 * k + 5 frames deep: depths 5..S+4). Every draw comes from a seeded
 * xoshiro256** generator and is exactly uniform (rejection sampling), so
 * the choices the program makes carry, per replacement,
 * log2(L) + log2(MAX - MIN + 1) + log2(S) bits and nothing else: the
 * order of events, the sizes' classes and the addresses malloc returns
 * follow from them. At the end every block is freed in slot order.
 *
 *   entropy-gen N [L [S [SEED]]]     (defaults 5000000 10000 20 1)
 *
 * Prints one line "entropy-gen: N replacements, L live, S sites, sizes
 * MIN..MAX" that bench/entropy.sh reads the parameters from. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE_MIN 8u
#define SIZE_MAX_ 4096u
#define DEPTH_MIN 5u

static uint64_t state[4];

static inline uint64_t
rotl (uint64_t x,
      int      k)
{
  return (x << k) | (x >> (64 - k));
}

static uint64_t
next64 (void)
{
  uint64_t result = rotl (state[1] * 5, 7) * 9;
  uint64_t t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = rotl (state[3], 45);
  return result;
}

static void
seed_with (uint64_t seed)
{
  /* splitmix64 spreads the seed over the four words */
  for (int k = 0; k < 4; k++)
    {
      uint64_t z = (seed += 0x9e3779b97f4a7c15u);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
      state[k] = z ^ (z >> 31);
    }
}

/* Exactly uniform in [0, n): draws above the last whole multiple of n are
 * drawn again. */
static uint64_t
uniform (uint64_t n)
{
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = next64 ();
  while (x >= limit);
  return x % n;
}

static void **slots;

/* DEPTH frames of this function above the malloc: one stack per depth */
__attribute__ ((noinline)) static void
descend (uint32_t depth,
         uint64_t slot,
         size_t   size)
{
  if (depth <= 1)
    slots[slot] = malloc (size);
  else
    descend (depth - 1, slot, size);
  __asm__ volatile ("" ::: "memory"); /* no tail call: every frame stays */
}

static void
allocate (uint64_t slot,
          uint32_t n_sites)
{
  size_t size = SIZE_MIN + (size_t) uniform (SIZE_MAX_ - SIZE_MIN + 1);
  uint32_t site = (uint32_t) uniform (n_sites);
  descend (DEPTH_MIN + site, slot, size);
  if (slots[slot] == NULL)
    {
      fprintf (stderr, "entropy-gen: out of memory\n");
      exit (1);
    }
  /* touch it, as a program would: the page is the program's */
  *(volatile char *) slots[slot] = (char) site;
}

int
main (int    argc,
      char **argv)
{
  uint64_t n = argc > 1 ? strtoull (argv[1], NULL, 10) : 5000000u;
  uint64_t live = argc > 2 ? strtoull (argv[2], NULL, 10) : 10000u;
  uint32_t n_sites = argc > 3 ? (uint32_t) strtoul (argv[3], NULL, 10) : 20u;
  uint64_t seed = argc > 4 ? strtoull (argv[4], NULL, 10) : 1u;
  if (live == 0 || n_sites == 0 || n_sites > 200)
    {
      fprintf (stderr, "usage: entropy-gen N [L [S [SEED]]] (L >= 1, 1 <= S <= 200)\n");
      return 2;
    }
  seed_with (seed);
  slots = calloc (live, sizeof *slots);
  if (slots == NULL)
    return 1;
  for (uint64_t k = 0; k < live; k++)
    allocate (k, n_sites);
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t victim = uniform (live);
      free (slots[victim]);
      allocate (victim, n_sites);
    }
  for (uint64_t k = 0; k < live; k++)
    free (slots[k]);
  free (slots);
  printf ("entropy-gen: %llu replacements, %llu live, %u sites, sizes %u..%u\n", (unsigned long long) n,
          (unsigned long long) live, n_sites, SIZE_MIN, SIZE_MAX_);
  return 0;
}
