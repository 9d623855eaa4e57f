#!/usr/bin/env bash
# readme_example.sh BUILD_DIR SOURCE_DIR: the README's library example is a
# whole program (issue 16). Extract the C block under "## Using the
# library", build it as a user would (C11, -pedantic-errors, -Werror, none
# of the project's feature-test macros) against the build tree's library,
# and run it on the in-process timeline and with a timeline page that is
# absent: it says which timeline it reads and prints UTC and TAI, whose
# difference is the table's TAI-UTC.
set -u
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
. "$src/tests/progs/check_lib.sh"

cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cc=${cc:-cc}
san=$(sed -n 's/^LC_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
sanflags=${san:+-fsanitize=$san}

awk '/^## Using the library/ { sec = 1; next }
     /^## / { sec = 0 }
     sec && /^```c$/ { code = 1; n++; next }
     code && /^```$/ { code = 0; if (n == 1) exit; next }
     code && n == 1 { print }' "$src/README.md" >"$tmp/app.c"
lines=$(wc -l <"$tmp/app.c")
if [ "$lines" -gt 20 ] && grep -q 'int main' "$tmp/app.c"; then
  ok "README.md's example is a whole program ($lines lines)"
else
  bad "no C block with main() under '## Using the library' in README.md"
  echo "readme_example.sh: $fails failed"; exit 1
fi
if $cc $sanflags -std=c11 -pedantic-errors -Wall -Wextra -Werror -I"$src/include" \
     -o "$tmp/app" "$tmp/app.c" "$build/libleapclock.a" -lm -lpthread 2>"$tmp/cc.log"; then
  ok "it builds with -std=c11 -pedantic-errors -Wall -Wextra -Werror"
else
  bad "it does not build:"; sed 's/^/    /' "$tmp/cc.log"
  echo "readme_example.sh: $fails failed"; exit 1
fi

for tl in none "$tmp/no-such-page"; do
  out=$(LEAPCLOCK_TIMELINE=$tl "$tmp/app" 2>"$tmp/err"); rc=$?
  expect_rc "LEAPCLOCK_TIMELINE=$tl: it runs" 0 "$rc"
  sed "s/^/    /" <<<"$out"
  expect_line "it says it reads the in-process timeline, and why" \
    '^timeline: in-process \(.+\)$' "$out"
  expect_line "it prints UTC in ISO 8601" \
    '^UTC [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:(60|[0-5][0-9])\.[0-9]{3}Z$' "$out"
  expect_line "it prints TAI" '^TAI [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}$' "$out"
  expect_line "it says whether a leap is announced" '^next leap: ' "$out"
  # TAI - UTC of the two printed lines, within the second they were read.
  u=$(sed -n 's/^UTC \(.*\)\.[0-9]*Z$/\1/p' <<<"$out" | sed 's/:60$/:59/')
  t=$(sed -n 's/^TAI \(.*\)\.[0-9]*$/\1/p' <<<"$out")
  d=$(( $(date -u -d "$t" +%s) - $(date -u -d "$u" +%s) ))
  if [ "$d" -ge 37 ] && [ "$d" -le 38 ]; then
    ok "TAI - UTC on its lines is $d s (37 since 2017)"
  else
    bad "TAI - UTC on its lines is $d s, want 37"
  fi
done
echo "readme_example.sh: $fails failed"
[ "$fails" = 0 ]
