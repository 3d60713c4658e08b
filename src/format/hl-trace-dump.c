/* hl-trace-dump.c — see hl-trace-dump.h. */

#include "hl-trace-dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void
put_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (const unsigned char *p = (const unsigned char *) s; p != NULL && *p; p++)
    {
      if (*p == '"' || *p == '\\')
        fprintf (out, "\\%c", *p);
      else if (*p < 0x20 || *p >= 0x7f)
        fprintf (out, "\\x%02x", *p);
      else
        fputc (*p, out);
    }
  fputc ('"', out);
}

static const char *
kind_name (unsigned kind)
{
  switch (kind)
    {
    case HL_PACKET_KIND_INFO: return "INFO";
    case HL_PACKET_KIND_EVENTS: return "EVENTS";
    case HL_PACKET_KIND_INDEX: return "INDEX";
    case HL_PACKET_KIND_INDEX_TAIL: return "INDEX_TAIL";
    default: return "UNKNOWN";
    }
}

static const char *
drop_name (uint32_t reason)
{
  switch (reason)
    {
    case HL_DROP_TRACE_WRITE: return "trace-write";
    case HL_DROP_STACK_TABLE: return "stack-table";
    case HL_DROP_LIVE_TABLE: return "live-table";
    case HL_DROP_CALLSITE: return "callsite-table";
    case HL_DROP_METADATA: return "metadata";
    case HL_DROP_MMAP_TABLE: return "mmap-table";
    default: return "unknown";
    }
}

static void
put_flags (FILE *out, uint32_t flags, const char *const *names, unsigned n)
{
  const char *sep = "";
  if (flags == 0)
    {
      fputs ("-", out);
      return;
    }
  for (unsigned i = 0; i < n; i++)
    if (flags & (1u << i))
      {
        fprintf (out, "%s%s", sep, names[i]);
        sep = "|";
        flags &= ~(1u << i);
      }
  if (flags != 0)
    fprintf (out, "%s0x%x", sep, flags);
}

void
hl_trace_dump_event (FILE *out, const HlEvent *ev)
{
  static const char *const thread_flags[] = { "start", "exit", "name" };
  static const char *const module_flags[] = { "loaded", "unloaded" };
  static const char *const stack_flags[] = { "truncated" };
  fprintf (out, "t=%" PRIu64 " ", ev->time_ns);
  switch (ev->type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
      fprintf (out, "ALLOC id=%" PRIu64 " size=%" PRIu64, ev->u.alloc.id, ev->u.alloc.size);
      if (ev->u.alloc.alignment != 0)
        fprintf (out, " align=%" PRIu64, ev->u.alloc.alignment);
      fprintf (out, " stack=%" PRIu32 " addr=0x%" PRIx64, ev->u.alloc.stack_id, ev->u.alloc.address);
      break;
    case HL_EVENT_FREE:
      fprintf (out, "FREE id=%" PRIu64, ev->u.free.id);
      break;
    case HL_EVENT_FREE_ADDR:
      fprintf (out, "FREE addr=0x%" PRIx64, ev->u.free.address);
      break;
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
      fputs ("REALLOC ", out);
      if (ev->u.realloc.old_id != HL_ID_NONE)
        fprintf (out, "old_id=%" PRIu64, ev->u.realloc.old_id);
      else
        fprintf (out, "old_addr=0x%" PRIx64, ev->u.realloc.old_address);
      fprintf (out, " id=%" PRIu64 " size=%" PRIu64 " stack=%" PRIu32 " addr=0x%" PRIx64, ev->u.realloc.id,
               ev->u.realloc.size, ev->u.realloc.stack_id, ev->u.realloc.address);
      break;
    case HL_EVENT_STACK:
      fprintf (out, "STACK id=%" PRIu32 " flags=", ev->u.stack.id);
      put_flags (out, ev->u.stack.flags, stack_flags, 1);
      fprintf (out, " frames=%" PRIu32 ":", ev->u.stack.n_frames);
      for (uint32_t i = 0; i < ev->u.stack.n_frames; i++)
        fprintf (out, " 0x%" PRIx64, ev->u.stack.frames[i]);
      break;
    case HL_EVENT_MODULE:
      fputs ("MODULE ", out);
      put_flags (out, ev->u.module.flags, module_flags, 2);
      fprintf (out, " start=0x%" PRIx64 " size=0x%" PRIx64 " offset=0x%" PRIx64 " build-id=", ev->u.module.start,
               ev->u.module.size, ev->u.module.file_offset);
      if (ev->u.module.build_id_len == 0)
        fputs ("-", out);
      for (uint32_t i = 0; i < ev->u.module.build_id_len; i++)
        fprintf (out, "%02x", ev->u.module.build_id[i]);
      fputs (" path=", out);
      put_string (out, ev->u.module.path);
      break;
    case HL_EVENT_THREAD:
      fprintf (out, "THREAD tid=%" PRIu32 " ", ev->u.thread.tid);
      put_flags (out, ev->u.thread.flags, thread_flags, 3);
      fputs (" name=", out);
      put_string (out, ev->u.thread.name);
      break;
    case HL_EVENT_META_INT:
    case HL_EVENT_META_STRING:
    case HL_EVENT_META_REMOVE:
      fputs (ev->type == HL_EVENT_META_REMOVE ? "META_REMOVE " : "META ", out);
      put_string (out, ev->u.meta.key);
      if (ev->type == HL_EVENT_META_INT)
        fprintf (out, " = %" PRId64, ev->u.meta.int_value);
      else if (ev->type == HL_EVENT_META_STRING)
        {
          fputs (" = ", out);
          put_string (out, ev->u.meta.string_value);
        }
      break;
    case HL_EVENT_MARK:
      fputs ("MARK ", out);
      put_string (out, ev->u.mark.text);
      break;
    case HL_EVENT_COUNTERS:
      fprintf (out, "COUNTERS heap=%" PRIu64 " rss=%" PRIu64 " allocs=%" PRIu64 " frees=%" PRIu64,
               ev->u.counters.heap_bytes, ev->u.counters.rss_bytes, ev->u.counters.n_allocs,
               ev->u.counters.n_frees);
      break;
    case HL_EVENT_DROPPED:
      fprintf (out, "DROPPED count=%" PRIu64 " reason=%s", ev->u.dropped.count, drop_name (ev->u.dropped.reason));
      break;
    case HL_EVENT_INFO:
      fputs ("INFO", out);
      for (uint32_t i = 0; i < ev->u.info.n; i++)
        {
          fprintf (out, " %s=", ev->u.info.keys[i]);
          put_string (out, ev->u.info.values[i]);
        }
      break;
    case HL_EVENT_END:
      fprintf (out, "END status=%" PRId32, ev->u.end.exit_status);
      break;
    case HL_EVENT_REACHABILITY:
      {
        static const char *const kinds[HL_REACH_KINDS] = { "reachable", "possibly", "indirectly", "definitely" };
        HlReachTotals t;
        HlReachReader r;
        HlReachRecord rec;
        if (!hl_reach_read (ev->u.reach.data, ev->u.reach.size, &t, &r))
          break;
        fprintf (out, "REACHABILITY flags=%" PRIu32 " scan_ns=%" PRIu64 " roots=%" PRIu64 " scanned=%" PRIu64,
                 t.flags, t.scan_ns, t.roots_bytes, t.blocks_scanned);
        for (int k = 0; k < HL_REACH_KINDS; k++)
          fprintf (out, " %s=%" PRIu64 "/%" PRIu64, kinds[k], t.blocks[k], t.bytes[k]);
        fprintf (out, " n=%" PRIu64, r.left);
        while (hl_reach_next (&r, &rec))
          fprintf (out, " %" PRIu64 ":%s:%" PRIu32 ":%" PRIu64, rec.id, kinds[rec.kind], rec.stack_id, rec.size);
        break;
      }
    case HL_EVENT_MMAP:
      fprintf (out, "MMAP addr=0x%" PRIx64 " size=%" PRIu64 " stack=%" PRIu32 " prot=%" PRIu32 " flags=0x%" PRIx32,
               ev->u.mmap.address, ev->u.mmap.size, ev->u.mmap.stack_id, ev->u.mmap.prot, ev->u.mmap.flags);
      break;
    case HL_EVENT_MUNMAP:
      fprintf (out, "MUNMAP addr=0x%" PRIx64 " size=%" PRIu64, ev->u.munmap.address, ev->u.munmap.size);
      break;
    case HL_EVENT_MREMAP:
      fprintf (out, "MREMAP old=0x%" PRIx64 " old_size=%" PRIu64 " addr=0x%" PRIx64 " size=%" PRIu64
               " stack=%" PRIu32 " flags=0x%" PRIx32,
               ev->u.mremap.old_address, ev->u.mremap.old_size, ev->u.mremap.address, ev->u.mremap.size,
               ev->u.mremap.stack_id, ev->u.mremap.flags);
      break;
    case HL_EVENT_ALLOCATOR:
      {
        const HlAllocatorSample *a = ev->u.allocator;
        fprintf (out, "ALLOCATOR flags=%" PRIu32 " rss=%" PRIu64 " heap=%" PRIu64 " mmap=%" PRIu64
                 " arena=%" PRIu64 " in_use=%" PRIu64 " free=%" PRIu64 " mmapped_chunks_bytes=%" PRIu64
                 " mmapped_chunks=%" PRIu64,
                 a->flags, a->rss_bytes, a->heap_bytes, a->mmap_bytes, a->arena_bytes, a->in_use_bytes,
                 a->free_bytes, a->mmapped_chunks_bytes, a->mmapped_chunks);
        break;
      }
    default:
      fprintf (out, "UNKNOWN type=%u size=%" PRIu32, (unsigned) ev->type, ev->u.unknown.size);
      break;
    }
}

int
hl_trace_dump (HlTraceReader    *r,
               FILE             *out,
               unsigned          flags,
               HlTraceDumpStats *stats)
{
  HlTraceDumpStats st = { 0, 0, 0 };
  const HlTraceFileHeader *h = hl_trace_reader_file_header (r);
  fprintf (out, "file: version %u.%u, pid %" PRIu32 ", %" PRIu64 " bytes, start wall %" PRIu64 " ns, mono %" PRIu64
           " ns, clock %s\n",
           h->version_major, h->version_minor, h->pid, hl_trace_reader_file_size (r), h->start_wall_ns,
           h->start_mono_ns, (h->flags & HL_TRACE_FLAG_COARSE_CLOCK) ? "coarse" : "monotonic");
  HlEventCursor *c = malloc (sizeof *c);
  if (c == NULL)
    return 1;
  HlPacketView pkt;
  HlFormatError err;
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    {
      const HlPacketHeader *p = &pkt.header;
      st.packets++;
      fprintf (out, "packet @%" PRIu64 " %s tid %" PRIu32 ": %" PRIu32 " bytes, %" PRIu32 " events, time %" PRIu64
               "..%" PRIu64,
               pkt.offset, kind_name (p->kind), p->tid, p->content_size, p->n_events, p->time_begin_ns, p->time_end_ns);
      if (p->alloc_id_end > p->alloc_id_begin)
        fprintf (out, ", ids %" PRIu64 "..%" PRIu64, p->alloc_id_begin, p->alloc_id_end - 1);
      fprintf (out, ", flags 0x%" PRIx32 ", crc 0x%08" PRIx32 "\n", p->flags, p->crc32c);
      if (flags & HL_DUMP_HEADERS_ONLY)
        continue;
      hl_event_cursor_init (c, &pkt);
      HlEvent ev;
      int rc;
      while ((rc = hl_event_cursor_next (c, &ev, &err)) > 0)
        {
          st.events++;
          if (flags & HL_DUMP_OFFSETS)
            fprintf (out, "  @%" PRIu64 " ", ev.offset);
          else
            fputs ("  ", out);
          hl_trace_dump_event (out, &ev);
          fputc ('\n', out);
        }
      if (rc < 0)
        {
          st.malformed_packets++;
          fprintf (out, "  ! %s at byte %" PRIu64 ": %s\n", hl_format_status_to_string (err.code), err.offset,
                   err.message);
        }
    }
  free (c);
  HlTraceReaderStats rs;
  hl_trace_reader_stats (r, &rs);
  if (rs.warning[0] != '\0')
    fprintf (out, "warning: %s\n", rs.warning);
  if (!(flags & HL_DUMP_NO_SUMMARY))
    fprintf (out, "summary: %llu packets, %llu events, %llu malformed packets, %llu index packets, "
                  "%llu bytes skipped, %llu bytes ignored at the end\n",
             st.packets, st.events, st.malformed_packets, (unsigned long long) rs.packets_index,
             (unsigned long long) rs.bytes_skipped, (unsigned long long) rs.bytes_ignored_at_end);
  if (stats != NULL)
    *stats = st;
  return (rs.warning[0] != '\0' || st.malformed_packets > 0) ? 1 : 0;
}
