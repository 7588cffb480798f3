/*
 * common.h - helpers shared by the command files (not a public contract).
 */
#ifndef GPURENT_CMD_COMMON_H
#define GPURENT_CMD_COMMON_H

#include "gpurent/backend.h"
#include "gpurent/cmd.h"
#include "gpurent/output.h"
#include "gpurent/team.h"
#include "gpurent/remote.h"
#include "gpurent/session.h"

struct audit_live;
/*
 * For audit and advise: the instances listed now and every selected provider's offers into
 * insts and offers (what could not be had is said on stderr, and they go without it), and
 * audit's view of each listed instance, insts->n of them (caller frees).
 */
struct audit_live *cmd_ask_providers(struct cmd_ctx *c, struct instance_list *insts,
    struct offer_list *offers);

/* Print the output or report the write error; returns the exit status to use. */
int finish_output(struct cmd_ctx *c, int status);
/*
 * Print rows with the global output options (out_print's arguments) and finish_output
 * with status; an unknown --fields name is a usage error.
 */
int cmd_print(struct cmd_ctx *c, const struct column *cols, size_t ncols, size_t id_col,
    const void *rows, size_t n, size_t size, cell_fn get, void *ctx, int status);

/*
 * out_print's output (out_print_record's when record) to fp without its trailing newline
 * and spaces: a JSON array or record nested in an object.
 */
enum gr_err cmd_print_nested(FILE *fp, const struct column *cols, size_t ncols, size_t id_col,
    const void *rows, size_t n, size_t size, cell_fn get, void *ctx, bool record,
    struct gr_error *err);

/*
 * How a listing of a shared store's rows shows them: in a team profile, with a USER column
 * (team), and with --mine (mine set) only team.user's rows (who); who is NULL for every
 * row, as without --mine and in a personal profile, whose rows are all yours.
 */
struct team_view {
	bool team;
	const char *who;
	char me[TEAM_NAME_MAX + 1];
};
void cmd_team_view(struct cmd_ctx *c, bool mine, struct team_view *out);
/* In a team profile whose own budget.day or budget.month is set, say once on stderr that it
   is not read (each person's are in the team's state): a budget must not seem to hold. */
void cmd_warn_profile_budget(struct cmd_ctx *c);
/* Whether a row of user should be listed. */
bool team_view_keeps(const struct team_view *v, const char *user);
/*
 * How many of a listing's n columns to print, the last being its USER: all in a team
 * profile, and in JSON, whose user key is always there; else all but that one, so that a
 * personal listing's table and CSV columns stay as they were.
 */
size_t team_view_columns(const struct team_view *v, size_t n);

/* Name each failed provider of a fan-out on stderr; returns how many failed. */
size_t report_fanout(struct cmd_ctx *c, const struct fanout_result *res, size_t n);
/*
 * A fan-out (frc: what it returned) that the command goes on without where it fails: the
 * providers that failed named when others answered; true when none answered, for the
 * caller to say what it goes on without.
 */
bool fanout_failed_whole(struct cmd_ctx *c, const struct fanout_result *res, enum gr_err frc);
/* With -v: each provider's outcome, count and time on stderr. */
void report_timing(struct cmd_ctx *c, const struct fanout_result *res, size_t n);
/*
 * How a listing over the session's backends (frc, err: what session_instances returned)
 * ends before its output: the timing said (-v), and -1 when the output goes ahead, with
 * *status 0, or EXIT_PARTIAL once the providers that failed are named; else the status to
 * exit with at once (none could list).
 */
int fanout_outcome(struct cmd_ctx *c, const struct fanout_result *res, enum gr_err frc,
    const struct gr_error *err, int *status);

/*
 * Run op on each id with its provider's backend; report each failure on stderr with its id.
 * Returns 0 when all succeeded, the error's status when one id was given, EXIT_PARTIAL
 * when some of several failed (and the status of the failures when all failed).
 */
typedef enum gr_err (*id_op)(struct cmd_ctx *c, struct backend *b, const char *id,
    struct gr_error *err, void *data);
int for_each_id(struct cmd_ctx *c, int argc, char **argv, id_op op, void *data);

/*
 * The index of an option's arg among n names, or -1 after a usage error that says what
 * the option may be (what_may_be: an N_() literal, translated here).
 */
int cmd_choice(struct cmd_ctx *c, const char *arg, const char *const *names, size_t n,
    const char *what_may_be);

/* An option handler for commands whose one option is a flag: sets the bool data points to. */
int cmd_flag(struct cmd_ctx *c, int id, const char *arg, void *data);

/*
 * Where ssh listens on instance id, with the identity from config and the state directory:
 * a clear error when the id is unknown, not running, has no endpoint yet, or its provider
 * gave fields that must not reach ssh.
 */
enum gr_err cmd_endpoint(struct cmd_ctx *c, const char *id, struct remote_endpoint *ep,
    struct gr_error *err);
/* Refuse file copies and forwards over a shell-only proxy, saying how to get full ssh. */
enum gr_err cmd_endpoint_full(const struct remote_endpoint *ep, struct gr_error *err);

/* guard install's flags. */
enum {
	AGENT_DRY_RUN = 1 << 0,		/* print the agent's script, install nothing */
	AGENT_WITH_KEY = 1 << 1,	/* place the account's API key where the provider has no
					 * credential of the instance's own */
	AGENT_YES = 1 << 2,		/* a guard that terminates is not asked about */
};

/*
 * Put the instance guard's agent on instance id (guard.c: guard install's one instance),
 * saying on stderr what it holds; flags AGENT_*. until, max_cost: 0 none; max_cost in
 * currency.
 */
enum gr_err cmd_guard_install(struct cmd_ctx *c, const char *id, int64_t until,
    int64_t max_cost, const char *currency, unsigned flags, struct gr_error *err);

#endif
