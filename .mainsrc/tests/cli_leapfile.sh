#!/usr/bin/env bash
# cli_leapfile.sh BUILD_DIR SOURCE_DIR - every `leapclock` command that takes
# a leap table, given one it cannot use (issue 12 items 7, 9): a FIFO, a
# tampered hash, a missing file, named by LEAPCLOCK_LEAPFILE or by the
# command's option (table/convert --file, run --leapfile). Each is exit 2 at
# once (a FIFO is never waited on), says which file (and line) and why, and
# answers nothing from another table. And `leapclock run` says when the
# table the program gets has expired (an expiry in 2020, judged at the real
# time; a rehearsal judges it at the pretended instant).
# No daemon, no host clock; every command under a timeout.
set -u
B=$(cd "${1:?usage: cli_leapfile.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: cli_leapfile.sh BUILD_DIR SOURCE_DIR}" && pwd)
L=$B/leapclock
if [ ! -x "$L" ]; then
	echo "skip cli_leapfile: leapclock not built"; exit 77
fi
T=$(mktemp -d /tmp/lc-cli-leapfile.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
DATA=$S/tests/data
# run needs the shim next to the binary to start a program
have_shim=0
[ -e "$B/libleapclock-preload.so" ] && have_shim=1
# A sanitizer build's shim needs the sanitizer runtimes loaded first (as
# tests/progs/preload_lib.sh does) for a program that is started.
sanitizer_preload "$B"
# lc_run ARGS...: leapclock run ARGS, under a timeout
lc_run() {
	if [ -n "$san_preload" ]; then
		LD_PRELOAD="$san_preload" timeout 10 "$L" run "$@"
	else
		timeout 10 "$L" run "$@"
	fi
}

mkfifo "$T/fifo"
sed 's/^#h\t......../#h\t00000000/' "$DATA/leap-seconds.list.tzdata2026f" >"$T/tampered.list"
declare -A why=(
	[fifo]="$T/fifo: is a FIFO: a leap-second file must be a regular file"
	[tampered.list]="$T/tampered.list:120: hash mismatch"
	[nowhere.list]="$T/nowhere.list: .*cannot open"
)

# refused NAME CMD...: exit 2 within the timeout, nothing on stdout, the
# reason on stderr
refused() {
	local name=$1 want=$2 rc
	shift 2
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	rc=$?
	expect_rc "$name: refused" 2 $rc
	expect_line "... $want" "$want" "$(cat "$T/err")"
	if [ -s "$T/out" ]; then
		bad "... but answered: $(head -3 "$T/out")"
	fi
}

for f in fifo tampered.list nowhere.list; do
	w=${why[$f]}
	for cmd in "table" "convert 2017-01-01T00:00:00Z" "now" "status"; do
		refused "LEAPCLOCK_LEAPFILE=$f $cmd" "^leapclock ${cmd%% *}: .*$w" \
			env LEAPCLOCK_LEAPFILE="$T/$f" "$L" $cmd
		expect_line "... naming LEAPCLOCK_LEAPFILE" "LEAPCLOCK_LEAPFILE" "$(cat "$T/err")"
	done
	refused "table --file $f" "^leapclock table: $w" "$L" table --file "$T/$f"
	refused "convert --file $f" "^leapclock convert: $w" \
		"$L" convert --file "$T/$f" 2017-01-01T00:00:00Z
	if [ $have_shim = 1 ]; then
		refused "LEAPCLOCK_LEAPFILE=$f run" "^leapclock run: $w" \
			env LEAPCLOCK_LEAPFILE="$T/$f" "$L" run -- echo ran
		refused "run --leapfile $f" "$(basename "$f")" \
			"$L" run --leapfile "$T/$f" -- echo ran
	fi
done

# ---- the same file, valid: each command answers from it
for cmd in "table" "convert 2017-01-01T00:00:00Z" "now" "status"; do
	LEAPCLOCK_LEAPFILE=$DATA/leap-seconds.list.tzdata2026f LEAPCLOCK_TIMELINE=none \
		timeout 10 "$L" $cmd >"$T/out" 2>"$T/err"
	expect_rc "LEAPCLOCK_LEAPFILE valid: $cmd answers" 0 $?
done

# ---- run: an expired table is said once, before the program starts
if [ $have_shim = 1 ]; then
	sed 's/^#expires .*/#expires 1593302400 (2020-06-28 00:00:00 UTC)/' \
		"$DATA/leapseconds.tzdata2025b" >"$T/expired.leapseconds"
	for how in env flag; do
		if [ $how = env ]; then
			out=$(LEAPCLOCK_LEAPFILE=$T/expired.leapseconds lc_run -- echo ran 2>"$T/err")
		else
			out=$(lc_run --leapfile "$T/expired.leapseconds" -- echo ran 2>"$T/err")
		fi
		expect_rc "run with an expired table ($how): the program runs" 0 $?
		[ "$out" = ran ] && ok "... and prints ran" || bad "... printed '$out'"
		expect_line "... the table's expiry said" \
			"^leapclock run: warning: leap table .*expired\.leapseconds expired on 2020-06-28" \
			"$(cat "$T/err")"
	done
	lc_run --leapfile "$T/expired.leapseconds" --pretend 2016-12-31T23:59:00Z \
		-- true 2>"$T/err"
	no_line "a rehearsal before the expiry: no warning" "expired on" "$(cat "$T/err")"
	lc_run --leapfile "$DATA/leap-seconds.list.tzdata2026f" \
		--pretend 2027-01-01T00:00:00Z -- true 2>"$T/err"
	no_line "a valid table: no warning" "expired on" "$(cat "$T/err")"
	lc_run --leapfile "$DATA/leap-seconds.list.tzdata2026f" \
		--pretend 2027-07-01T00:00:00Z -- true 2>"$T/err"
	expect_line "a rehearsal after the expiry: warned" \
		"^leapclock run: warning: leap table .* expired on 2027-06-28" "$(cat "$T/err")"
else
	echo "skip run: $B/libleapclock-preload.so not built"
fi

[ "$fails" -eq 0 ] && echo "cli_leapfile: all checks passed" || echo "cli_leapfile: $fails check(s) failed"
[ "$fails" -eq 0 ]
