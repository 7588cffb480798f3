/*
 * gpurent stop: its entry in the command table; lifecycle.c does the work.
 */
#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "lifecycle.h"

const struct command cmd_stop = {
	.name = "stop",
	.args = "ID...",
	.summary = N_("stop instances, keeping their disks (billed for storage)"),
	.help =
	    N_("Waits until each instance has stopped (--no-wait: only until the provider has\n"
	    "accepted), so 'gpurent stop ID && gpurent start ID' works. An instance still\n"
	    "provisioning or starting is waited for first; one that does not settle within\n"
	    "--timeout is a state conflict (status 13). A provider that cannot stop instances\n"
	    "(lambda) says so; use destroy there."),
	.opts = stop_opts,
	.complete_args = CPL_INSTANCE,
	.run = lifecycle_run,
};
