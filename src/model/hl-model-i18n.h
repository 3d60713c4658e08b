/* hl-model-i18n.h — translatable strings of the model: GLib's gi18n-lib
 * with the project's gettext domain, so that _() and N_() look the
 * strings up in "heaplens" whatever domain the program set. The programs
 * bind the domain (bindtextdomain) at start. */
#pragma once

#include "hl-config.h"

#ifndef GETTEXT_PACKAGE
#define GETTEXT_PACKAGE HL_GETTEXT_PACKAGE
#endif
#include <glib/gi18n-lib.h>
