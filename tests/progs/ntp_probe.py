#!/usr/bin/env python3
"""ntp_probe.py PORT COUNT GAP_US - NTP client queries to 127.0.0.1:PORT,
each printed as "mono_before transmit_unix_ns mono_after" as it comes
(so that a test can wait for the first answers; bounded in
count; each waits at most 0.2 s for its answer, the one whose origin
echoes its transmit field)."""
import socket
import struct
import sys
import time

port, count, gap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
NTP_UNIX = 2208988800
for i in range(count):
    pkt = bytearray(48)
    pkt[0] = (0 << 6) | (4 << 3) | 3
    pkt[40:48] = struct.pack("!Q", i + 1)
    a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s.sendto(bytes(pkt), ("127.0.0.1", port))
    # the reply to this request: its origin echoes our transmit field; a
    # late reply to an earlier one (queued while no server ran) is skipped
    data = None
    while True:
        left = 0.2 - (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - a) / 1e9
        if left <= 0:
            break
        s.settimeout(left)
        try:
            d, _ = s.recvfrom(512)
        except socket.timeout:
            break
        if len(d) >= 48 and struct.unpack("!Q", d[24:32])[0] == i + 1:
            data = d
            break
    if data is None:
        continue
    b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if data[1] == 0:
        continue  # a kiss-o'-death (stratum 0)
    sec, frac = struct.unpack("!II", data[40:48])
    ns = (sec - NTP_UNIX) * 10**9 + (frac * 10**9 >> 32)
    print(f"{a} {ns} {b}", flush=True)
    time.sleep(gap / 1e6)
