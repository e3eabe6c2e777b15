#!/usr/bin/env python3
"""Memory after a burst: RSS of a running canned before, at the peak of, and 1.5 s after a
burst of slow-reading pipelining clients.

    benches/burst_rss.py BINARY [CLIENTS [REQUESTS [--at-once] [FLAG...]]]

Starts BINARY --listen 127.0.0.1:0 --workers 1 --no-date FLAG... (stdout to /dev/null, so
`--access-log` writes there), answers one request, then opens CLIENTS connections (64) that each send REQUESTS pipelined requests
(20,000) while reading their responses slowly (16 KiB every 10 ms), then close. VmRSS is read
from /proc/PID/status. With --at-once, every client connects first, then each sends all its
requests and reads its responses as fast as it can, all from one thread: the server's loop turns
then carry thousands of requests each (and as many access-log lines). The exit summary after SIGTERM is printed too. Loopback only; bounded
in count and time (60 s).
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


def at_once(addr, clients, requests, resp_len, deadline, sample):
    import selectors

    socks = [socket.create_connection(addr) for _ in range(clients)]
    sel = selectors.DefaultSelector()
    left = {}
    for s in socks:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        left[s] = [REQ * requests, requests * resp_len]
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    while left and time.time() < deadline:
        for key, ev in sel.select(timeout=0.05):
            s = key.fileobj
            out, want = left[s]
            if ev & selectors.EVENT_WRITE and out:
                try:
                    n = s.send(out)
                    left[s][0] = out[n:]
                except BlockingIOError:
                    pass
                if not left[s][0]:
                    sel.modify(s, selectors.EVENT_READ)
            if ev & selectors.EVENT_READ:
                try:
                    d = s.recv(1 << 16)
                except BlockingIOError:
                    continue
                left[s][1] -= len(d)
                if not d or left[s][1] <= 0:
                    sel.unregister(s)
                    del left[s]
        sample()
    for s in socks:
        s.close()


def main():
    binary = sys.argv[1]
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
    flags = sys.argv[4:]
    fast = "--at-once" in flags
    flags = [f for f in flags if f != "--at-once"]
    p = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--workers", "1", "--no-date", *flags],
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
        peak = idle
        if fast:

            def sample():
                nonlocal peak
                peak = max(peak, rss_kib(p.pid))

            at_once(addr, clients, requests, resp_len, deadline, sample)
        threads = [] if fast else [
            threading.Thread(target=client, args=(addr, requests, resp_len, deadline))
            for _ in range(clients)
        ]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_kib(p.pid))
            time.sleep(0.05)
        for t in threads:
            t.join()
        time.sleep(1.5)
        after = rss_kib(p.pid)
        print(
            f"{binary} {' '.join(flags)}: RSS idle {idle} KiB, peak {peak} KiB, 1.5 s after "
            f"{after} KiB (+{after - idle} KiB)"
        )
    finally:
        p.terminate()
        p.wait(timeout=10)
    summary = p.stderr.read().decode().strip()
    if summary:
        print(summary)


if __name__ == "__main__":
    main()
