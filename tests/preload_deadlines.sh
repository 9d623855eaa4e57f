#!/bin/bash
# preload_deadlines.sh BUILD_DIR SOURCE_DIR - every libc call that waits for
# an absolute CLOCK_REALTIME deadline, under the shim, and the shim's timer
# table across fork (issue 12 items 11, 12).
#
# A deadline is the program's realtime + 1 s ("N+1"): whatever the pretend
# instant, the wait must take 1 s of CLOCK_MONOTONIC (-0.1 s, +2 s) and end
# when the program's realtime reads the deadline (never before, less than
# 0.5 s after). The C library would wait for the host's CLOCK_REALTIME to
# reach it: years, with a pretend in the future (the helper gives up after
# 20 s), or not at all with one in the past.
set -u
build=${1:?usage: preload_deadlines.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_deadlines.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

build_helper || finish

# ---- fork: the child's timers are its own ---------------------------------
out=$(run -- "$helper" forktimer 2>&1)
helper_result "fork: a child's CLOCK_MONOTONIC timer with the id of the parent's CLOCK_REALTIME timer keeps its own clock" $? "$out"
out=$(run --pretend 2030-06-01T00:00:00Z -- "$helper" forktimer 2>&1)
helper_result "fork, pretending 2030: the same, and the parent's realtime timer still converted" $? "$out"

finish
