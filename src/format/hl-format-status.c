/* hl-format-status.c — names of HlFormatStatus and error filling. */

#include <stdio.h>

#include "private/hl-trace-reader-private.h"

const char *
hl_format_status_to_string (HlFormatStatus code)
{
  switch (code)
    {
    case HL_FORMAT_OK:                return "ok";
    case HL_FORMAT_ERROR_IO:          return "input/output error";
    case HL_FORMAT_ERROR_NOT_A_TRACE: return "not a Heaplens trace";
    case HL_FORMAT_ERROR_VERSION:     return "unsupported format version";
    case HL_FORMAT_ERROR_TRUNCATED:   return "truncated";
    case HL_FORMAT_ERROR_CORRUPT:     return "corrupt";
    case HL_FORMAT_ERROR_CHECKSUM:    return "checksum mismatch";
    case HL_FORMAT_ERROR_UNSUPPORTED: return "unsupported content";
    case HL_FORMAT_ERROR_NOT_READY:   return "not ready yet";
    default:                          return "unknown error";
    }
}

void
hl_format_error_set (HlFormatError  *err,
                     HlFormatStatus  code,
                     uint64_t        offset,
                     const char     *fmt,
                     ...)
{
  if (err == NULL)
    return;
  err->code = code;
  err->offset = offset;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  va_end (ap);
}
