/* heaplens-demo — a small program that makes a good first recording.
 *
 * Three named threads go through three phases:
 *   load   — the loader thread reads "documents" into a growing table
 *            (realloc'd), with a temporary buffer per document;
 *   index  — the indexer thread builds a word index (C++ new, via
 *            hl_demo_index_*), the heap peaks at the end of this phase;
 *   query  — the query thread answers queries with short-lived buffers
 *            (temporaries) while the index is torn down step by step.
 * All along, a slow leak drips: a few "cache entries" are never freed.
 *
 * The allocation counts and sizes depend only on --seed, never on
 * --seconds or on timing, so the program is the fixture of end-to-end tests.
 * --seconds N (default 10) only paces the work; 0 runs flat out.
 *
 * The phases are tagged through heaplens.h, a no-op without the preload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heaplens.h"
#include "heaplens-demo-index.h"

#define N_DOCUMENTS 240
#define N_QUERIES 600
#define STEPS_TOTAL (N_DOCUMENTS + N_DOCUMENTS + N_QUERIES)

typedef struct
{
  char   *text;
  size_t  length;
} Document;

typedef struct
{
  uint64_t       rng;
  double         step_seconds;
  Document      *documents;
  size_t         n_documents;
  HlDemoIndex   *index;
  void         **leaked;     /* the slow leak, kept reachable only by the loader */
  size_t         n_leaked;
  uint64_t       checksum;
} Demo;

/* xorshift64*: deterministic for a given seed. */
static uint64_t
demo_random (Demo *demo)
{
  demo->rng ^= demo->rng >> 12;
  demo->rng ^= demo->rng << 25;
  demo->rng ^= demo->rng >> 27;
  return demo->rng * 2685821657736338717ull;
}

static size_t
demo_random_range (Demo  *demo,
                   size_t lo,
                   size_t hi)
{
  return lo + (size_t) (demo_random (demo) % (hi - lo + 1));
}

static void
demo_pace (const Demo *demo)
{
  if (demo->step_seconds <= 0)
    return;
  struct timespec ts = {
    .tv_sec = (time_t) demo->step_seconds,
    .tv_nsec = (long) ((demo->step_seconds - (double) (time_t) demo->step_seconds) * 1e9),
  };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

static void *
demo_xmalloc (size_t size)
{
  void *p = malloc (size);
  if (p == NULL)
    {
      fprintf (stderr, "heaplens-demo: out of memory\n");
      exit (EXIT_FAILURE);
    }
  return p;
}

static void
demo_leak_a_little (Demo *demo,
                    size_t step)
{
  /* One cache entry in twenty is forgotten: the slow leak. */
  if (step % 20 != 7)
    return;
  void *entry = calloc (1, demo_random_range (demo, 48, 256));
  if (entry == NULL)
    exit (EXIT_FAILURE);
  demo->leaked[demo->n_leaked++] = entry;
}

static void *
demo_load_thread (void *data)
{
  Demo *demo = data;
  size_t capacity = 0;

  pthread_setname_np (pthread_self (), "loader");
  heaplens_metadata_set_string ("phase", "load");
  heaplens_mark ("load started");

  for (size_t i = 0; i < N_DOCUMENTS; i++)
    {
      heaplens_metadata_set_int ("document", (int64_t) i);
      if (demo->n_documents == capacity)
        {
          capacity = capacity ? capacity * 2 : 8;
          Document *grown = realloc (demo->documents, capacity * sizeof (Document));
          if (grown == NULL)
            exit (EXIT_FAILURE);
          demo->documents = grown;
        }

      /* A temporary read buffer, freed right after the copy. */
      size_t length = demo_random_range (demo, 2 * 1024, 24 * 1024);
      char *buffer = demo_xmalloc (length + 1);
      for (size_t j = 0; j < length; j++)
        buffer[j] = (char) ('a' + (demo_random (demo) % 7 == 0 ? ' ' - 'a' : (int) (j % 26)));
      buffer[length] = '\0';

      Document *doc = &demo->documents[demo->n_documents++];
      doc->length = length;
      doc->text = demo_xmalloc (length + 1);
      memcpy (doc->text, buffer, length + 1);
      free (buffer);

      demo_leak_a_little (demo, i);
      demo_pace (demo);
    }
  heaplens_metadata_remove ("document");
  return NULL;
}

static void *
demo_index_thread (void *data)
{
  Demo *demo = data;

  pthread_setname_np (pthread_self (), "indexer");
  heaplens_metadata_set_string ("phase", "index");
  heaplens_mark ("index started");

  demo->index = hl_demo_index_new ();
  for (size_t i = 0; i < demo->n_documents; i++)
    {
      heaplens_metadata_set_int ("document", (int64_t) i);
      hl_demo_index_add (demo->index, i, demo->documents[i].text, demo->documents[i].length);

      /* Page-aligned scratch blocks, as an I/O layer would use. */
      void *scratch = aligned_alloc (4096, 4096 * demo_random_range (demo, 1, 4));
      if (scratch == NULL)
        exit (EXIT_FAILURE);
      memset (scratch, 0, 4096);
      free (scratch);

      demo_leak_a_little (demo, i);
      demo_pace (demo);
    }
  heaplens_metadata_remove ("document");
  heaplens_mark ("peak");
  return NULL;
}

static void *
demo_query_thread (void *data)
{
  Demo *demo = data;

  pthread_setname_np (pthread_self (), "query");
  heaplens_metadata_set_string ("phase", "query");
  heaplens_mark ("queries started");

  for (size_t q = 0; q < N_QUERIES; q++)
    {
      heaplens_metadata_set_int ("request", (int64_t) q);

      /* A short-lived query string and result list: temporaries. */
      size_t doc = demo_random_range (demo, 0, demo->n_documents - 1);
      size_t word_length = demo_random_range (demo, 3, 8);
      char *word = demo_xmalloc (word_length + 1);
      memcpy (word, demo->documents[doc].text, word_length);
      word[word_length] = '\0';

      size_t n_results = 0;
      size_t *results = hl_demo_index_lookup (demo->index, word, &n_results);
      for (size_t r = 0; r < n_results; r++)
        demo->checksum += results[r];
      free (results);
      free (word);

      /* Tear the loaded documents down as queries go on. */
      if (q % (N_QUERIES / N_DOCUMENTS + 1) == 0 && demo->n_documents > 0)
        {
          Document *last = &demo->documents[--demo->n_documents];
          free (last->text);
          last->text = NULL;
        }

      demo_leak_a_little (demo, q);
      demo_pace (demo);
    }
  heaplens_metadata_remove ("request");
  return NULL;
}

static void
demo_run_phase (Demo       *demo,
                void     *(*func) (void *))
{
  pthread_t thread;
  int err = pthread_create (&thread, NULL, func, demo);
  if (err != 0)
    {
      fprintf (stderr, "heaplens-demo: cannot start a thread: %s\n", strerror (err));
      exit (EXIT_FAILURE);
    }
  pthread_join (thread, NULL);
}

static void
demo_usage (FILE *out)
{
  fprintf (out,
           "Usage: heaplens-demo [--seconds N] [--seed N]\n"
           "A demo program for Heaplens: three threads, three phases, a peak,\n"
           "temporaries and a slow leak. Counts depend only on --seed.\n");
}

int
main (int    argc,
      char **argv)
{
  double seconds = 10.0;
  uint64_t seed = 1;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--seconds") == 0 && i + 1 < argc)
        seconds = strtod (argv[++i], NULL);
      else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
        seed = strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          demo_usage (stdout);
          return EXIT_SUCCESS;
        }
      else
        {
          demo_usage (stderr);
          return 2;
        }
    }
  if (seconds < 0)
    seconds = 0;

  Demo demo = {
    .rng = seed * 0x9E3779B97F4A7C15ull + 1,
    .step_seconds = seconds / STEPS_TOTAL,
  };
  demo.leaked = demo_xmalloc (sizeof (void *) * (STEPS_TOTAL / 20 + 3));

  heaplens_metadata_set_int ("seed", (int64_t) seed);
  demo_run_phase (&demo, demo_load_thread);
  demo_run_phase (&demo, demo_index_thread);
  demo_run_phase (&demo, demo_query_thread);

  hl_demo_index_free (demo.index);
  for (size_t i = 0; i < demo.n_documents; i++)
    free (demo.documents[i].text);
  free (demo.documents);
  /* demo.leaked's entries are the leak; the array itself is freed. */
  free (demo.leaked);

  heaplens_metadata_remove ("phase");
  printf ("heaplens-demo: %d documents, %d queries, checksum %llu\n",
          N_DOCUMENTS, N_QUERIES, (unsigned long long) demo.checksum);
  return EXIT_SUCCESS;
}
