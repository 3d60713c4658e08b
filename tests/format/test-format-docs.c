/* test-format-docs.c — the constants and field offsets written in
 * docs/trace-format.md and docs/shm-layout.md agree with the headers, and
 * every one of them is documented. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-shm-layout.h"
#include "hl-test-util.h"
#include "hl-trace-format.h"
#include "hl-trace-codec.h"
#include "hl-trace-columns.h"
#include "hl-trace-index.h"
#include "hl-trace-model.h"
#include "hl-trace-writer.h"

typedef struct { const char *name; uint64_t value; int seen; } Const;
typedef struct { const char *type, *field; size_t offset, size; int seen; } Field;

#define C(x) { #x, (uint64_t) (x), 0 }
static Const consts[] = {
  C (HL_TRACE_MAGIC_SIZE), C (HL_TRACE_VERSION_MAJOR), C (HL_TRACE_VERSION_MINOR), C (HL_TRACE_VERSION_MAJOR_MIN),
  C (HL_TRACE_BYTE_ORDER_MARK), C (HL_TRACE_FILE_HEADER_SIZE), C (HL_TRACE_FLAG_COARSE_CLOCK),
  C (HL_TRACE_FLAG_COMPRESSED), C (HL_PACKET_KIND_ZFRAME), C (HL_PACKET_KIND_COSTS), C (HL_CODEC_ZSTD), C (HL_CODEC_ZSTD_COLUMNS), C (HL_CODEC_ZSTD_MODEL), C (HL_CODEC_ZSTD_MODEL5), C (HL_CODEC_ZSTD_MODEL6), C (HL_COL_COUNT), C (HL_COL_COUNT_V2), C (HL_COL_COUNT_V4), C (HL_COL_COUNT_V5),
  C (HL_MTOK_ADDR_SITE), C (HL_MTOK_ADDR_LAST), C (HL_MODEL_SITE_LOG), C (HL_MODEL_CURSORS), C (HL_MODEL_NEAR), C (HL_FTOK_PREV), C (HL_FTOK_CURSOR), C (HL_FTOK_RAW), C (HL_FTOK_PLAIN),
  C (HL_MODEL_SLOTS_LOG), C (HL_MODEL_CLASSES), C (HL_MODEL_DEPTH), C (HL_MODEL_SUCC_LOG), C (HL_MODEL_THREADS), C (HL_MODEL_CHILD_LOG), C (HL_MODEL_CHILD_WAYS), C (HL_MODEL_CHILD_WAYS5),
  C (HL_MTOK_STACK_RAW), C (HL_MTOK_ADDR_TOP), C (HL_MTOK_ADDR_CARVE), C (HL_MTOK_ADDR_NEXT), C (HL_MTOK_ADDR_RAW),
  C (HL_MTOK_ADDR_FREED), C (HL_MTOK_ADDR_STEP), C (HL_MTOK_ADDR_DEEP), C (HL_ZFRAME_HEADER_SIZE),
  C (HL_ZFRAME_MAX_RAW), C (HL_ZFRAME_MAX_CONTENT), C (HL_ZFRAME_DEFAULT_RAW), C (HL_TRACE_MAX_IMAGE),
  C (HL_PACKET_MAGIC), C (HL_PACKET_HEADER_SIZE), C (HL_PACKET_MAX_SIZE), C (HL_PACKET_MAX_CONTENT),
  C (HL_PACKET_KIND_INFO), C (HL_PACKET_KIND_EVENTS), C (HL_PACKET_KIND_INDEX), C (HL_PACKET_KIND_INDEX_TAIL),
  C (HL_PACKET_FLAG_HAS_STACKS), C (HL_PACKET_FLAG_HAS_MODULES), C (HL_PACKET_FLAG_HAS_THREADS),
  C (HL_PACKET_FLAG_HAS_META), C (HL_PACKET_FLAG_HAS_END),
  C (HL_EVENT_ALLOC), C (HL_EVENT_ALLOC_ALIGNED), C (HL_EVENT_FREE), C (HL_EVENT_FREE_ADDR),
  C (HL_EVENT_REALLOC), C (HL_EVENT_REALLOC_ADDR), C (HL_EVENT_STACK), C (HL_EVENT_MODULE),
  C (HL_EVENT_THREAD), C (HL_EVENT_META_INT), C (HL_EVENT_META_STRING), C (HL_EVENT_META_REMOVE),
  C (HL_EVENT_MARK), C (HL_EVENT_COUNTERS), C (HL_EVENT_DROPPED), C (HL_EVENT_INFO), C (HL_EVENT_END),
  C (HL_EVENT_ID_SKIP), C (HL_EVENT_FIRST_SKIPPABLE), C (HL_EVENT_TYPE_MAX), C (HL_EVENT_FLAG_NO_TIME),
  C (HL_EVENT_REACHABILITY), C (HL_REACH_STILL_REACHABLE), C (HL_REACH_POSSIBLY_LOST), C (HL_REACH_INDIRECTLY_LOST),
  C (HL_REACH_DEFINITELY_LOST), C (HL_REACH_KINDS), C (HL_REACH_FLAG_FIRST), C (HL_REACH_FLAG_INCOMPLETE), C (HL_REACH_FLAG_ON_DEMAND),
  C (HL_EVENT_MMAP), C (HL_EVENT_MUNMAP), C (HL_EVENT_MREMAP), C (HL_EVENT_ALLOCATOR), C (HL_ALLOCATOR_FLAG_MALLINFO), C (HL_ALLOCATOR_FLAG_ESTIMATED),
  C (HL_STACK_FLAG_TRUNCATED), C (HL_MODULE_FLAG_LOADED), C (HL_MODULE_FLAG_UNLOADED),
  C (HL_THREAD_FLAG_START), C (HL_THREAD_FLAG_EXIT), C (HL_THREAD_FLAG_NAME),
  C (HL_DROP_TRACE_WRITE), C (HL_DROP_STACK_TABLE), C (HL_DROP_LIVE_TABLE), C (HL_DROP_CALLSITE),
  C (HL_DROP_METADATA), C (HL_DROP_MMAP_TABLE), C (HL_STACK_ID_UNKNOWN), C (HL_TRACE_STRING_MAX), C (HL_TRACE_MAX_FRAMES),
  C (HL_TRACE_BUILD_ID_MAX), C (HL_VARINT_MAX_BYTES), C (HL_TRACE_DEFAULT_ALIGNMENT),
  C (HL_TRACE_INFO_MAX_PAIRS), C (HL_TRACE_INFO_MAX_BYTES), C (HL_INDEX_TAIL_CONTENT_SIZE),
  C (HL_INDEX_TAIL_SIZE), C (HL_PRED_SLOTS), C (HL_PRED_CLASSES), C (HL_PRED_DEPTH),
  C (HL_SHM_MAGIC_SIZE), C (HL_SHM_VERSION), C (HL_SHM_HEADER_SIZE), C (HL_SHM_EXE_MAX),
  C (HL_SHM_CMDLINE_MAX), C (HL_SHM_PATH_MAX), C (HL_SHM_REGION_ALIGN), C (HL_SHM_STATE_STARTING),
  C (HL_SHM_STATE_RUNNING), C (HL_SHM_STATE_ENDED), C (HL_SHM_FLAG_COARSE_CLOCK),
  C (HL_SHM_FLAG_ENDED_BY_EXEC), C (HL_SHM_FLAG_KEPT), C (HL_SHM_FLAG_UNFOLLOWED), C (HL_SHM_FLAG_SHM_FULL), C (HL_SHM_FLAG_ABANDONED), C (HL_SHM_NODE_STACK), C (HL_SHM_NODE_THREAD),
  C (HL_SHM_LIVE_EMPTY), C (HL_SHM_LIVE_TOMBSTONE), C (HL_SHM_LIVE_BUSY), C (HL_SHM_LIVE_ID_BITS),
  C (HL_SHM_LIVE_SIZE_BITS), C (HL_SHM_LIVE_TIME_SHIFT), C (HL_SHM_LIVE_REGION_SHIFT), C (HL_SHM_LIVE_DIR_MAX_BLOCKS), C (HL_SHM_META_ITEMS),
  C (HL_SHM_META_KEY_MAX), C (HL_SHM_META_VALUE_MAX), C (HL_SHM_META_LOG), C (HL_SHM_META_ACTIVE),
  C (HL_SHM_META_IS_STRING), C (HL_SHM_META_IS_MARK), C (HL_SHM_META_REMOVED),
  C (HL_SHM_THREAD_SLOTS), C (HL_SHM_SAMPLES), C (HL_DROP_REASONS_MAX),
};

#define F(s, f) { #s, #f, offsetof (s, f), sizeof (((s *) 0)->f), 0 }
static Field fields[] = {
  F (HlTraceFileHeader, magic), F (HlTraceFileHeader, version_major), F (HlTraceFileHeader, version_minor),
  F (HlTraceFileHeader, header_size), F (HlTraceFileHeader, byte_order), F (HlTraceFileHeader, flags),
  F (HlTraceFileHeader, start_wall_ns), F (HlTraceFileHeader, start_mono_ns), F (HlTraceFileHeader, pid),
  F (HlTraceFileHeader, reserved),
  F (HlPacketHeader, magic), F (HlPacketHeader, content_size), F (HlPacketHeader, header_size),
  F (HlPacketHeader, kind), F (HlPacketHeader, pid), F (HlPacketHeader, tid), F (HlPacketHeader, crc32c),
  F (HlPacketHeader, time_begin_ns), F (HlPacketHeader, time_end_ns), F (HlPacketHeader, alloc_id_begin),
  F (HlPacketHeader, alloc_id_end), F (HlPacketHeader, n_events), F (HlPacketHeader, flags),
  F (HlShmHeader, magic), F (HlShmHeader, version), F (HlShmHeader, header_size), F (HlShmHeader, segment_size),
  F (HlShmHeader, pid), F (HlShmHeader, ppid), F (HlShmHeader, uid), F (HlShmHeader, flags),
  F (HlShmHeader, start_wall_ns), F (HlShmHeader, start_mono_ns), F (HlShmHeader, heartbeat_ns_atomic),
  F (HlShmHeader, state_atomic), F (HlShmHeader, exit_status), F (HlShmHeader, ended_ns),
  F (HlShmHeader, resources), F (HlShmHeader, callsites), F (HlShmHeader, live), F (HlShmHeader, metadata),
  F (HlShmHeader, counters), F (HlShmHeader, exe), F (HlShmHeader, cmdline), F (HlShmHeader, trace_path),
  F (HlShmHeader, clock_ns_atomic), F (HlShmHeader, packets), F (HlShmHeader, trace_cut_ns_atomic),
  F (HlShmHeader, trace_cut_errno_atomic), F (HlShmHeader, reserved_cut),
  F (HlShmHeader, sample_bytes), F (HlShmHeader, control_atomic), F (HlShmHeader, reserved_control),
  F (HlShmHeader, mmap_bytes_atomic), F (HlShmHeader, peak_mmap_bytes_atomic), F (HlShmHeader, mmap_regions_atomic),
  F (HlShmHeader, malloc_arena_bytes_atomic), F (HlShmHeader, malloc_in_use_bytes_atomic),
  F (HlShmHeader, malloc_free_bytes_atomic), F (HlShmHeader, malloc_mmapped_bytes_atomic),
  F (HlShmHeader, malloc_sample_ns_atomic), F (HlShmHeader, launcher_pid), F (HlShmHeader, reserved_launcher), F (HlShmHeader, leak_scan),
  F (HlShmHeader, reserved),
  F (HlShmResourcesHeader, n_buckets), F (HlShmResourcesHeader, nodes_offset),
  F (HlShmResourcesHeader, watermark_atomic), F (HlShmResourcesHeader, n_stacks_atomic),
  F (HlShmResourcesHeader, n_dropped_atomic),
  F (HlShmResourceNode, next), F (HlShmResourceNode, id), F (HlShmResourceNode, kind),
  F (HlShmResourceNode, length), F (HlShmResourceNode, hash),
  F (HlShmCallsite, node_offset_atomic), F (HlShmCallsite, flags), F (HlShmCallsite, calls_atomic),
  F (HlShmCallsite, bytes_atomic), F (HlShmCallsite, frees_atomic), F (HlShmCallsite, freed_bytes_atomic),
  F (HlShmLiveEntry, address_atomic), F (HlShmLiveEntry, id_time), F (HlShmLiveEntry, size_time),
  F (HlShmLiveEntry, stack_tid),
  F (HlShmLiveDirHeader, n_words), F (HlShmLiveDirHeader, n_blocks), F (HlShmLiveDirHeader, next_block_atomic),
  F (HlShmLiveDirHeader, n_used_atomic),
  F (HlShmMetadata, writer_lock_atomic), F (HlShmMetadata, n_items_atomic), F (HlShmMetadata, log_count_atomic),
  F (HlShmMetadata, items), F (HlShmMetadata, log),
  F (HlShmMetaItem, seq_atomic), F (HlShmMetaItem, flags), F (HlShmMetaItem, int_value),
  F (HlShmMetaItem, time_ns), F (HlShmMetaItem, key), F (HlShmMetaItem, string_value),
  F (HlShmCounters, heap_bytes_atomic), F (HlShmCounters, peak_heap_bytes_atomic),
  F (HlShmCounters, peak_heap_time_ns_atomic), F (HlShmCounters, rss_bytes_atomic),
  F (HlShmCounters, peak_rss_bytes_atomic), F (HlShmCounters, dropped_atomic),
  F (HlShmCounters, exited_n_allocs_atomic), F (HlShmCounters, exited_n_frees_atomic),
  F (HlShmCounters, exited_bytes_allocated_atomic), F (HlShmCounters, exited_bytes_freed_atomic),
  F (HlShmCounters, n_samples_atomic), F (HlShmCounters, fp_checks_atomic),
  F (HlShmCounters, fp_mismatches_atomic), F (HlShmCounters, threads), F (HlShmCounters, samples),
  F (HlShmThreadCounters, tid_atomic), F (HlShmThreadCounters, flags), F (HlShmThreadCounters, n_allocs),
  F (HlShmThreadCounters, n_frees), F (HlShmThreadCounters, bytes_allocated),
  F (HlShmThreadCounters, bytes_freed), F (HlShmThreadCounters, frees_unknown),
  F (HlShmThreadCounters, reserved_tail),
  F (HlShmSample, time_ns), F (HlShmSample, heap_bytes), F (HlShmSample, rss_bytes), F (HlShmSample, n_allocs),
};

#define N(a) (sizeof (a) / sizeof (a)[0])

static int mismatches;

/* Splits a table row into up to 8 trimmed cells (in place). */
static int
cells (char *line, char **out)
{
  int n = 0;
  char *p = line;
  if (*p != '|')
    return 0;
  p++;
  while (n < 8)
    {
      char *bar = strchr (p, '|');
      if (bar == NULL)
        break;
      *bar = '\0';
      while (*p == ' ')
        p++;
      char *e = p + strlen (p);
      while (e > p && e[-1] == ' ')
        *--e = '\0';
      if (e - p >= 2 && p[0] == '`' && e[-1] == '`')
        {
          e[-1] = '\0';
          p++;
        }
      out[n++] = p;
      p = bar + 1;
    }
  return n;
}

static bool
number (const char *s, uint64_t *v)
{
  char *end;
  if (*s < '0' || *s > '9')
    return false;
  *v = strtoull (s, &end, 0);
  return *end == '\0';
}

static void
check_doc (const char *path)
{
  size_t len;
  char *text = hl_test_read_file (path, &len);
  if (text == NULL)
    {
      hl_tap_diag ("cannot read %s", path);
      mismatches++;
      return;
    }
  char type[64] = "";
  bool in_consts = false;
  for (char *line = strtok (text, "\n"); line != NULL; line = strtok (NULL, "\n"))
    {
      if (strncmp (line, "<!-- struct: ", 13) == 0)
        {
          sscanf (line + 13, "%63[A-Za-z]", type);
          in_consts = false;
          continue;
        }
      if (strncmp (line, "<!-- constants", 14) == 0)
        {
          in_consts = true;
          type[0] = '\0';
          continue;
        }
      if (line[0] != '|')
        {
          if (line[0] != '\0')
            {
              type[0] = '\0';
              in_consts = false;
            }
          continue;
        }
      char *c[8];
      int n = cells (line, c);
      if (type[0] != '\0' && n >= 3)
        {
          uint64_t off, size;
          if (!number (c[0], &off) || !number (c[1], &size))
            continue;
          size_t k;
          for (k = 0; k < N (fields); k++)
            if (strcmp (fields[k].type, type) == 0 && strcmp (fields[k].field, c[2]) == 0)
              break;
          if (k == N (fields))
            {
              hl_tap_diag ("%s: %s.%s is not a field the test knows", path, type, c[2]);
              mismatches++;
            }
          else if (fields[k].offset != off || fields[k].size != size)
            {
              hl_tap_diag ("%s: %s.%s at %llu size %llu, the header says %zu size %zu", path, type, c[2],
                           (unsigned long long) off, (unsigned long long) size, fields[k].offset, fields[k].size);
              mismatches++;
            }
          else
            fields[k].seen++;
        }
      else if (in_consts && n >= 2)
        {
          const char *name = NULL;
          uint64_t value = 0;
          bool have_value = false;
          for (int i = 0; i < n; i++)
            {
              if (strncmp (c[i], "HL_", 3) == 0 && name == NULL)
                name = c[i];
              else if (!have_value && number (c[i], &value))
                have_value = true;
            }
          if (name == NULL || !have_value)
            continue;
          size_t k;
          for (k = 0; k < N (consts); k++)
            if (strcmp (consts[k].name, name) == 0)
              break;
          if (k == N (consts))
            {
              hl_tap_diag ("%s: constant %s is not one the test knows", path, name);
              mismatches++;
            }
          else if (consts[k].value != value)
            {
              hl_tap_diag ("%s: %s = %llu, the header says %llu", path, name, (unsigned long long) value,
                           (unsigned long long) consts[k].value);
              mismatches++;
            }
          else
            consts[k].seen++;
        }
    }
  free (text);
}

int
main (void)
{
  hl_tap_plan (4);
  const char *root = getenv ("HL_SOURCE_ROOT");
  char path[4096];
  snprintf (path, sizeof path, "%s/docs/trace-format.md", root ? root : ".");
  check_doc (path);
  snprintf (path, sizeof path, "%s/docs/shm-layout.md", root ? root : ".");
  check_doc (path);
  hl_tap_ok (mismatches == 0, "every documented constant and field offset matches the headers (%d mismatches)",
             mismatches);
  int undocumented = 0;
  for (size_t k = 0; k < N (consts); k++)
    if (!consts[k].seen)
      {
        hl_tap_diag ("constant %s is not documented", consts[k].name);
        undocumented++;
      }
  hl_tap_ok (undocumented == 0, "every constant is documented (%d missing)", undocumented);
  undocumented = 0;
  for (size_t k = 0; k < N (fields); k++)
    if (!fields[k].seen)
      {
        hl_tap_diag ("field %s.%s is not documented", fields[k].type, fields[k].field);
        undocumented++;
      }
  hl_tap_ok (undocumented == 0, "every on-disk and shared field is documented (%d missing)", undocumented);

  /* The worked example's bytes are what the writer produces. */
  static uint8_t buf[HL_PACKET_MAX_SIZE];
  HlPacketWriter *w = malloc (sizeof *w);
  hl_packet_writer_init (w, buf, sizeof buf, 1, 4243);
  hl_packet_writer_begin (w, 1000);
  hl_packet_writer_alloc (w, 1010, 5, 100, 0, 1, 0x1000);
  hl_packet_writer_free (w, 1050, 5);
  size_t n = hl_packet_writer_finish (w);
  char hex[256] = "";
  for (size_t i = HL_PACKET_HEADER_SIZE; i < n && strlen (hex) < 200; i++)
    snprintf (hex + strlen (hex), sizeof hex - strlen (hex), "%s%02x", i > HL_PACKET_HEADER_SIZE ? " " : "", buf[i]);
  snprintf (path, sizeof path, "%s/docs/trace-format.md", root ? root : ".");
  char *doc = hl_test_read_file (path, NULL);
  char want[300];
  snprintf (want, sizeof want, "<!-- example -->`%s`<!-- /example -->", hex);
  hl_tap_ok (doc != NULL && strstr (doc, want) != NULL, "the worked example in the document is the writer's output: %s", hex);
  free (doc);
  free (w);
  return hl_tap_finish ();
}
