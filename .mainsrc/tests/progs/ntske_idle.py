#!/usr/bin/env python3
"""ntske_idle.py PORT CAFILE SECONDS - NTS-KE sessions against idle
connections (tests/server_ntske_idle.sh, issue 28 item 11).

For SECONDS, 16 TCP connections from 127.0.0.2..127.0.0.5 (4 each) sit on
PORT without a word, each opened again as soon as the server closes it,
while one NTS-KE session (TLS 1.3, ALPN ntske/1, a request for NTPv4 and
AEAD 15) starts every 0.25 s from another address, 127.0.0.10 and up, in
turn. Prints "sessions N ok M idle_closed K" (K: idle connections the
server closed after holding them a second or more) and exits 0."""
import socket
import ssl
import struct
import sys
import threading
import time

port, cafile, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
end = time.monotonic() + seconds
closed = [0]
lock = threading.Lock()


def holder(src):
    while time.monotonic() < end:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2,
                                         source_address=(src, 0))
        except OSError:
            time.sleep(0.05)
            continue
        s.settimeout(0.2)
        t0 = time.monotonic()
        while time.monotonic() < end:
            try:
                if s.recv(1) == b"":
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        else:
            s.close()
            break
        # closed by the server: after its deadline, or at once (refused,
        # or given up for a newcomer); opened again a little later
        if time.monotonic() - t0 >= 1.0:
            with lock:
                closed[0] += 1
        s.close()
        time.sleep(0.05)


def record(t, body, critical=True):
    return struct.pack(">HH", (0x8000 if critical else 0) | t, len(body)) + body


REQ = record(1, struct.pack(">H", 0)) + record(4, struct.pack(">H", 15)) + record(0, b"")


def session(src):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(cafile)
    ctx.set_alpn_protocols(["ntske/1"])
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=3,
                                       source_address=(src, 0))
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            s.sendall(REQ)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        cookies, off = 0, 0
        while off + 4 <= len(data):
            t, n = struct.unpack(">HH", data[off:off + 4])
            if t & 0x7fff == 5:
                cookies += 1
            off += 4 + n
        return cookies == 8
    except (OSError, ssl.SSLError):
        return False


hs = [threading.Thread(target=holder, args=("127.0.0.%d" % (2 + i // 4),))
      for i in range(16)]
for h in hs:
    h.start()
time.sleep(0.5)  # let the idle ones take every place first
n = ok = 0
while time.monotonic() < end - 1:
    n += 1
    if session("127.0.0.%d" % (10 + n % 200)):
        ok += 1
    time.sleep(0.25)
for h in hs:
    h.join()
print("sessions %d ok %d idle_closed %d" % (n, ok, closed[0]))
