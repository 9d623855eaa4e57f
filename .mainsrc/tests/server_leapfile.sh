#!/usr/bin/env bash
# server_leapfile.sh BUILD_DIR SOURCE_DIR - leapclockd and the leap file it
# is given (issue 12 items 7, 8, 9):
#  - a table named by LEAPCLOCK_LEAPFILE, --leapfile or the config's
#    leapfile that cannot be used (a FIFO, a tampered hash, missing) stops
#    the start: exit 2 at once, naming where it was set and the file;
#  - a config file that is a FIFO is refused at once, not waited on;
#  - a leap announced from the named table (LI=1 on the leap's day) stays
#    announced when the file is tampered with, or swapped for a FIFO, and
#    SIGHUP or the file watch reloads it: the old table is kept, with a
#    "keeping" line, whichever way the file was named (the variable given
#    as a relative path included); SIGTERM still stops the daemon after;
#  - a FIFO where the stats file's temporary went does not hang the loop.
# The coming leap is one only the test's table has: 2026-12-31T23:59:60Z
# (TAI-UTC 38), served with --pretend 2026-12-31T18:00:00Z, so a fall back
# to the system's or the built-in table would clear LI. Loopback only,
# --no-timeline, every wait bounded.
set -u
B=$(cd "${1:?usage: server_leapfile.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_leapfile.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
	echo "skip server_leapfile: leapclockd or leapclock not built"; exit 77
fi
T=$(mktemp -d /tmp/lc-server-leapfile.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 $(pgrep -P "$p") "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
P=$((20000 + RANDOM % 20000))
DATA=$S/tests/data

# jget JSON KEY: a number or string member of a one-line JSON object
jget() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# The 2026f list with one more leap, its hash made right with the one
# `leapclock table` says the data hashes to; and a copy whose hash is not.
sed '/^3692217600/a 4007750400\t38\t# 1 Jan 2027' \
	"$DATA/leap-seconds.list.tzdata2026f" >"$T/coming.list"
h=$("$L" table --file "$T/coming.list" 2>&1 |
	sed -n 's/.*the data hashes to \([0-9a-f ]*\)$/\1/p')
sed -i "s/^#h\t.*/#h\t$h/" "$T/coming.list"
sed 's/^#h\t......../#h\t00000000/' "$T/coming.list" >"$T/coming.tampered"
if ! "$L" table --file "$T/coming.list" | grep -q '^2026-12-31T23:59:60Z'; then
	echo "FAIL cannot build the test table (hash '$h')"; exit 1
fi
mkfifo "$T/fifo"

# ---- a named table that cannot be used: exit 2 at once, where and what
# start WHERE WANT FILE: leapclockd with FILE named as WHERE says
start_bad() {
	local where=$1 want=$2 f=$3 rc
	case $where in
	env) LEAPCLOCK_LEAPFILE=$f timeout 10 "$D" -d --no-timeline --stats-file none \
		--listen "127.0.0.1:$P=utc" 2>"$T/err" ;;
	flag) timeout 10 "$D" -d --no-timeline --stats-file none \
		--listen "127.0.0.1:$P=utc" --leapfile "$f" 2>"$T/err" ;;
	conf) printf 'listen 127.0.0.1:%s utc\nleapfile %s\n' "$P" "$f" >"$T/conf"
		timeout 10 "$D" -d --no-timeline --stats-file none -c "$T/conf" 2>"$T/err" ;;
	esac
	rc=$?
	expect_rc "$where names $(basename "$f"): refused" 2 $rc
	expect_line "... saying where and why" "$want" "$(cat "$T/err")"
}
for where in env flag conf; do
	case $where in
	env) w='LEAPCLOCK_LEAPFILE' ;;
	flag) w='--leapfile' ;;
	conf) w="$T/conf:2: leapfile" ;;
	esac
	start_bad $where "^leapclockd: $w: .*$T/fifo: is a FIFO" "$T/fifo"
	start_bad $where "^leapclockd: $w: .*$T/coming.tampered:121: hash mismatch" "$T/coming.tampered"
	start_bad $where "^leapclockd: $w: .*$T/nowhere: cannot open" "$T/nowhere"
done
timeout 10 "$D" -d --no-timeline -c "$T/fifo" 2>"$T/err"
expect_rc "a FIFO as the config file: refused at once" 2 $?
expect_line "... as not a regular file" "$T/fifo: not a regular file" "$(cat "$T/err")"

# ---- the old table kept when the file goes bad (SIGHUP, then the watch)
# up NAME ARGS...: leapclockd in $T/run.NAME, serving utc on the leap's
# day; 1 if it does not answer add-leap within 5 s
up() {
	local name=$1
	shift
	mkdir -p "$T/run.$name"
	(cd "$T/run.$name" && exec "$D" -d --no-timeline --stats-file none \
		--listen "127.0.0.1:$P=utc" --pretend 2026-12-31T18:00:00Z "$@") \
		2>"$T/$name.log" &
	pids+=($!)
	for _ in $(seq 50); do
		"$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1 && break
		sleep 0.1
	done
	j=$("$L" server-stats --query "127.0.0.1:$P" --json 2>&1)
	[ "$(jget "$j" leap)" = add-leap ] && return 0
	bad "$name: no add-leap at the start: $j"; sed 's/^/  | /' "$T/$name.log"
	return 1
}
# down NAME: SIGTERM, which must stop it within 5 s
down() {
	local pid=${pids[-1]}
	kill -TERM "$pid"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		bad "$1: still running 5 s after SIGTERM"; kill -9 $(pgrep -P "$pid") "$pid"
	else
		ok "$1: SIGTERM stops it"
	fi
	wait "$pid" 2>/dev/null
	unset 'pids[-1]'
}
# kept NAME WHAT N: the leap still announced, and the log has said at
# least N times that it kept the table in use
kept() {
	local j n=0
	for _ in $(seq 20); do
		n=$(grep -c "keeping the table in use" "$T/$1.log")
		[ "$n" -ge "$3" ] && break
		sleep 0.1
	done
	j=$("$L" server-stats --query "127.0.0.1:$P" --json 2>&1)
	if [ "$(jget "$j" leap)" = add-leap ] && [ "$n" -ge "$3" ]; then
		ok "$1: $2: the old table kept (add-leap), said so"
	else
		bad "$1: $2: $j"; sed 's/^/  | /' "$T/$1.log"
	fi
}

for how in env-relative env-absolute flag-relative conf; do
	f=$T/run.$how/live.list
	mkdir -p "$T/run.$how"
	cp "$T/coming.list" "$f"
	case $how in
	env-relative) LEAPCLOCK_LEAPFILE=live.list up $how ;;
	env-absolute) LEAPCLOCK_LEAPFILE=$f up $how ;;
	flag-relative) up $how --leapfile live.list ;;
	conf) printf 'leapfile %s\n' "$f" >"$T/run.$how/conf"; up $how -c conf ;;
	esac || continue
	# tampered in place, then SIGHUP (the watch may reload it first)
	cp "$T/coming.tampered" "$f"
	kill -HUP "${pids[-1]}"
	kept $how "tampered hash, SIGHUP" 1
	# a FIFO renamed into place: the watch reloads it, then SIGHUP
	n=$(grep -c "keeping the table in use" "$T/$how.log")
	mkfifo "$f.new" && mv -f "$f.new" "$f"
	sleep 0.5
	kill -HUP "${pids[-1]}"
	kept $how "the file swapped for a FIFO" $((n + 1))
	down $how
done
# ---- a FIFO where the stats file's temporary went: never opened (that
# waited for a reader, with SIGTERM blocked, so the daemon could not be
# stopped); the temporary is now a new file of its own name, so the
# stats are written all the same
mkfifo "$T/stats.tmp"
"$D" -d --no-timeline --stats-file "$T/stats" --listen "127.0.0.1:$P=utc" \
	2>"$T/stats.log" &
pids+=($!)
for _ in $(seq 50); do
	"$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1 && break
	sleep 0.1
done
j=$("$L" server-stats --query "127.0.0.1:$P" --json 2>&1)
[ "$(jget "$j" mode)" = 4 ] && ok "stats temporary a FIFO: still serving" ||
	bad "stats temporary a FIFO: no answer: $j"
for _ in $(seq 30); do [ -s "$T/stats" ] && break; sleep 0.1; done
expect_line "... and the stats file is written" "^leapclockd-stats" "$(cat "$T/stats" 2>&1)"
[ -p "$T/stats.tmp" ] && ok "... the FIFO left alone" || bad "... the FIFO replaced"
down "stats temporary a FIFO"

exit $((fails > 0))
