#!/usr/bin/env bash
# A machine-independent figure for regressions: user-space instructions per request, counted
# by callgrind for a fixed scripted workload (10 keep-alive connections x 1,000 requests, then
# 10 x 100 batches of 16 pipelined requests), minus a run with no requests.
#
#   benches/instructions.sh
#   CANNED_BIN=PATH benches/instructions.sh   # another build (the small one, a musl one)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)"; exit 1; }
bin="${CANNED_BIN:-target/release/canned}"
[ -n "${CANNED_BIN:-}" ] || cargo build --release --bin canned >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/client.py" <<'PY'
import socket, sys
port, mode = int(sys.argv[1]), sys.argv[2]
req = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
n = 0
if mode == "load":
    for c in range(10):
        s = socket.create_connection(("127.0.0.1", port))
        for i in range(1000):
            s.sendall(req)
            d = b""
            while not d.endswith(b"Hello World\n"):
                d += s.recv(65536)
            n += 1
        for i in range(100):
            s.sendall(req * 16)
            d = b""
            while d.count(b"Hello World\n") < 16:
                d += s.recv(65536)
            n += 16
        s.close()
print(n)
PY
run() { # mode -> "instructions requests"
    # The last run's log names its port: gone before the new server may have written its own.
    rm -f "$work/vg.log"
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        "$bin" --listen 127.0.0.1:0 --workers 1 --no-date 2>"$work/vg.log" &
    local pid=$! port=""
    for _ in $(seq 100); do
        port="$(sed -n 's/^canned listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$work/vg.log" 2>/dev/null)"
        [ -n "$port" ] && break
        sleep 0.2
    done
    curl -s -o /dev/null "http://127.0.0.1:$port/"
    local n
    n="$(python3 "$work/client.py" "$port" "$1")"
    kill -TERM "$pid"; wait "$pid" || true
    echo "$(awk '/^summary:/ {print $2}' "$work/cg.out") $n"
}
read -r base _ < <(run idle)
read -r load n < <(run load)
# The readiness probe (curl) is one request in each run; it cancels out.
echo "user-space instructions per request: $(( (load - base) / n )) ($n requests; callgrind Ir $load - $base at idle)"
