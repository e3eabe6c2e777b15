#!/usr/bin/env python3
"""Memory after a burst: RSS of a running canned before, at the peak of, and 1.5 s after a
burst of slow-reading pipelining clients.

    benches/burst_rss.py BINARY [CLIENTS [REQUESTS]]

Starts BINARY --listen 127.0.0.1:0 --workers 1 --no-date, answers one
request, then opens CLIENTS connections (64) that each send REQUESTS pipelined requests
(20,000) while reading their responses slowly (16 KiB every 10 ms), then close. VmRSS is read
from /proc/PID/status. Loopback only; bounded in count and time (60 s).
"""
import re
import socket
import subprocess
import sys
import threading
import time

REQ = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def client(addr, requests, resp_len, deadline):
    s = socket.create_connection(addr)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sender = threading.Thread(target=lambda: s.sendall(REQ * requests), daemon=True)
    sender.start()
    want = requests * resp_len
    got = 0
    while got < want and time.time() < deadline:
        data = s.recv(16384)
        if not data:
            break
        got += len(data)
        time.sleep(0.01)
    sender.join(timeout=max(0.0, deadline - time.time()))
    s.close()


def main():
    binary = sys.argv[1]
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
    p = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--workers", "1", "--no-date"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        line = p.stderr.readline().decode()
        host, port = re.search(r"listening on ([\d.]+):(\d+)", line).groups()
        addr = (host, int(port))
        with socket.create_connection(addr) as s:
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            first = b""
            while True:
                d = s.recv(65536)
                if not d:
                    break
                first += d
        resp_len = len(first) - len(b"Connection: close\r\n")
        time.sleep(0.5)
        idle = rss_kib(p.pid)
        deadline = time.time() + 60
        threads = [
            threading.Thread(target=client, args=(addr, requests, resp_len, deadline))
            for _ in range(clients)
        ]
        for t in threads:
            t.start()
        peak = idle
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_kib(p.pid))
            time.sleep(0.05)
        for t in threads:
            t.join()
        time.sleep(1.5)
        after = rss_kib(p.pid)
        print(
            f"{binary}: RSS idle {idle} KiB, peak {peak} KiB, 1.5 s after {after} KiB "
            f"(+{after - idle} KiB)"
        )
    finally:
        p.terminate()
        p.wait(timeout=10)


if __name__ == "__main__":
    main()
