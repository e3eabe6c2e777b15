#!/usr/bin/env bash
# HTTPS benchmark: canned's `tls:` listener (rustls with ring) against nginx (OpenSSL), both
# TLS 1.3 with the same ECDSA P-256 certificate, measured interleaved in one run on this
# machine.
#
#   benches/tls.sh                                  # 3 rounds (about 4 minutes)
#   ROUNDS=1 DUR=3 HS=2000 N=50000 benches/tls.sh   # quick look
#
# One worker each (canned `--workers 1`; nginx `worker_processes 1`, `master_process off`),
# the server pinned to CPU 0 and the load generator to CPU 1 (taskset). Loads:
#   keep-alive   `wrk -t1 -c50 -dDURs https://...`: requests/s, server CPU µs per request;
#   handshakes   `ab -n HS -c 10 https://...` (HTTP/1.0, no -k): a full handshake, one request
#                and the close per connection, no session resumption; CPU µs per connection;
#   HTTP/2       `h2load -n N -c 100 -m 10 https://...` (ALPN h2): CPU µs per request;
#   idle memory  IDLE TLS connections, each after its handshake and one HTTP/1.1 request
#                (benches/tls_idle.py), held open: the growth of the server's VmRSS, KiB per
#                connection, on a server started for it (so that no earlier load's freed
#                memory is reused).
# CPU is utime + stime from /proc/PID/stat around each run. Prints Markdown tables, the
# ratios canned/nginx and the goals, and writes them to bench-results/tls-DATE.md.
# Everything targets 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

DUR="${DUR:-5}"        # seconds per wrk run
HS="${HS:-5000}"       # connections per ab run
N="${N:-200000}"       # requests per h2load run
IDLE="${IDLE:-1000}"   # idle TLS connections for the memory figure
ROUNDS="${ROUNDS:-3}"  # interleaved rounds; medians are reported
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

source benches/common.sh
require tls.sh wrk ab h2load curl openssl python3 taskset
need nginx || { echo "tls.sh: nginx is required (apt-get install nginx-light)"; exit 1; }

echo "building release binaries" >&2
cargo build --release --bin canned >&2

results="bench-results"
mkdir -p "$results"
out="$results/tls-$(date -u +%Y%m%d-%H%M%S).md"

# The same certificate and key for both: ECDSA P-256, for 127.0.0.1 and localhost.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

nginx_conf() { # port
    cat >"$work/nginx-$1.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
pid $work/nginx-$1.pid;
error_log /dev/null crit;
worker_rlimit_nofile 20000;
events { worker_connections 20000; }
http {
    access_log off;
    keepalive_requests 1000000000;
    keepalive_timeout 600s;
    http2_max_concurrent_streams 128;
    server {
        listen 127.0.0.1:$1 ssl http2;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        ssl_protocols TLSv1.3;
        location / { default_type "text/plain; charset=utf-8"; return 200 "Hello World\n"; }
    }
}
EOF
}

# start NAME PORT: sets LAST_PID, the process to watch for CPU and memory.
start() {
    local name="$1" port="$2" log="$work/$1-$2.log"
    case "$name" in
        canned) $PIN_S target/release/canned --listen "tls:127.0.0.1:$port" --workers 1 --quiet \
            --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" >"$log" 2>&1 & ;;
        nginx) nginx_conf "$port"; $PIN_S nginx -c "$work/nginx-$port.conf" -p "$work" >"$log" 2>&1 & ;;
    esac
    LAST_PID=$!
    pids+=("$LAST_PID")
    for _ in $(seq 100); do
        curl -sk -o /dev/null "https://127.0.0.1:$port/" && return 0
        sleep 0.05
    done
    echo "$name did not start: $(cat "$log")" >&2
    exit 1
}

check_response() { # name port
    local body headers v
    for v in --http1.1 --http2; do
        body="$(curl -sk "$v" "https://127.0.0.1:$2/"; echo x)"
        headers="$(curl -sk "$v" -o /dev/null -D - "https://127.0.0.1:$2/" | tr -d '\r')"
        [ "$body" = "Hello World
x" ] || { echo "$1 $v: wrong body"; exit 1; }
        grep -q '^HTTP/[12.]* 200' <<<"$headers" || { echo "$1 $v: not 200"; exit 1; }
        grep -qi "^content-type: text/plain; charset=utf-8$" <<<"$headers" || { echo "$1 $v: not text/plain; charset=utf-8"; exit 1; }
    done
    grep -q '^HTTP/2 200' <<<"$headers" || { echo "$1: no HTTP/2 by ALPN"; exit 1; }
}

# What OpenSSL's client (the one wrk, ab and h2load use) negotiates: version, suite, group.
negotiated() { # port
    openssl s_client -connect "127.0.0.1:$1" -servername localhost </dev/null 2>/dev/null |
        awk '/^New, / {v = $2; c = $NF} /^Server Temp Key:/ {sub(/^Server Temp Key: /, ""); sub(/,.*/, ""); g = $0}
             /^Peer signature type:/ {s = $NF} END {printf "%s %s, key exchange %s, signature %s", v, c, g, s}'
}

clk="$(getconf CLK_TCK)"
servers=(canned nginx)
declare -A port pid
p=18440
for s in "${servers[@]}"; do
    p=$((p + 1))
    port[$s]=$p
    start "$s" "$p"
    pid[$s]=$LAST_PID
    check_response "$s" "$p"
done
declare -A tls
for s in "${servers[@]}"; do tls[$s]="$(negotiated "${port[$s]}")"; done
if [ "${tls[canned]}" != "${tls[nginx]}" ]; then
    echo "not the same TLS parameters: canned ${tls[canned]}; nginx ${tls[nginx]}" >&2
    exit 1
fi
echo "servers: ${servers[*]}; ${tls[canned]}; $ROUNDS rounds" >&2
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

cpu_us() { # ticks count
    awk -v d="$1" -v n="$2" -v c="$clk" 'BEGIN {printf "%.2f", d / c * 1e6 / n}'
}

# idle NAME ROUND: a server of its own, IDLE connections after their handshake and one
# request, the growth of its VmRSS per connection.
idle() {
    local s="$1" ip=$((18460 + $2 * 2)) before after ready="$work/idle-ready"
    [ "$s" = nginx ] && ip=$((ip + 1))
    start "$s" "$ip"
    local spid=$LAST_PID
    sleep 0.2
    before="$(awk '/^VmRSS:/ {print $2}' "/proc/$spid/status")"
    rm -f "$ready"
    $PIN_L python3 benches/tls_idle.py "$ip" "$IDLE" "$ready" &
    local cpid=$!
    for _ in $(seq 600); do
        [ -e "$ready" ] && break
        kill -0 "$cpid" 2>/dev/null || { echo "$s: the idle connections failed" >&2; exit 1; }
        sleep 0.1
    done
    [ -e "$ready" ] || { echo "$s: the idle connections did not open in 60 s" >&2; exit 1; }
    sleep 0.5
    after="$(awk '/^VmRSS:/ {print $2}' "/proc/$spid/status")"
    kill "$cpid" 2>/dev/null || true
    wait "$cpid" 2>/dev/null || true
    kill "$spid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
    record "$s" rss_before "$before"
    record "$s" rss_after "$after"
    record "$s" kib "$(awk -v a="$after" -v b="$before" -v n="$IDLE" 'BEGIN {printf "%.2f", (a - b) / n}')"
}

for round in $(seq "$ROUNDS"); do
    echo "round $round" >&2
    shift_by=$(((round - 1) % ${#servers[@]}))
    order=("${servers[@]:shift_by}" "${servers[@]:0:shift_by}")
    for s in "${order[@]}"; do
        url="https://127.0.0.1:${port[$s]}/"
        t0="$(cpu_ticks "${pid[$s]}")"
        w="$($PIN_L wrk -t1 -c50 -d"${DUR}s" "$url" 2>&1 || true)"
        t1="$(cpu_ticks "${pid[$s]}")"
        reqs="$(awk '/requests in/ {print $1}' <<<"$w")"
        if [ -z "$reqs" ] || grep -q 'Non-2xx\|Socket errors' <<<"$w"; then
            echo "$s keep-alive: wrk failed:" >&2; echo "$w" >&2; exit 1
        fi
        record "$s" ka_rps "$(awk '/^Requests\/sec:/ {print $2}' <<<"$w")"
        record "$s" ka_ticks "$((t1 - t0))"
        record "$s" ka_cpu "$(cpu_us $((t1 - t0)) "$reqs")"
    done
    for s in "${order[@]}"; do
        url="https://127.0.0.1:${port[$s]}/"
        t0="$(cpu_ticks "${pid[$s]}")"
        a="$($PIN_L ab -q -n "$HS" -c 10 "$url" 2>&1 || true)"
        t1="$(cpu_ticks "${pid[$s]}")"
        done_n="$(awk '/^Complete requests:/ {print $3}' <<<"$a")"
        failed="$(awk '/^Failed requests:/ {print $3}' <<<"$a")"
        if [ "${done_n:-0}" != "$HS" ] || [ "${failed:-1}" != 0 ]; then
            echo "$s handshakes: ab completed ${done_n:-0} of $HS, ${failed:-?} failed:" >&2; echo "$a" >&2; exit 1
        fi
        record "$s" hs_rate "$(awk '/^Requests per second:/ {print $4}' <<<"$a")"
        record "$s" hs_ticks "$((t1 - t0))"
        record "$s" hs_cpu "$(cpu_us $((t1 - t0)) "$HS")"
    done
    for s in "${order[@]}"; do
        url="https://127.0.0.1:${port[$s]}/"
        t0="$(cpu_ticks "${pid[$s]}")"
        h="$($PIN_L h2load -n "$N" -c 100 -m 10 "$url" 2>&1 || true)"
        t1="$(cpu_ticks "${pid[$s]}")"
        ok="$(awk '/^requests:/ {print $8}' <<<"$h")"
        if [ "${ok:-0}" != "$N" ] || ! grep -q '^Application protocol: h2$' <<<"$h"; then
            echo "$s h2: $ok of $N requests succeeded:" >&2; echo "$h" >&2; exit 1
        fi
        record "$s" h2_rps "$(awk '/^finished in/ {print $4}' <<<"$h")"
        record "$s" h2_ticks "$((t1 - t0))"
        record "$s" h2_cpu "$(cpu_us $((t1 - t0)) "$N")"
    done
    for s in "${order[@]}"; do
        idle "$s" "$round"
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

ratio() { # value reference
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}
k() { awk -v a="$1" 'BEGIN { if (a == "-") print "-"; else printf "%.0f", a }'; }
goal() { # text value limit
    awk -v t="$1" -v v="$2" -v l="$3" 'BEGIN {
        if (v == "-" || v == "") { printf "- %s: not measured\n", t; exit }
        printf "- %s: %s <= %s: %s\n", t, v, l, (v + 0 <= l + 0) ? "met" : "NOT met" }'
}
{
    echo "## HTTPS benchmark, $(date -u +%Y-%m-%d)"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -sr); load average $load_before before, $load_after after."
    echo "canned $(git describe --always --dirty 2>/dev/null || echo '?') (rustls with ring) against $(nginx -v 2>&1 | sed 's/^nginx version: //') ($(openssl version | cut -d' ' -f1-2)); both: ${tls[canned]} (what OpenSSL's client, as in wrk, ab and h2load, and both servers' defaults choose); the same P-256 certificate."
    echo "One worker each; server on CPU 0, the load generator on CPU 1. Medians of $ROUNDS interleaved rounds."
    echo
    echo "| server | keep-alive req/s | keep-alive CPU µs/req | handshakes/s | CPU µs/handshake | HTTP/2 req/s | HTTP/2 CPU µs/req | idle RSS KiB/conn |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for s in "${servers[@]}"; do
        echo "| $s | $(k "$(median "$s" ka_rps)") | $(median "$s" ka_cpu) | $(k "$(median "$s" hs_rate)") | $(median "$s" hs_cpu) | $(k "$(median "$s" h2_rps)") | $(median "$s" h2_cpu) | $(median "$s" kib) |"
    done
    echo
    echo "Loads: \`wrk -t1 -c50 -d${DUR}s\`; \`ab -n $HS -c 10\` (a new connection, full handshake and one HTTP/1.0 request each); \`h2load -n $N -c 100 -m 10\` (ALPN h2); $IDLE idle connections after a handshake and one HTTP/1.1 request each (benches/tls_idle.py), VmRSS before and after on a server started for it."
    echo
    # utime + stime count whole ticks: a figure of few ticks is coarse (one tick either way).
    echo -n "CPU measured in ticks of 1/$clk s, medians per run:"
    for s in "${servers[@]}"; do
        echo -n " $s $(median "$s" ka_ticks) (keep-alive), $(median "$s" hs_ticks) (handshakes), $(median "$s" h2_ticks) (HTTP/2);"
    done
    echo
    echo -n "VmRSS KiB before and with the idle connections, medians:"
    for s in "${servers[@]}"; do
        echo -n " $s $(median "$s" rss_before) and $(median "$s" rss_after);"
    done
    echo
    echo
    echo "canned/nginx: keep-alive req/s $(ratio "$(median canned ka_rps)" "$(median nginx ka_rps)"), CPU $(ratio "$(median canned ka_cpu)" "$(median nginx ka_cpu)"); handshakes/s $(ratio "$(median canned hs_rate)" "$(median nginx hs_rate)"), CPU $(ratio "$(median canned hs_cpu)" "$(median nginx hs_cpu)"); HTTP/2 req/s $(ratio "$(median canned h2_rps)" "$(median nginx h2_rps)"), CPU $(ratio "$(median canned h2_cpu)" "$(median nginx h2_cpu)"); idle memory $(ratio "$(median canned kib)" "$(median nginx kib)")"
    echo
    echo "Goals:"
    echo
    goal "keep-alive: CPU/req at most 0.9x nginx's ($(median nginx ka_cpu) µs)" "$(ratio "$(median canned ka_cpu)" "$(median nginx ka_cpu)")" 0.9
    goal "handshakes: CPU/handshake at most nginx's ($(median nginx hs_cpu) µs)" "$(ratio "$(median canned hs_cpu)" "$(median nginx hs_cpu)")" 1
    goal "HTTP/2: CPU/req at most 0.5x nginx's ($(median nginx h2_cpu) µs)" "$(ratio "$(median canned h2_cpu)" "$(median nginx h2_cpu)")" 0.5
    goal "idle memory per connection at most nginx's ($(median nginx kib) KiB)" "$(ratio "$(median canned kib)" "$(median nginx kib)")" 1
} | tee "$out"
echo "written to $out" >&2
