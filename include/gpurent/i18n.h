/*
 * i18n.h - marking user-facing text for translation (GNU gettext, text domain "gpurent").
 *
 * _("...") translates where it is used; N_("...") only marks a string kept in a table (a
 * command's summary, a column header) so that xgettext finds it, and the code that prints it
 * calls _() on it. gr_fail() translates its format itself, so error messages need no mark.
 * Never translated, because scripts depend on them: JSON keys, exit statuses, config keys,
 * command and flag names, and the filter grammar.
 */
#ifndef GPURENT_I18N_H
#define GPURENT_I18N_H

#include <libintl.h>

#define GPURENT_TEXTDOMAIN "gpurent"

#define _(s) gettext(s)
#define N_(s) (s)

#endif
