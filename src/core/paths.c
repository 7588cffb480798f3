/*
 * paths.c - where gpurent keeps its configuration and state (XDG directories).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpurent/paths.h"
#include "gpurent/util.h"

static char config_dir[PATH_MAX];
static char state_dir[PATH_MAX];
static char config_file[PATH_MAX];
static char state_db[PATH_MAX];
static char data_dir[PATH_MAX];

void
paths_reset(void)
{
	config_dir[0] = state_dir[0] = config_file[0] = state_db[0] = data_dir[0] = '\0';
}

/* The directory in dir, found on its first use (and again after paths_reset): GPURENT_HOME,
   else $xdg_var/gpurent, else ~/home_suffix/gpurent. */
static const char *
xdg_dir(char *dir, const char *xdg_var, const char *home_suffix)
{
	const char *home = getenv("GPURENT_HOME"), *xdg;

	if (dir[0] != '\0')
		return dir;
	if (home != NULL && *home != '\0') {
		snprintf(dir, PATH_MAX, "%s", home);
		return dir;
	}
	xdg = getenv(xdg_var);
	if (xdg != NULL && *xdg == '/') {
		snprintf(dir, PATH_MAX, "%s/gpurent", xdg);
		return dir;
	}
	home = getenv("HOME");
	snprintf(dir, PATH_MAX, "%s/%s/gpurent", home && *home ? home : ".", home_suffix);
	return dir;
}

const char *
paths_config_dir(void)
{
	return xdg_dir(config_dir, "XDG_CONFIG_HOME", ".config");
}

const char *
paths_state_dir(void)
{
	return xdg_dir(state_dir, "XDG_STATE_HOME", ".local/state");
}

const char *
paths_data_dir(void)
{
	return xdg_dir(data_dir, "XDG_DATA_HOME", ".local/share");
}

const char *
paths_config_file(void)
{
	if (config_file[0] == '\0')
		snprintf(config_file, sizeof(config_file), "%s/config", paths_config_dir());
	return config_file;
}

const char *
paths_state_db(void)
{
	if (state_db[0] == '\0')
		snprintf(state_db, sizeof(state_db), "%s/state.db", paths_state_dir());
	return state_db;
}

enum gr_err
paths_mkdir(const char *dir, struct gr_error *err)
{
	char buf[PATH_MAX];
	struct stat st;
	char *p;

	if (strlen(dir) >= sizeof(buf))
		return gr_fail(err, GR_ESTATE, "path too long: '%s'", dir);
	strlcpy_(buf, dir, sizeof(buf));
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return gr_fail(err, GR_ESTATE, "cannot create directory '%s': %s", buf,
			    strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		return gr_fail(err, GR_ESTATE, "cannot create directory '%s': %s", buf,
		    strerror(errno));
	if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
		return gr_fail(err, GR_ESTATE, "'%s' is not a directory", buf);
	return GR_OK;
}
