#!/usr/bin/env bash
# How real HTTP/2 clients react to each variant of the HTTP/2 malformed-response catalogue (the
# h2- ids): for every h2- id of the catalogue (canned --mutate-list), start `canned --mutate-id ID`
# on a loopback port and send one GET / with prior knowledge from each client installed here
# (curl --http2-prior-knowledge, nghttp, node's http2 module, Python's h2 driven by hand over a
# socket), each with a 3-second timeout. Prints a Markdown table: per client, "accept" (the
# status and body length it reported), "reject" (its error), or "hang" (the timeout fired).
# .ci/mutate-clients-h2 compares the table with docs/data/mutate-clients-h2.tsv.
#
#   contrib/mutate-clients-h2.sh                 # all h2- ids, every installed client
#   contrib/mutate-clients-h2.sh h2-valid h2-status-twice
#   MUTATE_CLIENTS="curl nghttp" contrib/mutate-clients-h2.sh
#   contrib/mutate-clients-h2.sh --versions      # "CLIENT VERSION" for each installed client
# CANNED_BIN=path runs that build instead of building target/release/canned.
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
timeout_s=3

version() { # client
    case "$1" in
        curl) curl --version | awk 'NR == 1 {print $2}' ;;
        nghttp) nghttp --version | sed 's/.*nghttp2\///' ;;
        node) node --version | sed 's/^v//' ;;
        python) python3 -c 'import h2; print(h2.__version__)' ;;
    esac
}
installed=()
need curl && curl --version | grep -q 'HTTP2' && installed+=(curl)
need nghttp && installed+=(nghttp)
need node && installed+=(node)
need python3 && python3 -c 'import h2' 2>/dev/null && installed+=(python)
if [ "${1:-}" = --versions ]; then
    for c in "${installed[@]}"; do echo "$c $(version "$c")"; done
    exit 0
fi
read -r -a clients <<<"${MUTATE_CLIENTS:-${installed[*]}}"
for c in "${clients[@]}"; do
    [[ " ${installed[*]} " == *" $c "* ]] || { echo "mutate-clients-h2.sh: $c is not installed" >&2; exit 1; }
done

if [ -z "${CANNED_BIN:-}" ]; then
    cargo build --release --bin canned >&2
    CANNED_BIN=target/release/canned
fi

if [ $# -gt 0 ]; then
    ids=("$@")
else
    mapfile -t ids < <("$CANNED_BIN" --mutate-list | grep '^h2-')
fi

# node: one request with the http2 module; its error's code, or the stream's close code.
cat >"$work/client.js" <<'JS'
const http2 = require("http2");
const [url, t] = process.argv.slice(2);
let done = false;
const say = (s) => { if (!done) { done = true; console.log(s); process.exit(0); } };
setTimeout(() => say("hang"), Number(t) * 1000);
const session = http2.connect(url);
session.on("error", (e) => say(`reject (${e.code ?? e.name})`));
const req = session.request({ ":path": "/" });
let status = 0, len = 0;
req.on("response", (h) => { status = h[":status"]; });
req.on("data", (d) => { len += d.length; });
req.on("end", () => say(`accept ${status}, ${len} B`));
req.on("error", (e) => say(`reject (${e.code ?? e.name})`));
req.on("close", () => {
  if (req.rstCode) say(`reject (stream closed ${req.rstCode})`);
  setTimeout(() => say(`reject (closed before the end)`), 50);
});
req.end();
JS

# Python's h2, driven by hand: the events it raises on what it reads, or its exception.
cat >"$work/client.py" <<'PY'
import socket, sys
import h2.config, h2.connection, h2.events, h2.exceptions
port, t = int(sys.argv[1]), float(sys.argv[2])
def run():
    s = socket.create_connection(("127.0.0.1", port), timeout=t)
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    c.initiate_connection()
    c.update_settings({h2.settings.SettingCodes.ENABLE_PUSH: 0})
    c.send_headers(1, [(":method", "GET"), (":scheme", "http"), (":authority", "localhost"), (":path", "/")], end_stream=True)
    s.sendall(c.data_to_send())
    status, n = 0, 0
    while True:
        data = s.recv(65536)
        if not data:
            return "reject (EOF)"
        try:
            events = c.receive_data(data)
        except h2.exceptions.ProtocolError as e:
            return f"reject ({type(e).__name__})"
        for e in events:
            if isinstance(e, h2.events.ResponseReceived):
                status = dict(e.headers)[b":status"].decode("latin-1")
            elif isinstance(e, h2.events.DataReceived):
                n += len(e.data)
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            elif isinstance(e, h2.events.StreamEnded) and e.stream_id == 1:
                return f"accept {status}, {n} B"
            elif isinstance(e, h2.events.StreamReset):
                return f"reject (StreamReset {e.error_code.name})"
            elif isinstance(e, h2.events.ConnectionTerminated):
                return f"reject (GOAWAY {e.error_code.name})"
        s.sendall(c.data_to_send())
try:
    print(run())
except (socket.timeout, TimeoutError):
    print("hang")
except Exception as e:
    print(f"reject ({type(e).__name__})")
PY

# A client still running 2 s after its own timeout is killed, and its cell says "hang".
bounded() { # command...
    local code=0
    timeout -k 1 $((timeout_s + 2)) "$@" || code=$?
    case $code in
        0) ;;
        124 | 137) echo "hang" ;;
        *) echo "client failed (exit $code)" ;;
    esac
}

# nghttp's verdict from its verbose log: the error code of the RST_STREAM it sent (the GOAWAY
# it sends on a connection error is logged or not depending on timing, so it is not named),
# "not processed" when it gave up on the request without one, else the status and length.
nghttp_cell() { # log
    local sent
    sent="$(grep -A1 'send RST_STREAM frame' "$1" | sed -n 's/.*error_code=\([A-Z_]*\).*/\1/p' | head -1)"
    if [ -n "$sent" ]; then
        echo "reject (RST_STREAM $sent)"
    elif grep -q 'Some requests were not processed' "$1"; then
        echo "reject (not processed)"
    elif grep -q 'recv .*:status:' "$1"; then
        local status len
        status="$(sed -n 's/.*recv (stream_id=[0-9]*) :status: \(.*\)/\1/p' "$1" | tail -1)"
        len="$(sed -n 's/.*recv DATA frame <length=\([0-9]*\).*/\1/p' "$1" | awk '{n += $1} END {print n + 0}')"
        echo "accept $status, $len B"
    else
        echo "reject (no response)"
    fi
}

run_client() { # client port id -> one cell
    local url="http://127.0.0.1:$2/"
    case "$1" in
        curl)
            local code=0 out
            out="$(curl -sS --http2-prior-knowledge -m "$timeout_s" -o /dev/null -w '%{http_code}, %{size_download} B' "$url" 2>/dev/null)" || code=$?
            case $code in
                0) echo "accept $out" ;;
                28) echo "hang" ;;
                *) echo "reject (exit $code)" ;;
            esac
            ;;
        nghttp)
            local code=0
            timeout -k 1 $((timeout_s + 2)) nghttp -v -t "$timeout_s" "$url" >"$work/nghttp.$3.log" 2>&1 || code=$?
            case $code in
                0 | 1) nghttp_cell "$work/nghttp.$3.log" ;;
                124 | 137) echo "hang" ;;
                *) echo "client failed (exit $code)" ;;
            esac
            ;;
        node) bounded node "$work/client.js" "$url" "$timeout_s" 2>/dev/null ;;
        python) bounded python3 "$work/client.py" "$2" "$timeout_s" 2>/dev/null ;;
    esac
}

header="| h2 id |"
rule="|---|"
for c in "${clients[@]}"; do
    header+=" $c |"
    rule+="---|"
done
echo "$header"
echo "$rule"
# One id's row, into $work/row.ID: its own canned, each client in turn.
row() { # id
    local id="$1" row c
    start_canned "$work/err.$id" "$CANNED_BIN" --listen 127.0.0.1:0 --workers 1 --no-date --mutate-id "$id"
    [ -n "$port" ] || { echo "canned did not start for $id" >&2; cat "$work/err.$id" >&2; exit 1; }
    row="| \`$id\` |"
    for c in "${clients[@]}"; do
        row+=" $(run_client "$c" "$port" "$id") |"
    done
    # canned must still be running: a cell that says "refused" is about canned, not the client.
    kill "$pid" 2>/dev/null || { echo "canned exited during $id:" >&2; cat "$work/err.$id" >&2; exit 1; }
    wait "$pid" 2>/dev/null || true
    echo "$row" >"$work/row.$id"
}
# Ids in parallel, JOBS at a time: a client that hangs waits out its timeout beside the others.
jobs_max="${JOBS:-8}"
running=0
for id in "${ids[@]}"; do
    row "$id" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs_max" ]; then
        wait -n || { echo "mutate-clients-h2.sh: a row failed" >&2; exit 1; }
        running=$((running - 1))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n || { echo "mutate-clients-h2.sh: a row failed" >&2; exit 1; }
    running=$((running - 1))
done
for id in "${ids[@]}"; do
    cat "$work/row.$id"
done
