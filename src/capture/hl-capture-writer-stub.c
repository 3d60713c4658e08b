/* hl-capture-writer-stub.c — placeholder until src/format provides the
 * packet writer (hl_format_writer_sources): accepts every event, writes
 * nothing. Not used once the format writer exists. */
#include <string.h>

#include "hl-trace-writer.h"

void
hl_trace_file_header_init (HlTraceFileHeader *out, uint32_t pid, uint64_t start_wall_ns,
                           uint64_t start_mono_ns, uint32_t flags)
{
  memset (out, 0, sizeof *out);
  memcpy (out->magic, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE);
  out->pid = pid;
  out->start_wall_ns = start_wall_ns;
  out->start_mono_ns = start_mono_ns;
  out->flags = flags;
}

void
hl_packet_writer_init (HlPacketWriter *w, void *buf, size_t cap, uint32_t pid, uint32_t tid)
{
  memset (w, 0, sizeof *w);
  w->buf = buf;
  w->cap = cap;
  w->pid = pid;
  w->tid = tid;
}

void hl_packet_writer_begin (HlPacketWriter *w, uint64_t time_ns) { w->len = 0; w->n_events = 0; (void) time_ns; }
bool hl_packet_writer_is_empty (const HlPacketWriter *w) { return w->n_events == 0; }
size_t hl_packet_writer_finish (HlPacketWriter *w) { (void) w; return 0; }
#define STUB(name, ...) HlWriteStatus name (HlPacketWriter *w, __VA_ARGS__) { (void) w; return HL_WRITE_OK; }
STUB (hl_packet_writer_alloc, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint32_t e, uint64_t f)
STUB (hl_packet_writer_free, uint64_t a, uint64_t b)
STUB (hl_packet_writer_free_addr, uint64_t a, uint64_t b)
STUB (hl_packet_writer_realloc, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint32_t e, uint64_t f)
STUB (hl_packet_writer_realloc_addr, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint32_t e, uint64_t f)
STUB (hl_packet_writer_stack, uint64_t a, uint32_t b, uint32_t c, const uint64_t *d, uint32_t e)
STUB (hl_packet_writer_module, uint64_t a, uint32_t b, uint64_t c, uint64_t d, uint64_t e, const uint8_t *f, size_t g, const char *h)
STUB (hl_packet_writer_thread, uint64_t a, uint32_t b, uint32_t c, const char *d)
STUB (hl_packet_writer_meta_int, uint64_t a, const char *b, int64_t c)
STUB (hl_packet_writer_meta_string, uint64_t a, const char *b, const char *c)
STUB (hl_packet_writer_meta_remove, uint64_t a, const char *b)
STUB (hl_packet_writer_mark, uint64_t a, const char *b)
STUB (hl_packet_writer_counters, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
STUB (hl_packet_writer_dropped, uint64_t a, uint64_t b, uint32_t c)
STUB (hl_packet_writer_end, uint64_t a, int32_t b)
size_t hl_packet_writer_info (HlPacketWriter *w, uint64_t t, const char *const *k, const char *const *v, size_t n) { (void) w; (void) t; (void) k; (void) v; (void) n; return 0; }
