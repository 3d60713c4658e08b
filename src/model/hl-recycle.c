/* hl-recycle.c — large blocks kept from one result for the next. */
#include "hl-recycle.h"

gpointer
hl_recycle_take (HlRecycleSlot *slot,
                 gsize          size,
                 gsize         *got)
{
  gpointer block = NULL;

  if (size == 0)
    size = 1;
  if (size < HL_RECYCLE_MIN_BYTES)
    {
      *got = size;
      return g_malloc (size);
    }
  g_mutex_lock (&slot->lock);
  /* not a block four times too large: kept for a result of its size */
  if (slot->block != NULL && slot->size >= size && slot->size / 4 <= size)
    {
      block = g_steal_pointer (&slot->block);
      *got = slot->size;
      slot->size = 0;
    }
  g_mutex_unlock (&slot->lock);
  if (block != NULL)
    return block;
  *got = size;
  return g_malloc (size);
}

void
hl_recycle_give (HlRecycleSlot *slot,
                 gpointer       block,
                 gsize          size)
{
  if (block == NULL)
    return;
  if (size >= HL_RECYCLE_MIN_BYTES)
    {
      g_mutex_lock (&slot->lock);
      if (slot->block == NULL || slot->size < size)
        {
          gpointer old = slot->block;

          slot->block = block;
          slot->size = size;
          block = old;
        }
      g_mutex_unlock (&slot->lock);
    }
  g_free (block);
}
