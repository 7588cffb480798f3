/*
 * rounds.c - the exporter's sampling rounds (exporter.h): sample every running instance on a
 * schedule and publish what the history holds to the /metrics face (server.c).
 *
 * Each provider has its own lane: a thread with its own session (its backend, its database
 * connection) that lists the provider's instances and samples each running one through the
 * session's door (session_samples: snapshot, then history), every interval. A provider that
 * hangs holds only its own lane: the others keep sampling. The caller's thread never
 * touches the network: every interval it gathers the lanes' last listings, the newest
 * samples from the history and the ledger's figures into a snapshot and publishes it; the
 * HTTP face answers every scrape from the last snapshot.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/costs.h"
#include "gpurent/exporter.h"
#include "gpurent/i18n.h"
#include "gpurent/history.h"
#include "gpurent/session.h"
#include "gpurent/ssh_retry.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

/* Instances whose ssh is tried at once in a lane's round. */
#define LANE_SSH_WIDTH 8

/* One provider's lane: its thread samples; what it found is read under lock. */
struct lane {
	struct session s;		/* the lane's own: one backend, one database connection */
	char name[PROVIDER_MAX];
	long long interval;
	struct ssh_retry retry;		/* the lane's alone: instances whose ssh failed */
	exporter_warn_fn *warn;
	pthread_t th;
	bool started;
	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t wake;
	bool stop;
	bool done;			/* the thread has ended */
	bool listed;			/* at least one listing came back */
	bool sampled;			/* at least one round (listing and samples) ended */
	bool up;			/* the last one succeeded */
	struct instance_list instances;	/* from the last successful listing */
};

/* Sleep up to s seconds, or until the lane is told to stop. */
static void
lane_pause(struct lane *l, long long s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)s;
	pthread_mutex_lock(&l->lock);
	while (!l->stop && pthread_cond_timedwait(&l->wake, &l->lock, &until) == 0)
		;
	pthread_mutex_unlock(&l->lock);
}

static bool
lane_stopping(struct lane *l)
{
	bool stop;

	pthread_mutex_lock(&l->lock);
	stop = l->stop;
	pthread_mutex_unlock(&l->lock);
	return stop;
}

/* Whether instance id is still in the lane's listing (ssh_retry_prune's keep). */
static bool
lane_lists(const char *id, void *data)
{
	const struct lane *l = data;
	size_t i;

	for (i = 0; i < l->instances.n; i++)
		if (strcmp(l->instances.v[i].id, id) == 0)
			return true;
	return false;
}

/*
 * One sample of each running instance of the lane's last listing into the history. With
 * auto, ssh is tried where the lane's memory lets it (ssh_retry.h): an instance whose ssh
 * failed is sampled by the API alone until its retry time, so a round does not pay a
 * failed attempt for it again; a provider whose API has no metrics (Lambda, PPIO, Slurm) has
 * nothing to fall back on, and its instances are tried over ssh every round. The attempts
 * of a round run side by side, LANE_SSH_WIDTH at a time. The lane alone changes its own
 * list: reading it here needs no lock.
 */
static void
lane_sample(struct lane *l)
{
	struct snapshot_job *jobs = xcalloc(l->instances.n + 1, sizeof(*jobs));
	struct probe_snapshot *snaps = xcalloc(l->instances.n + 1, sizeof(*snaps));
	int64_t now = monotonic_ms();
	bool api_metrics = l->s.n_backends > 0 && (l->s.backends[0]->ops->caps & CAP_METRICS);
	size_t i, n = 0;

	ssh_retry_prune(&l->retry, lane_lists, l);
	for (i = 0; i < l->instances.n; i++) {
		if (l->instances.v[i].state != ST_RUNNING)
			continue;
		probe_snapshot_init(&snaps[n]);
		jobs[n].id = l->instances.v[i].id;
		jobs[n].src = !api_metrics || ssh_retry_due(&l->retry, jobs[n].id, now) ?
		    METRICS_AUTO : METRICS_API;
		jobs[n].out = &snaps[n];
		n++;
	}
	session_samples(&l->s, jobs, n, LANE_SSH_WIDTH);
	now = monotonic_ms();
	for (i = 0; i < n; i++) {
		if (api_metrics && jobs[i].src == METRICS_AUTO)
			ssh_retry_note(&l->retry, jobs[i].id, jobs[i].by_ssh, now);
		if (jobs[i].rc != GR_OK && l->s.verbose)
			l->warn("%s: %s", jobs[i].id, jobs[i].err.msg);
		else if (jobs[i].store_err.code != GR_OK && l->s.verbose)
			l->warn("%s: %s", jobs[i].id, jobs[i].store_err.msg);
		probe_snapshot_release(&snaps[i]);
	}
	free(snaps);
	free(jobs);
}

/*
 * A lane's rounds: list the provider's instances (published at once), then take a sample
 * of each running one into the history. A failure shows as the instance's samples growing
 * old, never as an exit.
 */
static void *
lane_run(void *arg)
{
	struct lane *l = arg;

	while (!lane_stopping(l)) {
		struct fanout_result res[SESSION_MAX_PROVIDERS];
		struct instance_list found;
		struct gr_error err = { 0 };
		enum gr_err code;

		memset(res, 0, sizeof(res));
		instance_list_init(&found);
		session_state_retry(&l->s);
		code = session_instances(&l->s, &found, res, &err);
		if (code != GR_OK && l->s.verbose)
			l->warn("%s: %s", l->name, err.msg);
		pthread_mutex_lock(&l->lock);
		l->listed = true;
		l->up = code == GR_OK;
		if (code == GR_OK) {
			struct instance_list old = l->instances;

			l->instances = found;
			found = old;
		}
		pthread_mutex_unlock(&l->lock);
		instance_list_release(&found);
		if (code == GR_OK && !lane_stopping(l))
			lane_sample(l);
		pthread_mutex_lock(&l->lock);
		l->sampled = true;
		pthread_mutex_unlock(&l->lock);
		lane_pause(l, l->interval);
	}
	pthread_mutex_lock(&l->lock);
	l->done = true;
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/*
 * Whether any lane has ended a round yet: until then there is nothing worth serving (a
 * hanging provider's lane does not hold the others' first snapshot).
 */
static bool
any_sampled(struct lane *lanes, size_t n)
{
	bool yes = false;
	size_t i;

	for (i = 0; i < n && !yes; i++) {
		pthread_mutex_lock(&lanes[i].lock);
		yes = lanes[i].sampled;
		pthread_mutex_unlock(&lanes[i].lock);
	}
	return yes;
}

/*
 * One snapshot: every lane's last listing, then the newest sample of each GPU from the
 * history (what the lanes and other gpurent processes sampled) and the ledger's figures.
 * Reads memory and the local database only.
 */
static void
gather(struct session *s, const struct exporter_rounds *o, struct lane *lanes, size_t n_lanes,
    struct exporter_snapshot *snap)
{
	struct gr_error err = { 0 };
	struct sample_list latest;
	struct cost_summary sum;
	struct cost_clock clk;
	struct state *st;
	size_t i, k;

	for (i = 0; i < n_lanes && i < EXPORTER_MAX_PROVIDERS; i++) {
		struct lane *l = &lanes[i];

		pthread_mutex_lock(&l->lock);
		strlcpy_(snap->providers[i].name, l->name, sizeof(snap->providers[i].name));
		snap->providers[i].up = l->listed && l->up;
		for (k = 0; k < l->instances.n; k++)
			*instance_list_add(&snap->instances) = l->instances.v[k];
		pthread_mutex_unlock(&l->lock);
	}
	snap->n_providers = i;

	/* The snapshot's clock, session_now's: the simulator's when sim is among the providers. */
	session_clock(s, &clk);
	snap->taken = clk.sim_shown ? clk.sim : clk.wall;
	session_state_retry(s);
	if (session_state(s, &st, &err) != GR_OK)
		return;
	sample_list_init(&latest);
	if (samples_latest(st, NULL, &latest, &err) == GR_OK) {
		for (k = 0; k < latest.n; k++) {
			const char *id = latest.v[k].instance_id;
			size_t len = 0;

			/* A multi-node job's node is kept as "ID/NODE" (session_record). */
			for (i = 0; i < snap->instances.n; i++) {
				len = strlen(snap->instances.v[i].id);
				if (snap->instances.v[i].state == ST_RUNNING &&
				    strncmp(snap->instances.v[i].id, id, len) == 0 &&
				    (id[len] == '\0' || id[len] == '/'))
					break;
			}
			if (i == snap->instances.n)
				continue;
			if (id[len] == '/') {
				strlcpy_(latest.v[k].node, id + len + 1, sizeof(latest.v[k].node));
				latest.v[k].instance_id[len] = '\0';
			}
			/*
			 * A sample is on its instance's clock; its age is counted on the snapshot's:
			 * a real provider's sample beside the simulator's is moved onto it.
			 */
			latest.v[k].at += snap->taken - cost_clock_now(&clk,
			    snap->instances.v[i].provider);
			*sample_list_add(&snap->samples) = latest.v[k];
		}
	}
	sample_list_release(&latest);

	/* Spend since launch: the ledger from its first row, grouped by instance. */
	if (costs_compute(st, &clk, 1, CG_INSTANCE, &sum, &err) == GR_OK) {
		snap->burn_known = true;
		snap->burn_hour = sum.burn_hour;
		snap->spent = xcalloc(snap->instances.n + 1, sizeof(*snap->spent));
		for (i = 0; i < snap->instances.n; i++) {
			snap->spent[i] = -1;
			for (k = 0; k < sum.n_lines; k++)
				if (strcmp(sum.lines[k].key, snap->instances.v[i].id) == 0)
					snap->spent[i] = sum.lines[k].spent;
		}
		cost_summary_release(&sum);
	} else if (s->verbose)
		o->warn("costs: %s", err.msg);
}

/*
 * A lane per selected provider, each with a session of its own for that provider alone.
 * The sessions are made here, one after another, so that anything their backends ask for
 * (a passphrase for the credential store) is asked on this thread, before any lane runs.
 */
static enum gr_err
lanes_start(struct session *s, const struct exporter_rounds *o, struct lane **out,
    size_t *n_out, struct gr_error *err)
{
	struct lane *lanes;
	size_t i, n = s->n_backends;

	lanes = xcalloc(n + 1, sizeof(*lanes));
	for (i = 0; i < n; i++) {
		struct lane *l = &lanes[i];

		session_init(&l->s);
		l->s.profile = s->profile;
		l->s.debug = s->debug;
		l->s.verbose = s->verbose;
		strlcpy_(l->name, s->backends[i]->env.name, sizeof(l->name));
		l->s.providers[0] = l->name;
		l->s.n_providers = 1;
		l->interval = o->interval;
		l->warn = o->warn;
		ssh_retry_init(&l->retry, o->ssh_retry * 1000);
		pthread_mutex_init(&l->lock, NULL);
		pthread_cond_init(&l->wake, NULL);
		instance_list_init(&l->instances);
		if (session_backends(&l->s, err) != GR_OK)
			break;
	}
	for (size_t k = 0; i == n && k < n; k++)
		lanes[k].started = pthread_create(&lanes[k].th, NULL, lane_run, &lanes[k]) == 0;
	*out = lanes;
	*n_out = i == n ? n : i + 1;	/* those set up, for lanes_stop */
	return i == n ? GR_OK : err->code;
}

/*
 * Stop the lanes. A lane stuck in a request to a hanging provider may take as long as the
 * request's timeout to notice: each lane gets a few seconds to end, and one still stuck is
 * left running, its memory with it, as the process is about to exit.
 */
static void
lanes_stop(struct lane *lanes, size_t n)
{
	struct timespec step = { 0, 100000000L };
	bool left = false;
	size_t i;
	int t;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&lanes[i].lock);
		lanes[i].stop = true;
		pthread_cond_signal(&lanes[i].wake);
		pthread_mutex_unlock(&lanes[i].lock);
	}
	for (t = 0; t < 50; t++) {
		bool all = true;

		for (i = 0; i < n; i++) {
			pthread_mutex_lock(&lanes[i].lock);
			all = all && (!lanes[i].started || lanes[i].done);
			pthread_mutex_unlock(&lanes[i].lock);
		}
		if (all)
			break;
		nanosleep(&step, NULL);
	}
	for (i = 0; i < n; i++) {
		bool done;

		pthread_mutex_lock(&lanes[i].lock);
		done = !lanes[i].started || lanes[i].done;
		pthread_mutex_unlock(&lanes[i].lock);
		if (!done) {
			pthread_detach(lanes[i].th);
			left = true;
			continue;
		}
		if (lanes[i].started)
			pthread_join(lanes[i].th, NULL);
		instance_list_release(&lanes[i].instances);
		ssh_retry_release(&lanes[i].retry);
		session_release(&lanes[i].s);
		pthread_cond_destroy(&lanes[i].wake);
		pthread_mutex_destroy(&lanes[i].lock);
	}
	if (!left)
		free(lanes);
}

/* Sleep n tenths of a second in small steps so Ctrl-C or SIGTERM ends the wait at once. */
static void
pause_tenths(const struct exporter_rounds *o, long long n)
{
	struct timespec step = { 0, 100000000L };
	long long i;

	for (i = 0; i < n && !*o->interrupted; i++)
		nanosleep(&step, NULL);
}

enum gr_err
exporter_serve(struct session *s, const struct exporter_rounds *o, struct gr_error *err)
{
	struct exporter_snapshot snap;
	struct exporter *e;
	struct lane *lanes = NULL;
	size_t n_lanes = 0;

	if (exporter_start(&e, o->listen, o->token, err) != GR_OK)
		return err->code;
	if (session_backends(s, err) != GR_OK) {
		exporter_stop(e);
		return err->code;
	}
	if (lanes_start(s, o, &lanes, &n_lanes, err) != GR_OK) {
		lanes_stop(lanes, n_lanes);
		exporter_stop(e);
		return err->code;
	}
	/* The one line a supervisor or a test waits for: where to scrape. */
	fprintf(stderr, _("gpurent exporter: serving http://%s/metrics\n"), exporter_address(e));
	fflush(stderr);
	/* Nothing to serve until a lane has ended a round; then every interval. */
	while (!*o->interrupted && !any_sampled(lanes, n_lanes))
		pause_tenths(o, 1);
	while (!*o->interrupted) {
		exporter_snapshot_init(&snap);
		gather(s, o, lanes, n_lanes, &snap);
		exporter_publish(e, &snap);
		pause_tenths(o, o->interval * 10);
	}
	lanes_stop(lanes, n_lanes);
	exporter_stop(e);
	return GR_OK;
}
