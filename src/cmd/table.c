/*
 * The command table: every command, sorted by name. Dispatch, help, the shell and the
 * completion helper all read this one list.
 */
#include <stddef.h>

#include "gpurent/cmd.h"

extern const struct command cmd_advise, cmd_audit, cmd_budget, cmd_code, cmd_complete, cmd_config, cmd_costs, cmd_cp,
    cmd_forward, cmd_dashboard, cmd_destroy, cmd_exporter,
    cmd_gpus, cmd_help, cmd_launch, cmd_login, cmd_logout, cmd_ls, cmd_metrics, cmd_offers,
    cmd_prepay, cmd_providers, cmd_reconcile, cmd_shell, cmd_show, cmd_sim, cmd_ssh, cmd_ssh_config, cmd_start, cmd_state, cmd_stop, cmd_version,
    cmd_jobs, cmd_kill, cmd_logs, cmd_run_job, cmd_verify, cmd_events, cmd_group, cmd_guard, cmd_watch;

const struct command *const commands[] = {
	&cmd_complete,
	&cmd_advise,
	&cmd_audit,
	&cmd_budget,
	&cmd_code,
	&cmd_config,
	&cmd_costs,
	&cmd_cp,
	&cmd_dashboard,
	&cmd_destroy,
	&cmd_events,
	&cmd_exporter,
	&cmd_forward,
	&cmd_gpus,
	&cmd_group,
	&cmd_guard,
	&cmd_help,
	&cmd_jobs,
	&cmd_kill,
	&cmd_launch,
	&cmd_login,
	&cmd_logout,
	&cmd_logs,
	&cmd_ls,
	&cmd_metrics,
	&cmd_offers,
	&cmd_prepay,
	&cmd_providers,
	&cmd_reconcile,
	&cmd_run_job,
	&cmd_shell,
	&cmd_show,
	&cmd_sim,
	&cmd_ssh,
	&cmd_ssh_config,
	&cmd_start,
	&cmd_state,
	&cmd_stop,
	&cmd_verify,
	&cmd_version,
	&cmd_watch,
	NULL,
};
