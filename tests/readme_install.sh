#!/usr/bin/env bash
# readme_install.sh BUILD_DIR SOURCE_DIR - README's "## Installing" and
# "## Serving a fleet" commands, as a new user runs them (issue 27):
#   - the package route comes first, before `make install`;
#   - its `apt install` line names every package of debian/control's
#     Build-Depends (dpkg-buildpackage refuses to start without one:
#     libseccomp-dev was missing);
#   - the first leapclockd command of "Serving a fleet" does not publish
#     the host's /run/leapclock/timeline (--no-timeline, or another
#     --timeline), and no example uses --user ntp (Debian 12 has none);
#   - a command writing into /etc/leapclockd/ comes after one making that
#     folder (no package makes it).
# Reads files only.
set -u
S=$(cd "${2:?usage: readme_install.sh BUILD_DIR SOURCE_DIR}" && pwd)
fails=0
. "$S/tests/progs/check_lib.sh"
R=$S/README.md

inst=$(awk '/^## Installing/ { s = 1; next } /^## / { s = 0 } s' "$R")
pk=$(grep -n 'dpkg-buildpackage' <<<"$inst" | head -1 | cut -d: -f1)
mk=$(grep -n 'make install' <<<"$inst" | head -1 | cut -d: -f1)
[ -n "$pk" ] && [ -n "$mk" ] && [ "$pk" -lt "$mk" ] &&
	ok "Installing: the package route (line $pk) before make install (line $mk)" ||
	bad "Installing: dpkg-buildpackage at '${pk:-none}', make install at '${mk:-none}'"

apt=$(grep -E '^sudo apt(-get)? install .*debhelper' <<<"$inst" | head -1)
deps=$(sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/p' "$S/debian/control" |
	sed '$d; s/^Build-Depends://' | tr ',' '\n' |
	sed 's/|.*//; s/(.*)//; s/^[[:space:]]*//; s/[[:space:]]*$//' | grep .)
missing=""
for d in $deps; do
	[ "$d" = debhelper-compat ] && d=debhelper
	grep -qE "(^| )$d( |$)" <<<"$apt" || missing="$missing $d"
done
[ -n "$apt" ] && [ -z "$missing" ] &&
	ok "Installing: apt install names every Build-Depends ($(echo $deps | wc -w))" ||
	bad "Installing: apt line '${apt:-none}' lacks:$missing"

fleet=$(awk '/^## Serving a fleet/ { s = 1; next } /^## / { s = 0 } s' "$R")
first=$(grep -E '^(sudo )?leapclockd ' <<<"$fleet" | head -1)
if grep -q -- '--no-timeline' <<<"$first" ||
   { grep -q -- '--timeline ' <<<"$first" && ! grep -q '/run/leapclock/timeline' <<<"$first"; }; then
	ok "the first leapclockd example leaves the host's page alone: $first"
else
	bad "the first leapclockd example publishes the host's page: $first"
fi
no_line "no README example runs as --user ntp" '--user ntp' "$(cat "$R")"

T_out=$(mktemp); trap 'rm -f "$T_out"' EXIT
awk '/^```/ { c = !c; next } c' "$R" | awk '
	/(mkdir|install -d)[^#]*\/etc\/leapclockd/ { made = 1 }
	/(--outfile|>) *\/etc\/leapclockd\// && !made { print; exit }' >"$T_out"
[ ! -s "$T_out" ] && ok "README makes /etc/leapclockd before writing into it" ||
	bad "README writes into /etc/leapclockd/ before making it: $(cat "$T_out")"

[ $fails = 0 ] && echo "readme_install: all passed" || echo "readme_install: $fails failed"
[ $fails = 0 ]
