#!/usr/bin/env python3
"""ntp_probe.py PORT COUNT GAP_US - NTP client queries to 127.0.0.1:PORT,
each printed as "mono_before transmit_unix_ns mono_after" (bounded in
count; each waits at most 0.5 s for its answer)."""
import socket
import struct
import sys
import time

port, count, gap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
NTP_UNIX = 2208988800
out = []
for i in range(count):
    pkt = bytearray(48)
    pkt[0] = (0 << 6) | (4 << 3) | 3
    pkt[40:48] = struct.pack("!Q", i + 1)
    a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s.sendto(bytes(pkt), ("127.0.0.1", port))
    try:
        data, _ = s.recvfrom(512)
    except socket.timeout:
        continue
    b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if len(data) < 48 or data[1] == 0:
        continue  # short, or a kiss-o'-death (stratum 0)
    sec, frac = struct.unpack("!II", data[40:48])
    ns = (sec - NTP_UNIX) * 10**9 + (frac * 10**9 >> 32)
    out.append(f"{a} {ns} {b}")
    time.sleep(gap / 1e6)
print("\n".join(out))
