#!/usr/bin/env python3
"""ntp_keyed.py - a keyed NTP client and a tampering relay for
tests/server_keys.sh. The MACs are computed here with hashlib, apart from
leapclockd's code: the legacy NTP digest is HASH(key || packet).

  ntp_keyed.py query PORT VERSION KEYID TYPE HEXKEY [EXT] [BAD]
      sends one request (VERSION 3 or 4) with a MAC (truncated to 20 bytes
      in NTPv4), an unknown 16-byte extension field before it when EXT=1, a
      flipped MAC bit when BAD=1; prints one line:
        reply LEN VERSION KEYID MAC-ok|MAC-bad ORIGIN-ok|ORIGIN-bad
        plain LEN ORIGIN-ok|ORIGIN-bad   (an answer without a MAC)
        kod REFID LEN  (a kiss-o'-death)
        noreply        (nothing within 1 s)
      KEYID 0 with TYPE none sends a plain 48-byte request.
  ntp_keyed.py relay LISTEN_PORT SERVER_PORT FLIP
      forwards requests to 127.0.0.1:SERVER_PORT; with FLIP=1 flips one
      bit of each reply's transmit timestamp (inside what the MAC covers).
"""
import hashlib
import os
import socket
import struct
import sys


def mac(typ, key, data, version):
    d = hashlib.new(typ.lower().replace("-", "_") if typ.startswith("SHA3") else typ.lower(),
                    key + data).digest()
    return d[:20] if version == 4 else d


def query(port, version, keyid, typ, hexkey, ext=0, bad=0):
    key = bytes.fromhex(hexkey)
    tx = os.urandom(8)
    hdr = bytes([(version << 3) | 3, 0, 6, 0xEC]) + bytes(36) + tx
    body = hdr
    if ext:
        body += struct.pack("!HH", 0xF123, 16) + bytes(12)
    if keyid:
        m = bytearray(mac(typ, key, body, version))
        if bad:
            m[3] ^= 0x10
        body += struct.pack("!I", keyid) + bytes(m)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    s.sendto(body, ("127.0.0.1", port))
    try:
        r, _ = s.recvfrom(2048)
    except socket.timeout:
        print("noreply")
        return
    origin = "ORIGIN-ok" if r[24:32] == tx else "ORIGIN-bad"
    if r[1] == 0:
        print("kod %s %d" % (r[12:16].decode("ascii", "replace"), len(r)))
        return
    if len(r) == 48:
        print("plain 48 %s" % origin)
        return
    rid = struct.unpack("!I", r[48:52])[0]
    rver = (r[0] >> 3) & 7
    good = typ != "none" and mac(typ, key, r[:48], rver) == r[52:]
    print("reply %d %d %d %s %s" % (len(r), rver, rid,
                                    "MAC-ok" if good else "MAC-bad", origin))


def relay(lport, sport, flip):
    ls = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ls.bind(("127.0.0.1", lport))
    up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    up.settimeout(1.0)
    while True:
        data, addr = ls.recvfrom(2048)
        up.sendto(data, ("127.0.0.1", sport))
        try:
            r, _ = up.recvfrom(2048)
        except socket.timeout:
            continue
        if flip and len(r) >= 48:
            r = bytearray(r)
            r[46] ^= 0x01
            r = bytes(r)
        ls.sendto(r, addr)


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "query":
        query(int(a[2]), int(a[3]), int(a[4]), a[5], a[6],
              int(a[7]) if len(a) > 7 else 0, int(a[8]) if len(a) > 8 else 0)
    elif a[1] == "relay":
        relay(int(a[2]), int(a[3]), int(a[4]))
