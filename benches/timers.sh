#!/usr/bin/env bash
# What deadlines cost and how precise they are, for one worker:
#  (1) server CPU time over 10 s while 10,000 idle keep-alive connections are held (a loop
#      that sweeps its connections each tick pays for every one of them; one that sleeps until
#      its earliest deadline pays nothing);
#  (2) --idle-timeout 200ms: how late the close comes, over 20 connections;
#  (3) --delay 5ms: how late the response comes, over 200 requests;
# (2) and (3) while another client sends a request every 7 ms.
# CANNED_BIN=path runs another build (for a before/after comparison).
#
#   benches/timers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
require timers.sh python3
if [ -z "${CANNED_BIN:-}" ]; then
    cargo build --release --bin canned >&2
    CANNED_BIN=target/release/canned
fi
ulimit -n "$(ulimit -Hn)"

# start FLAGS... -> sets $pid and $port
start() {
    start_canned "$work/err" $PIN_S "$CANNED_BIN" --listen 127.0.0.1:0 --workers 1 --no-date \
        --max-conns 15000 "$@"
}

cat >"$work/idle.py" <<'PY'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
req = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    conns.append(s)
for s in conns:
    d = b""
    while not d.endswith(b"Hello World\n"):
        d += s.recv(4096)
print("ready", flush=True)
sys.stdin.readline()  # hold the connections until told
PY

cat >"$work/precision.py" <<'PY'
import socket, statistics, sys, threading, time
port, mode, n, want_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
req = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
def other_client():
    # Traffic from another client every 7 ms, as a server sees in use: it keeps a loop's
    # wake-ups out of step with the measured connection.
    s = socket.create_connection(("127.0.0.1", port))
    while True:
        s.sendall(req)
        d = b""
        while not d.endswith(b"Hello World\n"):
            d += s.recv(4096)
        time.sleep(0.007)
threading.Thread(target=other_client, daemon=True).start()
time.sleep(0.1)
late = []
s = None
for i in range(n):
    if mode == "idle" or s is None:
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    t = time.monotonic()
    s.sendall(req)
    d = b""
    while not d.endswith(b"Hello World\n"):
        d += s.recv(4096)
    if mode == "idle":
        t = time.monotonic()
        while s.recv(4096):
            pass
        s.close()
    late.append((time.monotonic() - t) * 1000 - want_ms)
late.sort()
print(f"lateness ms: median {statistics.median(late):.2f}, p90 {late[int(len(late) * 0.9)]:.2f}, max {late[-1]:.2f} ({n} samples)")
PY

echo "binary: $CANNED_BIN"
start
coproc IDLE { python3 "$work/idle.py" "$port" 10000; }
read -r _ <&"${IDLE[0]}"
sleep 1
# CPU time in ns (schedstat) and wake-ups (voluntary context switches) of the worker thread:
# with --workers 1 the worker is the main thread.
cpu_ns() { awk '{print $1}' "/proc/$pid/schedstat"; }
wakeups() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$pid/status"; }
cpu0="$(cpu_ns)"; wake0="$(wakeups)"
sleep 10
cpu1="$(cpu_ns)"; wake1="$(wakeups)"
echo >&"${IDLE[1]}"
wait "$IDLE_PID" 2>/dev/null || true
echo "(1) 10,000 idle connections, 10 s: worker CPU $(( (cpu1 - cpu0) / 1000 )) µs, $(( wake1 - wake0 )) wake-ups"
kill "$pid"; wait "$pid" 2>/dev/null || true

start --idle-timeout 200ms
echo "(2) --idle-timeout 200ms, close: $(python3 "$work/precision.py" "$port" idle 20 200)"
kill "$pid"; wait "$pid" 2>/dev/null || true

start --delay 5ms
echo "(3) --delay 5ms, response: $(python3 "$work/precision.py" "$port" delay 200 5)"
kill "$pid"; wait "$pid" 2>/dev/null || true
