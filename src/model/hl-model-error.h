/* hl-model-error.h — the model's error domain. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HL_MODEL_ERROR (hl_model_error_quark ())

typedef enum
{
  HL_MODEL_ERROR_IO,          /* the file cannot be opened or read */
  HL_MODEL_ERROR_NOT_A_TRACE, /* not a Heaplens trace */
  HL_MODEL_ERROR_VERSION,     /* written by a newer Heaplens: message names both versions */
  HL_MODEL_ERROR_CORRUPT,     /* nothing usable could be read */
  HL_MODEL_ERROR_UNSUPPORTED, /* e.g. a compressed trace without the codec */
  HL_MODEL_ERROR_INVALID,     /* a bad filter expression or argument */
} HlModelError;

GQuark hl_model_error_quark (void);

G_END_DECLS
