#!/bin/bash
# cli_write_errors.sh BUILD_DIR SOURCE_DIR - a write that fails is said and
# fails the command (issue 27): every command's stdout, smear's --csv and
# --svg files and '-', help and --version, to /dev/full (ENOSPC on every
# write) exit 3 with "leapclock CMD: [writing ... to ]FILE|stdout:
# No space left on device". Before, `smear --csv /dev/full` exited 3 in
# silence, --svg said "write failed" without the reason, and status, table,
# now, convert, simulate and --help exited 0.
set -u
B=${1:?build dir}
S=${2:-$(cd "$(dirname "$0")/.." && pwd)}
L="$B/leapclock"
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
[ -x "$L" ] || { echo "skip: $L not built"; exit 77; }
[ -w /dev/full ] || { echo "skip: no /dev/full"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f26="$S/tests/data/leap-seconds.list.tzdata2026f"
export LEAPCLOCK_TIMELINE=none LEAPCLOCK_LEAPFILE="$f26"
nospc=$(python3 -c 'import os, errno; print(os.strerror(errno.ENOSPC))' 2>/dev/null ||
	echo "No space left on device")

# full CMD ARGS...: stdout to /dev/full; exit 3 and the one-line reason
full() {
	local name=$1 want=$2; shift 2
	"$L" "$@" >/dev/full 2>"$tmp/err"; rc=$?
	expect_rc "$name" 3 $rc
	expect_line "$name: the reason said" "^$want: $nospc\$" "$(cat "$tmp/err")"
}

# ---- stdout of every command
full "status >/dev/full" "leapclock status: stdout" status
full "status --json >/dev/full" "leapclock status: stdout" status --json
full "status --watch >/dev/full stops at once" "leapclock status: stdout" \
	status --watch --count 50 --interval 0.1
full "table >/dev/full" "leapclock table: stdout" table
full "table --json >/dev/full" "leapclock table: stdout" table --json
full "now >/dev/full" "leapclock now: stdout" now
full "now --json >/dev/full" "leapclock now: stdout" now --json
full "convert >/dev/full" "leapclock convert: stdout" convert 2016-12-31T23:59:60Z
full "simulate >/dev/full" "leapclock simulate: stdout" simulate
full "smear (table) >/dev/full" "leapclock smear: stdout" smear
full "smear --json >/dev/full" "leapclock smear: stdout" smear --json
full "server-stats --refid >/dev/full" "leapclock server-stats: stdout" \
	server-stats --refid 0x4c4f434c
full "--help >/dev/full" "leapclock: stdout" --help
full "--version >/dev/full" "leapclock: stdout" --version
full "help table >/dev/full" "leapclock help: stdout" help table
full "smear --help >/dev/full" "leapclock smear: stdout" smear --help

# ---- smear's files: named, and '-' as stdout; said once
full "smear --csv - >/dev/full" "leapclock smear: writing the CSV \(--csv\) to stdout" smear --csv -
full "smear --svg - >/dev/full" "leapclock smear: writing the chart \(--svg\) to stdout" smear --svg -
for kind in csv svg; do
	what=$([ $kind = csv ] && echo "the CSV" || echo "the chart")
	"$L" smear --$kind /dev/full >/dev/null 2>"$tmp/err"; rc=$?
	expect_rc "smear --$kind /dev/full" 3 $rc
	expect_line "smear --$kind /dev/full: file and reason" \
		"^leapclock smear: writing $what \(--$kind\) to /dev/full: $nospc\$" "$(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok "smear --$kind /dev/full: one line" ||
		bad "smear --$kind /dev/full: $(wc -l <"$tmp/err") lines on stderr"
done
# the table after the files is still checked
"$L" smear --csv "$tmp/s.csv" >/dev/full 2>"$tmp/err"; rc=$?
expect_rc "smear --csv FILE, table >/dev/full" 3 $rc
[ -s "$tmp/s.csv" ] && ok "... the CSV file was written" || bad "... no CSV file"

# ---- and writes that work still exit 0, with nothing on stderr
for c in "status" "table" "now" "smear --json" "--help"; do
	# shellcheck disable=SC2086
	"$L" $c >"$tmp/out" 2>"$tmp/err"; rc=$?
	expect_rc "$c to a file" 0 $rc
	no_line "$c to a file: no write error" "stdout:" "$(cat "$tmp/err")"
done

[ $fails -eq 0 ]
