#!/bin/bash
# group create, ls, show, rm and ls --group: what is stored, in table, JSON and CSV; every
# usage error exits 2 with its reason and stores nothing; unknown groups exit 3; members
# are the instances labelled group:NAME and keep running when the group is removed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

expect_ok g group ls
check "no groups yet: an empty table" '[ "$(g -o json group ls)" = "[]" ]'

expect_ok g group create web --gpu A100 --count 2 --min 1 --max 4 --target-util 70 \
	--cooldown 15m --window 5m --base 1 --burst interruptible --max-price 3.5 \
	--env A=1 --env 'B=two words' --predict
check "create prints the name: $OUT" '[ "$OUT" = web ]'
expect_ok g group create batch --gpu RTX4090 --max 2 --target-util 60
expect_ok g -o json group show web
check "show: what was asked, the defaults and the label: $OUT" \
	'jq -e ".[0] | .name == \"web\" and .gpu == \"A100\" and .gpus == 2 and .min == 1 and
	.max == 4 and .target_util == 70 and .cooldown_s == 900 and .window_s == 300 and
	.base == 1 and .burst == \"interruptible\" and .max_price_hour == 3.5 and
	.env == {A: \"1\", B: \"two words\"} and .predict == true and .label == \"group:web\" and .members == 0 and
	.last_scale_at == null" <<<"$OUT" >/dev/null'
expect_ok g -o json group show batch
check "defaults: min 0, one GPU, 10m cooldown and window, all on-demand, no price bound" \
	'jq -e ".[0] | .min == 0 and .gpus == 1 and .cooldown_s == 600 and .window_s == 600 and
	.base == null and .burst == \"on-demand\" and .max_price_hour == null and .predict == false" <<<"$OUT" >/dev/null'
expect_ok g -o csv --fields name,max group ls
check "ls, by name: $OUT" '[ "$OUT" = "$(printf "name,max\nbatch,2\nweb,4")" ]'
expect_ok g -o csv group ls
check "CSV columns keep their places; new ones come last: $OUT" \
	'[[ $(head -1 <<<"$OUT") == name,gpu,gpus,min,max,target_util,members,cooldown_s,window_s,base,burst,max_price_hour,predict,env,label,last_scale_at,created_at,member_ids,* ]]'
expect_ok g group ls
check "the table has a header and both: $OUT" \
	'[[ $OUT == NAME*TARGET%*MEMBERS* ]] && [[ $OUT == *batch*web* ]]'

# Usage errors: exit 2, a reason, nothing stored.
usage() {
	local why=$1
	shift
	expect_rc 2 g group "$@"
	check "'group $*' says $why: $ERR" '[[ $ERR == *"$why"* ]]'
}
usage "exists already" create web --gpu A100 --max 2 --target-util 50
usage "needs --gpu" create x --max 2 --target-util 50
usage "needs --max too" create x --gpu A100 --target-util 50
usage "needs --target-util too" create x --gpu A100 --max 2
usage "min <= max" create x --gpu A100 --min 3 --max 2 --target-util 50
usage "max >= 1" create x --gpu A100 --max 0 --target-util 50
usage "from 1 to 100" create x --gpu A100 --max 2 --target-util 0
usage "from 1 to 100" create x --gpu A100 --max 2 --target-util 101
usage "from 0 to 1000" create x --gpu A100 --max 1001 --target-util 50
usage "duration" create x --gpu A100 --max 2 --target-util 50 --cooldown soon
usage "duration" create x --gpu A100 --max 2 --target-util 50 --window 0
usage "interruptible or on-demand" create x --gpu A100 --max 2 --target-util 50 --burst spot
usage "give --burst interruptible" create x --gpu A100 --max 2 --target-util 50 --base 1
usage "more than --max" create x --gpu A100 --max 2 --target-util 50 --base 3 --burst interruptible
usage "price per hour" create x --gpu A100 --max 2 --target-util 50 --max-price free
usage "K=V" create x --gpu A100 --max 2 --target-util 50 --env NOEQUALS
usage "not a group name" create 'bad name' --gpu A100 --max 2 --target-util 50
usage "not a group name" create --gpu A100 --max 2 --target-util 50 -- -x
usage "not a group name" show "$(printf 'a\033[2Jb')"
check "the name is shown without its escape" '[[ $ERR != *$'"'"'\033'"'"'* ]]'
expect_rc 2 g ls --group "$(printf 'a\033[2Jb')"
check "ls --group too" '[[ $ERR != *$'"'"'\033'"'"'* ]]'
usage "go with create" ls --max 3
usage "go with create" show web --predict
usage "takes one group name" show
usage "takes one group name" rm a b
usage "ls takes no arguments" ls web
usage "unknown subcommand" resize web
usage "say create, ls, show or rm"
check "nothing stored by them" '[ "$(g -o json group ls | jq -c "[.[].name]")" = "[\"batch\",\"web\"]" ]'

expect_rc 3 g group show nope
check "unknown group: $ERR" '[[ $ERR == *"no group called '"'"'nope'"'"'"* ]]'
expect_rc 3 g ls --group nope
expect_rc 2 g ls --group web --label x
expect_rc 2 g ls --group 'a b'

# Members: the label; ls --group lists them, group ls counts them.
mapfile -t offers < <(ids_of 3)
m1=$(g launch "${offers[0]}" --label group:web) || fail "launch"
m2=$(g launch "${offers[1]}" --label group:web) || fail "launch"
other=$(g launch "${offers[2]}" --label web) || fail "launch"
expect_ok g -o ids ls --group web
check "ls --group web: the two members, not $other: $OUT" \
	'[ "$(sort <<<"$OUT" | tr "\n" " ")" = "$(printf "%s\n" "$m1" "$m2" | sort | tr "\n" " ")" ]'
check "group show counts and names them" \
	'[ "$(g -o json group show web | jq -r ".[0] | \"\(.members) \(.member_ids | sort | join(\",\"))\"")" = "2 $(printf "%s\n" "$m1" "$m2" | sort | paste -sd,)" ]'

expect_ok g sim advance 5m
check "completion: the subcommands and the names" \
	'[ "$(g __complete args group "" | tr "\n" " ")" = "batch create ls rm show web " ]'
check "completion: ls --group gives the names" '[ "$(g __complete optarg ls --group w)" = web ]'
expect_ok g group rm web
expect_rc 3 g group rm web
expect_rc 3 g group show web
check "rm keeps the members running" '[ "$(state_of "$m1")" = running ] && [ "$(state_of "$m2")" = running ]'
check "only batch is left" '[ "$(g -o json group ls | jq -c "[.[].name]")" = "[\"batch\"]" ]'
pass
