#!/usr/bin/env bash
# server_check_config.sh BUILD_DIR SOURCE_DIR - `leapclockd --check-config`
# gives the daemon's own verdict on a configuration (issue 27, "done
# when"): each file of a corpus is run both ways, and they must agree:
#   - check-config exits 2  <=>  the daemon, started on the file, exits 2;
#   - check-config exits 0  <=>  the daemon starts (logs "running") or
#     fails only at run time (exit 1: a socket, a page);
#   - anything else (a crash, a hang, another exit) fails.
# The corpus: tests/data/config/*.conf (a good and a bad value of every
# directive, broken syntax, binary bytes, a long line, includes) and each
# file of fuzz/corpus/keyfile (the key file fuzzer's corpus) as a keyfile.
# server_access.sh checks what check-config prints; this checks that it
# judges as the daemon does. Loopback only, port 0, every page in the
# test's folder; the daemon is stopped (SIGTERM) once it runs.
set -u
B=$(cd "${1:?usage: server_check_config.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_check_config.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
[ -x "$D" ] || { echo "skip server_check_config: leapclockd not built"; exit 77; }
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-check-config
fails=0
. "$S/tests/progs/check_lib.sh"
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_TIMELINE=none
unset LEAPCLOCK_SMEAR LEAPCLOCK_HOST_LEAP

# daemon_verdict FILE: "2", "1", "runs", or "other:RC" / "hang"
daemon_verdict() {
	local f=$1 pid rc i
	rm -f "$T/page" "$T/d.log"
	"$D" -d -c "$f" --timeline "$T/page" --stats-file none >/dev/null 2>"$T/d.log" &
	pid=$!
	for i in $(seq 100); do
		if ! kill -0 $pid 2>/dev/null; then
			wait $pid; rc=$?
			case $rc in 1|2) echo $rc ;; *) echo "other:$rc" ;; esac
			return
		fi
		if grep -q ' running (pid' "$T/d.log"; then
			kill $pid; wait $pid 2>/dev/null
			echo runs; return
		fi
		sleep 0.05
	done
	kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
	echo hang
}
# check_verdict FILE: check-config's exit status ("hang" after 5 s)
check_verdict() {
	local rc
	timeout 5 "$D" --check-config -c "$1" --timeline "$T/cpage" --stats-file none \
		>/dev/null 2>"$T/c.log"
	rc=$?
	[ $rc = 124 ] && echo hang || echo $rc
	[ ! -e "$T/cpage" ] || { echo "  check-config published $T/cpage" >&2; rm -f "$T/cpage"; echo touched; }
}

n=0 n2=0 n0=0
judge() { # NAME FILE
	local name=$1 f=$2 d c
	d=$(daemon_verdict "$f")
	c=$(check_verdict "$f")
	n=$((n + 1))
	case "$c/$d" in
	2/2) n2=$((n2 + 1)) ;;
	0/runs|0/1) n0=$((n0 + 1)) ;;
	*) bad "$name: check-config '$c', the daemon '$d'"
	   sed 's/^/    check-config: /' "$T/c.log" | tail -2
	   sed 's/^/    daemon:       /' "$T/d.log" | tail -2 ;;
	esac
}

for f in "$S"/tests/data/config/*.conf; do
	judge "$(basename "$f")" "$f"
done
# the good files must be good, the bad ones bad: the corpus means what
# its names say (else agreeing on a mis-made file would prove nothing)
for f in "$S"/tests/data/config/good-*.conf; do
	c=$(check_verdict "$f")
	[ "$c" = 0 ] || bad "$(basename "$f"): check-config exit $c, want 0: $(head -2 "$T/c.log")"
done
for f in "$S"/tests/data/config/bad-*.conf; do
	c=$(check_verdict "$f")
	[ "$c" = 2 ] || bad "$(basename "$f"): check-config exit $c, want 2"
done
# the key file fuzzer's corpus, each file as the keyfile
for k in "$S"/fuzz/corpus/keyfile/*; do
	[ -f "$k" ] || continue
	cp "$k" "$T/keys.$n"; chmod 600 "$T/keys.$n"
	printf 'listen 127.0.0.1:0 utc\nkeyfile %s\n' "$T/keys.$n" >"$T/k.conf"
	judge "keyfile $(basename "$k")" "$T/k.conf"
done
[ $n -ge 40 ] && [ $n2 -ge 20 ] && [ $n0 -ge 3 ] &&
	ok "check-config agrees with the daemon on $n configurations ($n2 exit 2 both ways, $n0 good)" ||
	bad "check-config and the daemon: $n files, $n2 agreed exit 2, $n0 agreed good"

[ $fails = 0 ] && echo "server_check_config: all passed" || echo "server_check_config: $fails failed"
[ $fails = 0 ]
