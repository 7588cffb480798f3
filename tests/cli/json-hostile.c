/*
 * json-hostile - the two halves of the JSON property test (t016-json-hostile.sh).
 *
 *   json-hostile serve            a vast.ai look-alike on 127.0.0.1 (port printed as
 *                                 "listening on URL") whose every string field is hostile
 *   json-hostile check KIND       read gpurent's JSON on stdin and check it: strict bytes,
 *                                 parsed by cJSON, each hostile value round-tripped
 *   json-hostile expect I         print the sanitized form of hostile string I
 *   json-hostile body I           print a vast.ai launch request whose label and image are
 *                                 hostile string I (for `gpurent sim serve --dialect vast`,
 *                                 which keeps them as sent, so only gpurent's output stands
 *                                 between them and a script)
 *
 * Hostile strings: newlines, backslashes, quotes, every control character 0x01-0x1f and
 * 0x7f, invalid UTF-8, C1 controls, escape sequences and a 10 kB string. Offer I has id
 * vast:(1000+I) and instance I id vast:(2000+I); every string field of both is string I.
 *
 * The oracle is written here, apart from the code under test: a value comes out as it went
 * in, less control characters by the sanitizing rule (tab, newline and CR become a space,
 * other C0 controls and DEL vanish, bytes that are not valid UTF-8 and C1 controls become
 * '?'). A field the model holds in a bounded buffer may come out as a prefix of that, cut
 * at a character boundary; never as anything else.
 */
#define _GNU_SOURCE	/* memmem */
#include <arpa/inet.h>
#include <cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_CTRL 32		/* 0x01..0x1f and 0x7f */
#define N_HOSTILE (N_CTRL + 12)
#define LONG_LEN 10240
#define OFFER_BASE 1000
#define INSTANCE_BASE 2000
/* A cut value must keep at least this many bytes of what was sent (or all of it). */
#define MIN_KEPT 24

static char *hostile[N_HOSTILE];

static void
make_hostile(void)
{
	static const char *const fixed[] = {
		"new\nline and\r\ncrlf\n",
		"back\\slash \\n \\u0041 \\\" \\\\ end\\",
		"quo\"te \"\" and \"",
		"all \"\\\n\t\r/\b\f\"\\ mixed",
		"bad\xff\xfe utf8 \xc3\x28 and \xe2\x82 cut",
		"overlong \xc0\xaf surrogate \xed\xa0\x80 high \xf5\x80\x80\x80",
		"C1 \xc2\x9b" "31m csi and \xc2\x85 nel",
		"ESC \x1b[2J\x1b]0;pwn\x07 title \x1b[31mred",
		"Montr\xc3\xa9" "al \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x9a\x80 ok",
		"",
		"{\"json\":[1,\"inside\"]}</script>",
	};
	size_t i, k = 0;

	for (i = 0; i < N_CTRL; i++) {
		unsigned char c = i < 31 ? (unsigned char)(i + 1) : 0x7f;
		char *s = malloc(16);

		/* The control character at the start, inside and at the end. */
		snprintf(s, 16, "%cctl%c%02x%c", c, c, c, c);
		hostile[k++] = s;
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		hostile[k++] = strdup(fixed[i]);
	/* 10 kB of everything above, repeated. */
	{
		static const char unit[] = "\xc3\xa9\\\"\n\x01\x1b[1m\xff" "abc ";
		char *s = malloc(LONG_LEN + sizeof(unit));
		size_t n = 0;

		while (n < LONG_LEN) {
			memcpy(s + n, unit, sizeof(unit) - 1);
			n += sizeof(unit) - 1;
		}
		s[n] = '\0';
		hostile[k++] = s;
	}
	if (k != N_HOSTILE) {
		fprintf(stderr, "json-hostile: %zu strings, expected %d\n", k, N_HOSTILE);
		exit(2);
	}
}

/* Length of a valid, printable UTF-8 sequence at s (not overlong, surrogate or C1); 0 if not. */
static size_t
utf8_ok(const unsigned char *s)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* The sanitizing rule, on its own: what string s must come out as. */
static char *
expect(const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	char *out = malloc(strlen(src) + 1);
	size_t o = 0, len;

	while (*s != '\0') {
		if (*s < 0x20 || *s == 0x7f) {
			if (*s == '\t' || *s == '\n' || *s == '\r')
				out[o++] = ' ';
			s++;
		} else if ((len = utf8_ok(s)) == 0) {
			out[o++] = '?';
			s++;
		} else {
			memcpy(out + o, s, len);
			o += len;
			s += len;
		}
	}
	out[o] = '\0';
	return out;
}

/* ------------------------------------------------------------------ the served provider */

static cJSON *
offer_json(int k)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", OFFER_BASE + k);
	cJSON_AddStringToObject(o, "gpu_name", hostile[k]);
	cJSON_AddStringToObject(o, "geolocation", hostile[k]);
	cJSON_AddNumberToObject(o, "num_gpus", 1);
	cJSON_AddNumberToObject(o, "gpu_ram", 24576);
	cJSON_AddNumberToObject(o, "dph_total", 0.25 + k / 100.0);
	cJSON_AddNumberToObject(o, "reliability2", 0.9876);
	cJSON_AddBoolToObject(o, "rentable", true);
	return o;
}

static cJSON *
instance_json(int k)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", INSTANCE_BASE + k);
	cJSON_AddStringToObject(o, "label", hostile[k]);
	cJSON_AddStringToObject(o, "image_uuid", hostile[k]);
	cJSON_AddStringToObject(o, "gpu_name", hostile[k]);
	cJSON_AddStringToObject(o, "geolocation", hostile[k]);
	cJSON_AddStringToObject(o, "ssh_host", hostile[k]);
	cJSON_AddNumberToObject(o, "ssh_port", 2222);
	cJSON_AddStringToObject(o, "image_runtype", hostile[k]);
	cJSON_AddStringToObject(o, "status_msg", hostile[k]);
	cJSON_AddStringToObject(o, "actual_status", "running");
	cJSON_AddStringToObject(o, "intended_status", "running");
	cJSON_AddNumberToObject(o, "num_gpus", 1);
	cJSON_AddNumberToObject(o, "gpu_ram", 24576);
	cJSON_AddNumberToObject(o, "dph_total", 0.5);
	cJSON_AddNumberToObject(o, "start_date", (double)time(NULL) - 3600);
	cJSON_AddNumberToObject(o, "gpu_util", 50);
	cJSON_AddNumberToObject(o, "gpu_temp", 60);
	cJSON_AddNumberToObject(o, "vmem_usage", 1.5);
	cJSON_AddNumberToObject(o, "gpu_totalram", 24576);
	return o;
}

static unsigned users_asked;

/* The reply to one request: status and a cJSON document (taken). */
static cJSON *
route(const char *method, const char *url, unsigned *status)
{
	cJSON *j = cJSON_CreateObject(), *a;
	long id;
	int k;

	*status = 200;
	if (strstr(url, "/bundles") != NULL) {
		a = cJSON_AddArrayToObject(j, "offers");
		for (k = 0; k < N_HOSTILE; k++)
			cJSON_AddItemToArray(a, offer_json(k));
	} else if (strncmp(url, "/api/v1/instances", 17) == 0) {
		a = cJSON_AddArrayToObject(j, "instances");
		for (k = 0; k < N_HOSTILE; k++)
			cJSON_AddItemToArray(a, instance_json(k));
	} else if (sscanf(url, "/api/v0/instances/%ld", &id) == 1 && id >= INSTANCE_BASE &&
	    id < INSTANCE_BASE + N_HOSTILE) {
		if (strcmp(method, "GET") == 0)
			cJSON_AddItemToObject(j, "instances", instance_json((int)(id - INSTANCE_BASE)));
		else
			cJSON_AddBoolToObject(j, "success", true);
	} else if (sscanf(url, "/api/v0/asks/%ld", &id) == 1 && id >= OFFER_BASE &&
	    id < OFFER_BASE + N_HOSTILE) {
		cJSON_AddBoolToObject(j, "success", true);
		cJSON_AddNumberToObject(j, "new_contract", (double)(id - OFFER_BASE + INSTANCE_BASE));
	} else if (strstr(url, "/users/current") != NULL) {
		/* A refusal whose message is the next hostile string, for `providers`. */
		*status = 400;
		cJSON_AddBoolToObject(j, "success", false);
		cJSON_AddStringToObject(j, "error", "bad_request");
		cJSON_AddStringToObject(j, "msg", hostile[users_asked++ % N_HOSTILE]);
	} else {
		*status = 404;
		cJSON_AddStringToObject(j, "error", "no_such_instance");
	}
	return j;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	static int seen;
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned status;
	cJSON *j;
	char *body;

	(void)cls;
	(void)version;
	(void)upload;
	if (*state == NULL) {		/* headers only so far */
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size > 0) {		/* the request body is not needed */
		*upload_size = 0;
		return MHD_YES;
	}
	j = route(method, url, &status);
	body = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
serve(void)
{
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	struct sockaddr_in sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	if (d == NULL) {
		fprintf(stderr, "json-hostile: cannot listen on 127.0.0.1\n");
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("listening on http://127.0.0.1:%u\n", (unsigned)info->port);
	fflush(stdout);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	/* At most an hour, in case the test that started it died without killing it. */
	for (i = 0; i < 36000 && !stop; i++)
		usleep(100000);
	MHD_stop_daemon(d);
	return 0;
}

/* ------------------------------------------------------------------ the checker */

static int failures;

static void
bad(const char *what, const char *detail)
{
	if (failures++ < 20)
		fprintf(stderr, "json-hostile: %s%s%.200s\n", what, detail ? ": " : "",
		    detail ? detail : "");
}

/*
 * What a JSON text must be byte for byte (RFC 8259): valid UTF-8 throughout, and no
 * control character left raw inside a string.
 */
static void
check_bytes(const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	bool in_string = false;
	size_t i = 0, len;
	char where[64];

	while (i < n) {
		if (in_string && p[i] < 0x20) {
			snprintf(where, sizeof(where), "byte 0x%02x at offset %zu", p[i], i);
			bad("raw control character inside a JSON string", where);
			i++;
			continue;
		}
		if (p[i] >= 0x80) {
			if ((len = utf8_ok(p + i)) == 0) {
				snprintf(where, sizeof(where), "byte 0x%02x at offset %zu", p[i], i);
				bad("invalid UTF-8 in the output", where);
				len = 1;
			}
			i += len;
			continue;
		}
		if (in_string && p[i] == '\\')
			i += 2;
		else {
			if (p[i] == '"')
				in_string = !in_string;
			i++;
		}
	}
}

/* Which hostile string a value is, by the rule: exact, or a prefix cut at a boundary. */
static bool
matches(const char *got, int k)
{
	char *want = expect(hostile[k]);
	size_t g = strlen(got), w = strlen(want);
	bool ok = strcmp(got, want) == 0 ||
	    (g < w && g >= (w < MIN_KEPT ? w : MIN_KEPT) && strncmp(got, want, g) == 0);

	free(want);
	return ok;
}

/* Number of hostile string an id names (vast:1003 with base 1000 -> 3), or -1. */
static int
index_of(const cJSON *obj, const char *key, int base)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, key);
	long v;

	if (!cJSON_IsString(id) || sscanf(id->valuestring, "vast:%ld", &v) != 1 || v < base ||
	    v >= base + N_HOSTILE)
		return -1;
	return (int)(v - base);
}

/* Every field in keys of obj is hostile string k (null only where allowed). */
static void
check_fields(const cJSON *obj, int k, const char *const *keys, int *seen)
{
	const cJSON *v;
	char what[96], *want = expect(hostile[k]);
	bool empty = want[0] == '\0';

	free(want);
	for (; *keys != NULL; keys++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, *keys);
		if (cJSON_IsNull(v) && empty)
			continue;	/* an empty string is unknown: null */
		snprintf(what, sizeof(what), "field %s of record %d does not round-trip", *keys, k);
		if (!cJSON_IsString(v)) {
			if (v != NULL || (strcmp(*keys, "gpu_name") != 0 && strcmp(*keys, "gpu") != 0))
				bad(what, v == NULL ? "missing" : "not a string");
			continue;
		}
		if (!matches(v->valuestring, k))
			bad(what, v->valuestring);
		else
			(*seen)++;
	}
}

/* Whether s is one of the hostile strings (or cut from one). */
static bool
any_hostile(const char *s)
{
	int k;

	for (k = 0; k < N_HOSTILE; k++)
		if (matches(s, k))
			return true;
	return false;
}

/* Instances launched with hostile labels and images: each is one of the strings, or null. */
static void
check_any(const cJSON *obj, int *seen)
{
	static const char *const keys[] = { "label", "image", NULL };
	const char *const *key;
	const cJSON *v;

	for (key = keys; *key != NULL; key++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, *key);
		if (cJSON_IsNull(v))
			continue;
		if (!cJSON_IsString(v))
			bad("a launched instance's field is not a string", *key);
		else if (!any_hostile(v->valuestring))
			bad("a launched instance's field does not round-trip", v->valuestring);
		else
			(*seen)++;
	}
}

static void
check_record(const char *kind, const cJSON *obj, int *seen, int *records)
{
	/* gpu: a GPU the catalogue lacks is shown by the provider's name, stripped. */
	static const char *const offer_keys[] = { "gpu_name", "gpu", "location", NULL };
	static const char *const inst_keys[] = { "label", "image", "gpu_name", "gpu", "ssh_host",
		"status", NULL };
	int k;

	if (!cJSON_IsObject(obj)) {
		bad("a record is not an object", kind);
		return;
	}
	(*records)++;
	if (strcmp(kind, "offers") == 0 && (k = index_of(obj, "id", OFFER_BASE)) >= 0)
		check_fields(obj, k, offer_keys, seen);
	else if (strcmp(kind, "instances") == 0 && (k = index_of(obj, "id", INSTANCE_BASE)) >= 0)
		check_fields(obj, k, inst_keys, seen);
	else if (strcmp(kind, "offers") == 0 || strcmp(kind, "instances") == 0)
		bad("a record without a served id", kind);
	else if (strcmp(kind, "labelled") == 0)
		check_any(obj, seen);
}

static void
check_costs(const cJSON *doc, int *seen)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows"), *g, *key;

	cJSON_ArrayForEach(g, rows) {
		key = cJSON_GetObjectItemCaseSensitive(g, "key");
		if (cJSON_IsNull(key))
			continue;
		if (!cJSON_IsString(key))
			bad("a costs key is not a string", NULL);
		else if (any_hostile(key->valuestring))
			(*seen)++;
		else if (strncmp(key->valuestring, "vast:", 5) != 0 &&
		    strcmp(key->valuestring, "vast") != 0 && strcmp(key->valuestring, "unknown") != 0 &&
		    strcmp(key->valuestring, "sim") != 0 && key->valuestring[0] != '2')
			bad("a costs key is neither served nor known", key->valuestring);
	}
}

static void
check_providers(const cJSON *doc, int *seen)
{
	const cJSON *row, *name, *detail;
	int k;

	cJSON_ArrayForEach(row, doc) {
		name = cJSON_GetObjectItemCaseSensitive(row, "name");
		detail = cJSON_GetObjectItemCaseSensitive(row, "detail");
		if (!cJSON_IsString(name) || strcmp(name->valuestring, "vast") != 0)
			continue;
		if (!cJSON_IsString(detail)) {
			bad("vast's refusal is not in detail", NULL);
			continue;
		}
		/* The message is quoted inside a sentence: look for it, cut or whole. */
		for (k = 0; k < N_HOSTILE; k++) {
			char *want = expect(hostile[k]);
			size_t w = strlen(want) < MIN_KEPT ? strlen(want) : MIN_KEPT;

			if (w > 0 && strncmp(want, "\"", 1) != 0 &&
			    memmem(detail->valuestring, strlen(detail->valuestring), want, w) != NULL) {
				(*seen)++;
				free(want);
				break;
			}
			free(want);
		}
	}
}

static char *
read_all(FILE *fp, size_t *n)
{
	size_t cap = 65536, len = 0, r;
	char *buf = malloc(cap + 1);

	while ((r = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	buf[len] = '\0';
	*n = len;
	return buf;
}

/*
 * KIND: offers or instances (an array, or JSON lines of objects, each record checked field
 * by field), costs (the keys of its rows), providers (vast's detail), any (valid JSON only).
 * Prints "N records, M hostile values round-tripped"; exits 1 on any failure.
 */
static int
check(const char *kind, int want_min)
{
	size_t n, docs = 0;
	char *text = read_all(stdin, &n);
	const char *p = text, *end;
	int seen = 0, records = 0;
	cJSON *doc, *item;

	check_bytes(text, n);
	while (*p != '\0') {
		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0')
			break;
		doc = cJSON_ParseWithOpts(p, &end, false);
		if (doc == NULL) {
			bad("cJSON cannot parse the output near", cJSON_GetErrorPtr());
			break;
		}
		docs++;
		if (strcmp(kind, "costs") == 0)
			check_costs(doc, &seen);
		else if (strcmp(kind, "providers") == 0)
			check_providers(doc, &seen);
		else if (strcmp(kind, "any") != 0) {
			if (cJSON_IsArray(doc))
				cJSON_ArrayForEach(item, doc)
					check_record(kind, item, &seen, &records);
			else
				check_record(kind, doc, &seen, &records);
		}
		cJSON_Delete(doc);
		p = end;
	}
	if (docs == 0)
		bad("no JSON in the output", NULL);
	if (seen < want_min) {
		char m[64];

		snprintf(m, sizeof(m), "%d, expected at least %d", seen, want_min);
		bad("too few hostile values came back", m);
	}
	printf("%zu documents, %d records, %d hostile values round-tripped\n", docs, records,
	    seen);
	free(text);
	return failures ? 1 : 0;
}

int
main(int argc, char **argv)
{
	make_hostile();
	if (argc == 2 && strcmp(argv[1], "serve") == 0)
		return serve();
	if (argc >= 3 && strcmp(argv[1], "check") == 0)
		return check(argv[2], argc >= 4 ? atoi(argv[3]) : 0);
	if (argc == 3 && strcmp(argv[1], "expect") == 0) {
		int k = atoi(argv[2]);

		if (k < 0 || k >= N_HOSTILE)
			return 2;
		fputs(expect(hostile[k]), stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "body") == 0) {
		int k = atoi(argv[2]);
		cJSON *j = cJSON_CreateObject();
		char *text;

		if (k < 0 || k >= N_HOSTILE)
			return 2;
		cJSON_AddStringToObject(j, "client_id", "me");
		cJSON_AddStringToObject(j, "image", hostile[k]);
		cJSON_AddStringToObject(j, "label", hostile[k]);
		cJSON_AddNumberToObject(j, "disk", 10);
		text = cJSON_PrintUnformatted(j);
		fputs(text, stdout);
		free(text);
		cJSON_Delete(j);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "count") == 0) {
		printf("%d\n", N_HOSTILE);
		return 0;
	}
	fprintf(stderr, "usage: json-hostile serve | check KIND [MIN] | expect I | body I | count\n");
	return 2;
}
