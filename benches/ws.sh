#!/usr/bin/env bash
# The WebSocket echo benchmark (HttpArena's echo-ws profile): 64-byte text messages, one in
# flight per connection, 256 connections, driven by benches/ws_load.rs (one thread, epoll,
# raw sockets) for SECONDS_RUN (default 5, after a second's warm-up; medians of ROUNDS, 3), against canned's release
# build with 1 and 2 workers and against the peers run in the same run: Python `websockets`
# (asyncio, one process) and node's `ws` (one process), where installed, and tokio-tungstenite
# (benches/ws-peer, its own Cargo project: one current-thread tokio runtime, so one thread for
# every connection), where it builds (cargo fetches its crates). Prints messages a
# second and the server's CPU per message, from /proc/PID/stat (utime + stime) over the run,
# and the load generator's own (its rate is the server's only while it needs less).
# With two CPUs, a one-process server is pinned to CPU 0 and the load generator to CPU 1.
#
#   benches/record ws benches/ws.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
SECONDS_RUN="${SECONDS_RUN:-5}"
CONNS="${CONNS:-256}"
ROUNDS="${ROUNDS:-3}"
cargo build -q --release --bin canned --example ws_load
load=target/release/examples/ws_load
have_tungstenite=0
if cargo build -q --release --manifest-path benches/ws-peer/Cargo.toml >&2; then
    have_tungstenite=1
else
    echo "ws.sh: skipping tokio-tungstenite: benches/ws-peer did not build (offline?)" >&2
fi

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wait_port PORT: up to 5 s.
wait_port() {
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# measure NAME PID PORT: ROUNDS runs of the load generator against PORT; a table row of the
# medians.
measure() {
    local name="$1" spid="$2" port="$3" before after out per_s hz r
    hz="$(getconf CLK_TCK)"
    : >"$work/rate"
    : >"$work/cpu"
    : >"$work/own"
    for r in $(seq "$ROUNDS"); do
        before="$(cpu_ticks "$spid")"
        out="$($PIN_L "$load" "127.0.0.1:$port/" "$CONNS" "$SECONDS_RUN")"
        after="$(cpu_ticks "$spid")"
        per_s="$(echo "$out" | awk '{print $(NF-1)}')"
        echo "$per_s" >>"$work/rate"
        echo "$out" | sed -n 's/.*load generator \([0-9.]*\) CPU.*/\1/p' >>"$work/own"
        # CPU over the whole run (its warm-up second included) per message of the whole run
        # (at the measured rate): µs of server CPU per message.
        awk -v r="$per_s" -v t="$((after - before))" -v hz="$hz" -v s="$SECONDS_RUN" \
            'BEGIN { total = r * (s + 1); printf "%.2f\n", (total > 0 ? t / hz * 1e6 / total : 0) }' \
            >>"$work/cpu"
    done
    printf '| %s | %s | %s | %s |\n' "$name" "$(median_of "$work/rate")" "$(median_of "$work/cpu")" \
        "$(median_of "$work/own")"
}

median_of() {
    sort -g "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%s\n", (m == int(m) ? sprintf("%d", m) : m)}'
}

echo "| server | messages/s | CPU µs/message | load generator CPU µs/message |"
echo "|---|---:|---:|---:|"
for workers in 1 2; do
    pin="$PIN_S"
    [ "$workers" = 2 ] && pin=""
    start_canned "$work/canned.log" $pin target/release/canned --listen 127.0.0.1:0 \
        --workers "$workers" --websocket /
    [ -n "$port" ] || { echo "ws.sh: canned did not start"; cat "$work/canned.log"; exit 1; }
    measure "canned, $workers worker$([ "$workers" = 2 ] && echo s)" "$pid" "$port"
    kill "$pid"
done

if python3 -c 'import websockets' 2>/dev/null; then
    port=$((20000 + RANDOM % 20000))
    cat >"$work/peer.py" <<'PY'
import asyncio, sys
from websockets.asyncio.server import serve
async def echo(ws):
    async for m in ws:
        await ws.send(m)
async def main():
    async with serve(echo, "127.0.0.1", int(sys.argv[1]), compression=None):
        await asyncio.Future()
asyncio.run(main())
PY
    $PIN_S python3 "$work/peer.py" "$port" 2>/dev/null &
    pid=$!
    pids+=("$pid")
    if wait_port "$port"; then
        v="$(python3 -c 'import websockets; print(websockets.__version__)')"
        measure "Python websockets $v (asyncio, 1 process)" "$pid" "$port"
    else
        echo "ws.sh: the Python peer did not start"
    fi
    kill "$pid" 2>/dev/null || true
else
    echo "ws.sh: skipped Python websockets (not installed)" >&2
fi

node_modules=""
for d in target/node-ws/node_modules "${NODE_PATH:-}"; do
    [ -n "$d" ] && need node && NODE_PATH="$d" node -e "require('ws')" 2>/dev/null && { node_modules="$(realpath "$d")"; break; }
done
if [ -n "$node_modules" ]; then
    port=$((20000 + RANDOM % 20000))
    cat >"$work/peer.js" <<'JS'
const { WebSocketServer } = require('ws');
const wss = new WebSocketServer({ host: '127.0.0.1', port: +process.argv[2], perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (d, binary) => ws.send(d, { binary })));
JS
    NODE_PATH="$node_modules" $PIN_S node "$work/peer.js" "$port" 2>/dev/null &
    pid=$!
    pids+=("$pid")
    if wait_port "$port"; then
        v="$(NODE_PATH="$node_modules" node -e "console.log(require('ws/package.json').version)")"
        measure "node $(node --version) ws $v (1 process)" "$pid" "$port"
    else
        echo "ws.sh: the node peer did not start"
    fi
    kill "$pid" 2>/dev/null || true
else
    echo "ws.sh: skipped node's ws (node or its ws module is not installed; tests/suite/websocket.rs installs it)" >&2
fi

if [ "$have_tungstenite" = 1 ]; then
    port=$((20000 + RANDOM % 20000))
    $PIN_S benches/ws-peer/target/release/ws-peer "$port" 2>/dev/null &
    pid=$!
    pids+=("$pid")
    if wait_port "$port"; then
        v="$(sed -n '/^name = "tokio-tungstenite"$/{n;s/^version = "\(.*\)"$/\1/p}' benches/ws-peer/Cargo.lock)"
        measure "tokio-tungstenite $v (current-thread runtime)" "$pid" "$port"
    else
        echo "ws.sh: the tokio-tungstenite peer did not start"
    fi
    kill "$pid" 2>/dev/null || true
fi
