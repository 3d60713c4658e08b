/* heaplens.h — the public API a program uses to annotate its own recording.
 *
 * Include it and call the functions below; link nothing. When the program
 * runs under libheaplens-preload.so, the calls reach the preload's metadata
 * recorder (shared memory, readable live) and the trace file. When it runs
 * without the preload they are no-ops costing one predictable branch: the
 * entry points are weak references that the dynamic linker leaves NULL
 * unless the preload defines them.
 *
 * All functions are async-signal-safe, never allocate and never block; keys
 * and string values longer than HEAPLENS_METADATA_KEY_MAX /
 * HEAPLENS_METADATA_VALUE_MAX bytes are truncated.
 *
 * SPDX-License-Identifier: MIT (so that any program may include it)
 */
#ifndef HEAPLENS_H
#define HEAPLENS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HEAPLENS_API_VERSION 1
#define HEAPLENS_METADATA_KEY_MAX 31
#define HEAPLENS_METADATA_VALUE_MAX 63

/* Implemented by libheaplens-preload.so; NULL without it. */
extern void heaplens__metadata_set_int (const char *key, int64_t value) __attribute__ ((weak));
extern void heaplens__metadata_set_string (const char *key, const char *value) __attribute__ ((weak));
extern void heaplens__metadata_remove (const char *key) __attribute__ ((weak));
extern void heaplens__mark (const char *text) __attribute__ ((weak));

/* Sets KEY to an integer value, e.g. ("request", 42). */
static inline void
heaplens_metadata_set_int (const char *key,
                           int64_t     value)
{
  if (heaplens__metadata_set_int)
    heaplens__metadata_set_int (key, value);
}

/* Sets KEY to a string value, e.g. ("phase", "load"). */
static inline void
heaplens_metadata_set_string (const char *key,
                              const char *value)
{
  if (heaplens__metadata_set_string)
    heaplens__metadata_set_string (key, value);
}

/* Removes KEY; a no-op when it is not set. */
static inline void
heaplens_metadata_remove (const char *key)
{
  if (heaplens__metadata_remove)
    heaplens__metadata_remove (key);
}

/* Records an instantaneous, labelled mark on the timeline. */
static inline void
heaplens_mark (const char *text)
{
  if (heaplens__mark)
    heaplens__mark (text);
}

/* Nonzero when the program runs under the preload. */
static inline int
heaplens_is_recording (void)
{
  return heaplens__mark != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* HEAPLENS_H */
