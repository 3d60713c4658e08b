/* test-address-map.c — HlAddressMap (src/model/hl-address-map.h) against
 * a GHashTable doing the same thing: random sets, replacements, removals
 * and lookups, with addresses that collide on purpose (the same home
 * slot, address 0, the 16-byte steps of a heap), through several growths
 * and back-shifted probe runs. */
#include "hl-address-map.h"

static void
check_same (HlAddressMap *map,
            GHashTable   *ref,
            const guint64 *keys,
            guint         n_keys)
{
  g_assert_cmpuint (hl_address_map_size (map), ==, g_hash_table_size (ref));
  for (guint i = 0; i < n_keys; i++)
    g_assert_cmpuint (hl_address_map_get (map, keys[i]), ==,
                      GPOINTER_TO_SIZE (g_hash_table_lookup (ref, GSIZE_TO_POINTER (keys[i]))));
}

static void
test_random (void)
{
  for (guint round = 0; round < 4; round++)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (round + 1);
      HlAddressMap *map = hl_address_map_new ();
      GHashTable *ref = g_hash_table_new (NULL, NULL);
      /* a pool of addresses: a heap's 16-byte steps, a few far apart, 0 */
      guint n_keys = round == 0 ? 40 : round == 1 ? 3000 : 60000;
      guint64 *keys = g_new (guint64, n_keys);

      for (guint i = 0; i < n_keys; i++)
        keys[i] = i == 0 ? 0 : (i % 7 == 0) ? (guint64) g_rand_int (rand) << 20 : 0x400000 + 16 * (guint64) i;
      for (guint step = 0; step < 200000; step++)
        {
          guint64 key = keys[g_rand_int_range (rand, 0, (gint32) n_keys)];
          guint op = g_rand_int_range (rand, 0, 10);

          /* more sets than removals early, the other way late: the map
           * grows, then empties through back-shifts */
          if (op < (step < 100000 ? 6u : 3u))
            {
              guint64 value = (guint64) g_rand_int (rand) + 1;
              hl_address_map_set (map, key, value);
              g_hash_table_insert (ref, GSIZE_TO_POINTER (key), GSIZE_TO_POINTER (value));
            }
          else if (op < 8)
            {
              hl_address_map_remove (map, key);
              g_hash_table_remove (ref, GSIZE_TO_POINTER (key));
            }
          else
            g_assert_cmpuint (hl_address_map_get (map, key), ==,
                              GPOINTER_TO_SIZE (g_hash_table_lookup (ref, GSIZE_TO_POINTER (key))));
          if (step % 20000 == 0)
            check_same (map, ref, keys, n_keys);
        }
      check_same (map, ref, keys, n_keys);
      g_free (keys);
      g_hash_table_unref (ref);
      hl_address_map_free (map);
    }
}

/* Addresses that share their home slot (only bits below 4 differ, or
 * apart by the table's size times the hash's inverse: simply many of
 * the same 16-byte-aligned value's neighbours): removing from the middle
 * of a long run keeps the rest findable. */
static void
test_runs (void)
{
  HlAddressMap *map = hl_address_map_new ();

  for (guint64 a = 0; a < 16; a++)
    hl_address_map_set (map, 0x1000 + a, a + 1);
  for (guint64 a = 0; a < 16; a += 3)
    hl_address_map_remove (map, 0x1000 + a);
  for (guint64 a = 0; a < 16; a++)
    g_assert_cmpuint (hl_address_map_get (map, 0x1000 + a), ==, a % 3 == 0 ? 0 : a + 1);
  hl_address_map_set (map, 0x1001, 99);
  g_assert_cmpuint (hl_address_map_get (map, 0x1001), ==, 99);
  g_assert_cmpuint (hl_address_map_size (map), ==, 10);
  hl_address_map_remove (map, 0x2000); /* absent: nothing */
  g_assert_cmpuint (hl_address_map_size (map), ==, 10);
  hl_address_map_free (map);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/address-map/random-equals-hash-table", test_random);
  g_test_add_func ("/address-map/probe-runs", test_runs);
  return g_test_run ();
}
