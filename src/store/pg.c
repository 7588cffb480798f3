/*
 * pg.c - db.h's PostgreSQL driver, over libpq (pg.h). A statement is its SQL with `?` made
 * $N and its parameters as text (or binary for bytea); it runs at its first step with
 * PQexecParams, in text format, and its rows are then read from the one result.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "gpurent/dlbind.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "pg.h"

/*
 * libpq is loaded when a PostgreSQL state is first opened, not linked: it brings some twenty
 * libraries (Kerberos, LDAP, TLS) whose loading doubled the start-up of every command, most
 * of which never speak to PostgreSQL. Each call below goes through these pointers.
 */
#define PQ_FUNCTIONS(X) X(PQclear) X(PQcmdTuples) X(PQconnectdbParams) \
	X(PQconnectionNeedsPassword) X(PQconninfoFree) X(PQconninfoParse) X(PQerrorMessage) X(PQexec) X(PQexecParams) X(PQfinish) \
	X(PQfreemem) X(PQftype) X(PQgetisnull) X(PQgetvalue) X(PQnfields) X(PQntuples) \
	X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) \
	X(PQsetNoticeProcessor) X(PQstatus) X(PQtransactionStatus) X(PQunescapeBytea)
#define PQ_POINTER(f) __typeof__(&f) f;
static struct pq_table { PQ_FUNCTIONS(PQ_POINTER) } pq;
#undef PQ_POINTER

/* libpq's functions into pq, once; false with why in err. */
static bool
pq_load(struct gr_error *err)
{
#define PQ_SYM(f) { #f, offsetof(struct pq_table, f) },
	static const struct dl_sym syms[] = { PQ_FUNCTIONS(PQ_SYM) };
#undef PQ_SYM
	static const char *const files[] = { "libpq.so.5", "libpq.so" };
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;	/* connections of threads */
	static bool loaded;
	const char *missing = NULL;
	bool ok;

	pthread_mutex_lock(&mu);
	ok = loaded || (loaded = dl_bind(files, ARRAY_LEN(files), syms, ARRAY_LEN(syms), &pq,
	    &missing));
	if (!ok)
		gr_fail(err, GR_ESTATE, "cannot load libpq for a PostgreSQL state: %s",
		    missing != NULL ? missing : dlerror());
	pthread_mutex_unlock(&mu);
	return ok;
}

struct pg {
	PGconn *conn;
	int code;		/* the last call's DB_ code */
	int changes;		/* rows the last insert, update or delete touched */
	char err[512];
};

struct pg_stmt {
	struct pg *pg;
	char *sql;		/* with $N for ?N */
	int nparams;
	char **vals;		/* NULL: the parameter is NULL */
	int *lens, *fmts;
	Oid *types;
	bool *unused;		/* a number below the highest that the SQL never names */
	PGresult *res;		/* once run */
	int row, rows;
	unsigned char *blob;	/* the last bytea read, decoded: of row blob_row, column blob_col */
	int blob_row, blob_col;
	size_t blob_len;
};

/* The type oids a result's columns are read by. */
enum {
	OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26,
	OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700,
};

static void
quiet(void *arg, const char *msg)
{
	/* Notices ("relation already exists, skipping") are not errors; errors come back as
	 * results and are reported by the store's callers. */
	(void)arg;
	(void)msg;
}

/* The connection's error message into pg->err, its trailing newline dropped; code. */
static int
fail(struct pg *pg, const char *msg, const char *sqlstate)
{
	size_t n;

	strlcpy_(pg->err, msg != NULL && *msg != '\0' ? msg : "unknown PostgreSQL error",
	    sizeof(pg->err));
	n = strlen(pg->err);
	while (n > 0 && (pg->err[n - 1] == '\n' || pg->err[n - 1] == ' '))
		pg->err[--n] = '\0';
	/* Serialization failure, deadlock, lock not available, statement timeout: another
	 * writer held what this one needed, as SQLite's busy. */
	if (sqlstate != NULL && (strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0 ||
	    strcmp(sqlstate, "55P03") == 0 || strcmp(sqlstate, "57014") == 0))
		pg->code = DB_BUSY;
	else
		pg->code = DB_ERROR;
	return pg->code;
}

/* Where a password comes from when libpq has none (state_set_password). */
static struct state_password password;

void
state_set_password(const struct state_password *p)
{
	password = *p;
}

/*
 * A connection to url, with pw (or none) as its password keyword: given to libpq beside the
 * URL, never written into a connection string that an error or a log could repeat. options
 * NULL is no options keyword at all (the URL's own, if any, stand).
 */
static PGconn *
connect_to(const char *url, const char *options, const char *pw)
{
	const char *const keys[] = { "dbname", "options", "password", NULL };
	const char *const vals[] = { url, options, pw, NULL };

	/* expand_dbname: the URL is read as a connection string, the keywords after it
	 * override it (a NULL value is no keyword at all). */
	return pq.PQconnectdbParams(keys, vals, 1);
}

/* A connection, with the vault's password when libpq found none of its own (~/.pgpass, a
   service file) and the server asks for one: into pg->conn, failed or not. */
static enum gr_err
connect_as(struct pg *pg, const char *url, const char *options, struct gr_error *err)
{
	char *pw = NULL;

	pg->conn = connect_to(url, options, NULL);
	if (pq.PQstatus(pg->conn) == CONNECTION_OK || !pq.PQconnectionNeedsPassword(pg->conn) ||
	    password.get == NULL)
		return GR_OK;
	if (password.get(password.ctx, &pw, err) != GR_OK)
		return err->code;
	if (pw != NULL) {
		pq.PQfinish(pg->conn);
		pg->conn = connect_to(url, options, pw);
		password.release(pw);
	}
	return GR_OK;
}

/*
 * Lock waits are bounded at 10 s, as SQLite's busy timeout bounds them: by the connection's
 * options (the URL's own kept after them), with no round trip of its own. A pooler in front
 * of the server (PgBouncer) refuses an options parameter at the start: then the connection
 * is made again without it and the bound is set with a SET, unless the URL has options of
 * its own, which that pooler could not take either.
 */
enum gr_err
pg_open(struct pg **out, const char *url, struct gr_error *err)
{
	PQconninfoOption *opts, *o;
	char *msg = NULL, options[1024];
	bool own_options = false;
	struct pg *pg;

	if (!pq_load(err))
		return err->code;
	opts = pq.PQconninfoParse(url, &msg);
	if (opts == NULL) {
		gr_fail(err, GR_EUSAGE, "invalid PostgreSQL URL: %s", msg ? msg : "out of memory");
		pq.PQfreemem(msg);
		return GR_EUSAGE;
	}
	snprintf(options, sizeof(options), "-c lock_timeout=10s");
	for (o = opts; o->keyword != NULL; o++) {
		if (strcmp(o->keyword, "options") == 0 && o->val != NULL && o->val[0] != '\0') {
			own_options = true;
			if ((size_t)snprintf(options, sizeof(options), "-c lock_timeout=10s %s",
			    o->val) >= sizeof(options)) {
				pq.PQconninfoFree(opts);
				return gr_fail(err, GR_EUSAGE, "the PostgreSQL URL's options are "
				    "longer than %zu bytes",
				    sizeof(options) - sizeof("-c lock_timeout=10s "));
			}
		}
		if (strcmp(o->keyword, "password") == 0 && o->val != NULL && o->val[0] != '\0')
			break;
	}
	if (o->keyword != NULL) {
		pq.PQconninfoFree(opts);
		return gr_fail(err, GR_EUSAGE, "the PostgreSQL URL carries a password: leave it "
		    "out, and put it in ~/.pgpass (or the file PGPASSFILE names) or a service "
		    "file, where libpq reads it");
	}
	pq.PQconninfoFree(opts);
	pg = xcalloc(1, sizeof(*pg));
	if (connect_as(pg, url, options, err) != GR_OK) {
		pg_close(pg);
		return err->code;
	}
	/* PgBouncer 1.18 says "unsupported startup parameter: options", later ones "...
	   parameter in options: lock_timeout" unless told to track it. */
	if (pq.PQstatus(pg->conn) != CONNECTION_OK && !own_options &&
	    strstr(pq.PQerrorMessage(pg->conn), "unsupported startup parameter") != NULL) {
		pq.PQfinish(pg->conn);
		if (connect_as(pg, url, NULL, err) != GR_OK) {
			pg_close(pg);
			return err->code;
		}
		if (pq.PQstatus(pg->conn) == CONNECTION_OK &&
		    pg_exec(pg, "SET lock_timeout = '10s'") != DB_OK) {
			gr_fail(err, GR_ESTATE, "cannot set the PostgreSQL state database's lock "
			    "timeout: %s", pg->err);
			pg_close(pg);
			return GR_ESTATE;
		}
	}
	if (pq.PQstatus(pg->conn) != CONNECTION_OK) {
		bool asked = pq.PQconnectionNeedsPassword(pg->conn);

		fail(pg, pq.PQerrorMessage(pg->conn), NULL);
		/* libpq's message names the host and port, never a password. */
		if (asked)
			gr_fail(err, GR_ESTATE, "cannot connect to the PostgreSQL state database: %s "
			    "(the server asks for a password: store it with 'gpurent login state', "
			    "or put it in ~/.pgpass)", pg->err);
		else
			gr_fail(err, GR_ESTATE, "cannot connect to the PostgreSQL state database: %s",
			    pg->err);
		pg_close(pg);
		return GR_ESTATE;
	}
	pq.PQsetNoticeProcessor(pg->conn, quiet, NULL);
	*out = pg;
	return GR_OK;
}

void
pg_close(struct pg *pg)
{
	if (pg == NULL)
		return;
	pq.PQfinish(pg->conn);
	free(pg);
}

/* sql's first statement (up to a ; outside quotes and comments, at *end) with each ?N as
 * $N and each bare ? as $(one more than the highest so far); *n the highest number, and
 * used[k - 1] set for each $k the statement names (at most n of them). */
static char *
placeholders(const char *sql, int *n, const char **end, bool *used, int nused)
{
	size_t len = strlen(sql), o = 0;
	char *out = xmalloc(len * 4 + 1);	/* "?" becomes at most "$NNN" */
	const char *p = sql;
	int high = 0;

	while (*p != '\0' && *p != ';') {
		if (*p == '\'' || *p == '"') {
			char quote = *p;

			out[o++] = *p++;
			while (*p != '\0' && *p != quote)
				out[o++] = *p++;
			if (*p != '\0')
				out[o++] = *p++;	/* a doubled quote: two strings, same text */
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p != '\0' && *p != '\n')
				out[o++] = *p++;
		} else if (*p == '?') {
			char *digits_end;
			long k = strtol(p + 1, &digits_end, 10);

			if (digits_end == p + 1)
				k = high + 1;
			if (k > high)
				high = (int)k;
			if (k >= 1 && k <= nused)
				used[k - 1] = true;
			o += (size_t)sprintf(out + o, "$%ld", k);
			p = digits_end;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	*n = high;
	*end = *p == ';' ? p + 1 : p;
	return out;
}

int
pg_prepare(struct pg *pg, const char *sql, struct pg_stmt **out, const char **tail)
{
	struct pg_stmt *q;
	const char *end;
	bool *used;
	int k;

	*out = NULL;
	while (*sql == ' ' || *sql == '\n' || *sql == '\t')
		sql++;
	if (*sql == '\0') {	/* nothing left: no statement, as SQLite says it */
		if (tail != NULL)
			*tail = sql;
		return DB_OK;
	}
	q = xcalloc(1, sizeof(*q));
	q->pg = pg;
	/* At most one parameter per character: used has room for every one named. */
	used = xcalloc(strlen(sql) + 1, sizeof(*used));
	q->sql = placeholders(sql, &q->nparams, &end, used, (int)strlen(sql) + 1);
	if (tail != NULL)
		*tail = end;
	if (q->nparams > 0) {
		q->vals = xcalloc((size_t)q->nparams, sizeof(*q->vals));
		q->lens = xcalloc((size_t)q->nparams, sizeof(*q->lens));
		q->fmts = xcalloc((size_t)q->nparams, sizeof(*q->fmts));
		q->types = xcalloc((size_t)q->nparams, sizeof(*q->types));
		q->unused = xcalloc((size_t)q->nparams, sizeof(*q->unused));
		/* PostgreSQL cannot type a parameter the statement does not name: NULL text. */
		for (k = 0; k < q->nparams; k++)
			if ((q->unused[k] = !used[k]))
				q->types[k] = PG_TEXT;
	}
	free(used);
	*out = q;
	return DB_OK;
}

int
pg_bind(struct pg_stmt *q, int k, const void *v, int n, unsigned type, int format)
{
	if (k < 1 || k > q->nparams)
		return fail(q->pg, "parameter index out of range", NULL);
	if (q->unused[--k])
		return DB_OK;
	free(q->vals[k]);
	q->vals[k] = NULL;
	if (v != NULL) {
		size_t len = n < 0 ? strlen(v) : (size_t)n;

		q->vals[k] = xmalloc(len + 1);
		memcpy(q->vals[k], v, len);
		q->vals[k][len] = '\0';
		q->lens[k] = (int)len;
	}
	q->fmts[k] = format;
	q->types[k] = type;
	return DB_OK;
}

int
pg_bind_parameter_count(struct pg_stmt *q)
{
	return q->nparams;
}

int
pg_step(struct pg_stmt *q)
{
	struct pg *pg = q->pg;

	if (q->res == NULL) {
		ExecStatusType status;

		q->res = pq.PQexecParams(pg->conn, q->sql, q->nparams, q->types,
		    (const char *const *)q->vals, q->lens, q->fmts, 0);
		status = pq.PQresultStatus(q->res);
		if (status == PGRES_COMMAND_OK) {
			pg->changes = atoi(pq.PQcmdTuples(q->res));
		} else if (status != PGRES_TUPLES_OK) {
			int rc = fail(pg, pq.PQresultErrorMessage(q->res),
			    pq.PQresultErrorField(q->res, PG_DIAG_SQLSTATE));

			pq.PQclear(q->res);
			q->res = NULL;
			return rc;
		}
		q->rows = pq.PQntuples(q->res);
		q->row = -1;
	}
	pg->code = DB_OK;
	if (q->row < q->rows)
		q->row++;
	return q->row < q->rows ? DB_ROW : DB_DONE;
}

void
pg_reset(struct pg_stmt *q)
{
	pq.PQclear(q->res);
	q->res = NULL;
	pq.PQfreemem(q->blob);
	q->blob = NULL;
}

void
pg_finalize(struct pg_stmt *q)
{
	int k;

	if (q == NULL)
		return;
	pg_reset(q);
	for (k = 0; k < q->nparams; k++)
		free(q->vals[k]);
	free(q->vals);
	free(q->lens);
	free(q->fmts);
	free(q->types);
	free(q->unused);
	free(q->sql);
	free(q);
}

/* Whether column c of the current row can be read. */
static bool
readable(struct pg_stmt *q, int c)
{
	return q->res != NULL && q->row >= 0 && q->row < q->rows && c >= 0 &&
	    c < pq.PQnfields(q->res);
}

int
pg_column_type(struct pg_stmt *q, int c)
{
	if (!readable(q, c) || pq.PQgetisnull(q->res, q->row, c))
		return DB_NULL;
	switch (pq.PQftype(q->res, c)) {
	case OID_BOOL: case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
		return DB_INTEGER;
	case OID_FLOAT4: case OID_FLOAT8:
		return DB_FLOAT;
	case OID_NUMERIC:
		/* sum() of bigints is a numeric: whole, it is the integer SQLite would give. */
		return strpbrk(pq.PQgetvalue(q->res, q->row, c), ".eN") == NULL ? DB_INTEGER :
		    DB_FLOAT;
	case OID_BYTEA:
		return DB_BLOB;
	default:
		return DB_TEXT;
	}
}

const char *
pg_column_text(struct pg_stmt *q, int c)
{
	if (!readable(q, c) || pq.PQgetisnull(q->res, q->row, c))
		return NULL;
	return pq.PQgetvalue(q->res, q->row, c);
}

const void *
pg_column_blob(struct pg_stmt *q, int c, int *n)
{
	/* The same column of the same row read again (its size after it, as SQLite's callers
	   do) is the one decoded already: the pointer given before stays good. */
	if (q->blob != NULL && q->blob_row == q->row && q->blob_col == c) {
		*n = (int)q->blob_len;
		return q->blob;
	}
	*n = 0;
	pq.PQfreemem(q->blob);
	q->blob = NULL;
	if (!readable(q, c) || pq.PQgetisnull(q->res, q->row, c))
		return NULL;
	q->blob_len = 0;
	q->blob = pq.PQunescapeBytea((const unsigned char *)pq.PQgetvalue(q->res, q->row, c),
	    &q->blob_len);
	q->blob_row = q->row;
	q->blob_col = c;
	*n = (int)q->blob_len;
	return q->blob;
}

int
pg_exec(struct pg *pg, const char *sql)
{
	PGresult *res = pq.PQexec(pg->conn, sql);
	ExecStatusType status = pq.PQresultStatus(res);
	int rc = DB_OK;

	if (status == PGRES_COMMAND_OK)
		pg->changes = atoi(pq.PQcmdTuples(res));
	else if (status != PGRES_TUPLES_OK)
		rc = fail(pg, pq.PQresultErrorMessage(res), pq.PQresultErrorField(res, PG_DIAG_SQLSTATE));
	if (rc == DB_OK)
		pg->code = DB_OK;
	pq.PQclear(res);
	return rc;
}

int
pg_changes(struct pg *pg)
{
	return pg->changes;
}

int64_t
pg_last_insert_rowid(struct pg *pg)
{
	/* lastval() fails where this connection took no sequence value yet, and a failure
	 * would abort an open transaction: there it is asked inside a savepoint. */
	bool open = pq.PQtransactionStatus(pg->conn) == PQTRANS_INTRANS;
	PGresult *res;
	int64_t id = 0;

	if (open)
		pq.PQclear(pq.PQexec(pg->conn, "SAVEPOINT gr_lastval"));
	res = pq.PQexec(pg->conn, "SELECT lastval()");
	if (pq.PQresultStatus(res) == PGRES_TUPLES_OK && pq.PQntuples(res) == 1)
		id = strtoll(pq.PQgetvalue(res, 0, 0), NULL, 10);
	pq.PQclear(res);
	if (open)
		pq.PQclear(pq.PQexec(pg->conn, id != 0 ? "RELEASE SAVEPOINT gr_lastval" :
		    "ROLLBACK TO SAVEPOINT gr_lastval; RELEASE SAVEPOINT gr_lastval"));
	return id;
}

const char *
pg_errmsg(struct pg *pg)
{
	return pg->code == DB_OK ? "not an error" : pg->err;
}

int
pg_errcode(struct pg *pg)
{
	return pg->code;
}

int
pg_autocommit(struct pg *pg)
{
	return pq.PQtransactionStatus(pg->conn) == PQTRANS_IDLE;
}
