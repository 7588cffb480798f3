/*
 * complete.c - what the word under the cursor can become: commands, options, providers,
 * GPUs, filter terms, and offer and instance ids from the local database (instant, and
 * offline). Plain functions; the readline glue in shell.c calls shell_complete.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/backend.h"
#include "gpurent/catalogue.h"
#include "gpurent/cmd.h"
#include "gpurent/columns.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/groups.h"
#include "gpurent/idcache.h"
#include "gpurent/jobs.h"
#include "gpurent/ledger.h"
#include "gpurent/managed_jobs.h"
#include "gpurent/model.h"
#include "gpurent/offer_cache.h"
#include "gpurent/session.h"
#include "gpurent/shell.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

#define IDS_MAX 2000

struct cands {
	char **v;
	size_t n;
	const char *prefix;	/* only words starting with this are kept */
	const char *lead;	/* prepended to each word ("--output=", "gpu=h100,") */
	bool ci;		/* compare the prefix ignoring case */
};

static void
cand_add(struct cands *c, const char *word)
{
	size_t pl = strlen(c->prefix);

	if (c->ci ? !prefix_ci(word, c->prefix) : strncmp(word, c->prefix, pl) != 0)
		return;
	c->v = xreallocarray(c->v, c->n + 2, sizeof(*c->v));
	c->v[c->n++] = xasprintf("%s%s", c->lead ? c->lead : "", word);
	c->v[c->n] = NULL;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort, drop duplicates, and hand back a NULL-terminated array (never NULL). */
static char **
cand_finish(struct cands *c)
{
	size_t i, j;

	if (c->v == NULL)
		return xcalloc(1, sizeof(char *));
	qsort(c->v, c->n, sizeof(*c->v), str_cmp);
	for (i = j = 0; i < c->n; i++) {
		if (j > 0 && strcmp(c->v[j - 1], c->v[i]) == 0) {
			free(c->v[i]);
			continue;
		}
		c->v[j++] = c->v[i];
	}
	c->v[j] = NULL;
	return c->v;
}

static void
add_commands(struct cands *c)
{
	for (size_t i = 0; commands[i] != NULL; i++) {
		if (commands[i]->flags & (CMD_HIDDEN | CMD_NOT_IN_SHELL))
			continue;
		cand_add(c, commands[i]->name);
		if (commands[i]->alias != NULL)
			cand_add(c, commands[i]->alias);
	}
}

static void
add_providers(struct cands *c)
{
	const struct backend_ops *const *all;
	size_t n;

	all = backend_registry(&n);
	for (size_t i = 0; i < n; i++)
		cand_add(c, all[i]->name);
}

static void
add_gpus(struct cands *c)
{
	const struct gpu_model *m;
	size_t n;
	bool ci = c->ci;

	c->ci = true;
	m = catalogue_all(&n);
	for (size_t i = 0; i < n; i++) {
		cand_add(c, m[i].id);
		if (m[i].family != NULL)
			cand_add(c, m[i].family);
	}
	c->ci = ci;
}

/* The words of a ", "-separated help list ("price, gpu-price, ..."). */
static void
add_list(struct cands *c, const char *list)
{
	char buf[512], *tok, *save = NULL;

	if (list == NULL)
		return;
	strlcpy_(buf, list, sizeof(buf));
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save))
		cand_add(c, tok);
}

static void
add_profiles(struct cands *c, struct session *s)
{
	struct config *cfg;
	const char *names[64];
	size_t n;

	if (session_config(s, &cfg, NULL) != GR_OK)
		return;
	n = config_profiles(cfg, names, ARRAY_LEN(names));
	for (size_t i = 0; i < n && i < ARRAY_LEN(names); i++)
		cand_add(c, names[i]);
}

/* config's subcommands, then its keys (which word comes next is the user's choice). */
static void
add_config_keys(struct cands *c)
{
	const struct config_key *k;
	size_t n;

	add_list(c, "get, set, unset, list, path");
	k = config_keys(&n);
	/* fx.CODE describes a key per currency: the one a provider prices in is offered. */
	for (size_t i = 0; i < n; i++)
		cand_add(c, strcmp(k[i].name, "fx.CODE") == 0 ? "fx.CNY" : k[i].name);
}

/* Column names, for --fields: offers' and instances'. */
static void
add_fields(struct cands *c)
{
	size_t i;

	for (i = 0; i < OCOL__COUNT; i++)
		cand_add(c, offer_columns[i].name);
	for (i = 0; i < ICOL__COUNT; i++)
		cand_add(c, instance_columns[i].name);
}

static void
add_word(const char *word, void *ctx)
{
	cand_add(ctx, word);
}

static void
add_cached(const char *id, const char *desc, void *ctx)
{
	(void)desc;
	cand_add(ctx, id);
}

/* The ids of a kind that the id cache holds, and the state they came from (NULL: none). */
static struct state *
add_cached_ids(struct cands *c, struct session *s, enum idcache_kind kind)
{
	struct state *st;

	if (session_state(s, &st, NULL) != GR_OK)
		return NULL;
	idcache_each(st, kind, c->prefix, add_cached, c, NULL);
	return st;
}

/*
 * Instances known locally: those `ls` and `launch` recorded, the simulator's live ones,
 * and every instance the cost ledger saw billed in the last 30 days (any provider).
 */
static void
add_instances(struct cands *c, struct session *s)
{
	struct state *st = add_cached_ids(c, s, IDC_INSTANCE);

	if (st == NULL)
		return;
	sim_each_live_id(st, IDS_MAX, add_word, c);
	ledger_each_instance_id(st, (int64_t)time(NULL) - 30 * 86400, IDS_MAX, add_word, c);
}

/* Jobs recorded by `gpurent run`, newest first. */
/* The elastic groups' names (groups.h). */
static void
add_groups(struct cands *c, struct session *s)
{
	struct state *st;
	struct group *g;
	size_t n, i;

	if (session_state(s, &st, NULL) != GR_OK || groups_load(st, &g, &n, NULL) != GR_OK)
		return;
	for (i = 0; i < n; i++)
		cand_add(c, g[i].name);
	free(g);
}

static void
add_jobs(struct cands *c, struct session *s)
{
	struct managed_job *v = NULL;
	struct state *st;
	size_t n, i;

	if (session_state(s, &st, NULL) != GR_OK)
		return;
	remote_job_each_id(st, IDS_MAX, add_word, c);
	/* The managed jobs' ids (mN) too: jobs, logs and kill take them. */
	if (managed_job_load(st, &v, &n, NULL) != GR_OK)
		return;
	for (i = 0; i < n; i++)
		add_word(v[i].id, c);
	free(v);
}

/* Cached answers older than this are refreshed in the background when completion reads them. */
#define OFFER_REFRESH_S 300
/* One background refresh at a time: another starts only this long after the last began. */
#define OFFER_REFRESH_GAP_S 60

/*
 * Start `gpurent offers -o ids --limit 0` (this session's profile and providers) detached
 * from the terminal, its output to /dev/null: it asks the providers and refreshes the offer
 * cache and the id cache, while this completion answers at once from what is kept. The
 * refresher's pid and start time go to the meta table (offer_cache.refresh), which is also
 * what keeps a burst of completions from starting several.
 */
static void
refresh_offers(struct session *s, struct state *st)
{
	char exe[4096], buf[64];
	char *argv[8 + 2 * SESSION_MAX_PROVIDERS];
	int64_t now = (int64_t)time(NULL);
	long long began = 0;
	int fds[2], argc = 0;
	pid_t child, refresher = 0;
	ssize_t len;
	size_t i;

	if (offer_cache_newest(st) > now - OFFER_REFRESH_S)
		return;
	if (state_meta_get(st, "offer_cache.refresh", buf, sizeof(buf)) &&
	    sscanf(buf, "%lld", &began) == 1 && began > now - OFFER_REFRESH_GAP_S && began <= now)
		return;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0 || pipe(fds) != 0)
		return;
	exe[len] = '\0';
	argv[argc++] = (char *)"gpurent";
	if (s->profile != NULL) {
		argv[argc++] = (char *)"--profile";
		argv[argc++] = (char *)s->profile;
	}
	for (i = 0; i < s->n_providers; i++) {
		argv[argc++] = (char *)"--provider";
		argv[argc++] = (char *)s->providers[i];
	}
	argv[argc++] = (char *)"offers";
	argv[argc++] = (char *)"-o";
	argv[argc++] = (char *)"ids";
	argv[argc++] = (char *)"--limit";
	argv[argc++] = (char *)"0";
	argv[argc] = NULL;
	/* Twice forked, so that no zombie waits on this process (the shell lives long). */
	child = fork();
	if (child == 0) {
		pid_t p;
		int null;

		close(fds[0]);
		setsid();
		p = fork();
		if (p != 0) {
			if (write(fds[1], &p, sizeof(p)) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(exe, argv);
		_exit(127);
	}
	close(fds[1]);
	if (child > 0) {
		if (read(fds[0], &refresher, sizeof(refresher)) != (ssize_t)sizeof(refresher))
			refresher = 0;
		waitpid(child, NULL, 0);
	}
	close(fds[0]);
	if (refresher > 0) {
		snprintf(buf, sizeof(buf), "%lld %ld", (long long)now, (long)refresher);
		state_meta_set(st, "offer_cache.refresh", buf, NULL);
	}
}

/*
 * Offers the user has seen (those `offers` printed last, in the id cache) and every offer
 * of the providers' answers kept in the offer cache; a cache older than OFFER_REFRESH_S is
 * refreshed in the background for the next completion.
 */
static void
add_offers(struct cands *c, struct session *s)
{
	struct state *st = add_cached_ids(c, s, IDC_OFFER);

	if (st == NULL)
		return;
	offer_cache_each_id(st, c->prefix, IDS_MAX, add_word, c);
	refresh_offers(s, st);
}

static void
add_filter_values(struct cands *c, struct session *s, const char *field)
{
	if (strcmp(field, "gpu") == 0)
		add_gpus(c);
	else if (strcmp(field, "provider") == 0)
		add_providers(c);
	else if (strcmp(field, "type") == 0) {
		cand_add(c, offer_type_name(OFFER_ON_DEMAND));
		cand_add(c, offer_type_name(OFFER_INTERRUPTIBLE));
		cand_add(c, offer_type_name(OFFER_RESERVED));
	} else if (strcmp(field, "term") == 0) {
		cand_add(c, "1mo");
		cand_add(c, "3mo");
	} else if (strcmp(field, "interconnect") == 0) {
		cand_add(c, interconnect_name(IC_PCIE));
		cand_add(c, interconnect_name(IC_NVLINK));
		cand_add(c, interconnect_name(IC_INFINIBAND));
	} else if (strcmp(field, "vendor") == 0) {
		add_list(c, catalogue_vendors_help());
	} else if (strcmp(field, "region") == 0) {
		static const char *const regions[] = { "af", "asia", "eu", "na", "oc", "sa" };

		for (size_t i = 0; i < ARRAY_LEN(regions); i++)
			cand_add(c, regions[i]);
	}
	(void)s;
}

/*
 * A filter term: "gp" -> "gpu=", "gpu=h1" -> "gpu=H100-SXM-80GB", "gpu=a100,h" -> the
 * next GPU after the comma.
 */
static void
add_filter(struct cands *c, struct session *s, const char *partial)
{
	const char *op = strpbrk(partial, "=<>!"), *val, *comma;
	char field[32], lead[256];
	size_t fl;

	if (op == NULL) {
		for (int f = 0; f < FF__COUNT; f++) {
			char term[40];

			snprintf(term, sizeof(term), "%s%s", filter_field_name((enum filter_field)f),
			    f == FF_GPU || f == FF_REGION || f == FF_TYPE || f == FF_PROVIDER ||
			    f == FF_INTERCONNECT || f == FF_VENDOR ? "=" : "");
			cand_add(c, term);
		}
		return;
	}
	fl = (size_t)(op - partial);
	if (fl >= sizeof(field))
		return;
	memcpy(field, partial, fl);
	field[fl] = '\0';
	val = op;
	while (*val == '=' || *val == '<' || *val == '>' || *val == '!')
		val++;
	comma = strrchr(val, ',');
	if (comma != NULL)
		val = comma + 1;
	if ((size_t)(val - partial) >= sizeof(lead))
		return;
	memcpy(lead, partial, (size_t)(val - partial));
	lead[val - partial] = '\0';
	c->prefix = val;
	c->lead = lead;
	add_filter_values(c, s, field);
	c->lead = NULL;
}

/* The kinds whose values are a fixed list: the words the option handlers accept. */
static const char *const fixed_words[] = {
	[CPL_FORMAT] = "table, json, csv, tsv, ids",
	[CPL_AUDIT_BY] = "instance, label, provider, gpu, user",
	[CPL_COSTS_BY] = "instance, label, provider, gpu, day, user",
	[CPL_BURST] = "interruptible, on-demand",
	[CPL_PREEMPT_REASON] = "outbid, host-failure, unreachable",
	[CPL_STATE_ARGS] = "migrate",
	[CPL_BUDGET_ARGS] = "show, set, unset",
};

/* Fill c with what an argument of kind k can be. Returns false for file names. */
static bool
add_kind(struct cands *c, struct session *s, enum opt_complete k, const char *partial)
{
	if ((size_t)k < ARRAY_LEN(fixed_words) && fixed_words[k] != NULL)
		add_list(c, fixed_words[k]);
	switch (k) {
	case CPL_NONE:
		break;
	case CPL_FIELD:
		add_fields(c);
		break;
	case CPL_OFFER:
		add_offers(c, s);
		break;
	case CPL_INSTANCE:
		add_instances(c, s);
		break;
	case CPL_PROVIDER:
		add_providers(c);
		break;
	case CPL_SORT: {
		/* "-price" means what "price-" does: complete the key after a leading sign. */
		const char *prefix = c->prefix, *lead = c->lead;
		char signed_lead[128];

		if (prefix[0] == '-' || prefix[0] == '+') {
			snprintf(signed_lead, sizeof(signed_lead), "%s%c", lead ? lead : "",
			    prefix[0]);
			c->lead = signed_lead;
			c->prefix = prefix + 1;
		}
		add_list(c, sort_keys_help());
		c->lead = lead;
		c->prefix = prefix;
		break;
	}
	case CPL_STATE:
		/* ls --state: destroyed instances are never listed. */
		for (int i = ST_PROVISIONING; i < ST__COUNT; i++)
			if (i != ST_DESTROYED)
				cand_add(c, inst_state_name((enum inst_state)i));
		break;
	case CPL_FORMAT:
	case CPL_AUDIT_BY:
	case CPL_COSTS_BY:
	case CPL_BURST:
	case CPL_PREEMPT_REASON:
	case CPL_STATE_ARGS:
	case CPL_BUDGET_ARGS:
		break;	/* fixed_words */
	case CPL_GPU:
		add_gpus(c);
		break;
	case CPL_CONFIG_KEY:
		add_config_keys(c);
		break;
	case CPL_FILE:
		return false;
	case CPL_COMMAND:
		add_commands(c);
		break;
	case CPL_PROFILE:
		add_profiles(c, s);
		break;
	case CPL_FILTER:
		add_filter(c, s, partial);
		break;
	case CPL_JOB:
		add_jobs(c, s);
		break;
	case CPL_GROUP_ARGS:
		/* group's subcommands, then the names (which word comes next is the user's). */
		add_list(c, "create, ls, show, rm");
		add_groups(c, s);
		break;
	case CPL_GROUP:
		add_groups(c, s);
		break;
	}
	return true;
}

/* The option a word names ("--output", "-o"), in the command's options or the global ones. */
static const struct cmd_opt *
word_opt(const struct command *cmd, const char *w)
{
	const struct cmd_opt *o = NULL;

	if (w[0] != '-' || w[1] == '\0')
		return NULL;
	if (w[1] == '-') {
		size_t len = strcspn(w + 2, "=");

		if (w[2 + len] == '=')
			return NULL;	/* the value is in the word itself */
		o = cmd_opt_long(cmd, w + 2, len, NULL);
	} else if (w[2] == '\0') {
		o = cmd_opt_short(cmd, w[1], NULL);
	}
	return o;
}

/* Whether a non-repeatable option was given already. */
static bool
opt_used(const struct command *cmd, const struct cmd_opt *o, char **words, int nwords)
{
	size_t len = strlen(o->name);

	if (o->how & OPT_REPEAT)
		return false;
	for (int i = 1; i < nwords; i++) {
		if (word_opt(cmd, words[i]) == o)
			return true;
		if (strncmp(words[i], "--", 2) == 0 && strncmp(words[i] + 2, o->name, len) == 0 &&
		    words[i][2 + len] == '=')
			return true;
	}
	return false;
}

static void
add_opts(struct cands *c, const struct command *cmd, const struct cmd_opt *opts, char **words,
    int nwords)
{
	for (; opts != NULL && opts->name != NULL; opts++) {
		char name[64];

		if (opt_used(cmd, opts, words, nwords))
			continue;
		snprintf(name, sizeof(name), "--%s", opts->name);
		cand_add(c, name);
	}
}

char **
shell_complete(struct session *s, char **words, int nwords, const char *partial)
{
	struct cands c = { .prefix = partial };
	const struct command *cmd;
	const struct cmd_opt *o;
	int first = 0;

	/* Global options may come before the command: skip them and their values. */
	while (first < nwords && words[first][0] == '-') {
		o = word_opt(NULL, words[first]);
		first += o != NULL && o->arg != NULL ? 2 : 1;
	}
	if (first >= nwords) {
		if (partial[0] == '-' && nwords == first) {
			add_opts(&c, NULL, global_opts, words, nwords);
			return cand_finish(&c);
		}
		if (nwords > 0 && first > nwords) {	/* the value of a global option */
			o = word_opt(NULL, words[nwords - 1]);
			if (o != NULL && !add_kind(&c, s, o->complete, partial))
				return NULL;
			return cand_finish(&c);
		}
		add_commands(&c);
		cand_add(&c, "exit");
		cand_add(&c, "quit");
		if (cmd_find("help") == NULL)
			cand_add(&c, "help");
		return cand_finish(&c);
	}
	if (strcmp(words[first], "help") == 0 && cmd_find("help") == NULL) {
		add_commands(&c);
		return cand_finish(&c);
	}
	if ((cmd = cmd_find(words[first])) == NULL)
		return cand_finish(&c);

	/* The value of an option: after "--output" or in "--output=js". */
	if (nwords > first + 1 && (o = word_opt(cmd, words[nwords - 1])) != NULL &&
	    o->arg != NULL) {
		bool after_dd = false;

		for (int i = first + 1; i < nwords - 1; i++)
			if (strcmp(words[i], "--") == 0)
				after_dd = true;
		if (!after_dd) {
			if (!add_kind(&c, s, o->complete, partial))
				return NULL;
			return cand_finish(&c);
		}
	}
	if (strncmp(partial, "--", 2) == 0 && strchr(partial, '=') != NULL) {
		char lead[80];
		size_t len = (size_t)(strchr(partial, '=') - partial);

		if (len + 2 > sizeof(lead))
			return cand_finish(&c);
		snprintf(lead, sizeof(lead), "%.*s", (int)len, partial);
		if ((o = word_opt(cmd, lead)) == NULL || o->arg == NULL)
			return cand_finish(&c);
		snprintf(lead, sizeof(lead), "%.*s", (int)len + 1, partial);
		c.lead = lead;
		c.prefix = partial + len + 1;
		if (!add_kind(&c, s, o->complete, c.prefix))
			return NULL;
		return cand_finish(&c);
	}
	if (partial[0] == '-') {
		add_opts(&c, cmd, cmd->opts, words + first, nwords - first);
		add_opts(&c, cmd, global_opts, words + first, nwords - first);
		return cand_finish(&c);
	}
	if (!add_kind(&c, s, cmd->complete_args, partial))
		return NULL;
	return cand_finish(&c);
}
