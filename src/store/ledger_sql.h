/*
 * ledger_sql.h - the ledger's sums in SQL, for both drivers' schemas (schema.c,
 * schema_pg.c): a closed segment's cost, its day, in integer arithmetic that SQLite and
 * PostgreSQL compute alike (integer division truncates in both).
 */
#ifndef GPURENT_STORE_LEDGER_SQL_H
#define GPURENT_STORE_LEDGER_SQL_H

/* money_accrue(rate_hour, end_ts - start_ts) of row r: round half away from zero, the
 * product split so that it cannot overflow. */
#define SEG_COST(r) \
	"(" r ".rate_hour / 3600) * (" r ".end_ts - " r ".start_ts) + ((" r ".rate_hour % 3600) * " \
	"(" r ".end_ts - " r ".start_ts) + CASE WHEN " r ".rate_hour < 0 THEN -1800 ELSE 1800 " \
	"END) / 3600"
/* The UTC day (its first second) of time x, before 1970 too. */
#define DAY_OF(x) "(" x " - ((" x " % 86400) + 86400) % 86400)"
/* SEG_COST of a closed segment, 0 of one that never ran. */
#define WHOLE_COST(r) "(CASE WHEN " r ".end_ts > " r ".start_ts THEN " SEG_COST(r) " ELSE 0 END)"

#endif
