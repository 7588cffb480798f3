#!/bin/sh
# leftovers.sh WHO - after a test: the processes still running whose command line names the
# directory $LEFTOVERS_DIR (the test's temporary directory) are what it left behind. Each is
# listed with its ps line and killed, and the status is 1 (0 when there is none); WHO names
# the test in the message. A process ending in the moment (an ssh master whose watchdog ends
# it once a second) gets three seconds. The directory comes in the environment, so that no
# command line here names it.
set -u
: "${LEFTOVERS_DIR:?leftovers.sh: set LEFTOVERS_DIR}"
i=0
while :; do
	left=$(ps -eo pid=,args= -ww | awk 'index($0, ENVIRON["LEFTOVERS_DIR"]) { print }')
	if [ -z "$left" ] || [ $i -ge 30 ]; then
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
[ -z "$left" ] && exit 0
echo "FAIL $1: left these processes running:" >&2
echo "$left" >&2
# shellcheck disable=SC2046
kill -9 $(echo "$left" | awk '{ print $1 }') 2>/dev/null
exit 1
