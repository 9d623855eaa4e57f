#!/usr/bin/env bash
# python_module.sh BUILD_DIR SOURCE_DIR - the Python module (python/leapclock)
# over the build tree's libleapclock.so.1: python/tests/test_leapclock.py
# (UTC with 23:59:60, TAI, UTC_SLS, the leap table, conversions, the page's
# status). Hermetic: the test sets LEAPCLOCK_TIMELINE to a page in a temp
# dir and LEAPCLOCK_LEAPFILE to tests/data. Needs python3 (skips without).
set -u
B=$(cd "${1:?usage: python_module.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: python_module.sh BUILD_DIR SOURCE_DIR}" && pwd)
LIB=$B/libleapclock.so.1
if [ ! -e "$LIB" ]; then
  echo "skip python_module: $LIB not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip python_module: no python3 (Debian package python3)"; exit 77
fi
# A sanitized library needs its runtime first: not a test of the module.
if [ "${LC_SANITIZED:-0}" = 1 ]; then
  echo "skip python_module: sanitized build (the library needs the ASan runtime preloaded)"; exit 77
fi
LEAPCLOCK_LIBRARY=$LIB PYTHONPATH=$S/python LEAPCLOCK_TEST_DATA=$S/tests/data \
  timeout 120 python3 "$S/python/tests/test_leapclock.py"
