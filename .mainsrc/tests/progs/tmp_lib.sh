# tmp_lib.sh: the scratch directory and background jobs of a tests/*.sh
# test, cleaned up however it exits. Source it, then call lc_test_tmp.

# lc_test_tmp NAME: T, a new directory /tmp/lc-NAME.XXXXXX, and pids, an
# empty array for the background jobs to end: at exit every job in pids
# is killed and waited for, and T removed.
lc_test_tmp() {
  T=$(mktemp -d "/tmp/lc-$1.XXXXXX") || exit 1
  pids=()
  trap lc_test_cleanup EXIT
}

lc_test_cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}

# lc_wait_answers LEAPCLOCK ADDR NAME: 0 once a server answers NTP at ADDR
# (LEAPCLOCK server-stats --query; 5 s at most); else 1, with the log
# $T/NAME.log of the leapclockd that did not come up printed.
lc_wait_answers() {
  for _ in $(seq 50); do
    "$1" server-stats --query "$2" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "  leapclockd $3 did not answer on $2:"; sed 's/^/  | /' "$T/$3.log"
  return 1
}

# lc_make_cert KEY CERT: a new ECDSA key (mode 0600) and a self-signed
# certificate for localhost and 127.0.0.1, two days long, with certtool
# (Debian package gnutls-bin). 0, or 1 if certtool failed.
lc_make_cert() {
  printf '%s\n' 'cn = "localhost"' 'dns_name = "localhost"' 'ip_address = "127.0.0.1"' \
    'expiration_days = 2' tls_www_server signing_key encryption_key >"$1.tmpl" &&
    certtool --generate-privkey --key-type=ecdsa --outfile "$1" >/dev/null 2>&1 &&
    certtool --generate-self-signed --load-privkey "$1" --template "$1.tmpl" \
      --outfile "$2" >/dev/null 2>&1 && chmod 600 "$1"
}
