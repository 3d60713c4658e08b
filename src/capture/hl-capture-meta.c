/* hl-capture-meta.c — the metadata recorder (seed 003) behind heaplens.h:
 * HL_SHM_META_ITEMS key/value items, each a seqlock, plus a log ring of every
 * change; and the same change as a trace event.
 *
 * Writers serialise among themselves with a spin flag that is only tried a
 * bounded number of times (a signal handler interrupting a writer of the
 * same thread gives up and counts a drop instead of deadlocking); readers
 * never take it and never block a writer. A slot keeps its key once used;
 * when all slots are used, a removed item's slot is reused, which a reader
 * notices through the sequence number. Async-signal-safe, no allocation. */
#include "hl-capture-private.h"

#include <errno.h>
#include <string.h>

#include "heaplens.h"


typedef enum
{
  META_SET_INT,
  META_SET_STRING,
  META_REMOVE,
  META_MARK,
} MetaOp;

static bool
lock_writers (HlShmMetadata *m)
{
  for (int i = 0; i < 10000; i++)
    {
      uint32_t zero = 0;
      if (__atomic_compare_exchange_n (&m->writer_lock_atomic, &zero, 1, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return true;
      __builtin_ia32_pause ();
    }
  return false;
}

static void
unlock_writers (HlShmMetadata *m)
{
  __atomic_store_n (&m->writer_lock_atomic, 0, __ATOMIC_RELEASE);
}

static void
write_item (HlShmMetaItem *it,
            uint32_t       flags,
            const char    *key,
            int64_t        ivalue,
            const char    *svalue,
            uint64_t       now)
{
  uint32_t seq = __atomic_load_n (&it->seq_atomic, __ATOMIC_RELAXED);
  __atomic_store_n (&it->seq_atomic, seq + 1, __ATOMIC_RELAXED); /* odd: changing */
  __atomic_thread_fence (__ATOMIC_RELEASE);
  it->flags = flags;
  it->int_value = ivalue;
  it->time_ns = now;
  if (key != NULL)
    {
      memset (it->key, 0, sizeof it->key);
      hl_strlcpy (it->key, key, sizeof it->key);
    }
  memset (it->string_value, 0, sizeof it->string_value);
  if (svalue != NULL)
    hl_strlcpy (it->string_value, svalue, sizeof it->string_value);
  __atomic_store_n (&it->seq_atomic, seq + 2, __ATOMIC_RELEASE);
}

static bool
key_equal (const HlShmMetaItem *it,
           const char          *key)
{
  return strncmp (it->key, key, HL_SHM_META_KEY_MAX - 1) == 0;
}

static void
record_shm (MetaOp      op,
            const char *key,
            int64_t     ivalue,
            const char *svalue,
            uint64_t    now)
{
  HlShmMetadata *m = hl_g.meta;
  if (m == NULL)
    return;
  if (!lock_writers (m))
    {
      hl_counters_drop (HL_DROP_METADATA, 1);
      return;
    }
  uint32_t flags = 0;
  if (op == META_SET_STRING)
    flags |= HL_SHM_META_IS_STRING;
  if (op != META_MARK)
    {
      uint32_t n = __atomic_load_n (&m->n_items_atomic, __ATOMIC_RELAXED);
      HlShmMetaItem *slot = NULL, *free_slot = NULL;
      for (uint32_t i = 0; i < n; i++)
        {
          if (key_equal (&m->items[i], key))
            {
              slot = &m->items[i];
              break;
            }
          if (free_slot == NULL && !(m->items[i].flags & HL_SHM_META_ACTIVE))
            free_slot = &m->items[i];
        }
      if (op == META_REMOVE)
        {
          if (slot != NULL && (slot->flags & HL_SHM_META_ACTIVE))
            write_item (slot, slot->flags & ~HL_SHM_META_ACTIVE, NULL, slot->int_value, slot->string_value, now);
        }
      else
        {
          if (slot == NULL && n < HL_SHM_META_ITEMS)
            {
              slot = &m->items[n];
              write_item (slot, flags | HL_SHM_META_ACTIVE, key, ivalue, svalue, now);
              __atomic_store_n (&m->n_items_atomic, n + 1, __ATOMIC_RELEASE);
            }
          else if (slot != NULL)
            write_item (slot, flags | HL_SHM_META_ACTIVE, NULL, ivalue, svalue, now);
          else if (free_slot != NULL)
            write_item (free_slot, flags | HL_SHM_META_ACTIVE, key, ivalue, svalue, now);
          else
            hl_counters_drop (HL_DROP_METADATA, 1);
        }
    }
  /* the log of changes */
  uint32_t lflags = flags | (op == META_MARK ? HL_SHM_META_IS_MARK : 0)
                    | (op == META_REMOVE ? HL_SHM_META_REMOVED : 0);
  uint64_t idx = __atomic_load_n (&m->log_count_atomic, __ATOMIC_RELAXED);
  HlShmMetaItem *e = &m->log[idx % HL_SHM_META_LOG];
  write_item (e, lflags, op == META_MARK ? "" : key, ivalue, svalue, now);
  __atomic_store_n (&m->log_count_atomic, idx + 1, __ATOMIC_RELEASE);
  unlock_writers (m);
}

static void
meta_op (MetaOp      op,
         const char *key,
         int64_t     ivalue,
         const char *svalue)
{
  if (!hl_active () || (key == NULL && op != META_MARK))
    return;
  int e = errno;
  uint64_t now = hl_now ();
  record_shm (op, key, ivalue, svalue, now);
  if (hl_tls.guard == 0)
    {
      hl_tls.guard++;
      HlThreadBlock *b = hl_thread_block ();
      if (b != NULL)
        {
          atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
          char k[HL_SHM_META_KEY_MAX], v[HL_SHM_META_VALUE_MAX];
          if (key != NULL)
            hl_strlcpy (k, key, sizeof k);
          if (svalue != NULL)
            hl_strlcpy (v, svalue, sizeof v);
          switch (op)
            {
            case META_SET_INT:
              HL_TRACE_EMIT (b, now, hl_packet_writer_meta_int (w_, now, k, ivalue));
              break;
            case META_SET_STRING:
              HL_TRACE_EMIT (b, now, hl_packet_writer_meta_string (w_, now, k, v));
              break;
            case META_REMOVE:
              HL_TRACE_EMIT (b, now, hl_packet_writer_meta_remove (w_, now, k));
              break;
            case META_MARK:
              HL_TRACE_EMIT (b, now, hl_packet_writer_mark (w_, now, v));
              break;
            }
          atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
        }
      hl_tls.guard--;
    }
  errno = e;
}

HL_EXPORT void
heaplens__metadata_set_int (const char *key,
                            int64_t     value)
{
  meta_op (META_SET_INT, key, value, NULL);
}

HL_EXPORT void
heaplens__metadata_set_string (const char *key,
                               const char *value)
{
  meta_op (META_SET_STRING, key, 0, value ? value : "");
}

HL_EXPORT void
heaplens__metadata_remove (const char *key)
{
  meta_op (META_REMOVE, key, 0, NULL);
}

HL_EXPORT void
heaplens__mark (const char *text)
{
  meta_op (META_MARK, NULL, 0, text ? text : "");
}
