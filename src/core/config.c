/*
 * config.c - the configuration file: its keys, reading, editing in place and writing
 * back, keeping the user's comments and order.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/atomic.h"
#include "gpurent/catalogue.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/filter.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"

static const struct config_key keys[] = {
	{ "advise.term_1mo", CK_INT, "20", N_("percent off on-demand that advise assumes for a one-month term (vast's prepay: about 20)") },
	{ "advise.term_3mo", CK_INT, "30", N_("percent off on-demand that advise assumes for a three-month term (vast's prepay: about 30)") },
	{ "audit.grid", CK_STRING, NULL, N_("grid carbon intensity overrides for audit: REGION=G_PER_KWH,... (longest region prefix wins)") },
	{ "audit.target", CK_INT, "85", N_("GPU utilisation percent that audit measures instances against") },
	{ "budget.action", CK_STRING, "stop", N_("what the watcher does to running instances once a budget is spent: stop, destroy or notify") },
	{ "budget.day", CK_MONEY, NULL, N_("refuse launches and starts that would take today's projected spend over this (300, 300 CNY; bare: USD)") },
	{ "budget.month", CK_MONEY, NULL, N_("refuse launches and starts that would take this month's projected spend over this (500, 3000 CNY; bare: USD)") },
	{ "budget.warn", CK_INT, "80", N_("percent of a budget spent at which the watcher warns") },
	{ "color", CK_STRING, "auto", N_("auto, always or never") },
	{ "costs.check_tolerance", CK_MONEY, "0.01", N_("a difference between the ledger and a provider's bill for one instance and day that costs --check and the watcher let pass, in the bill's own currency (a bare amount)") },
	{ "costs.source", CK_STRING, "ledger", N_("ledger, or provider: costs counts a provider's bill where it has one and it differs from the ledger") },
	{ "dashboard.idle_minutes", CK_INT, "10", N_("highlight instances idle this long") },
	{ "dashboard.instances_interval", CK_INTERVAL, "5s", N_("refresh interval of the instances view") },
	{ "dashboard.metrics_interval", CK_INTERVAL, "2s", N_("refresh interval of the metrics view") },
	{ "dashboard.offers_interval", CK_INTERVAL, "30s", N_("refresh interval of the offers view") },
	{ "fx.CODE", CK_RATE, NULL, N_("US dollars one unit of currency CODE is worth (fx.CNY = 0.14); the only way amounts in different currencies are combined") },
	{ "guard.agent", CK_BOOL, "false", N_("gpurent watch installs the instance guard on every running vast and RunPod instance and Slurm job, and starts it again when it is gone") },
	{ "guard.interval", CK_INTERVAL, "30s", N_("seconds between the instance guard's samples on the instance (guard install)") },
	{ "http.connect_timeout", CK_DURATION, "10s", N_("connect timeout per request") },
	{ "http.timeout", CK_DURATION, "30s", N_("total timeout per request") },
	{ "idle.action", CK_STRING, "stop", N_("what the watcher does to an idle instance: stop, destroy or notify") },
	{ "idle.after", CK_DURATION, NULL, N_("stop an instance idle this long (unset: no idle policy)") },
	{ "idle.threshold", CK_INT, "5", N_("GPU utilisation percent at or below which an instance is idle") },
	{ "lambda.ssh_key", CK_STRING, NULL, N_("name of the Lambda SSH key to launch with") },
	{ "lambda.url", CK_STRING, NULL, N_("Lambda API address (scheme, host, port)") },
	{ "launch.disk", CK_INT, NULL, N_("default disk size in GB (unset: the provider's default)") },
	{ "launch.image", CK_STRING, NULL, N_("default image to launch") },
	{ "notify.command", CK_STRING, NULL, N_("program the watcher runs for each action and alert (argv, never a shell)") },
	{ "offers.filter", CK_STRING, NULL, N_("filter terms applied to every offer search") },
	{ "offers.limit", CK_INT, NULL, N_("default --limit of offers") },
	{ "offers.sort", CK_STRING, "price", N_("default sort keys of offers") },
	{ "output", CK_STRING, NULL, N_("default output format: table, json, csv, tsv, ids") },
	{ "ppio.currency", CK_CURRENCY, "CNY", N_("currency of PPIO's prices (ISO 4217; USD for the same API at api.novita.ai)") },
	{ "ppio.disk", CK_INT, NULL, N_("PPIO root disk in GB when launch gives none") },
	{ "ppio.image", CK_STRING, NULL, N_("PPIO image when launch gives none") },
	{ "ppio.url", CK_STRING, NULL, N_("PPIO GPU API v2 address (scheme, host, port)") },
	{ "providers", CK_LIST, "sim", N_("backends to use when --provider is not given") },
	{ "reconcile.interval", CK_INTERVAL, "15m", N_("time between two comparisons by gpurent watch of each provider's account with what gpurent knows (gpurent reconcile)") },
	{ "runpod.api", CK_STRING, "auto", N_("which RunPod API the backend speaks: v2 (REST v2, GraphQL only for what v2 lacks), graphql, or auto (v2, and GraphQL for an operation v2 answers 404 or 410)") },
	{ "runpod.disk", CK_INT, NULL, N_("RunPod container disk in GB when launch gives none") },
	{ "runpod.image", CK_STRING, NULL, N_("RunPod image when launch gives none") },
	{ "runpod.url", CK_STRING, NULL, N_("RunPod API address (scheme, host, port)") },
	{ "runtime.action", CK_STRING, "stop", N_("what the watcher does past runtime.max: stop, destroy or notify") },
	{ "runtime.max", CK_DURATION, NULL, N_("longest an instance may run before the watcher acts (unset: no limit)") },
	{ "slurm.cluster", CK_STRING, NULL, N_("a name for the Slurm cluster, shown as the location of its offers") },
	{ "slurm.currency", CK_CURRENCY, "USD", N_("currency of the slurm.price.* charge-back rates") },
	{ "slurm.gpu.*", CK_STRING, NULL, N_("the catalogue GPU a GRES type is, where its name does not say (slurm.gpu.a100 = A100-PCIE-40GB; see gpurent gpus)") },
	{ "slurm.output_dir", CK_STRING, NULL, N_("where batch jobs write their output, a directory this machine shares with the nodes (unset: slurm.workdir)") },
	{ "slurm.price.*", CK_MONEY, NULL, N_("charge-back rate per GPU-hour of a GRES type (slurm.price.h100 = 2.10); without one a Slurm offer has no price") },
	{ "slurm.ssh_host", CK_STRING, NULL, N_("how ssh reaches a job's first node: a host name with %n for the node's name (unset: the node's hostname)") },
	{ "slurm.ssh_port", CK_INT, "22", N_("ssh port on the cluster's nodes") },
	{ "slurm.url", CK_STRING, NULL, N_("slurmrestd address: http://HOST:PORT or unix:/PATH") },
	{ "slurm.user", CK_STRING, NULL, N_("Slurm user name sent with the token (unset: the login name)") },
	{ "slurm.workdir", CK_STRING, "/tmp", N_("working directory of the jobs gpurent submits, on the nodes") },
	{ "spot.bid_margin", CK_INT, "20", N_("percent over the current price that an interruptible launch bids without --bid") },
	{ "ssh.config", CK_STRING, NULL, N_("ssh_config file passed to ssh -F instead of ~/.ssh/config") },
	{ "ssh.hosts_file", CK_STRING, NULL, N_("the ssh include file that gpurent ssh-config keeps (default ~/.ssh/config.d/gpurent)") },
	{ "ssh.identity", CK_STRING, NULL, N_("private key file passed to ssh -i") },
	{ "ssh.rsync_path", CK_STRING, NULL, N_("rsync on the instances, when not 'rsync' in PATH") },
	{ "state.url", CK_STRING, NULL, N_("a team's state in PostgreSQL: postgresql://USER@HOST/DB, the password in ~/.pgpass, a service file or 'gpurent login state', never here (unset: a file of this user's)") },
	{ "team.name", CK_STRING, NULL, N_("the team of a team profile: its state (state.url) is shared, and ls, costs, audit, events and jobs show the whole team (unset: a personal profile)") },
	{ "team.user", CK_STRING, NULL, N_("who you are in the team's records (unset: the login name)") },
	{ "watch.interval", CK_INTERVAL, "60s", N_("time between two passes of gpurent watch") },
	{ "watch.jobs_active", CK_BOOL, "true", N_("a running gpurent job keeps its instance from counting as idle") },
	{ "watch.verify_timeout", CK_DURATION, "5m", N_("how long a stop or destroy may take before the watcher orders it again") },
	{ "watch.verify_tries", CK_INT, "3", N_("orders of one stop or destroy before the watcher raises an alert") },
	{ "vast.disk", CK_INT, NULL, N_("vast.ai disk in GB when launch gives none") },
	{ "vast.image", CK_STRING, NULL, N_("vast.ai image when launch gives none") },
	{ "vast.limit", CK_INT, NULL, N_("most offers one vast.ai search asks for") },
	{ "vast.url", CK_STRING, NULL, N_("vast.ai API address (scheme, host, port)") },
	{ "vault.mode", CK_STRING, "auto", N_("how a new credential store is sealed: auto, passphrase or keyfile") },
	{ "vault.passphrase_command", CK_STRING, NULL, N_("command that prints the credential store passphrase") },
};

const struct config_key *
config_keys(size_t *n)
{
	*n = ARRAY_LEN(keys);
	return keys;
}

const struct config_key *
config_key_find(const char *name)
{
	size_t i, len = strlen(name);

	/* fx.CNY, fx.EUR, ...: one key per currency, all described by fx.CODE. */
	if (len > 3 && strncmp(name, "fx.", 3) == 0 &&
	    money_currency_parse(name + 3, len - 3, NULL))
		name = "fx.CODE";
	else if (strcmp(name, "fx.CODE") == 0)
		return NULL;	/* a description, not a key one can set */
	for (i = 0; i < ARRAY_LEN(keys); i++) {
		const char *star = strchr(keys[i].name, '*');

		/* "slurm.price.*": the prefix and one more word of letters, digits, '_' or '-'. */
		if (star != NULL && strncmp(keys[i].name, name, (size_t)(star - keys[i].name)) == 0 &&
		    name[star - keys[i].name] != '\0' &&
		    strspn(name + (star - keys[i].name), "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
		    strlen(name + (star - keys[i].name)))
			return &keys[i];
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

/* The watcher's keys that may also be set for the instances of some labels. */
static const char *const label_keys[] = {
	"idle.action", "idle.after", "idle.threshold", "runtime.action", "runtime.max",
	"watch.jobs_active",
};

const char *
config_label_key(const char *name, char *pattern, size_t n)
{
	size_t i, len = strlen(name), kl;

	if (strncmp(name, "label.", 6) != 0)
		return NULL;
	for (i = 0; i < ARRAY_LEN(label_keys); i++) {
		kl = strlen(label_keys[i]);
		/* "label." PATTERN "." KEY with a PATTERN of at least one character */
		if (len > 6 + 1 + kl && name[len - kl - 1] == '.' &&
		    strcmp(name + len - kl, label_keys[i]) == 0 && len - kl - 1 - 6 < n) {
			if (pattern != NULL) {
				memcpy(pattern, name + 6, len - kl - 1 - 6);
				pattern[len - kl - 1 - 6] = '\0';
			}
			return label_keys[i];
		}
	}
	return NULL;
}

/* A key as the file keeps it: fx.cny is fx.CNY (a currency in any case), in buf. */
static const char *
canonical_key(const char *key, char *buf, size_t n)
{
	char code[CURRENCY_MAX];

	if (strncmp(key, "fx.", 3) != 0 || !money_currency_parse(key + 3, strlen(key + 3), code))
		return key;
	snprintf(buf, n, "fx.%s", code);
	return buf;
}

/* The file is kept line by line so that `config set` preserves comments and order. */
struct config_line {
	char *text;
	char *section;		/* profile name of the section the line is in, NULL: top level */
	char *key;		/* NULL: not a key line */
	char *value;
	bool header;		/* a [profile NAME] line */
	char *problem;		/* why the line cannot be read, NULL: it can (see config_load) */
};

struct config {
	char *path;
	struct config_line *lines;
	size_t n, cap;
	char *profile;
};

static void
add_line(struct config *c, const char *text, const char *section, const char *key,
    const char *value, bool header, size_t at)
{
	struct config_line *l;

	c->lines = xgrow(c->lines, c->n, &c->cap, sizeof(*c->lines), 16);
	if (at < c->n)
		memmove(&c->lines[at + 1], &c->lines[at], (c->n - at) * sizeof(*c->lines));
	else
		at = c->n;
	l = &c->lines[at];
	l->text = xstrdup(text);
	l->section = section ? xstrdup(section) : NULL;
	l->key = key ? xstrdup(key) : NULL;
	l->value = value ? xstrdup(value) : NULL;
	l->header = header;
	l->problem = NULL;
	c->n++;
}

static void
free_line(struct config_line *l)
{
	free(l->text);
	free(l->section);
	free(l->key);
	free(l->value);
	free(l->problem);
}

struct config *
config_new_empty(void)
{
	struct config *c = xcalloc(1, sizeof(*c));

	c->path = xstrdup(paths_config_file());
	return c;
}

void
config_free(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		free_line(&c->lines[i]);
	free(c->lines);
	free(c->path);
	free(c->profile);
	free(c);
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool
valid_profile_name(const char *s)
{
	return name_safe(s, 64);
}

enum gr_err
config_check(const char *key, const char *value, struct gr_error *err)
{
	const struct config_key *k = config_key_find(key);
	struct gr_error sub = { 0 };
	enum out_format fmt;
	const char *base;
	char pattern[LABEL_PATTERN_MAX];
	long long n;
	int64_t m;
	char code[CURRENCY_MAX];

	if (k == NULL && (base = config_label_key(key, pattern, sizeof(pattern))) != NULL) {
		if (config_check(base, value, &sub) != GR_OK)
			return gr_fail(err, GR_EUSAGE, "'%s': %s", key, sub.msg);
		return GR_OK;
	}
	if (k == NULL)
		return gr_fail(err, GR_EUSAGE, "unknown config key '%s' (see 'gpurent config "
		    "list --all')", key);
	switch (k->kind) {
	case CK_INT:
		if (!parse_int(value, 0, 1000000000, &n))
			return gr_fail(err, GR_EUSAGE, "'%s' needs a whole number, not '%s'", key,
			    value);
		break;
	case CK_MONEY:
		if (!money_parse_in(value, &m, code))
			return gr_fail(err, GR_EUSAGE, "'%s' needs an amount such as 250, 99.50 "
			    "(US dollars) or 300 CNY, not '%s'", key, value);
		break;
	case CK_CURRENCY:
		if (!money_currency_parse(value, strlen(value), NULL))
			return gr_fail(err, GR_EUSAGE, "'%s' needs the ISO 4217 code of a "
			    "currency, such as USD or CNY, not '%s'", key, value);
		break;
	case CK_RATE:
		if (strcmp(key, "fx.USD") == 0)
			return gr_fail(err, GR_EUSAGE, "'fx.USD' is always 1: rates are US "
			    "dollars per unit of the currency");
		if (!money_parse(value, &m) || m <= 0)
			return gr_fail(err, GR_EUSAGE, "'%s' needs how many US dollars one %s is "
			    "worth, such as 0.14, not '%s'", key, key + 3, value);
		break;
	case CK_BOOL:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
			return gr_fail(err, GR_EUSAGE, "'%s' needs true or false", key);
		break;
	case CK_DURATION:
		if (parse_duration(value) <= 0)
			return gr_fail(err, GR_EUSAGE, "'%s' needs a duration such as 30s, 5m "
			    "or 1h, not '%s'", key, value);
		break;
	case CK_INTERVAL:
		if (parse_interval(value) < 0)
			return gr_fail(err, GR_EUSAGE, "'%s' needs a duration from 1s to 1d (such "
			    "as 30s or 5m), not '%s'", key, value);
		break;
	case CK_LIST:
	case CK_STRING:
		break;
	}
	if (strcmp(key, "color") == 0 && strcmp(value, "auto") != 0 &&
	    strcmp(value, "always") != 0 && strcmp(value, "never") != 0)
		return gr_fail(err, GR_EUSAGE, "'color' is auto, always or never");
	if (strcmp(key, "vault.mode") == 0 && strcmp(value, "auto") != 0 &&
	    strcmp(value, "passphrase") != 0 && strcmp(value, "keyfile") != 0)
		return gr_fail(err, GR_EUSAGE, "'vault.mode' is auto, passphrase or keyfile");
	if (strcmp(key, "runpod.api") == 0 && strcmp(value, "auto") != 0 &&
	    strcmp(value, "v2") != 0 && strcmp(value, "graphql") != 0)
		return gr_fail(err, GR_EUSAGE, "'runpod.api' is v2, graphql or auto, not '%s'", value);
	if (strcmp(key, "spot.bid_margin") == 0 && (!parse_int(value, 0, 100, &n)))
		return gr_fail(err, GR_EUSAGE, "'spot.bid_margin' is a whole percentage from 0 "
		    "to 100, not '%s'", value);
	if ((strcmp(key, "idle.action") == 0 || strcmp(key, "runtime.action") == 0 ||
	    strcmp(key, "budget.action") == 0) && strcmp(value, "stop") != 0 &&
	    strcmp(value, "destroy") != 0 && strcmp(value, "notify") != 0)
		return gr_fail(err, GR_EUSAGE, "'%s' is stop, destroy or notify, not '%s'", key,
		    value);
	if (strcmp(key, "idle.threshold") == 0 && !parse_int(value, 0, 100, &n))
		return gr_fail(err, GR_EUSAGE, "'idle.threshold' is a whole percentage from 0 to "
		    "100, not '%s'", value);
	if (strncmp(key, "advise.term_", 12) == 0 && !parse_int(value, 0, 99, &n))
		return gr_fail(err, GR_EUSAGE, "'%s' is a whole percentage from 0 to 99, not "
		    "'%s'", key, value);
	if (strcmp(key, "budget.warn") == 0 && !parse_int(value, 1, 100, &n))
		return gr_fail(err, GR_EUSAGE, "'budget.warn' is a whole percentage from 1 to "
		    "100, not '%s'", value);
	if (strcmp(key, "watch.verify_tries") == 0 && !parse_int(value, 1, 100, &n))
		return gr_fail(err, GR_EUSAGE, "'watch.verify_tries' is from 1 to 100, not '%s'",
		    value);
	if (strncmp(key, "slurm.gpu.", 10) == 0 && catalogue_by_id(value) == NULL)
		return gr_fail(err, GR_EUSAGE, "'%s' needs the id of a GPU in the catalogue, such as "
		    "H100-PCIE-80GB (gpurent gpus lists them), not '%s'", key, value);
	if (strcmp(key, "output") == 0 && !out_format_parse(value, &fmt))
		return gr_fail(err, GR_EUSAGE, "'output' is table, json, csv, tsv or ids");
	if (strcmp(key, "offers.filter") == 0) {
		struct filter f = { 0 };

		if (filter_parse_str(&f, value, &sub) != GR_OK)
			return gr_fail(err, GR_EUSAGE, "'offers.filter': %s", sub.msg);
	}
	if (strcmp(key, "offers.sort") == 0) {
		struct sort_spec s;

		if (sort_parse(&s, value, &sub) != GR_OK)
			return gr_fail(err, GR_EUSAGE, "'offers.sort': %s", sub.msg);
	}
	return GR_OK;
}

/* The command that mends a refused KEY line in section: set for a known key (its value was
 * refused), unset for an unknown one; NULL when no command can name the line (or a shell
 * would read the key, as a pattern's '*'). */
static char *
mend_command(const char *section, const char *key)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-";
	bool known = config_key_find(key) != NULL ||
	    config_label_key(key, NULL, LABEL_PATTERN_MAX) != NULL;

	if (*key == '\0' || key[strspn(key, word)] != '\0' ||
	    (section != NULL && *section == '\0'))
		return NULL;
	return xasprintf("gpurent config %s%s%s %s%s", known ? "set" : "unset",
	    section ? " --in " : "", section ? section : "", key, known ? " VALUE" : "");
}

/* Keep the line config_load just read as it was written, with why it cannot be read and how
 * to mend it: fix is the command that would, NULL when only an edit of the file can. */
static void
keep_unreadable(struct config *c, const char *raw, const char *why, const char *fix)
{
	struct config_line *l = &c->lines[c->n - 1];
	struct gr_error e = { 0 };

	free(l->text);
	l->text = xstrdup(raw);
	if (fix != NULL)
		gr_fail(&e, GR_EUSAGE, "%s; mend it with '%s', or edit the file", why, fix);
	else
		gr_fail(&e, GR_EUSAGE, "%s; edit or remove that line", why);
	l->problem = xstrdup(e.msg);
}

enum gr_err
config_load(struct config **out, const char *path, struct gr_error *err)
{
	struct config *c = xcalloc(1, sizeof(*c));
	struct gr_error sub = { 0 };
	char *line = NULL, *raw, *p, *eq, *section = NULL, *fix, canon[16];
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	c->path = xstrdup(path);
	fp = fopen(path, "r");
	if (fp == NULL) {
		if (errno == ENOENT) {
			*out = c;
			return GR_OK;
		}
		gr_fail(err, GR_ESTATE, "cannot read config '%s': %s", path, strerror(errno));
		config_free(c);
		return GR_ESTATE;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		raw = xstrdup(line);
		p = trim(line);
		if (*p == '\0' || *p == '#' || *p == ';') {
			add_line(c, line, section, NULL, NULL, false, SIZE_MAX);
		} else if (*p == '[') {
			char *end = strchr(p, ']'), *name = NULL;

			if (end != NULL && end[1] == '\0' && strncmp(p, "[profile ", 9) == 0) {
				*end = '\0';
				name = trim(p + 9);
			}
			free(section);
			if (name == NULL || !valid_profile_name(name)) {
				/* Its keys belong to no profile one could select. */
				section = xstrdup("");
				add_line(c, raw, section, NULL, NULL, true, SIZE_MAX);
				keep_unreadable(c, raw, _("expected '[profile NAME]', a NAME "
				    "of letters, digits, '-', '_' or '.'"), NULL);
			} else {
				section = xstrdup(name);
				snprintf(line, cap, "[profile %s]", section);
				add_line(c, line, section, NULL, NULL, true, SIZE_MAX);
			}
		} else if ((eq = strchr(p, '=')) == NULL) {
			add_line(c, raw, section, NULL, NULL, false, SIZE_MAX);
			keep_unreadable(c, raw, _("expected 'key = value' or "
			    "'[profile NAME]'"), NULL);
		} else {
			const char *key;
			char *value, *text;

			*eq = '\0';
			key = canonical_key(trim(p), canon, sizeof(canon));
			value = trim(eq + 1);
			text = xasprintf("%s = %s", key, value);
			add_line(c, text, section, key, value, false, SIZE_MAX);
			free(text);
			gr_error_clear(&sub);
			if (config_check(key, value, &sub) != GR_OK) {
				fix = mend_command(section, key);
				keep_unreadable(c, raw, sub.msg, fix);
				free(fix);
			}
		}
		free(raw);
	}
	free(line);
	free(section);
	fclose(fp);
	*out = c;
	return GR_OK;
}

enum gr_err
config_problem(const struct config *c, struct gr_error *err)
{
	size_t i;

	/* One line kept per line of the file, so its number is its place. */
	for (i = 0; i < c->n; i++)
		if (c->lines[i].problem != NULL)
			return gr_fail(err, GR_EUSAGE, "%s:%zu: %s", c->path, i + 1,
			    c->lines[i].problem);
	return GR_OK;
}

static bool
same_section(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static const char *
lookup(const struct config *c, const char *section, const char *key)
{
	size_t i;
	const char *v = NULL;

	for (i = 0; i < c->n; i++)
		if (c->lines[i].key != NULL && c->lines[i].problem == NULL &&
		    same_section(c->lines[i].section, section) &&
		    strcmp(c->lines[i].key, key) == 0)
			v = c->lines[i].value;
	return v;
}

size_t
config_profiles(const struct config *c, const char **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->lines[i].header && c->lines[i].problem == NULL && n < max)
			out[n++] = c->lines[i].section;
	return n;
}

enum gr_err
config_select_profile(struct config *c, const char *profile, struct gr_error *err)
{
	const char *names[64];
	size_t n, i;

	free(c->profile);
	c->profile = NULL;
	if (profile == NULL || *profile == '\0')
		return GR_OK;
	n = config_profiles(c, names, ARRAY_LEN(names));
	for (i = 0; i < n; i++)
		if (strcmp(names[i], profile) == 0) {
			c->profile = xstrdup(profile);
			return GR_OK;
		}
	return gr_fail(err, GR_EUSAGE, "no profile '%s' in %s (add a '[profile %s]' section)",
	    profile, c->path, profile);
}

const char *
config_profile(const struct config *c)
{
	return c->profile;
}

const char *
config_get(const struct config *c, const char *key)
{
	const struct config_key *k;
	const char *v = NULL;
	char canon[16];

	key = canonical_key(key, canon, sizeof(canon));
	if (c != NULL && c->profile != NULL)
		v = lookup(c, c->profile, key);
	if (v == NULL && c != NULL)
		v = lookup(c, NULL, key);
	if (v == NULL && (k = config_key_find(key)) != NULL)
		v = k->def;
	return v;
}

long long
config_get_int(const struct config *c, const char *key, long long def)
{
	const char *v = config_get(c, key);
	const struct config_key *k = config_key_find(key);
	long long n;

	if (v == NULL)
		return def;
	if (k != NULL && (k->kind == CK_DURATION || k->kind == CK_INTERVAL))
		return parse_duration(v);
	return parse_int(v, LLONG_MIN, LLONG_MAX, &n) ? n : def;
}

int64_t
config_get_money(const struct config *c, const char *key)
{
	const char *v = config_get(c, key);
	int64_t m;

	return v != NULL && money_parse(v, &m) ? m : -1;
}

int64_t
config_get_money_in(const struct config *c, const char *key, char *code)
{
	const char *v = config_get(c, key);
	int64_t m;

	money_currency_set(code, NULL);
	return v != NULL && money_parse_in(v, &m, code) ? m : -1;
}

/* A provider's own key: "slurm" + "workdir" -> the value of slurm.workdir. */
static const char *
provider_get(const struct config *c, const char *provider, const char *what)
{
	char key[160];
	const char *v;

	if (c == NULL)
		return NULL;
	snprintf(key, sizeof(key), "%s.%s", provider, what);
	v = config_get(c, key);
	return v != NULL && v[0] != '\0' ? v : NULL;
}

bool
config_get_currency(const struct config *c, const char *key, char *code)
{
	const char *v = config_get(c, key);

	return v != NULL && money_currency_parse(v, strlen(v), code);
}

bool
config_gpu_rate(const struct config *c, const char *provider, const char *gpu_type,
    int64_t *per_gpu_hour, char *currency)
{
	char what[96], cur[CURRENCY_MAX], named[CURRENCY_MAX];
	const char *v;

	snprintf(what, sizeof(what), "%s.currency", provider);
	if (!config_get_currency(c, what, cur))
		money_currency_set(cur, "USD");
	if (currency != NULL)
		money_currency_set(currency, cur);
	snprintf(what, sizeof(what), "price.%s", gpu_type);
	if ((v = provider_get(c, provider, what)) == NULL)
		return false;
	/* A bare amount is in the rates' currency; one that names another is never converted. */
	if (money_parse(v, per_gpu_hour))
		return true;
	return money_parse_in(v, per_gpu_hour, named) && money_same_currency(named, cur);
}

const struct gpu_model *
config_gpu_model(const struct config *c, const char *provider, const char *gpu_type)
{
	char what[96];
	const char *v;

	snprintf(what, sizeof(what), "gpu.%s", gpu_type);
	v = provider_get(c, provider, what);
	return v != NULL ? catalogue_by_id(v) : NULL;
}

const char *
config_job_workdir(const struct config *c, const char *provider)
{
	const char *v = provider_get(c, provider, "workdir");

	return v != NULL ? v : "/tmp";
}

const char *
config_job_output_dir(const struct config *c, const char *provider)
{
	return provider_get(c, provider, "output_dir");
}

struct fx_walk {
	const struct config *c;
	struct fx_rates *fx;
};

static void
fx_each(const char *profile, const char *key, const char *value, void *ctx)
{
	struct fx_walk *w = ctx;
	int64_t m;
	const char *v;

	(void)profile;
	(void)value;
	if (strncmp(key, "fx.", 3) != 0 || !money_currency_valid(key + 3))
		return;
	/* The selected profile's value wins over the top level's. */
	v = config_get(w->c, key);
	if (v != NULL && money_parse(v, &m) && m > 0)
		fx_set(w->fx, key + 3, m);
}

void
config_fx(const struct config *c, struct fx_rates *out)
{
	struct fx_walk w = { c, out };

	memset(out, 0, sizeof(*out));
	if (c != NULL)
		config_each(c, fx_each, &w);
}

bool
config_get_bool(const struct config *c, const char *key, bool def)
{
	const char *v = config_get(c, key);

	return v == NULL ? def : strcmp(v, "true") == 0;
}

void
config_each(const struct config *c, void (*fn)(const char *, const char *, const char *, void *),
    void *ctx)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->lines[i].key != NULL && c->lines[i].problem == NULL)
			fn(c->lines[i].section, c->lines[i].key, c->lines[i].value, ctx);
}

/* Remove the lines of key in profile's section from line from on; whether there were any. */
static bool
drop_key(struct config *c, size_t from, const char *profile, const char *key)
{
	size_t i;
	bool found = false;

	for (i = from; i < c->n;) {
		struct config_line *l = &c->lines[i];

		if (l->key != NULL && same_section(l->section, profile) &&
		    strcmp(l->key, key) == 0) {
			free_line(l);
			memmove(l, l + 1, (c->n - i - 1) * sizeof(*l));
			c->n--;
			found = true;
			continue;
		}
		i++;
	}
	return found;
}

enum gr_err
config_set(struct config *c, const char *profile, const char *key, const char *value,
    struct gr_error *err)
{
	size_t i, last = SIZE_MAX;
	bool have_section = profile == NULL;
	char *text, canon[16];

	key = canonical_key(key, canon, sizeof(canon));
	if (profile != NULL && !valid_profile_name(profile))
		return gr_fail(err, GR_EUSAGE, "bad profile name '%s'", profile);
	if (strchr(value, '\n') != NULL)
		return gr_fail(err, GR_EUSAGE, "a config value cannot contain a newline");
	if (config_check(key, value, err) != GR_OK)
		return err->code;
	text = xasprintf("%s = %s", key, value);
	for (i = 0; i < c->n; i++) {
		struct config_line *l = &c->lines[i];

		if (!same_section(l->section, profile))
			continue;
		if (l->header)
			have_section = true;
		last = i;
		if (l->key != NULL && strcmp(l->key, key) == 0) {
			free(l->text);
			free(l->value);
			free(l->problem);
			l->text = text;
			l->value = xstrdup(value);
			l->problem = NULL;
			/* One line per key: a later one would win over this, or stay unread. */
			drop_key(c, i + 1, profile, key);
			return config_save(c, err);
		}
	}
	if (!have_section) {
		char *hdr = xasprintf("[profile %s]", profile);

		add_line(c, hdr, profile, NULL, NULL, true, SIZE_MAX);
		free(hdr);
		last = c->n - 1;
	} else if (profile == NULL) {
		/* Top-level keys go before the first profile section. */
		for (last = 0; last < c->n && !c->lines[last].header; last++)
			;
		last--;
	}
	add_line(c, text, profile, key, value, false, last == SIZE_MAX ? 0 : last + 1);
	free(text);
	return config_save(c, err);
}

enum gr_err
config_unset(struct config *c, const char *profile, const char *key, struct gr_error *err)
{
	char canon[16];

	key = canonical_key(key, canon, sizeof(canon));
	if (!drop_key(c, 0, profile, key))
		return gr_fail(err, GR_ENOTFOUND, "'%s' is not set%s%s", key,
		    profile ? _(" in profile ") : "", profile ? profile : "");
	return config_save(c, err);
}

enum gr_err
config_save(const struct config *c, struct gr_error *err)
{
	struct sb sb;
	char dir[4096], *slash;
	enum gr_err rc;
	size_t i;

	strlcpy_(dir, c->path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash != NULL) {
		*slash = '\0';
		if (paths_mkdir(dir, err) != GR_OK)
			return err->code;
	}
	sb_init(&sb);
	for (i = 0; i < c->n; i++) {
		sb_adds(&sb, c->lines[i].text);
		sb_addc(&sb, '\n');
	}
	rc = atomic_write(c->path, sb.buf, sb.len, 0600, err);
	sb_release(&sb);
	return rc;
}
