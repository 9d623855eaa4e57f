# sandbox_lib.sh - sourced by tests/sandbox_*.sh: what a sandbox's writer
# did, from its --debug lines on stderr ("sandbox: settime S.N -> RC",
# "sandbox: adjtimex modes 0xM status 0xS -> RC").
#
#   sb_debug_counts LOG   prints "STEPS INSERTS SETS": the steps (a
#                         successful settime, or adjtimex with
#                         ADJ_SETOFFSET), the adjtimex calls that armed an
#                         insertion (ADJ_STATUS with STA_INS), and every
#                         adjtimex call that set
sb_debug_counts() {
	local m s steps insert=0 sets=0
	steps=$(grep -c 'sandbox: settime .* -> 0$' "$1")
	while read -r m s; do
		sets=$((sets + 1))
		(( (m & 0x10) && (s & 0x10) )) && insert=$((insert + 1))
		(( m & 0x100 )) && steps=$((steps + 1))
	done < <(sed -n 's/.*sandbox: adjtimex modes \(0x[0-9a-f]*\) status \(0x[0-9a-f]*\) .*/\1 \2/p' "$1")
	echo "$steps $insert $sets"
}

# sb_require NAME DAEMON: exits 77 (skip NAME) unless leapclockd and
# lc_leap2015 are built in $build and this is no sanitizer build (DAEMON,
# the time daemon under test, is not built with the sanitizers). Needs
# preload_lib.sh's $san_preload.
sb_require() {
	if [ ! -x "$build/leapclockd" ] || [ ! -x "$build/lc_leap2015" ]; then
		echo "skip $1: leapclockd or lc_leap2015 not built"
		exit 77
	fi
	if [ -n "$san_preload" ]; then
		echo "skip $1: a sanitizer build ($2 is not built with the sanitizers)"
		exit 77
	fi
}

# sb_host_begin: sets nocap (the command prefix that drops CAP_SYS_TIME
# when root) and host_before (the host clock's adjtimex modes-0 state);
# sb_host_end checks that state is the same at the end (ok/bad).
sb_host_begin() {
	nocap=()
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		nocap=(setpriv --bounding-set=-sys_time --inh-caps=-sys_time --)
	fi
	host_before=$("${nocap[@]}" "$build/lc_leap2015" host)
}
sb_host_end() {
	local host_after
	host_after=$("${nocap[@]}" "$build/lc_leap2015" host)
	if [ "$host_before" = "$host_after" ]; then
		ok "the host clock's adjtimex state is unchanged ($host_after)"
	else
		bad "the host clock's adjtimex state changed" "before: $host_before
after:  $host_after"
	fi
}
