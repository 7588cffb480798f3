/*
 * common.c - what the command files share: ending output, reporting a fan-out's failures,
 * running an operation on each id, reading WHEN options (common.h says what each does).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/audit.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "common.h"

int
finish_output(struct cmd_ctx *c, int status)
{
	if (fflush(c->out) != 0 || ferror(c->out)) {
		/* A full disk or a closed pipe must not look like success. */
		if (errno != EPIPE)
			fprintf(stderr, _("gpurent: write failure on standard output: %s\n"),
			    strerror(errno));
		clearerr(c->out);
		return status ? status : EXIT_ERROR;
	}
	return status;
}

int
cmd_print(struct cmd_ctx *c, const struct column *cols, size_t ncols, size_t id_col,
    const void *rows, size_t n, size_t size, cell_fn get, void *ctx, int status)
{
	struct gr_error err = { 0 };

	if (out_print(c->out, &out_global, cols, ncols, id_col, rows, n, size, get, ctx,
	    &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, status);
}

enum gr_err
cmd_print_nested(FILE *fp, const struct column *cols, size_t ncols, size_t id_col,
    const void *rows, size_t n, size_t size, cell_fn get, void *ctx, bool record,
    struct gr_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	enum gr_err rc;

	if (m == NULL)
		return gr_fail(err, GR_EFAIL, "out of memory");
	rc = record ? out_print_record(m, &out_global, cols, ncols, rows, get, ctx, err) :
	    out_print(m, &out_global, cols, ncols, id_col, rows, n, size, get, ctx, err);
	fclose(m);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (rc == GR_OK)
		fputs(buf, fp);
	free(buf);
	return rc;
}

size_t
report_fanout(struct cmd_ctx *c, const struct fanout_result *res, size_t n)
{
	size_t i, failed = 0;
	char clean[sizeof(res->err.msg)];

	for (i = 0; i < n; i++)
		if (res[i].code != GR_OK) {
			failed++;
			fflush(c->out);
			fprintf(stderr, "gpurent: %s: %s\n", res[i].b->ops->name,
			    text_sanitize(clean, sizeof(clean), res[i].err.msg));
		}
	return failed;
}

bool
fanout_failed_whole(struct cmd_ctx *c, const struct fanout_result *res, enum gr_err frc)
{
	if (frc == GR_EPARTIAL)
		report_fanout(c, res, c->s->n_backends);
	return frc != GR_OK && frc != GR_EPARTIAL;
}

int
fanout_outcome(struct cmd_ctx *c, const struct fanout_result *res, enum gr_err frc,
    const struct gr_error *err, int *status)
{
	report_timing(c, res, c->s->n_backends);
	*status = 0;
	if (frc != GR_OK && frc != GR_EPARTIAL) {
		if (c->s->n_backends > 1) {
			report_fanout(c, res, c->s->n_backends);
			return gr_exit_code(frc);
		}
		return cmd_error(c, err);
	}
	if (frc == GR_EPARTIAL) {
		report_fanout(c, res, c->s->n_backends);
		*status = EXIT_PARTIAL;
	}
	return -1;
}

void
report_timing(struct cmd_ctx *c, const struct fanout_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n && c->s->verbose; i++)
		fprintf(stderr, "gpurent: %s: %s, %zu in %.0f ms\n", res[i].b->ops->name,
		    res[i].code == GR_OK ? "ok" : gr_err_name(res[i].code), res[i].count,
		    res[i].seconds * 1000);
}

int
for_each_id(struct cmd_ctx *c, int argc, char **argv, id_op op, void *data)
{
	int i, failed = 0, last = 0;

	for (i = 0; i < argc && !cmd_interrupted; i++) {
		struct gr_error err = { 0 };
		struct backend *b;

		if (session_backend_for(c->s, argv[i], &b, &err) != GR_OK ||
		    op(c, b, argv[i], &err, data) != GR_OK) {
			char clean[sizeof(err.msg)];

			failed++;
			last = gr_exit_code(err.code);
			fflush(c->out);
			fprintf(stderr, "gpurent: %s: %s\n", argv[i],
			    text_sanitize(clean, sizeof(clean), err.msg));
		}
	}
	if (cmd_interrupted)
		return EXIT_INTERRUPTED;
	if (failed == 0)
		return 0;
	if (argc == 1 || failed == argc)
		return last;
	return EXIT_PARTIAL;
}

int
cmd_choice(struct cmd_ctx *c, const char *arg, const char *const *names, size_t n,
    const char *what_may_be)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0)
			return (int)i;
	cmd_usage_error(c, "%s", _(what_may_be));
	return -1;
}

int
cmd_flag(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	(void)c;
	(void)id;
	(void)arg;
	*(bool *)data = true;
	return 0;
}

struct audit_live *
cmd_ask_providers(struct cmd_ctx *c, struct instance_list *insts, struct offer_list *offers)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct audit_live *live;
	struct filter f;
	size_t i;

	if (fanout_failed_whole(c, res, session_instances(c->s, insts, res, &err)))
		cmd_warn("the instances could not be listed (%s); GPU counts and regions come "
		    "from the history only", err.msg);
	memset(&f, 0, sizeof(f));
	gr_error_clear(&err);
	if (fanout_failed_whole(c, res, session_offers(c->s, &f, offers, res, &err)))
		cmd_warn("the offers could not be searched (%s); no offer is compared with",
		    err.msg);
	live = xcalloc(insts->n ? insts->n : 1, sizeof(*live));
	for (i = 0; i < insts->n; i++) {
		strlcpy_(live[i].id, insts->v[i].id, sizeof(live[i].id));
		strlcpy_(live[i].region, insts->v[i].region, sizeof(live[i].region));
		live[i].gpus = insts->v[i].gpu_count;
	}
	return live;
}

void
cmd_team_view(struct cmd_ctx *c, bool mine, struct team_view *out)
{
	struct gr_error ignored = { 0 };
	struct config *cfg;

	/* A configuration that does not load is its own command's (config) to explain. */
	if (session_config_any(c->s, &cfg, &ignored) != GR_OK)
		cfg = NULL;
	out->team = team_profile(cfg);
	out->who = mine && out->team ? team_user(cfg, out->me, sizeof(out->me)) : NULL;
}

void
cmd_warn_profile_budget(struct cmd_ctx *c)
{
	struct gr_error ignored = { 0 };
	struct config *cfg;

	if (session_config_any(c->s, &cfg, &ignored) != GR_OK || !team_profile(cfg))
		return;
	if (config_get(cfg, "budget.day") != NULL || config_get(cfg, "budget.month") != NULL)
		cmd_warn("budget.day and budget.month of the profile are not read in a team "
		    "profile: each person's are kept in the team's state ('gpurent budget set "
		    "day AMOUNT')");
}

size_t
team_view_columns(const struct team_view *v, size_t n)
{
	return v->team || out_global.format == OUT_JSON ? n : n - 1;
}

bool
team_view_keeps(const struct team_view *v, const char *user)
{
	return v->who == NULL || strcmp(user, v->who) == 0;
}
