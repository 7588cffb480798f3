/*
 * ssh_hosts.c - the ssh include file (ssh_hosts.h): its entries, their names, and the one
 * Include line in ~/.ssh/config.
 *
 * Each entry is written after a comment line that holds it as data
 * ("# gpurent-instance ID NAME HOST PORT USER"): that line is what the next update reads
 * back, so the Host lines can change form without a parser for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurent/atomic.h"
#include "gpurent/backend.h"
#include "gpurent/paths.h"
#include "gpurent/remote.h"
#include "gpurent/session.h"
#include "gpurent/ssh_hosts.h"

#define RECORD "# gpurent-instance "
#define HEADER "# Written by gpurent (gpurent ssh-config): one Host per running instance.\n" \
	"# gpurent rewrites this file whole; edits here are lost.\n"
/* The most bytes of the file read back: far more than every instance of an account. */
#define FILE_MAX (4u << 20)

/* Threads of a fan-out list providers side by side; processes take the flock. */
static pthread_mutex_t hosts_lock = PTHREAD_MUTEX_INITIALIZER;

void
ssh_host_list_release(struct ssh_host_list *l)
{
	XRELEASE(l->v, l->n, l->cap);
}

/* path under $HOME into out. */
static enum gr_err
home_path(const char *rel, char *out, size_t n, struct gr_error *err)
{
	const char *home = getenv("HOME");

	if (home == NULL || *home != '/')
		return gr_fail(err, GR_EUSAGE, "HOME is not set to a directory: cannot find "
		    "~/%s", rel);
	if ((size_t)snprintf(out, n, "%s/%s", home, rel) >= n)
		return gr_fail(err, GR_EUSAGE, "HOME is too long");
	return GR_OK;
}

enum gr_err
ssh_hosts_default_path(const struct config *cfg, char *out, size_t n, struct gr_error *err)
{
	const char *v = cfg != NULL ? config_get(cfg, "ssh.hosts_file") : NULL;

	if (v == NULL)
		return home_path(".ssh/config.d/gpurent", out, n, err);
	if (v[0] == '~' && v[1] == '/')
		return home_path(v + 2, out, n, err);
	strlcpy_(out, v, n);
	return GR_OK;
}

/* The file in the state directory that names the kept file. */
static void
marker_path(char *out, size_t n)
{
	snprintf(out, n, "%s/ssh-hosts", paths_state_dir());
}

/* The whole of a small file into sb; false (errno set) when it cannot be read. */
static bool
read_text(const char *path, struct sb *sb)
{
	char buf[4096];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || sb->len + (size_t)r > FILE_MAX) {
			close(fd);
			errno = r < 0 ? errno : EFBIG;
			return false;
		}
		sb_add(sb, buf, (size_t)r);
	}
	close(fd);
	return true;
}

bool
ssh_hosts_enabled(char *path, size_t n)
{
	char marker[4200];
	struct sb sb;
	bool ok;

	marker_path(marker, sizeof(marker));
	sb_init(&sb);
	ok = read_text(marker, &sb) && sb.len > 0;
	if (ok) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		ok = sb.buf[0] == '/';
		if (path != NULL)
			strlcpy_(path, sb.buf, n);
	}
	sb_release(&sb);
	return ok;
}

/* mkdir -p of path's directory. */
static enum gr_err
make_parent(const char *path, struct gr_error *err)
{
	char dir[4200];
	char *slash;

	strlcpy_(dir, path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return GR_OK;
	*slash = '\0';
	return paths_mkdir(dir, err);
}

enum gr_err
ssh_hosts_enable(const char *path, struct gr_error *err)
{
	char marker[4200], line[4200];
	struct stat st;

	if (path[0] != '/')
		return gr_fail(err, GR_EUSAGE, "ssh.hosts_file must be an absolute path, not '%s'",
		    path);
	if (make_parent(path, err) != GR_OK)
		return err->code;
	if (stat(path, &st) != 0 &&
	    atomic_write(path, HEADER, strlen(HEADER), 0600, err) != GR_OK)
		return err->code;
	if (paths_mkdir(paths_state_dir(), err) != GR_OK)
		return err->code;
	marker_path(marker, sizeof(marker));
	snprintf(line, sizeof(line), "%s\n", path);
	return atomic_write(marker, line, strlen(line), 0600, err);
}

/* What the marker says once the user turned the file off: no path (ssh_hosts_enabled). */
#define TURNED_OFF "off\n"

enum gr_err
ssh_hosts_disable(struct gr_error *err)
{
	char marker[4200];

	if (paths_mkdir(paths_state_dir(), err) != GR_OK)
		return err->code;
	marker_path(marker, sizeof(marker));
	return atomic_write(marker, TURNED_OFF, strlen(TURNED_OFF), 0600, err);
}

bool
ssh_hosts_turned_off(void)
{
	char marker[4200];
	struct sb sb;
	bool off;

	marker_path(marker, sizeof(marker));
	sb_init(&sb);
	off = read_text(marker, &sb) && sb.len > 0 && strcmp(sb.buf, TURNED_OFF) == 0;
	sb_release(&sb);
	return off;
}

/* name made of [A-Za-z0-9._-] only, runs of anything else as one '-', no leading '-' or
 * '.' (ssh would read an option) and no trailing '-'; "" when nothing is left. */
static void
alias_clean(const char *name, char *out, size_t n)
{
	size_t k = 0;
	const char *p;

	for (p = name; *p != '\0' && k + 1 < n; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';

		if (!ok)
			c = '-';
		if ((k == 0 && (c == '-' || c == '.')) || (c == '-' && !ok && out[k - 1] == '-'))
			continue;
		out[k++] = c;
	}
	while (k > 0 && out[k - 1] == '-')
		k--;
	out[k] = '\0';
}

/* The record of instance in, when it is running with an ssh endpoint ssh may be given. */
static bool
record_of(const struct config *cfg, const struct instance *in, struct ssh_host *out)
{
	struct gr_error e = { 0 };
	struct remote_endpoint ep;

	/* The record line is split at spaces: an id with one could not be read back. */
	if (session_endpoint_of(cfg, in, &ep, &e) != GR_OK || strpbrk(in->id, " \t\r\n") != NULL)
		return false;
	memset(out, 0, sizeof(*out));
	alias_clean(in->label, out->alias, sizeof(out->alias));
	if (out->alias[0] == '\0')
		alias_clean(in->id, out->alias, sizeof(out->alias));
	if (out->alias[0] == '\0')
		return false;
	strlcpy_(out->id, in->id, sizeof(out->id));
	strlcpy_(out->host, ep.host, sizeof(out->host));
	strlcpy_(out->user, ep.user, sizeof(out->user));
	out->port = ep.port;
	return true;
}

/* The next space-separated word of *p into out (at most n bytes); false when none fits. */
static bool
next_word(const char **p, char *out, size_t n)
{
	size_t len;

	*p += strspn(*p, " ");
	len = strcspn(*p, " ");
	if (len == 0 || len >= n)
		return false;
	memcpy(out, *p, len);
	out[len] = '\0';
	*p += len;
	return true;
}

/* The records of the file's text. */
static void
parse_records(const char *text, struct ssh_host_list *out)
{
	const char *line, *end, *p;
	char buf[1024], port[16];

	for (line = text; *line != '\0'; line = *end ? end + 1 : end) {
		struct ssh_host h;
		long long v;

		end = line + strcspn(line, "\n");
		if ((size_t)(end - line) >= sizeof(buf) ||
		    strncmp(line, RECORD, strlen(RECORD)) != 0)
			continue;
		memcpy(buf, line, (size_t)(end - line));
		buf[end - line] = '\0';
		memset(&h, 0, sizeof(h));
		p = buf + strlen(RECORD);
		if (!next_word(&p, h.id, sizeof(h.id)) || !next_word(&p, h.alias, sizeof(h.alias)) ||
		    !next_word(&p, h.host, sizeof(h.host)) || !next_word(&p, port, sizeof(port)) ||
		    !next_word(&p, h.user, sizeof(h.user)) || !parse_int(port, 1, 65535, &v))
			continue;
		h.port = (int)v;
		*XPUSH(out->v, out->n, out->cap, 8) = h;
	}
}

static int
by_id(const void *a, const void *b)
{
	return strcmp(((const struct ssh_host *)a)->id, ((const struct ssh_host *)b)->id);
}

/* Sort by id and turn each name shared by several into NAME.ID, the id made safe too. */
static void
assign_aliases(struct ssh_host_list *l)
{
	char clean[ID_MAX], *shared;
	size_t i, k;

	qsort(l->v, l->n, sizeof(*l->v), by_id);
	shared = xcalloc(l->n + 1, 1);
	for (i = 0; i < l->n; i++)
		for (k = i + 1; k < l->n; k++)
			if (strcmp(l->v[i].alias, l->v[k].alias) == 0)
				shared[i] = shared[k] = 1;
	for (i = 0; i < l->n; i++) {
		if (!shared[i])
			continue;
		alias_clean(l->v[i].id, clean, sizeof(clean));
		snprintf(l->v[i].alias + strlen(l->v[i].alias),
		    sizeof(l->v[i].alias) - strlen(l->v[i].alias), ".%s", clean);
	}
	free(shared);
}

/* The file for records l (sorted and named by assign_aliases, in a copy). */
static void
render_records(const struct config *cfg, const struct ssh_host_list *l, struct sb *out)
{
	const char *identity = cfg != NULL ? config_get(cfg, "ssh.identity") : NULL;
	struct ssh_host_list named = { 0 };
	char pin[4400];
	size_t i;

	for (i = 0; i < l->n; i++)
		*XPUSH(named.v, named.n, named.cap, 8) = l->v[i];
	assign_aliases(&named);
	sb_adds(out, HEADER);
	for (i = 0; i < named.n; i++) {
		const struct ssh_host *h = &named.v[i];
		const struct ssh_host *rec = NULL;
		size_t k;

		/* The record keeps the name before a clash made it NAME.ID. */
		for (k = 0; k < l->n && rec == NULL; k++)
			if (strcmp(l->v[k].id, h->id) == 0)
				rec = &l->v[k];
		sb_addf(out, "\n" RECORD "%s %s %s %d %s\n", h->id, rec->alias, h->host, h->port,
		    h->user);
		sb_addf(out, "Host %s\n\tHostName %s\n\tPort %d\n\tUser %s\n", h->alias, h->host,
		    h->port, h->user);
		if (identity != NULL && identity[0] != '\0') {
			sb_adds(out, "\tIdentityFile ");
			remote_config_quote(out, identity);
			sb_adds(out, "\n\tIdentitiesOnly yes\n");
		}
		remote_pin_path(paths_state_dir(), h->id, pin, sizeof(pin));
		sb_adds(out, "\tUserKnownHostsFile ");
		remote_config_quote(out, pin);
		sb_adds(out, "\n\tStrictHostKeyChecking yes\n");
	}
	ssh_host_list_release(&named);
}

void
ssh_hosts_render(const struct config *cfg, const struct instance *v, size_t n, struct sb *out)
{
	struct ssh_host_list l = { 0 };
	struct ssh_host h;
	size_t i;

	for (i = 0; i < n; i++)
		if (record_of(cfg, &v[i], &h))
			*XPUSH(l.v, l.n, l.cap, 8) = h;
	render_records(cfg, &l, out);
	ssh_host_list_release(&l);
}

/* Whether record h is of provider. */
static bool
of_provider(const struct ssh_host *h, const char *provider)
{
	char p[PROVIDER_MAX];

	return backend_split_id(h->id, p, sizeof(p), NULL) && strcmp(p, provider) == 0;
}

/* Records l after the provider's answer about v (ssh_hosts_follow). */
static void
apply(const struct config *cfg, struct ssh_host_list *l, const char *provider,
    const struct instance *v, size_t n, bool full)
{
	struct ssh_host h;
	size_t i, k, kept;

	for (i = 0, kept = 0; i < l->n; i++) {
		bool drop = full && of_provider(&l->v[i], provider);

		for (k = 0; k < n && !drop; k++)
			drop = strcmp(l->v[i].id, v[k].id) == 0;
		if (!drop)
			l->v[kept++] = l->v[i];
	}
	l->n = kept;
	for (k = 0; k < n; k++)
		if (record_of(cfg, &v[k], &h))
			*XPUSH(l->v, l->n, l->cap, 8) = h;
}

void
ssh_hosts_follow(const struct config *cfg, const char *provider, const struct instance *v,
    size_t n, bool full)
{
	struct gr_error e = { 0 };
	struct ssh_host_list l = { 0 };
	char path[4200], lock[4200];
	struct sb old, text;
	int fd;

	if (!ssh_hosts_enabled(path, sizeof(path)))
		return;
	snprintf(lock, sizeof(lock), "%s/ssh-hosts.lock", paths_state_dir());
	pthread_mutex_lock(&hosts_lock);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		if (fd >= 0)
			close(fd);
		pthread_mutex_unlock(&hosts_lock);
		return;
	}
	sb_init(&old);
	sb_init(&text);
	/* A file the user removed is made again: ssh-config asked for it to be kept. */
	if (read_text(path, &old) || errno == ENOENT) {
		parse_records(old.buf, &l);
		apply(cfg, &l, provider, v, n, full);
		render_records(cfg, &l, &text);
		if (text.len != old.len || memcmp(text.buf, old.buf, text.len) != 0)
			(void)(make_parent(path, &e) == GR_OK &&
			    atomic_write(path, text.buf, text.len, 0600, &e) == GR_OK);
	}
	sb_release(&old);
	sb_release(&text);
	ssh_host_list_release(&l);
	close(fd);
	pthread_mutex_unlock(&hosts_lock);
}

enum gr_err
ssh_hosts_read(const char *path, struct ssh_host_list *out, struct gr_error *err)
{
	struct sb text;

	sb_init(&text);
	if (!read_text(path, &text)) {
		gr_fail(err, GR_ESTATE, "cannot read '%s': %s", path, strerror(errno));
		sb_release(&text);
		return err->code;
	}
	parse_records(text.buf, out);
	assign_aliases(out);
	sb_release(&text);
	return GR_OK;
}

/* "Include PATH" for path; false when path holds what Include would expand (globs). */
static bool
include_line(const char *path, struct sb *out)
{
	if (strpbrk(path, "*?[\"\\\n") != NULL)
		return false;
	sb_adds(out, strchr(path, ' ') != NULL || strchr(path, '\t') != NULL ?
	    "Include \"" : "Include ");
	sb_adds(out, path);
	if (strchr(path, ' ') != NULL || strchr(path, '\t') != NULL)
		sb_addc(out, '"');
	return true;
}

/* Whether text has line as one of its lines (surrounding blanks ignored). */
static bool
has_line(const char *text, const char *line)
{
	const char *p, *end;
	size_t n = strlen(line);

	for (p = text; *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if ((size_t)(end - p) == n && memcmp(p, line, n) == 0)
			return true;
		end = p + strcspn(p, "\n");
	}
	return false;
}

bool
ssh_hosts_included(const char *path)
{
	struct gr_error e = { 0 };
	char config[4200];
	struct sb line, text;
	bool yes;

	sb_init(&line);
	sb_init(&text);
	yes = home_path(".ssh/config", config, sizeof(config), &e) == GR_OK &&
	    include_line(path, &line) && read_text(config, &text) &&
	    has_line(text.buf, line.buf);
	sb_release(&line);
	sb_release(&text);
	return yes;
}

enum gr_err
ssh_hosts_install_include(const char *path, bool *added, struct gr_error *err)
{
	char config[4200], *real;
	struct sb line, text, out;
	struct stat st;
	mode_t mode = 0600;

	*added = false;
	if (home_path(".ssh/config", config, sizeof(config), err) != GR_OK)
		return err->code;
	sb_init(&line);
	sb_init(&text);
	sb_init(&out);
	if (!include_line(path, &line)) {
		gr_fail(err, GR_EUSAGE, "'%s' holds characters that ssh's Include would expand; "
		    "set ssh.hosts_file to a plainer path", path);
		goto out;
	}
	/* A config kept as a link (a dotfiles repository) is written where it points. */
	if ((real = realpath(config, NULL)) != NULL) {
		strlcpy_(config, real, sizeof(config));
		free(real);
	}
	if (stat(config, &st) == 0)
		mode = st.st_mode & 07777;
	if (!read_text(config, &text) && errno != ENOENT) {
		gr_fail(err, GR_ESTATE, "cannot read '%s': %s", config, strerror(errno));
		goto out;
	}
	if (has_line(text.buf, line.buf))
		goto out;
	/* At the top: an Include after a Host line would belong to that Host only. */
	sb_addf(&out, "%s\n", line.buf);
	if (text.len > 0) {
		sb_addc(&out, '\n');
		sb_add(&out, text.buf, text.len);
	}
	if (make_parent(config, err) == GR_OK &&
	    atomic_write(config, out.buf, out.len, mode, err) == GR_OK)
		*added = true;
out:
	sb_release(&line);
	sb_release(&text);
	sb_release(&out);
	return err->code;
}
