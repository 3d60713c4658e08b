/* hl-cli-record-usage.h — the help of `heaplens-cli record`, out of
 * hl-cli-record.c (which runs the program). */
#pragma once

#include <stdio.h>

/* Prints record's usage and options on OUT. */
void hl_cli_record_usage (FILE *out);
