#!/bin/bash
# t263 (issue 33): the costs view's audit line pinned to figures worked out by hand, on
# t260's instance (tests/cli/t260-figures.sh has the arithmetic): one H100 at $1.89/h that
# ran, stopped (billing $0.013014/h of storage) and ran again for 37.74 billed hours, sampled
# for one of them: 20 minutes at 0 %, 40 at 90 %. Idle 1200 s of 135864 billed: 0.9 %, shown
# as 1 %; waste 1.89/h x 1200 s = $0.63 (not of the storage; not over the 3600 s sampled,
# $23.78); utilisation 60 % against the default target of 85 %.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790777600	# 2026-09-30T14:13:20Z: a clock that stands still
T0=1790777600
NOW=1790920800				# 2026-10-02T06:00:00Z

id=$("$G" launch sim:o-000075 --label fig 2>/dev/null)
case $id in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" sim advance 61m >/dev/null && "$G" stop --no-wait "$id" >/dev/null &&
	"$G" sim advance 120m >/dev/null && "$G" start "$id" >/dev/null &&
	"$G" sim advance $((NOW - T0 - 10860)) >/dev/null || { echo "the fixture" >&2; exit 1; }
"$G" audit --offline -o json >/dev/null || { echo "audit" >&2; exit 1; }
sqlite3 "$DB" "INSERT INTO sample_series(instance_id, gpu) VALUES('$id', 0);
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 59)
	INSERT INTO samples(series, at, source, util, power)
	SELECT (SELECT id FROM sample_series WHERE instance_id = '$id'), $((T0 + 11536)) + k * 60, 0,
		CASE WHEN k < 20 THEN 0 ELSE 90 END, CASE WHEN k < 20 THEN 150 ELSE 600 END FROM m;" ||
	{ echo "samples" >&2; exit 1; }

start_dash 140 40
keys 4
# figure: audit-idle-share figure: audit-waste
wait_for '^  Last 7 days +GPU util 60% \(target 85%\), idle 1% of billed time, waste \$0\.63 ' 300 &&
	ok "the audit line: util 60 %, idle 1 %, waste \$0.63" || fail "audit line: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
finish
