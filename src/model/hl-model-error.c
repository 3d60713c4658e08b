/* hl-model-error.c — the model's error domain. */
#include "hl-model-error.h"

G_DEFINE_QUARK (hl-model-error-quark, hl_model_error)
