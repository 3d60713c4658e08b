/* hl-heaptrack-import.c — heaptrack's text format (file versions 2 and 3)
 * into an HlRecording. heaptrack writes lines of hex numbers:
 *   v HEAPTRACK_VERSION FILE_VERSION      first line
 *   s [LEN] TEXT                          string N (from 1; LEN in version 3)
 *   m STRING START (VADDR MEMSZ)*         a module ("m -": the map is reset)
 *   i IP MODULE [FN FILE LINE]*           instruction pointer N (from 1):
 *                                         its frames, the innermost first
 *   t IP PARENT                           trace N (from 1), PARENT 0: root
 *   a SIZE TRACE                          allocation info N (from 0)
 *   + INFO / - INFO                       an allocation / a free of INFO
 *   c TIME_MS                             a timestamp
 * and X (command line), I (page size), R (RSS), A (attached), # lines.
 * A free names an allocation info, not a block: it frees the newest live
 * allocation of that info, which gives heaptrack's counts. Every index is
 * checked against what the file defined before it. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-heaptrack-import.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HL_HAVE_ZSTD
#include <zstd.h>
#endif

#include "hl-recording-builder.h"
#include "hl-model-error.h"
#include "hl-model-i18n.h"

#define HT_TID 1
#define HT_MAX_FRAMES 4096
#define HT_MAX_DECOMPRESSED (G_MAXUINT - (256u << 10)) /* a GByteArray holds a guint of bytes */

typedef struct
{
  guint64 address;
  guint32 first_frame; /* into Importer.frames */
  guint32 n_frames;
  gint32  module;      /* in the recording's module map, or -1 */
} HtIp;

typedef struct
{
  guint32 ip;
  guint32 parent;
  gboolean appended;
} HtTrace;

typedef struct
{
  guint64 size;
  guint32 trace;
  guint64 newest_live; /* allocation id, HL_ALLOC_ID_NONE: none */
} HtInfo;

typedef struct
{
  guint32 function; /* string indexes, 0: none */
  guint32 file;
  guint32 line;
} HtFrame;

typedef struct
{
  const char *path;
  HlRecording *rec;
  guint file_version;
  guint64 line_no;
  GPtrArray *strings;      /* index 0 unused */
  GArray *ips;             /* HtIp, index 0 unused */
  GArray *frames;          /* HtFrame */
  GArray *traces;          /* HtTrace, index 0: the root */
  GArray *infos;           /* HtInfo */
  GArray *older_live;      /* guint64 per allocation id: the info's live one before it */
  GArray *module_starts;   /* guint64 start per recording module, to skip repeats */
  GArray *stack;           /* guint64 addresses, scratch */
  guint64 time_ns;
  guint64 unmatched_frees;
} Importer;

/* ---- Decompression ------------------------------------------------------ */

static GBytes *
decompress_zstd (const char  *path,
                 GBytes      *raw,
                 GError     **error)
{
#ifdef HL_HAVE_ZSTD
  g_autoptr (GByteArray) out = g_byte_array_new ();
  ZSTD_DStream *ds = ZSTD_createDStream ();
  gsize len;
  const guint8 *data = g_bytes_get_data (raw, &len);
  ZSTD_inBuffer in = { data, len, 0 };
  size_t rc = 1;
  guint8 buf[64 * 1024];

  if (ds == NULL)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, _("%s: out of memory for zstd"), path);
      return NULL;
    }
  ZSTD_initDStream (ds);
  while (in.pos < in.size)
    {
      ZSTD_outBuffer o = { buf, sizeof buf, 0 };

      rc = ZSTD_decompressStream (ds, &o, &in);
      if (ZSTD_isError (rc))
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_CORRUPT,
                       _("%s: damaged zstd stream at byte %zu: %s"),
                       path, (gsize) in.pos, ZSTD_getErrorName (rc));
          ZSTD_freeDStream (ds);
          return NULL;
        }
      g_byte_array_append (out, buf, o.pos);
      if (out->len > HT_MAX_DECOMPRESSED)
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                       _("%s: more than 4 GiB of heaptrack text"), path);
          ZSTD_freeDStream (ds);
          return NULL;
        }
      if (o.pos == 0 && rc == 0 && in.pos < in.size)
        ZSTD_initDStream (ds); /* another frame follows */
    }
  /* flush what the last frame still holds */
  for (;;)
    {
      ZSTD_outBuffer o = { buf, sizeof buf, 0 };

      if (rc == 0)
        break;
      rc = ZSTD_decompressStream (ds, &o, &in);
      if (ZSTD_isError (rc) || o.pos == 0)
        break;
      g_byte_array_append (out, buf, o.pos);
    }
  ZSTD_freeDStream (ds);
  if (rc != 0)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_CORRUPT,
                   _("%s: the zstd stream is cut off (the recording did not end)"), path);
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
#else
  (void) raw;
  g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
               _("%s: a zstd-compressed file, and Heaplens was built without zstd"), path);
  return NULL;
#endif
}

static GBytes *
decompress_gzip (const char  *path,
                 GBytes      *raw,
                 GError     **error)
{
  g_autoptr (GInputStream) mem = g_memory_input_stream_new_from_bytes (raw);
  g_autoptr (GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (mem, G_CONVERTER (dec));
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint8 buf[64 * 1024];

  for (;;)
    {
      g_autoptr (GError) local = NULL;
      gssize n = g_input_stream_read (in, buf, sizeof buf, NULL, &local);

      if (n < 0)
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_CORRUPT,
                       _("%s: damaged gzip stream: %s"), path, local->message);
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (out, buf, (guint) n);
      if (out->len > HT_MAX_DECOMPRESSED)
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                       _("%s: more than 4 GiB of heaptrack text"), path);
          return NULL;
        }
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* The file at PATH mapped, when it is a regular file: opened without
 * blocking and checked before a byte is read, so that a FIFO (anyone can
 * make one named like a trace) never hangs the loader; NULL with ERROR. */
static GMappedFile *
map_regular_file (const char  *path,
                  GError     **error)
{
  struct stat st;
  GMappedFile *mf;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", path, g_strerror (e));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a regular file"), path);
      close (fd);
      return NULL;
    }
  mf = g_mapped_file_new_from_fd (fd, FALSE, error);
  close (fd);
  return mf;
}

/* The text of the file at PATH, decompressed when it is zstd or gzip. */
static GBytes *
read_text (const char  *path,
           GError     **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GMappedFile) mf = map_regular_file (path, &local);
  g_autoptr (GBytes) raw = NULL;
  const guint8 *d;
  gsize len;

  if (mf == NULL)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s", local->message);
      return NULL;
    }
  raw = g_mapped_file_get_bytes (mf);
  d = g_bytes_get_data (raw, &len);
  if (len >= 4 && d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd)
    return decompress_zstd (path, raw, error);
  if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
    return decompress_gzip (path, raw, error);
  return g_steal_pointer (&raw);
}

gboolean
hl_heaptrack_sniff (const char *path)
{
  g_autoptr (GMappedFile) mf = NULL;
  const guint8 *d;
  gsize len;

  g_return_val_if_fail (path != NULL, FALSE);

  mf = map_regular_file (path, NULL);
  if (mf == NULL)
    return FALSE;
  d = (const guint8 *) g_mapped_file_get_contents (mf);
  len = g_mapped_file_get_length (mf);
  if (len >= 4 && d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd)
    {
#ifdef HL_HAVE_ZSTD
      guint8 head[2];
      ZSTD_DCtx *dc = ZSTD_createDCtx ();
      /* the whole file: the first block may be longer than any prefix */
      ZSTD_inBuffer in = { d, len, 0 };
      ZSTD_outBuffer o = { head, sizeof head, 0 };
      gboolean yes = FALSE;

      if (dc == NULL)
        return FALSE;
      while (o.pos < o.size && in.pos < in.size)
        {
          size_t rc = ZSTD_decompressStream (dc, &o, &in);
          if (ZSTD_isError (rc) || rc == 0)
            break;
        }
      /* a stream cut before its first block is complete says nothing:
       * a Heaplens trace never starts with zstd's magic, so the import
       * gets it, to say what is wrong */
      yes = o.pos == 0 || (o.pos == 2 && head[0] == 'v' && head[1] == ' ');
      ZSTD_freeDCtx (dc);
      return yes;
#else
      /* a heaptrack zstd file needs zstd: let the import say so */
      return g_str_has_suffix (path, ".zst") && strstr (path, "heaptrack") != NULL;
#endif
    }
  if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
    {
      g_autoptr (GBytes) raw = g_bytes_new_static (d, MIN (len, 4096));
      g_autoptr (GInputStream) mem = g_memory_input_stream_new_from_bytes (raw);
      g_autoptr (GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autoptr (GInputStream) in = g_converter_input_stream_new (mem, G_CONVERTER (dec));
      guint8 head[2];
      gsize got = 0;

      if (!g_input_stream_read_all (in, head, sizeof head, &got, NULL, NULL))
        return FALSE;
      return got == 2 && head[0] == 'v' && head[1] == ' ';
    }
  return len >= 2 && d[0] == 'v' && d[1] == ' ';
}

/* ---- Parsing ------------------------------------------------------------ */

static gboolean
fail (Importer    *im,
      GError     **error,
      const char  *what)
{
  g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_CORRUPT,
               _("%s: heaptrack line %" PRIu64 ": %s"), im->path, im->line_no, what);
  return FALSE;
}

/* One space then a hex number into OUT. */
static gboolean
parse_hex (const char **p,
           const char  *end,
           guint64     *out)
{
  const char *s = *p;
  guint64 v = 0;
  int digits = 0;

  if (s >= end || *s != ' ')
    return FALSE;
  s++;
  while (s < end && g_ascii_isxdigit (*s))
    {
      if (++digits > 16)
        return FALSE;
      v = (v << 4) | (guint64) g_ascii_xdigit_value (*s);
      s++;
    }
  if (digits == 0 || (s < end && *s != ' '))
    return FALSE;
  *p = s;
  *out = v;
  return TRUE;
}

static gboolean
parse_string (Importer    *im,
              const char  *p,
              const char  *end,
              GError     **error)
{
  if (im->file_version >= 3)
    {
      guint64 len;

      if (!parse_hex (&p, end, &len) || p >= end || *p != ' ' || len > (guint64) (end - p - 1))
        return fail (im, error, _("string length past the end of its line"));
      g_ptr_array_add (im->strings, g_strndup (p + 1, (gsize) len));
      return TRUE;
    }
  if (p >= end || *p != ' ')
    return fail (im, error, _("string without a space"));
  g_ptr_array_add (im->strings, g_strndup (p + 1, (gsize) (end - p - 1)));
  return TRUE;
}

static gboolean
check_string (Importer *im,
              guint64   index)
{
  return index < im->strings->len;
}

static gboolean
parse_module (Importer    *im,
              const char  *p,
              const char  *end,
              GError     **error)
{
  guint64 str, start, vaddr, memsz, top = 0;

  if (p + 2 <= end && p[1] == '-')
    return TRUE; /* the map was reset: modules stay known by start */
  if (!parse_hex (&p, end, &str) || !parse_hex (&p, end, &start) || !check_string (im, str) || str == 0)
    return fail (im, error, _("bad module line"));
  while (p < end)
    {
      if (!parse_hex (&p, end, &vaddr) || !parse_hex (&p, end, &memsz))
        return fail (im, error, _("bad module segment"));
      if (vaddr + memsz > top)
        top = vaddr + memsz;
    }
  for (guint i = 0; i < im->module_starts->len; i++)
    if (g_array_index (im->module_starts, guint64, i) == start)
      return TRUE;
  if (top == 0)
    return TRUE;
  hl_recording_append_module (im->rec, g_ptr_array_index (im->strings, str), start, top, 0, NULL, 0);
  g_array_append_val (im->module_starts, start);
  return TRUE;
}

static gboolean
parse_ip (Importer    *im,
          const char  *p,
          const char  *end,
          GError     **error)
{
  HtIp ip = { 0 };
  guint64 module;

  if (!parse_hex (&p, end, &ip.address) || !parse_hex (&p, end, &module) || !check_string (im, module))
    return fail (im, error, _("bad instruction pointer line"));
  ip.first_frame = im->frames->len;
  ip.module = -1;
  while (p < end)
    {
      guint64 fn, file = 0, line = 0;
      HtFrame f;

      /* FN [FILE LINE]: a frame without a source file has its name only */
      if (!parse_hex (&p, end, &fn) || (p < end && (!parse_hex (&p, end, &file) || !parse_hex (&p, end, &line))) ||
          !check_string (im, fn) || !check_string (im, file) || line > G_MAXUINT32)
        return fail (im, error, _("bad frame of an instruction pointer"));
      if (ip.n_frames >= HT_MAX_FRAMES)
        return fail (im, error, _("too many inlined frames"));
      f.function = (guint32) fn;
      f.file = (guint32) file;
      f.line = (guint32) line;
      g_array_append_val (im->frames, f);
      ip.n_frames++;
    }
  g_array_append_val (im->ips, ip);
  return TRUE;
}

static gboolean
parse_trace (Importer    *im,
             const char  *p,
             const char  *end,
             GError     **error)
{
  guint64 ip, parent;
  HtTrace t = { 0 };

  if (!parse_hex (&p, end, &ip) || !parse_hex (&p, end, &parent))
    return fail (im, error, _("bad trace line"));
  if (ip == 0 || ip >= im->ips->len)
    return fail (im, error, _("trace of an instruction pointer not defined before it"));
  if (parent >= im->traces->len)
    return fail (im, error, _("trace whose parent is not defined before it"));
  if (im->traces->len >= G_MAXUINT32)
    return fail (im, error, _("too many traces"));
  t.ip = (guint32) ip;
  t.parent = (guint32) parent;
  g_array_append_val (im->traces, t);
  return TRUE;
}

static gboolean
ip_is_operator_new (Importer *im,
                    guint32   ip_index)
{
  const HtIp *ip = &g_array_index (im->ips, HtIp, ip_index);
  const char *fn;

  if (ip->n_frames == 0)
    return FALSE;
  /* the outermost frame is the function the address is in */
  fn = g_ptr_array_index (im->strings,
                          g_array_index (im->frames, HtFrame, ip->first_frame + ip->n_frames - 1).function);
  return fn != NULL && g_str_has_prefix (fn, "operator new");
}

/* The stack of TRACE appended to the recording (trace index = stack id). */
static gboolean
append_trace_stack (Importer  *im,
                    guint32    trace,
                    GError   **error)
{
  HtTrace *t = &g_array_index (im->traces, HtTrace, trace);
  guint32 cur = trace;

  if (trace == 0 || t->appended)
    return TRUE;
  g_array_set_size (im->stack, 0);
  /* heaptrack's own reader starts stacks below operator new */
  while (cur != 0 && ip_is_operator_new (im, g_array_index (im->traces, HtTrace, cur).ip))
    cur = g_array_index (im->traces, HtTrace, cur).parent;
  /* parents are defined before their children: the walk ends */
  while (cur != 0)
    {
      const HtTrace *c = &g_array_index (im->traces, HtTrace, cur);
      const HtIp *ip = &g_array_index (im->ips, HtIp, c->ip);

      if (im->stack->len >= 65536)
        return fail (im, error, _("stack too deep"));
      g_array_append_val (im->stack, ip->address);
      cur = c->parent;
    }
  hl_recording_append_stack (im->rec, trace, (const guint64 *) im->stack->data, im->stack->len);
  t->appended = TRUE;
  return TRUE;
}

static gboolean
parse_info (Importer    *im,
            const char  *p,
            const char  *end,
            GError     **error)
{
  HtInfo info;
  guint64 size, trace;

  if (!parse_hex (&p, end, &size) || !parse_hex (&p, end, &trace))
    return fail (im, error, _("bad allocation info line"));
  if (trace >= im->traces->len)
    return fail (im, error, _("allocation info of a trace not defined before it"));
  if (!append_trace_stack (im, (guint32) trace, error))
    return FALSE;
  info.size = size;
  info.trace = (guint32) trace;
  info.newest_live = HL_ALLOC_ID_NONE;
  g_array_append_val (im->infos, info);
  return TRUE;
}

static gboolean
parse_alloc_or_free (Importer    *im,
                     gboolean     alloc,
                     const char  *p,
                     const char  *end,
                     GError     **error)
{
  guint64 index;
  HtInfo *info;

  if (!parse_hex (&p, end, &index) || p != end)
    return fail (im, error, alloc ? _("bad allocation line") : _("bad free line"));
  if (index >= im->infos->len)
    return fail (im, error, _("allocation info not defined before its use"));
  info = &g_array_index (im->infos, HtInfo, index);
  if (alloc)
    {
      guint64 id = im->older_live->len;

      g_array_append_val (im->older_live, info->newest_live);
      info->newest_live = id;
      /* heaptrack keeps no addresses: a distinct one per allocation */
      hl_recording_append_alloc (im->rec, id, im->time_ns, HT_TID, info->size, (id + 1) * 16, info->trace);
    }
  else
    {
      guint64 id = info->newest_live;

      if (id == HL_ALLOC_ID_NONE)
        {
          im->unmatched_frees++;
          return TRUE;
        }
      info->newest_live = g_array_index (im->older_live, guint64, id);
      hl_recording_append_free (im->rec, id, (id + 1) * 16, im->time_ns, HT_TID);
    }
  return TRUE;
}

static gboolean
parse_line (Importer    *im,
            const char  *line,
            const char  *end,
            GError     **error)
{
  const char *p = line + 1;
  guint64 a, b;

  switch (line[0])
    {
    case 's':
      return parse_string (im, p, end, error);
    case 'm':
      return parse_module (im, p, end, error);
    case 'i':
      return parse_ip (im, p, end, error);
    case 't':
      return parse_trace (im, p, end, error);
    case 'a':
      return parse_info (im, p, end, error);
    case '+':
      return parse_alloc_or_free (im, TRUE, p, end, error);
    case '-':
      return parse_alloc_or_free (im, FALSE, p, end, error);
    case 'c':
      if (!parse_hex (&p, end, &a) || a > G_MAXUINT64 / 1000000)
        return fail (im, error, _("bad timestamp line"));
      if (a * 1000000 > im->time_ns)
        im->time_ns = a * 1000000;
      return TRUE;
    case 'X':
      {
        g_autofree char *cmd = g_strndup (MIN (p + 1, end), (gsize) (end - MIN (p + 1, end)));
        hl_recording_append_info (im->rec, "cmdline", cmd);
        return TRUE;
      }
    case 'I':
      if (parse_hex (&p, end, &a) && parse_hex (&p, end, &b))
        {
          g_autofree char *ps = g_strdup_printf ("%" G_GUINT64_FORMAT, a);
          hl_recording_append_info (im->rec, "heaptrack.page_size", ps);
        }
      return TRUE;
    case 'v':
      return fail (im, error, _("a second version line"));
    default:
      /* R (RSS), A (attached), # (comments), what newer versions add */
      return TRUE;
    }
}

/* Frames for every instruction pointer, before the stacks are expanded:
 * nothing is left for libdw. */
static void
install_frames (Importer *im)
{
  HlFrameTable *table = hl_recording_get_frame_table (im->rec);
  g_autoptr (GArray) resolved = g_array_new (FALSE, TRUE, sizeof (HlResolvedFrame));

  for (guint i = 1; i < im->ips->len; i++)
    {
      const HtIp *ip = &g_array_index (im->ips, HtIp, i);
      int module = hl_frame_table_find_module (table, ip->address);
      g_autofree char *hex = NULL;

      g_array_set_size (resolved, 0);
      for (guint j = 0; j < ip->n_frames; j++)
        {
          const HtFrame *f = &g_array_index (im->frames, HtFrame, ip->first_frame + j);
          HlResolvedFrame r = { 0 };

          r.function = f->function != 0 ? g_ptr_array_index (im->strings, f->function) : NULL;
          r.file = f->file != 0 ? g_ptr_array_index (im->strings, f->file) : NULL;
          r.line = f->line;
          r.is_inline = j + 1 < ip->n_frames;
          g_array_append_val (resolved, r);
        }
      if (resolved->len == 0)
        {
          HlResolvedFrame r = { 0 };
          g_array_append_val (resolved, r);
        }
      /* a frame without a symbol in the recording (any of them: string 0
       * in a hostile file names no function): the address stands for it */
      for (guint j = 0; j < resolved->len; j++)
        if (g_array_index (resolved, HlResolvedFrame, j).function == NULL)
          {
            if (hex == NULL)
              hex = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", ip->address);
            g_array_index (resolved, HlResolvedFrame, j).function = hex;
          }
      hl_frame_table_set_address_frames (table, ip->address, module,
                                         (const HlResolvedFrame *) resolved->data, resolved->len);
    }
}

static gboolean
parse_version (Importer    *im,
               const char  *line,
               const char  *end,
               GError     **error)
{
  const char *p = line + 1;
  guint64 heaptrack_version, file_version;

  if (end - line < 2 || line[0] != 'v' || !parse_hex (&p, end, &heaptrack_version) ||
      !parse_hex (&p, end, &file_version))
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_NOT_A_TRACE,
                   _("%s: not a heaptrack file (no version line)"), im->path);
      return FALSE;
    }
  if (file_version < 2 || file_version > 3)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_VERSION,
                   _("%s: heaptrack file version %" PRIu64 " (heaptrack %" PRIx64
                     "); Heaplens reads versions 2 and 3"),
                   im->path, file_version, heaptrack_version);
      return FALSE;
    }
  im->file_version = (guint) file_version;
  {
    g_autofree char *v = g_strdup_printf ("%u.%u.%u", (guint) (heaptrack_version >> 16) & 0xff,
                                          (guint) (heaptrack_version >> 8) & 0xff,
                                          (guint) heaptrack_version & 0xff);
    hl_recording_append_info (im->rec, "heaptrack.version", v);
  }
  return TRUE;
}

static gboolean
parse_text (Importer      *im,
            const char    *text,
            gsize          len,
            GCancellable  *cancellable,
            GError       **error)
{
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl != NULL ? nl : end;

      im->line_no++;
      if ((im->line_no & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (im->line_no == 1)
        {
          if (!parse_version (im, p, line_end, error))
            return FALSE;
        }
      else if (nl == NULL)
        {
          /* a last line without its newline: cut off while written */
          hl_recording_set_truncated (im->rec, TRUE);
          break;
        }
      else if (line_end > p && !parse_line (im, p, line_end, error))
        return FALSE;
      p = line_end + 1;
    }
  if (im->line_no == 0)
    return parse_version (im, text, end, error);
  return TRUE;
}

HlRecording *
hl_heaptrack_import (const char    *path,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr (GBytes) text = NULL;
  g_autoptr (HlRecording) rec = NULL;
  Importer im = { 0 };
  const char *data;
  gsize len;
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);

  text = read_text (path, error);
  if (text == NULL)
    return NULL;
  data = g_bytes_get_data (text, &len);
  rec = hl_recording_new ();
  im.path = path;
  im.rec = rec;
  im.strings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (im.strings, NULL);
  im.ips = g_array_new (FALSE, TRUE, sizeof (HtIp));
  g_array_set_size (im.ips, 1);
  im.frames = g_array_new (FALSE, TRUE, sizeof (HtFrame));
  im.traces = g_array_new (FALSE, TRUE, sizeof (HtTrace));
  g_array_set_size (im.traces, 1);
  im.infos = g_array_new (FALSE, TRUE, sizeof (HtInfo));
  im.older_live = g_array_new (FALSE, FALSE, sizeof (guint64));
  im.module_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  im.stack = g_array_new (FALSE, FALSE, sizeof (guint64));

  hl_recording_append_info (rec, "format", "heaptrack");
  hl_recording_append_thread (rec, 0, HT_TID, "heaptrack", FALSE);
  ok = parse_text (&im, data != NULL ? data : "", len, cancellable, error);
  if (ok)
    {
      if (im.unmatched_frees > 0)
        {
          g_autofree char *w = g_strdup_printf (_("%" PRIu64 " frees of heaptrack allocation infos "
                                                  "with no live allocation were ignored"),
                                                im.unmatched_frees);
          hl_recording_append_warning (rec, w);
        }
      install_frames (&im);
      hl_recording_commit (rec);
      hl_recording_end_filling (rec);
    }
  g_ptr_array_unref (im.strings);
  g_array_unref (im.ips);
  g_array_unref (im.frames);
  g_array_unref (im.traces);
  g_array_unref (im.infos);
  g_array_unref (im.older_live);
  g_array_unref (im.module_starts);
  g_array_unref (im.stack);
  return ok ? g_steal_pointer (&rec) : NULL;
}
