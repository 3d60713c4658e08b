/* test-aggregate-live.c — the live allocations of HlAggregate
 * (src/model/hl-recording-aggregate.c: a ring of recent ids, older ones
 * pushed out to a hash table) against a GHashTable doing the same: ids
 * mostly in order with some held back and applied late (threads' packets
 * out of order), most blocks freed young, some kept across many thousand
 * later ids (pushed out of the ring), frees by id and by address, second
 * frees; then the leaks, per stack, and the temporaries. */
#include <string.h>

#include "hl-recording-aggregate.h"

typedef struct
{
  guint64 size, address;
  guint32 stack, thread;
} Ref;

#define N_THREADS 4
#define N_STACKS  8

/* Ids 7, 32,775, ... (7 mod 4096, a multiple of 8 times 4096 after) are
 * held back for 20,000 ids; the ids 7 mod 4096 never die: the late one
 * finds its ring slot taken by a later id still live. */
static gboolean
held_late (guint64 id)
{
  return id % 4096 == 7 && (id / 4096) % 8 == 0;
}

static guint64
take_id (guint64 *next_id,
         GArray  *late)
{
  while (held_late (*next_id))
    {
      g_array_append_val (late, *next_id);
      ++*next_id;
    }
  return (*next_id)++;
}

static void
test_random (void)
{
  for (guint round = 0; round < 3; round++)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (round + 11);
      HlAggregate *agg = hl_aggregate_new (NULL);
      GHashTable *ref = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint64)); /* ids, in allocation order */
      g_autoptr (GArray) held = g_array_new (FALSE, FALSE, sizeof (guint64)); /* ids skipped, to come late */
      g_autoptr (GArray) late = g_array_new (FALSE, FALSE, sizeof (guint64)); /* the same, much later */
      guint n_late = 0;
      guint64 thread_last[N_THREADS];
      guint64 next_id = 0, t = 1, leaked_bytes = 0, leaked_blocks = 0;
      guint64 stack_blocks[N_STACKS] = { 0 }, temporaries = 0, counted_temporaries = 0;
      guint32 seq = 0;
      guint n_steps = round == 0 ? 2000 : 120000;

      for (guint i = 0; i < N_THREADS; i++)
        thread_last[i] = G_MAXUINT64;
      for (guint step = 0; step < n_steps; step++)
        {
          guint op = g_rand_int_range (rand, 0, 100);

          t += g_rand_int_range (rand, 0, 3);
          if (op < 48 || live->len == 0)
            {
              guint64 id;
              Ref *r = g_new (Ref, 1);

              if (late->len > 0 && g_array_index (late, guint64, 0) + 20000 < next_id)
                {
                  id = g_array_index (late, guint64, 0);
                  g_array_remove_index (late, 0);
                  n_late++;
                }
              else if (held->len > 0 && g_rand_int_range (rand, 0, 10) == 0)
                {
                  guint i = g_rand_int_range (rand, 0, held->len);
                  id = g_array_index (held, guint64, i);
                  g_array_remove_index_fast (held, i);
                }
              else
                {
                  if (g_rand_int_range (rand, 0, 20) == 0)
                    {
                      guint64 skipped = take_id (&next_id, late);
                      g_array_append_val (held, skipped);
                    }
                  id = take_id (&next_id, late);
                }
              g_assert_false (hl_aggregate_seen (agg, id));
              r->size = g_rand_int_range (rand, 0, 4000);
              r->address = 0x100000 + id * 32;
              r->stack = g_rand_int_range (rand, 0, N_STACKS);
              r->thread = g_rand_int_range (rand, 0, N_THREADS);
              hl_aggregate_alloc (agg, id, t, seq++, r->thread, r->stack, r->size, r->address, 1);
              thread_last[r->thread] = id;
              g_hash_table_insert (ref, g_memdup2 (&id, sizeof id), r);
              g_array_append_val (live, id);
              g_assert_true (hl_aggregate_seen (agg, id));
            }
          else if (op < 97)
            {
              /* mostly one of the young ones; one in 20 any of them
               * (the old ones stay: some live for the whole run) */
              guint i = g_rand_int_range (rand, 0, 20) == 0
                          ? (guint) g_rand_int_range (rand, 0, (gint32) live->len)
                          : live->len - 1 - (guint) g_rand_int_range (rand, 0, (gint32) MIN (live->len, 300));
              guint64 id = g_array_index (live, guint64, i);
              const Ref *r = g_hash_table_lookup (ref, &id);
              gboolean temporary, expect_temporary;

              g_assert_nonnull (r);
              if (id % 509 == 0 || id % 4096 == 7)
                continue; /* lives to the end */
              if (op >= 90 && step > n_steps / 2)
                {
                  /* by address, as a free the preload could not name */
                  g_assert_cmpuint (hl_aggregate_lookup_address (agg, r->address), ==, id + 1);
                }
              expect_temporary = thread_last[r->thread] == id;
              g_assert_true (hl_aggregate_free_id (agg, id, t, seq++, thread_last, FALSE, &temporary, NULL));
              g_assert_cmpint (temporary, ==, expect_temporary);
              temporaries += expect_temporary;
              counted_temporaries += temporary;
              g_hash_table_remove (ref, &id);
              g_array_remove_index (live, i);
              /* a second free of the same id: not live */
              g_assert_false (hl_aggregate_free_id (agg, id, t, seq, thread_last, FALSE, &temporary, NULL));
              g_assert_false (temporary);
              if (step > n_steps / 2)
                g_assert_cmpuint (hl_aggregate_lookup_address (agg, 0x100000 + id * 32), ==, 0);
            }
          else
            {
              /* an id never allocated yet: not live */
              gboolean temporary;
              g_assert_false (hl_aggregate_free_id (agg, next_id + 5, t, seq, thread_last, FALSE, &temporary, NULL));
            }
        }
      g_assert_cmpuint (counted_temporaries, ==, temporaries);
      /* some blocks outlived RING_SLOTS (16,384) later ids */
      if (round > 0)
        {
          g_assert_cmpuint (next_id - g_array_index (live, guint64, 0), >, 20000);
          g_assert_cmpuint (n_late, >, 0);
        }
      {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init (&it, ref);
        while (g_hash_table_iter_next (&it, NULL, &value))
          {
            const Ref *r = value;
            leaked_bytes += r->size;
            leaked_blocks++;
            stack_blocks[r->stack]++;
          }
      }
      /* the live blocks per stack at this moment (hl_aggregate_sum_live:
       * what a continuous inuse profile holds), before the finish */
      {
        guint64 objects[N_STACKS] = { 0 }, bytes[N_STACKS] = { 0 };
        guint64 want_objects[N_STACKS] = { 0 }, want_bytes[N_STACKS] = { 0 };
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init (&it, ref);
        while (g_hash_table_iter_next (&it, NULL, &value))
          {
            const Ref *r = value;
            want_objects[r->stack]++;
            want_bytes[r->stack] += r->size;
          }
        hl_aggregate_sum_live (agg, N_STACKS, objects, bytes);
        for (guint s = 0; s < N_STACKS; s++)
          {
            g_assert_cmpuint (objects[s], ==, want_objects[s]);
            g_assert_cmpuint (bytes[s], ==, want_bytes[s]);
          }
      }
      hl_aggregate_finish (agg);
      {
        guint64 bytes, blocks;
        g_autofree HlCosts *costs = hl_aggregate_dup_stack_costs (agg, N_STACKS);
        guint64 temp_sum = 0;

        hl_aggregate_get_leaks (agg, &bytes, &blocks);
        g_assert_cmpuint (blocks, ==, leaked_blocks);
        g_assert_cmpuint (bytes, ==, leaked_bytes);
        for (guint s = 0; s < N_STACKS; s++)
          {
            g_assert_cmpuint (costs[s].leaked_blocks, ==, stack_blocks[s]);
            temp_sum += costs[s].temporary;
          }
        g_assert_cmpuint (temp_sum, ==, temporaries);
      }
      g_test_message ("round %u: %" G_GUINT64_FORMAT " ids, %u live at the end", round, next_id, live->len);
      g_hash_table_unref (ref);
      hl_aggregate_free (agg);
    }
}

/* Weighted blocks (a sampled recording's): each counts its weight in
 * objects, its (already weighted) size in bytes; stacks past N_STACKS
 * are left out; a freed block no longer counts. */
static void
test_sum_live_weights (void)
{
  HlAggregate *agg = hl_aggregate_new (NULL);
  guint64 thread_last[1] = { G_MAXUINT64 };
  guint64 objects[2] = { 0 }, bytes[2] = { 0 };
  gboolean temporary;

  hl_aggregate_alloc (agg, 0, 1, 0, 0, 0, 100, 0x1000, 1);
  hl_aggregate_alloc (agg, 1, 2, 1, 0, 0, 4096 * 3, 0x2000, 3);
  hl_aggregate_alloc (agg, 2, 3, 2, 0, 1, 50 * 7, 0x3000, 7);
  hl_aggregate_alloc (agg, 3, 4, 3, 0, 5, 999, 0x4000, 2);
  hl_aggregate_sum_live (agg, 2, objects, bytes);
  g_assert_cmpuint (objects[0], ==, 4);
  g_assert_cmpuint (bytes[0], ==, 100 + 4096 * 3);
  g_assert_cmpuint (objects[1], ==, 7);
  g_assert_cmpuint (bytes[1], ==, 350);
  g_assert_true (hl_aggregate_free_id (agg, 1, 5, 4, thread_last, FALSE, &temporary, NULL));
  memset (objects, 0, sizeof objects);
  memset (bytes, 0, sizeof bytes);
  hl_aggregate_sum_live (agg, 2, objects, bytes);
  g_assert_cmpuint (objects[0], ==, 1);
  g_assert_cmpuint (bytes[0], ==, 100);
  g_assert_cmpuint (objects[1], ==, 7);
  hl_aggregate_finish (agg);
  hl_aggregate_free (agg);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/aggregate/live-random", test_random);
  g_test_add_func ("/aggregate/sum-live-weights", test_sum_live_weights);
  return g_test_run ();
}
