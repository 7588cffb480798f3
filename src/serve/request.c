/*
 * request.c - what the dialects read from a request, apart from the glue that serves it,
 * so that serve.c calls the dialects and the dialects never call back into serve.c.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../http/libmhd.h"

#include "gpurent/atomic.h"
#include "gpurent/paths.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "serve_int.h"

const char *
serve_query(const struct serve_req *rq, const char *name)
{
	/* A request built without a connection (the fuzzer's) has no query string. */
	if (rq->conn == NULL)
		return NULL;
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
}

enum gr_err
serve_stop(struct serve_ctx *c, const char *id, struct gr_error *err)
{
	/* The fault a watcher must catch: the provider says yes and the machine bills on. */
	if (c->ignore_stops > 0) {
		c->ignore_stops--;
		return GR_OK;
	}
	return sim_stop(c->sim, id, err);
}

long long
serve_sim_num(const char *id)
{
	long long n;
	char num[24];
	size_t i = 0;

	if (strncmp(id, "sim:", 4) != 0 || id[4] == '\0' || id[5] != '-')
		return -1;
	for (id += 6; *id >= '0' && *id <= '9' && i + 1 < sizeof(num); id++)
		num[i++] = *id;
	num[i] = '\0';
	if (i == 0 || !parse_int(num, 0, INT64_MAX / 4, &n))
		return -1;
	return n;
}

void
serve_reply_json(struct serve_reply *rp, int status, cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);

	rp->status = status;
	sb_reset(&rp->body);
	if (s != NULL)
		sb_adds(&rp->body, s);
	free(s);
	cJSON_Delete(j);
}

/* The fault named by the list item at s (up to a comma or the end), SLF_NONE if unknown. */
static enum serve_launch_fault
launch_fault_at(const char *s, size_t *len)
{
	*len = strcspn(s, ",");
	if (*len == 4 && strncmp(s, "gone", 4) == 0)
		return SLF_GONE;
	if (*len == 8 && strncmp(s, "capacity", 8) == 0)
		return SLF_CAPACITY;
	return SLF_NONE;
}

bool
serve_launch_faults_valid(const char *s)
{
	size_t len;

	for (;;) {
		if (launch_fault_at(s, &len) == SLF_NONE)
			return false;
		if (s[len] == '\0')
			return true;
		s += len + 1;
	}
}

enum serve_launch_fault
serve_launch_fault(struct serve_ctx *c)
{
	enum serve_launch_fault f;
	size_t len;

	if (c->launch_faults == NULL || *c->launch_faults == '\0')
		return SLF_NONE;
	f = launch_fault_at(c->launch_faults, &len);
	c->launch_faults += len + (c->launch_faults[len] == ',');
	return f;
}

#define INSTANCE_KEY_BYTES 16

/* <state>/instance-env, made when make. */
static void
env_dir(char *out, size_t n, bool make)
{
	snprintf(out, n, "%s/instance-env", paths_state_dir());
	if (make)
		paths_mkdir(out, NULL);
}

void
serve_instance_env(const char *native, const char *id_var, const char *key_var, char *key,
    size_t n)
{
	char dir[4096], path[4200], hex[2 * INSTANCE_KEY_BYTES + 1];
	struct sb env;

	/* No randomness, no key: the instance gets none rather than a guessable one. */
	key[0] = '\0';
	if (!random_hex(hex, INSTANCE_KEY_BYTES))
		return;
	strlcpy_(key, hex, n);
	sb_init(&env);
	sb_addf(&env, "%s=%s", id_var, native);
	sb_addc(&env, '\0');
	sb_addf(&env, "%s=%s", key_var, key);
	sb_addc(&env, '\0');
	env_dir(dir, sizeof(dir), true);
	snprintf(path, sizeof(path), "%s/%s", dir, native);
	atomic_write(path, env.buf, env.len, 0600, NULL);
	sb_release(&env);
}

/* Whether the environ file at path holds VAR=key. */
static bool
env_has(const char *path, const char *var, const char *key)
{
	char buf[1024], want[256];
	size_t len, wl, i;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	wl = (size_t)snprintf(want, sizeof(want), "%s=%s", var, key);
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		if (strlen(buf + i) == wl && memcmp(buf + i, want, wl) == 0)
			return true;
	return false;
}

bool
serve_instance_of_key(const char *key_var, const char *key, char *native, size_t n)
{
	char dir[4096], path[4400];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (key[0] == '\0' || strlen(key) > 128)
		return false;
	env_dir(dir, sizeof(dir), false);
	if ((d = opendir(dir)) == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (env_has(path, key_var, key)) {
			strlcpy_(native, de->d_name, n);
			found = true;
		}
	}
	closedir(d);
	return found;
}
