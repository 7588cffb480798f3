/*
 * groups.h - elastic groups: their definitions in the state database (src/store/groups.c).
 *
 * `gpurent group create` stores a group here; the watcher (src/guard/group.c) reads every
 * group each pass and scales it. A group is a number of instances of one requirement (a
 * GPU, optionally a price bound and providers) between min and max, held near a target GPU utilisation.
 *
 * Members are the instances whose label is the group's member label, "group:NAME" (see
 * group_label): a label the watcher gives each instance it launches for the group, and
 * that `ls --group NAME` selects. The label is the membership: an instance relabelled or
 * launched by hand with that label is a member too.
 *
 * last_scale_at is written before the watcher orders a launch or a retirement, so that a
 * watcher killed between the two never orders a second one within the cooldown.
 */
#ifndef GPURENT_GROUPS_H
#define GPURENT_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

#define GROUP_NAME_MAX 48
#define GROUP_GPU_MAX 64
#define GROUP_ENV_MAX 1024
#define GROUP_PROVIDERS_MAX 256
/* "group:" and the name. */
#define GROUP_LABEL_PREFIX "group:"

struct group {
	char name[GROUP_NAME_MAX];
	char gpu[GROUP_GPU_MAX];	/* the requirement: a catalogue name, family or alias */
	int gpus;			/* GPUs of each member (default 1) */
	int min, max;			/* members, 0 <= min <= max, max >= 1 */
	int target_util;		/* percent, 1-100 */
	int64_t cooldown;		/* seconds between two scaling decisions */
	int64_t window;			/* seconds of utilisation the mean is taken over */
	int base;			/* -1: every member on-demand; else this many on-demand
					   members, the rest (the burst) interruptible */
	int64_t max_price;		/* per hour per member, all in; -1 no bound */
	char max_currency[CURRENCY_MAX];	/* of max_price; offers in another currency
					   meet it only at the configured fx rates */
	char providers[GROUP_PROVIDERS_MAX];	/* members only from these, "a,b"; "": any
					   provider the watcher uses */
	char env[GROUP_ENV_MAX];	/* each member's environment: K=V lines */
	bool predict;			/* scale ahead of a forecast peak (elastic.h) */
	int64_t created_at;
	int64_t last_scale_at;		/* 0 never */
};

/* Whether s is a valid group name: 1-47 of [A-Za-z0-9._-], starting with a letter or digit. */
bool group_name_valid(const char *s);
/* The member label of group name (GROUP_LABEL_PREFIX + name) into buf. */
const char *group_label(char *buf, size_t n, const char *name);

/* Create g. GR_EUSAGE when a group of that name exists. */
enum gr_err groups_create(struct state *st, const struct group *g, struct gr_error *err);
/* Every group, by name. Caller frees *out. */
enum gr_err groups_load(struct state *st, struct group **out, size_t *n, struct gr_error *err);
/* The group called name. GR_ENOTFOUND when there is none. */
enum gr_err groups_get(struct state *st, const char *name, struct group *out,
    struct gr_error *err);
/* Remove the group called name (its members keep running). GR_ENOTFOUND when none. */
enum gr_err groups_remove(struct state *st, const char *name, struct gr_error *err);
/* Record that the group decided to scale at `at`. */
enum gr_err groups_scaled(struct state *st, const char *name, int64_t at,
    struct gr_error *err);

/*
 * The group's load history (table group_load): at each pass the watcher records the mean
 * GPU utilisation of the members it observed afresh, and how many. groups_load_mean is the
 * mean of the records with since < at <= until (*n of them; 0: none, *mean untouched).
 * Rows older than GROUP_LOAD_KEEP are dropped as new ones are added.
 */
#define GROUP_LOAD_KEEP (35 * 24 * 3600)
enum gr_err groups_load_add(struct state *st, const char *name, int64_t at, double util,
    int members, struct gr_error *err);
/*
 * The load history as n buckets of step seconds, the first starting at since: out[i] the
 * mean of the records in bucket i; a bucket with none carries the previous value (the
 * first record's before it). *first: the time of the first record in range (0: none).
 */
enum gr_err groups_load_series(struct state *st, const char *name, int64_t since, int step,
    size_t n, double *out, int64_t *first, struct gr_error *err);
enum gr_err groups_load_mean(struct state *st, const char *name, int64_t since, int64_t until,
    double *mean, int *n, struct gr_error *err);

/* One pass's record of the group's load: the members' mean utilisation, and how many. */
struct group_load_rec {
	int64_t at;
	double util;
	int members;
};
/* The records with since <= at < until, oldest first; caller frees *out. */
enum gr_err groups_load_records(struct state *st, const char *name, int64_t since,
    int64_t until, struct group_load_rec **out, size_t *n, struct gr_error *err);

#endif
