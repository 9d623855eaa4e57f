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
