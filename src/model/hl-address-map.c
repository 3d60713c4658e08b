/* hl-address-map.c — address → id of the live blocks (hl-address-map.h):
 * linear probing, removal by shifting the probe run back (no tombstones:
 * a program frees as often as it allocates). */
#include "hl-address-map.h"

typedef struct
{
  guint64 address;
  guint64 value;    /* 0: empty slot */
} Slot;

struct _HlAddressMap
{
  Slot   *slots;
  guint64 mask;     /* capacity - 1 */
  guint   shift;    /* 64 - log2 (capacity) */
  guint64 n;
};

/* Blocks are 16-byte aligned: the low bits say nothing. Blocks a program
 * allocates and frees one after the other mostly lie close together: the
 * 16-byte granules of each 128 bytes take consecutive slots (the same few
 * cache lines), and a multiplicative hash spreads the 128-byte runs. */
static inline guint64
home_of (const HlAddressMap *self,
         guint64             address)
{
  guint64 granule = address >> 4;

  return (((granule >> 3) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> (self->shift + 3) << 3) | (granule & 7);
}

static void
init_slots (HlAddressMap *self,
            guint         bits)
{
  self->slots = g_new0 (Slot, (gsize) 1 << bits);
  self->mask = ((guint64) 1 << bits) - 1;
  self->shift = 64 - bits;
}

HlAddressMap *
hl_address_map_new (void)
{
  HlAddressMap *self = g_new0 (HlAddressMap, 1);

  init_slots (self, 10);
  return self;
}

void
hl_address_map_free (HlAddressMap *self)
{
  if (self == NULL)
    return;
  g_free (self->slots);
  g_free (self);
}

static Slot *
find (const HlAddressMap *self,
      guint64             address)
{
  for (guint64 i = home_of (self, address);; i = (i + 1) & self->mask)
    {
      Slot *s = &self->slots[i];
      if (s->value == 0 || s->address == address)
        return s;
    }
}

static void
grow (HlAddressMap *self)
{
  Slot *old = self->slots;
  guint64 old_cap = self->mask + 1;

  init_slots (self, 64 - self->shift + 1);
  for (guint64 k = 0; k < old_cap; k++)
    if (old[k].value != 0)
      *find (self, old[k].address) = old[k];
  g_free (old);
}

void
hl_address_map_set (HlAddressMap *self,
                    guint64       address,
                    guint64       value)
{
  Slot *s;

  g_return_if_fail (value != 0);
  if ((self->n + 1) * 4 > (self->mask + 1) * 3)
    grow (self);
  s = find (self, address);
  if (s->value == 0)
    {
      s->address = address;
      self->n++;
    }
  s->value = value;
}

guint64
hl_address_map_get (const HlAddressMap *self,
                    guint64             address)
{
  return find (self, address)->value;
}

void
hl_address_map_remove (HlAddressMap *self,
                       guint64       address)
{
  Slot *s = find (self, address);
  guint64 hole = (guint64) (s - self->slots);

  if (s->value == 0)
    return;
  for (guint64 j = (hole + 1) & self->mask; self->slots[j].value != 0; j = (j + 1) & self->mask)
    {
      guint64 home = home_of (self, self->slots[j].address);
      /* J may move into the hole when its home is not in (hole, j]. */
      gboolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!stays)
        {
          self->slots[hole] = self->slots[j];
          hole = j;
        }
    }
  self->slots[hole].value = 0;
  self->n--;
}

guint64
hl_address_map_size (const HlAddressMap *self)
{
  return self->n;
}
