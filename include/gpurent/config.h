/*
 * config.h - the human-edited config file, with profiles.
 *
 *   # comment
 *   providers = sim
 *   budget.month = 500
 *   [profile work]
 *   providers = vast,runpod
 *
 * Keys are declared in one table (name, kind, help; after tmux's options-table.c) that
 * `config set` validates against and `config list` and the man page follow. A key in a
 * [profile NAME] section overrides the top-level key while that profile is selected.
 */
#ifndef GPURENT_CONFIG_H
#define GPURENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* CK_MONEY: an amount with an optional currency ("300 CNY", bare: USD); CK_RATE: fx.CODE;
 * CK_CURRENCY: an ISO 4217 code (money_currency_parse). */
/* CK_INTERVAL: a duration that is an interval, checked as every interval is (parse_interval). */
enum config_kind { CK_STRING, CK_INT, CK_MONEY, CK_BOOL, CK_LIST, CK_DURATION, CK_INTERVAL, CK_RATE,
	CK_CURRENCY };

struct config_key {
	const char *name;
	enum config_kind kind;
	const char *def;	/* default as text, NULL for none */
	const char *help;
};

const struct config_key *config_keys(size_t *n);
const struct config_key *config_key_find(const char *name);

/*
 * The watcher's policies may be set per label: "label.PATTERN.KEY" (idle.after,
 * idle.threshold, idle.action, runtime.max, runtime.action, watch.jobs_active), where
 * PATTERN is an fnmatch(3) pattern over instance labels ("label.train-*.idle.after = 30m").
 * Returns KEY and copies PATTERN into pattern[n] (may be NULL), or NULL when name is no
 * such key.
 */
#define LABEL_PATTERN_MAX 256
const char *config_label_key(const char *name, char *pattern, size_t n);

struct config;

/*
 * Load a config file; a missing file is an empty config. A line that cannot be read (not
 * 'key = value' or '[profile NAME]', an unknown key, a value its key refuses) is kept as it
 * was written: config_get and config_each never read it (nor the keys under a header that
 * cannot be read), set and unset of its key replace or remove it, and config_problem names
 * it. Fails only when the file cannot be read.
 */
enum gr_err config_load(struct config **out, const char *path, struct gr_error *err);
/* The first line config_load could not read, as GR_EUSAGE: FILE:LINE, what is wrong and how
 * to mend it. GR_OK when every line can be read. */
enum gr_err config_problem(const struct config *c, struct gr_error *err);
struct config *config_new_empty(void);
void config_free(struct config *c);

/* The selected profile (NULL: none). An unknown profile is an error at selection. */
enum gr_err config_select_profile(struct config *c, const char *profile, struct gr_error *err);
const char *config_profile(const struct config *c);

/* The value in the selected profile, else top level, else the key's default, else NULL. */
const char *config_get(const struct config *c, const char *key);
long long config_get_int(const struct config *c, const char *key, long long def);
/*
 * Money keys in micro-units; -1 when unset. config_get_money reads only bare (dollar)
 * amounts, as before currencies; config_get_money_in also reads "300 CNY" and puts the
 * currency's code (CURRENCY_MAX bytes; USD when bare or unset) in code.
 */
int64_t config_get_money(const struct config *c, const char *key);
int64_t config_get_money_in(const struct config *c, const char *key, char *code);
/* A CK_CURRENCY key's code (CURRENCY_MAX bytes, capitals); false when unset (c may be NULL).
 * The key's default counts as set. */
bool config_get_currency(const struct config *c, const char *key, char *code);
/* The exchange rates the user configured (fx.CODE keys; the profile's win). */
struct fx_rates;
void config_fx(const struct config *c, struct fx_rates *out);
bool config_get_bool(const struct config *c, const char *key, bool def);

/*
 * A cluster's own settings, read in one place for its backend and for the commands that
 * submit to it (run --provider). c may be NULL (nothing set).
 *   config_gpu_rate: PROVIDER.price.TYPE, the charge-back rate per GPU-hour, a bare amount
 *     or one naming the rates' currency ("15 CNY"); false when unset, not an amount, or in
 *     another currency (never converted). currency (CURRENCY_MAX bytes, may be NULL) gets
 *     the rates' PROVIDER.currency either way, USD when unset or not a currency code.
 *   config_gpu_model: PROVIDER.gpu.TYPE, the catalogue model (by canonical id) the user
 *     says a GPU type is; NULL when unset or naming none.
 *   config_job_workdir: PROVIDER.workdir, where jobs start; "/tmp" when unset.
 *   config_job_output_dir: PROVIDER.output_dir, a directory this machine shares with the
 *     nodes; NULL when unset.
 */
bool config_gpu_rate(const struct config *c, const char *provider, const char *gpu_type,
    int64_t *per_gpu_hour, char *currency);
struct gpu_model;
const struct gpu_model *config_gpu_model(const struct config *c, const char *provider,
    const char *gpu_type);
const char *config_job_workdir(const struct config *c, const char *provider);
const char *config_job_output_dir(const struct config *c, const char *provider);

/* Validate and set a key in a section (NULL: top level), then rewrite the file atomically. */
enum gr_err config_set(struct config *c, const char *profile, const char *key, const char *value,
    struct gr_error *err);
enum gr_err config_unset(struct config *c, const char *profile, const char *key,
    struct gr_error *err);
enum gr_err config_save(const struct config *c, struct gr_error *err);

/* Every key set in the file: calls fn for each (profile NULL for top level). */
void config_each(const struct config *c, void (*fn)(const char *profile, const char *key,
    const char *value, void *ctx), void *ctx);
/* Names of the profiles in the file. */
size_t config_profiles(const struct config *c, const char **out, size_t max);

/* Validate a value for a key; used by set and load. */
enum gr_err config_check(const char *key, const char *value, struct gr_error *err);

#endif
