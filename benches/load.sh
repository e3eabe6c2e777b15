#!/usr/bin/env bash
# Side-by-side load benchmark: canned against the floor (benches/floor.rs), hyper 1.x
# (benches/hyper-peer), nginx, node's net and http servers, and other builds of canned (musl
# static; glibc without the vendored polling patch), measured interleaved in one run on this
# machine.
#
#   benches/load.sh                  # full run (about 15 minutes)
#   ROUNDS=1 DUR=3 benches/load.sh   # quick look
#   UNPATCHED=0 MUSL=0 benches/load.sh   # without the extra canned builds
#   PEERS=nginx benches/load.sh      # the floor, hyper and nginx only (about 7 minutes with the above)
#   SAME=0 benches/load.sh           # without canned_same (canned sending the floor's bytes)
#   CANNED_EXTRA="canned_x=/path/to/canned" benches/load.sh   # more canned binaries as peers
#
# One worker each, server pinned to CPU 0 and the load generator to CPU 1 (taskset), then a
# 2-worker run of canned and nginx. Prints Markdown tables and the goals of the performance
# round (syscalls and CPU per request against the peers) and writes them to
# bench-results/load-DATE.md. Everything targets 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."

DUR="${DUR:-5}"             # seconds per wrk run
ROUNDS="${ROUNDS:-3}"       # interleaved rounds; medians are reported
IDLE="${IDLE:-10000}"       # idle keep-alive connections for the RSS figure
MUSL="${MUSL:-1}"           # also measure the musl static build (if the target is installed)
UNPATCHED="${UNPATCHED:-1}" # also measure canned built against the published polling
PEERS="${PEERS:-nginx node_net node_http}" # peers besides the floor and hyper
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

source benches/common.sh
require load.sh wrk ab curl python3 taskset

echo "building release binaries" >&2
cargo build --release --bin canned --example floor >&2

# canned builds to measure, by name.
declare -A bin=([canned]=target/release/canned)
canned_builds=(canned)
# The same binary sending the floor's bytes exactly (no Server, no Date, the floor's content
# type): wrk parses every response, and pipelined it is the load generator's parsing of the
# longer default head, not the server, that sets the rate (78 bytes against 135).
SAME="${SAME:-1}"
if [ "$SAME" = 1 ]; then
    bin[canned_same]=target/release/canned
    canned_builds+=(canned_same)
fi

musl_target=x86_64-unknown-linux-musl
if [ "$MUSL" = 1 ] && [ "$(uname -m)" = x86_64 ]; then
    if cargo build --release --target "$musl_target" --bin canned >&2; then
        bin[canned_musl]="target/$musl_target/release/canned"
        canned_builds+=(canned_musl)
    else
        echo "skipping canned_musl: the build failed (rustup target add $musl_target)" >&2
    fi
fi

# The same source without the [patch.crates-io] section: polling as published.
if [ "$UNPATCHED" = 1 ] && grep -q '^\[patch\.crates-io\]' Cargo.toml; then
    copy="$work/unpatched"
    mkdir -p "$copy/benches"
    cp -r Cargo.lock README.md docs src "$copy/"
    cp benches/*.rs "$copy/benches/"
    awk '/^\[patch\.crates-io\]/ {skip = 1; next} /^\[/ {skip = 0} !skip' Cargo.toml >"$copy/Cargo.toml"
    if (cd "$copy" && CARGO_TARGET_DIR="$OLDPWD/target/unpatched" cargo build --release --bin canned >&2); then
        bin[canned_unpatched]=target/unpatched/release/canned
        canned_builds+=(canned_unpatched)
    else
        echo "skipping canned_unpatched: the build failed" >&2
    fi
fi

for extra in ${CANNED_EXTRA:-}; do
    bin[${extra%%=*}]="${extra#*=}"
    canned_builds+=("${extra%%=*}")
done

# hyper: a crate of its own, so its dependencies never reach canned's tree.
have_hyper=0
if cargo build --release --manifest-path benches/hyper-peer/Cargo.toml >&2; then
    have_hyper=1
else
    echo "skipping hyper: benches/hyper-peer did not build (offline?)" >&2
fi

results="bench-results"
mkdir -p "$results"
out="$results/load-$(date -u +%Y%m%d-%H%M%S).md"

cat >"$work/hold.py" <<'EOF'
# Open N keep-alive connections, one request each, wait for every response, then hold them
# until a line arrives on stdin.
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n")
    socks.append(s)
for s in socks:
    d = b""
    while not d.endswith(b"Hello World\n"):
        c = s.recv(4096)
        if not c:
            sys.exit("closed early")
        d += c
print("ready", flush=True)
sys.stdin.readline()
EOF

nginx_conf() { # port workers
    cat >"$work/nginx-$1.conf" <<EOF
worker_processes $2;
daemon off;
master_process $([ "$2" = 1 ] && echo off || echo on);
pid $work/nginx-$1.pid;
error_log /dev/null crit;
worker_rlimit_nofile 20000;
events { worker_connections 20000; }
http {
    access_log off;
    keepalive_requests 1000000000;
    keepalive_timeout 600s;
    server {
        listen 127.0.0.1:$1 reuseport;
        location / { default_type text/plain; return 200 "Hello World\n"; }
    }
}
EOF
}

# start NAME PORT WORKERS PIN: sets LAST_PID, the process to watch for CPU and RSS
start() {
    local name="$1" port="$2" workers="$3" pin="$4" log="$work/$1-$2.log"
    case "$name" in
        canned_same) $pin "${bin[$name]}" --listen "127.0.0.1:$port" --workers "$workers" --quiet \
            --server '' --no-date --content-type text/plain >"$log" 2>&1 & ;;
        canned*) $pin "${bin[$name]}" --listen "127.0.0.1:$port" --workers "$workers" --quiet >"$log" 2>&1 & ;;
        floor) $pin target/release/examples/floor "$port" >"$log" 2>&1 & ;;
        hyper) $pin benches/hyper-peer/target/release/hyper-peer "$port" >"$log" 2>&1 & ;;
        nginx) nginx_conf "$port" "$workers"; $pin nginx -c "$work/nginx-$port.conf" -p "$work" >"$log" 2>&1 & ;;
        node_net) $pin node benches/node_net.js "$port" >"$log" 2>&1 & ;;
        node_http) $pin node benches/node_http.js "$port" >"$log" 2>&1 & ;;
    esac
    LAST_PID=$!
    pids+=("$LAST_PID")
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
        sleep 0.05
    done
    echo "$name did not start: $(cat "$log")" >&2
    exit 1
}

check_response() { # name port
    local body headers
    body="$(curl -s "http://127.0.0.1:$2/"; echo x)"
    headers="$(curl -s -o /dev/null -D - "http://127.0.0.1:$2/" | tr -d '\r')"
    [ "$body" = "Hello World
x" ] || { echo "$1: wrong body"; exit 1; }
    grep -qi '^content-length: 12$' <<<"$headers" || { echo "$1: no Content-Length: 12"; exit 1; }
    grep -qi '^content-type: text/plain' <<<"$headers" || { echo "$1: no Content-Type"; exit 1; }
}

# Wait (at most 10 s) until no server has used CPU for 0.3 s: a server still working through
# the previous run's backlog (node under pipelining) would otherwise slow the next one on the
# same CPU.
settle() {
    local before after
    for _ in $(seq 33); do
        before="$(for q in "${pid[@]}"; do cpu_ticks "$q"; done | awk '{t += $1} END {print t}')"
        sleep 0.3
        after="$(for q in "${pid[@]}"; do cpu_ticks "$q"; done | awk '{t += $1} END {print t}')"
        [ "$before" = "$after" ] && return 0
    done
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
clk="$(getconf CLK_TCK)"
to_us() { # wrk latency (123.4us, 1.2ms, 1.1s) in µs
    awk '{v = $1; m = 1; if (v ~ /us$/) sub(/us$/, "", v); else if (v ~ /ms$/) { sub(/ms$/, "", v); m = 1000 } else if (v ~ /s$/) { sub(/s$/, "", v); m = 1e6 } printf "%.0f", v * m}' <<<"$1"
}

servers=()
declare -A port pid
p=18100
candidates=("${canned_builds[@]}" floor)
[ "$have_hyper" = 1 ] && candidates+=(hyper)
# shellcheck disable=SC2206
candidates+=($PEERS)
for s in "${candidates[@]}"; do
    case "$s" in
        nginx) need nginx || { echo "skipping nginx: not installed" >&2; continue; } ;;
        node_*) need node || { echo "skipping $s: node not installed" >&2; continue; } ;;
    esac
    p=$((p + 1))
    port[$s]=$p
    start "$s" "$p" 1 "$PIN_S"
    pid[$s]=$LAST_PID
    check_response "$s" "$p"
    servers+=("$s")
done
echo "servers: ${servers[*]}; ${ROUNDS} rounds of ${DUR}s" >&2
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

for round in $(seq "$ROUNDS"); do
    echo "round $round" >&2
    # Each round starts with a different server, so none always runs first.
    shift_by=$(((round - 1) % ${#servers[@]}))
    order=("${servers[@]:shift_by}" "${servers[@]:0:shift_by}")
    for s in "${order[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        # (a) + (e): wrk keep-alive, CPU ticks around it
        t0="$(cpu_ticks "${pid[$s]}")"
        wrk_out="$($PIN_L wrk -t1 -c100 -d"${DUR}s" --latency "$url")"
        t1="$(cpu_ticks "${pid[$s]}")"
        rps="$(awk '/^Requests\/sec/ {print $2}' <<<"$wrk_out")"
        reqs="$(awk '/requests in/ {print $1}' <<<"$wrk_out")"
        p99="$(awk '$1 == "99%" {print $2}' <<<"$wrk_out")"
        record "$s" a "$rps"
        record "$s" a99 "$(to_us "$p99")"
        record "$s" e "$(awk -v d=$((t1 - t0)) -v n="$reqs" -v c="$clk" 'BEGIN {printf "%.2f", d / c * 1e6 / n}')"
    done
    for s in "${order[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        ab_out="$($PIN_L ab -q -k -c 100 -n 100000 "$url" 2>&1 || true)"
        record "$s" b "$(awk '/^Requests per second/ {print $4}' <<<"$ab_out")"
        record "$s" bfail "$(awk '/^Failed requests/ {print $3}' <<<"$ab_out")"
    done
    for s in "${order[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        ab_out="$($PIN_L ab -q -c 100 -n 20000 "$url" 2>&1 || true)"
        record "$s" c "$(awk '/^Requests per second/ {print $4}' <<<"$ab_out")"
    done
    for s in "${order[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        wrk_out="$($PIN_L wrk -t1 -c256 -d"${DUR}s" -s "$work/pipeline.lua" "$url")"
        record "$s" d "$(awk '/^Requests\/sec/ {print $2}' <<<"$wrk_out")"
    done
done

# (f) syscalls per request: perf's syscall tracepoints on the server process around one wrk
# run (a). Counts do not depend on the machine's load, unlike the CPU figures.
if need perf && perf stat -e raw_syscalls:sys_enter -e syscalls:sys_enter_epoll_ctl -- true >/dev/null 2>&1; then
    for s in "${servers[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        perf stat -x, -e 'syscalls:sys_enter_*' -p "${pid[$s]}" -o "$work/perf-$s" -- sleep "$((DUR + 1))" &
        perf_pid=$!
        sleep 0.5
        wrk_out="$($PIN_L wrk -t1 -c100 -d"${DUR}s" "$url")"
        wait "$perf_pid" || true
        reqs="$(awk '/requests in/ {print $1}' <<<"$wrk_out")"
        if ! [ "${reqs:-0}" -gt 0 ] 2>/dev/null; then
            echo "no syscall figure for $s: wrk answered no requests: $wrk_out" >&2
            continue
        fi
        record "$s" f "$(awk -F, -v n="$reqs" '$1 ~ /^[0-9]+$/ {t += $1} END {printf "%.2f", t / n}' "$work/perf-$s")"
        record "$s" fctl "$(awk -F, -v n="$reqs" '$3 ~ /epoll_ctl$/ {t += $1} END {printf "%.3f", t / n}' "$work/perf-$s")"
        grep -E 'sys_enter_' "$work/perf-$s" | awk -F, -v n="$reqs" '$1 ~ /^[0-9]+$/ && $1 > 0 {sub("syscalls:sys_enter_", "", $3); printf "%s %.3f\n", $3, $1 / n}' |
            sort -k2 -g -r | head -8 | tr '\n' ';' >"$work/$s.fdetail"
    done
else
    echo "skipping syscall counts: perf with syscall tracepoints is not available" >&2
fi

# (g) RSS idle, and with $IDLE idle keep-alive connections
for s in "${servers[@]}"; do
    record "$s" gidle "$(rss_kib "${pid[$s]}")"
    fifo="$work/hold-$s"
    mkfifo "$fifo"
    python3 "$work/hold.py" "${port[$s]}" "$IDLE" <"$fifo" >"$work/hold-$s.out" &
    hold=$!
    exec 9>"$fifo"
    for _ in $(seq 600); do grep -q ready "$work/hold-$s.out" 2>/dev/null && break; sleep 0.1; done
    if grep -q ready "$work/hold-$s.out"; then
        sleep 0.5
        record "$s" g10k "$(rss_kib "${pid[$s]}")"
    fi
    echo >&9
    exec 9>&-
    wait "$hold" || true
done

# Two workers, not pinned: canned and nginx.
two=()
for s in canned nginx; do
    [[ " ${servers[*]} " == *" $s "* ]] || continue
    p=$((p + 1))
    port[$s-2w]=$p
    start "$s" "$p" 2 ""
    pid[$s-2w]=$LAST_PID
    two+=("$s-2w")
done
for round in $(seq "$ROUNDS"); do
    for s in "${two[@]}"; do
        settle
        url="http://127.0.0.1:${port[$s]}/"
        wrk_out="$(wrk -t2 -c100 -d"${DUR}s" --latency "$url")"
        record "$s" a "$(awk '/^Requests\/sec/ {print $2}' <<<"$wrk_out")"
        record "$s" a99 "$(to_us "$(awk '$1 == "99%" {print $2}' <<<"$wrk_out")")"
        wrk_out="$(wrk -t2 -c256 -d"${DUR}s" -s "$work/pipeline.lua" "$url")"
        record "$s" d "$(awk '/^Requests\/sec/ {print $2}' <<<"$wrk_out")"
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

ratio() { # value reference
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}
k() { awk -v a="$1" 'BEGIN { if (a == "-") print "-"; else printf "%.0f", a }'; }
has() { [[ " ${servers[*]} " == *" $1 "* ]]; }
# goal TEXT VALUE OP LIMIT: one line, met or not (or not measured)
goal() {
    awk -v t="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
        if (v == "-" || l == "-" || v == "" || l == "") { printf "- %s: not measured\n", t; exit }
        ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0)
        printf "- %s: %s %s %s: %s\n", t, v, op, l, ok ? "met" : "NOT met" }'
}
{
    echo "## Load benchmark, $(date -u +%Y-%m-%d)"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -sr); load average $load_before before, $load_after after."
    echo "One worker each; server on CPU 0, load generator on CPU 1. Medians of $ROUNDS interleaved rounds, ${DUR}s wrk runs."
    echo
    echo "| server | (a) wrk req/s | (a) p99 µs | (b) ab -k req/s | (b) failed | (c) ab req/s | (d) pipelined req/s | (e) CPU µs/req | (f) syscalls/req | (f) epoll_ctl/req | (g) RSS idle KiB | (g) RSS +${IDLE} conns KiB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for s in "${servers[@]}"; do
        echo "| $s | $(k "$(median "$s" a)") | $(k "$(median "$s" a99)") | $(k "$(median "$s" b)") | $(median "$s" bfail) | $(k "$(median "$s" c)") | $(k "$(median "$s" d)") | $(median "$s" e) | $(median "$s" f) | $(median "$s" fctl) | $(median "$s" gidle) | $(median "$s" g10k) |"
    done
    for ref in floor hyper nginx; do
        has "$ref" || continue
        echo
        echo "Ratios to $ref (higher is better for req/s, lower for p99, CPU and RSS):"
        echo
        echo "| server | (a) | (a) p99 | (b) | (c) | (d) | (e) CPU | (g) RSS +${IDLE} |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|"
        for s in "${servers[@]}"; do
            [ "$s" = "$ref" ] && continue
            echo "| $s | $(ratio "$(median "$s" a)" "$(median $ref a)") | $(ratio "$(median "$s" a99)" "$(median $ref a99)") | $(ratio "$(median "$s" b)" "$(median $ref b)") | $(ratio "$(median "$s" c)" "$(median $ref c)") | $(ratio "$(median "$s" d)" "$(median $ref d)") | $(ratio "$(median "$s" e)" "$(median $ref e)") | $(ratio "$(median "$s" g10k)" "$(median $ref g10k)") |"
        done
    done
    if has canned_musl; then
        echo
        echo "musl static build against the glibc build (ratio canned_musl / canned): (a) $(ratio "$(median canned_musl a)" "$(median canned a)"), (d) $(ratio "$(median canned_musl d)" "$(median canned d)"), (e) CPU $(ratio "$(median canned_musl e)" "$(median canned e)")."
    fi
    if [ "${#two[@]}" -gt 0 ]; then
        echo
        echo "Two workers, not pinned:"
        echo
        echo "| server | (a) wrk -t2 req/s | (a) p99 µs | (d) pipelined req/s |"
        echo "|---|---:|---:|---:|"
        for s in "${two[@]}"; do
            echo "| $s | $(k "$(median "$s" a)") | $(k "$(median "$s" a99)") | $(k "$(median "$s" d)") |"
        done
    fi
    if ls "$work"/*.fdetail >/dev/null 2>&1; then
        echo
        echo "Syscalls per request in (a), largest first:"
        echo
        for s in "${servers[@]}"; do
            [ -f "$work/$s.fdetail" ] && echo "- $s: $(cat "$work/$s.fdetail")"
        done
    fi
    # The goals of the performance round, for each canned build: syscalls and epoll_ctl per
    # request (f), CPU per request (e) against hyper, nginx and the floor, pipelined req/s (d).
    for s in "${canned_builds[@]}"; do
        has "$s" || continue
        echo
        echo "Goals, $s (CPU: medians of this run; the goal asks for 2 runs out of 3):"
        echo
        fl="$(median floor f)"
        goal "syscalls/req at most the floor's + 0.1" "$(median "$s" f)" "<=" "$(awk -v f="$fl" 'BEGIN { if (f == "-") print "-"; else printf "%.2f", f + 0.1 }')"
        goal "epoll_ctl/req at most 0.01" "$(median "$s" fctl)" "<=" 0.01
        has hyper && goal "CPU/req at most 0.95x hyper's ($(median hyper e) µs)" "$(ratio "$(median "$s" e)" "$(median hyper e)")" "<=" 0.95
        has nginx && goal "CPU/req at most 0.97x nginx's ($(median nginx e) µs)" "$(ratio "$(median "$s" e)" "$(median nginx e)")" "<=" 0.97
        goal "CPU/req at most 1.02x the floor's ($(median floor e) µs)" "$(ratio "$(median "$s" e)" "$(median floor e)")" "<=" 1.02
        goal "pipelined req/s at least the floor's" "$(ratio "$(median "$s" d)" "$(median floor d)")" ">=" 1.00
        echo "- (a) p99: $(k "$(median "$s" a99)") µs, the floor's $(k "$(median floor a99)") µs"
    done
} | tee "$out"
echo "written to $out" >&2
