# leap_a_day_tsv.sh - sourced: lad_tsv LOG LABEL turns the output of the
# kernel's leap-a-day (run with TZ=UTC) into the side-by-side format that
# tests/sandbox_kselftest.sh writes for the sandbox and the VM test for
# the real kernel, one line per adjtimex reading:
#   # leap-a-day LABEL: iter dir t_rel_s tai state
#   1	INS	-3.000256	37	TIME_INS
# iter counts the leaps from 1; dir is INS or DEL (the first state the
# iteration shows); t_rel_s is adjtimex's time minus that leap's 00:00:00
# in seconds (6 decimals; the inserted second reads 23:59:59 again, as
# adjtimex shows it); tai and state as leap-a-day prints them.
lad_tsv() {
	local log=$1 label=$2 dates
	dates=$(mktemp)
	# every date of the log, in order, converted in one date(1) call
	sed -n -e 's/^Scheduling leap second for \(.*\)$/\1/p' \
		-e 's/^\([A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]* [0-9]*\) + .*/\1/p' "$log" |
		TZ=UTC date -f - +%s >"$dates"
	echo "# leap-a-day $label: iter dir t_rel_s tai state"
	sed -n -e 's/^Scheduling leap second for .*/S/p' \
		-e 's/^[A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]* [0-9]* + *\([0-9]*\) us (\([-0-9]*\))[[:space:]]*\([A-Z_]*\).*/R \1 \2 \3/p' "$log" |
		paste -d' ' "$dates" - |
		awk '$2 == "S" { it++; mid = $1; dir = ""; next }
		     $2 == "R" { if (dir == "" && $5 == "TIME_INS") dir = "INS"
		                 if (dir == "" && $5 == "TIME_DEL") dir = "DEL"
		                 printf "%d\t%s\t%.6f\t%s\t%s\n", it, dir == "" ? "-" : dir,
		                        $1 - mid + $3 / 1e6, $4, $5 }'
	rm -f "$dates"
}

# lad_side_by_side KERNEL_TSV SANDBOX_TSV prints two lad_tsv outputs of
# the same leap-a-day run side by side (tools/vm-kernel-test, issue 24
# item 4): per iteration, one row per change of what adjtimex returned
# (TAI offset, state) in either, with the t_rel_s of its first reading.
lad_side_by_side() {
	awk -F'\t' '
		FNR == 1 { src++ }
		/^#/ { next }
		{ k = $4 "/" $5; it = $1
		  if (k != last[src, it]) {
		    n[src, it]++
		    row[src, it, n[src, it]] = sprintf("%+10.6f %s %s", $3, $4, $5)
		    if (dir[it] == "" || dir[it] == "-") dir[it] = $2
		  }
		  last[src, it] = k; if (it > maxit) maxit = it }
		END { printf "  %-4s %-3s | %-33s | %-33s\n", "iter", "dir",
		             "kernel: t_rel_s tai state", "sandbox: t_rel_s tai state"
		      for (it = 1; it <= maxit; it++) {
		        m = n[1, it] > n[2, it] ? n[1, it] : n[2, it]
		        for (r = 1; r <= m; r++)
		          printf "  %-4s %-3s | %-33s | %-33s\n", r == 1 ? it : "",
		                 r == 1 ? dir[it] : "", row[1, it, r], row[2, it, r] } }' "$1" "$2"
}
