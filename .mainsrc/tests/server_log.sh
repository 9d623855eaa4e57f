#!/bin/bash
# server_log.sh BUILD_DIR - leapclockd -d: every foreground log line starts
# "leapclockd: " (tests/vm and tools/vm-kernel-test key on it) and carries
# an ISO 8601 UTC timestamp with ms (issue 16: the lines had no time).
set -u
B=${1:?build dir}
D="$B/leapclockd"
fails=0
# shellcheck source=progs/check_lib.sh
. "$(dirname "$0")/progs/check_lib.sh"
[ -x "$D" ] || { echo "skip: $D not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$((20000 + RANDOM % 20000))
timeout -s TERM 1 "$D" -d --no-timeline --listen "127.0.0.1:$P=utc" 2>"$tmp/log"
log=$(cat "$tmp/log")
n=$(grep -c . <<<"$log")
[ "$n" -ge 1 ] && ok "leapclockd -d logged $n lines" || bad "leapclockd -d logged nothing"
re='^leapclockd: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z [^ ]'
other=$(grep -vE "$re" <<<"$log")
[ -z "$other" ] && ok "every line: 'leapclockd: YYYY-MM-DDThh:mm:ss.mmmZ ...'" ||
	bad "lines without the prefix and stamp: $other"
t=$(sed -n '1s/^leapclockd: \([^ ]*\) .*/\1/p' <<<"$log")
now=$(date -u +%s)
ts=$(date -u -d "$t" +%s 2>/dev/null || echo 0)
[ $((now - ts)) -ge 0 ] && [ $((now - ts)) -le 60 ] && ok "the stamp $t is the current UTC time" ||
	bad "stamp '$t' vs now $now"
[ $fails -eq 0 ]
