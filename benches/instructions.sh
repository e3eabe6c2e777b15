#!/usr/bin/env bash
# A machine-independent figure for regressions: user-space instructions per request, counted
# by callgrind for a fixed scripted workload (10 keep-alive connections x 1,000 requests, then
# 10 x 100 batches of 16 pipelined requests), minus a run with no requests. The same workload
# against the floor (benches/floor.rs: an epoll loop that only counts CRLFCRLF) gives the
# figure to compare with, and the ratio.
#
#   benches/instructions.sh
#   CANNED_BIN=PATH benches/instructions.sh   # another build (the small one, a musl one)
#   PEERS="hyper nginx" benches/instructions.sh  # also hyper 1.x (benches/hyper-peer) and nginx
#   BASE=PATH benches/instructions.sh       # also another canned build (an earlier commit's), side by side
#
# With HTTP/2 in the build, the same is counted for an HTTP/2 workload with prior knowledge
# (10 connections x 100 batches of 10 concurrent streams), for canned and BASE.
#
# Writes the counts to docs/results/instructions.md (benches/results.sh), which the docs quote.
#
# hyper and nginx are counted on a fixed port (PEER_PORT, default 18399) and only when asked
# for: nginx runs with `master_process off` so that callgrind sees its one process.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/results.sh
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)"; exit 1; }
bin="${CANNED_BIN:-target/release/canned}"
peer_port="${PEER_PORT:-18399}"
[ -n "${CANNED_BIN:-}" ] || cargo build --release --bin canned >&2
cargo build --release --example floor >&2
floor=target/release/examples/floor
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
elif mode == "h2":
    def frame(kind, flags, stream, payload=b""):
        return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload
    # :method GET, :scheme http, :path / (static table), :authority bench: a literal added to
    # the dynamic table the first time, then its index (62), as h2load and browsers send it.
    first, block = b"\x82\x86\x84\x41\x05bench", b"\x82\x86\x84\xbe"
    for c in range(10):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))
        buf, stream, acked = b"", 1, False
        for i in range(100):
            out = b"" if acked else frame(4, 1, 0)
            acked = True
            for _ in range(10):
                out += frame(1, 5, stream, first if stream == 1 else block)  # END_STREAM | END_HEADERS
                stream += 2
            s.sendall(out)
            ended = 0
            while ended < 10:
                while len(buf) >= 9 and len(buf) >= 9 + int.from_bytes(buf[:3], "big"):
                    size = int.from_bytes(buf[:3], "big")
                    kind, flags = buf[3], buf[4]
                    if kind in (0, 1) and flags & 1 and int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF:
                        ended += 1
                    buf = buf[9 + size:]
                if ended < 10:
                    d = s.recv(65536)
                    if not d:
                        raise SystemExit("closed")
                    buf += d
            n += 10
        s.close()
print(n)
PY
run() { # server mode -> "instructions requests"
    local server="$1"
    # The last run's log names its port: gone before the new server may have written its own.
    rm -f "$work/vg.log"
    # stdout to /dev/null: a server left behind must not hold the pipe that `read` waits on.
    case "$1" in
        canned | base)
            local b="$bin"
            [ "$server" = base ] && b="$BASE"
            valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
            "$b" --listen 127.0.0.1:0 --workers 1 --no-date >/dev/null 2>"$work/vg.log" & ;;
        floor) valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
            "$floor" 0 >/dev/null 2>"$work/vg.log" & ;;
        hyper) valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
            benches/hyper-peer/target/release/hyper-peer "$peer_port" >/dev/null 2>"$work/vg.log" & ;;
        nginx) valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
            nginx -c "$work/nginx.conf" -p "$work" >/dev/null 2>"$work/vg.log" & ;;
    esac
    local pid=$! port=""
    case "$1" in
        hyper | nginx)
            # No port on stderr: wait until the fixed one answers.
            for _ in $(seq 150); do
                curl -s -o /dev/null "http://127.0.0.1:$peer_port/" && { port=$peer_port; break; }
                sleep 0.2
            done ;;
        *)
            for _ in $(seq 100); do
                port="$(sed -n 's/^[a-z]* listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/vg.log" 2>/dev/null)"
                [ -n "$port" ] && break
                sleep 0.2
            done ;;
    esac
    [ -n "$port" ] || { echo "$1 did not start:" >&2; cat "$work/vg.log" >&2; exit 1; }
    curl -s -o /dev/null "http://127.0.0.1:$port/"
    local n
    n="$(python3 "$work/client.py" "$port" "$2")"
    # canned ends on SIGTERM; the floor dies of it, and callgrind still writes its counts.
    # Under valgrind a signal is now and then lost (seen on a loaded machine): sent again
    # after 5 s.
    for _ in $(seq 12); do
        kill -TERM "$pid" 2>/dev/null || break
        for _ in $(seq 25); do
            kill -0 "$pid" 2>/dev/null || break 2
            sleep 0.2
        done
    done
    wait "$pid" || true
    echo "$(awk '/^summary:/ {print $2}' "$work/cg.out") $n"
}
per_request() { # server [mode] -> instructions per request, minus the idle run
    local base load n
    read -r base _ < <(run "$1" idle)
    read -r load n < <(run "$1" "${2:-load}")
    # The readiness probe (curl) is one request in each run; it cancels out.
    echo "$(( (load - base) / n )) $n $load $base"
}
grouped() { printf '%s' "$1" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'; }
read -r canned n load base < <(per_request canned)
echo "user-space instructions per request: $canned ($n requests; callgrind Ir $load - $base at idle)"
read -r fl _ < <(per_request floor)
echo "canned $(grouped "$canned")  floor $(grouped "$fl")  ratio $(awk -v a="$canned" -v b="$fl" 'BEGIN { printf "%.2f", a / b }')x"
results_begin instructions "${CANNED_BIN:+CANNED_BIN=$CANNED_BIN }${BASE:+BASE=$BASE }${PEERS:+PEERS=\"$PEERS\" }benches/instructions.sh"
result "requests in the workload" "$(grouped "$n")"
result "canned, instructions per request" "$(grouped "$canned")"
result "floor, instructions per request" "$(grouped "$fl")"
result "canned, ratio to the floor" "$(awk -v a="$canned" -v b="$fl" 'BEGIN { printf "%.2f", a / b }')x"
# HTTP/2, when the build has it (a build without answers the preface 505 and closes).
h2=""
if curl_h2="$("$bin" --help 2>&1)" && grep -q -- '--no-http2' <<<"$curl_h2"; then
    read -r h2 h2n _ < <(per_request canned h2)
    echo "HTTP/2: canned $(grouped "$h2") per request ($h2n requests)"
    result "requests in the HTTP/2 workload" "$(grouped "$h2n")"
    result "canned, HTTP/2 instructions per request" "$(grouped "$h2")"
fi
if [ -n "${BASE:-}" ]; then
    read -r b1 _ < <(per_request base)
    echo "base ($BASE) $(grouped "$b1")  canned/base $(awk -v a="$canned" -v b="$b1" 'BEGIN { printf "%.4f", a / b }')"
    result "base, instructions per request" "$(grouped "$b1")"
    result "canned/base, HTTP/1" "$(awk -v a="$canned" -v b="$b1" 'BEGIN { printf "%.4f", a / b }')"
    if [ -n "$h2" ]; then
        read -r b2 _ < <(per_request base h2)
        echo "base HTTP/2 $(grouped "$b2")  canned/base $(awk -v a="$h2" -v b="$b2" 'BEGIN { printf "%.4f", a / b }')"
        result "base, HTTP/2 instructions per request" "$(grouped "$b2")"
        result "canned/base, HTTP/2" "$(awk -v a="$h2" -v b="$b2" 'BEGIN { printf "%.4f", a / b }')"
    fi
fi
for peer in ${PEERS:-}; do
    case "$peer" in
        hyper) cargo build --release --manifest-path benches/hyper-peer/Cargo.toml >&2 ;;
        nginx)
            command -v nginx >/dev/null || { echo "nginx is not installed"; exit 1; }
            cat >"$work/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log stderr error;
pid $work/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work;
    uwsgi_temp_path $work; scgi_temp_path $work;
    server {
        listen 127.0.0.1:$peer_port;
        location / { default_type text/plain; return 200 "Hello World\n"; }
    }
}
EOF
            ;;
        *) echo "unknown peer $peer (hyper, nginx)"; exit 1 ;;
    esac
    read -r v _ < <(per_request "$peer")
    echo "$peer $(grouped "$v")  ratio to the floor $(awk -v a="$v" -v b="$fl" 'BEGIN { printf "%.2f", a / b }')x"
    result "$peer, instructions per request" "$(grouped "$v")"
    result "$peer, ratio to the floor" "$(awk -v a="$v" -v b="$fl" 'BEGIN { printf "%.2f", a / b }')x"
done
results_end
