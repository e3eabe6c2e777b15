#!/usr/bin/env python3
"""What real TLS clients do with each certificate case and handshake fault of canned.

For every name `canned --tls-list` prints, start `canned --listen tls:127.0.0.1:0 --tls-case
NAME` (the case for a connection whose SNI names none: the clients ask for `localhost`), and
fetch `https://localhost:PORT/` with each client installed here, trusting only the CA canned
wrote (`--tls-ca-out`), with a 3-second timeout: curl, openssl s_client, Python's ssl,
requests and httpx, Go's net/http (contrib/tls-client.go), node's https and wget. Each cell
is `ok` (the client got the body), `hang` (its timeout fired) or `refuse: REASON`, the reason
read from the client's error. A client that answers `ok` where `--tls-list` says a correct
client refuses is a finding, listed after the table. Prints the table tab-separated, as
docs/data/tls-clients.tsv holds it (.ci/tls-clients compares the two).

    contrib/tls-clients.py                  # every case, every installed client
    contrib/tls-clients.py expired stall    # these cases
    TLS_CLIENTS="curl go" contrib/tls-clients.py
    contrib/tls-clients.py --versions       # "CLIENT VERSION" for each installed client
    TLS_CLIENTS_RUNS=4 contrib/tls-clients.py   # each cell every reaction seen in 4 attempts
CANNED_BIN=path runs that build instead of target/release/canned.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 3.0
# TLS_CLIENTS_RUNS=N: each cell from N attempts, the reactions seen joined by " / " (a client
# that races canned's close, as a TLS 1.3 client refused after its Finished does, says either).
RUNS = int(os.environ.get("TLS_CLIENTS_RUNS", "1"))
CLIENTS = ["curl", "openssl", "python-ssl", "requests", "httpx", "go", "node", "wget"]


def run(cmd, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=TIMEOUT + 5, **kw)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out (outer)"


def python_has(module):
    return run([sys.executable, "-c", f"import {module}"])[0] == 0


def versions():
    v = {}
    if shutil.which("curl"):
        v["curl"] = run(["curl", "--version"])[1].split()[1]
    if shutil.which("openssl"):
        v["openssl"] = run(["openssl", "version"])[1].split()[1]
    py = ".".join(map(str, sys.version_info[:3]))
    v["python-ssl"] = py
    if python_has("requests"):
        v["requests"] = run([sys.executable, "-c", "import requests; print(requests.__version__)"])[1].strip()
    if python_has("httpx"):
        v["httpx"] = run([sys.executable, "-c", "import httpx; print(httpx.__version__)"])[1].strip()
    if shutil.which("go"):
        v["go"] = run(["go", "env", "GOVERSION"])[1].strip().removeprefix("go")
    if shutil.which("node"):
        v["node"] = run(["node", "--version"])[1].strip().removeprefix("v")
    if shutil.which("wget"):
        v["wget"] = run(["wget", "--version"])[1].split()[2]
    return v


PY_CLIENT = r'''
import socket, ssl, sys
url, ca, t, kind = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
try:
    if kind == "python-ssl":
        port = int(url.rsplit(":", 1)[1].rstrip("/"))
        ctx = ssl.create_default_context(cafile=ca)
        with socket.create_connection(("127.0.0.1", port), timeout=t) as s:
            with ctx.wrap_socket(s, server_hostname="localhost") as c:
                c.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                data = b""
                while True:
                    d = c.recv(4096)
                    if not d:
                        break
                    data += d
        print("ok" if b"Hello World" in data else "error no body: " + repr(data[:60]))
    elif kind == "requests":
        import requests
        r = requests.get(url, verify=ca, timeout=t)
        print("ok" if "Hello World" in r.text else "error " + r.text[:60])
    else:
        import httpx
        with httpx.Client(verify=ca, timeout=t, http2=True) as c:
            r = c.get(url)
        print("ok" if "Hello World" in r.text else "error " + r.text[:60])
except Exception as e:
    print("error", type(e).__name__, e)
'''

NODE_CLIENT = r'''
const https = require("https"), fs = require("fs");
const [url, ca, t] = process.argv.slice(1);
const req = https.get(url, { ca: fs.readFileSync(ca), timeout: Number(t) * 1000 }, (r) => {
  let body = "";
  r.on("data", (d) => (body += d));
  r.on("end", () => console.log(body.includes("Hello World") ? "ok" : "error no body"));
});
req.on("timeout", () => { console.log("error timed out"); req.destroy(); });
req.on("error", (e) => console.log("error", e.code || "", e.message));
'''


def client(name, url, ca, work):
    """The client's outcome: ("ok", ""), ("error", text), or ("hang", text) when it gave up
    at its timeout (whatever it says then)."""
    start = time.monotonic()
    kind, text = attempt(name, url, ca, work)
    if kind == "error" and time.monotonic() - start >= TIMEOUT * 0.9:
        return ("hang", text)
    return (kind, text)


def attempt(name, url, ca, work):
    """The client's raw outcome: ("ok", "") or ("error", text)."""
    t = str(TIMEOUT)
    port = url.rsplit(":", 1)[1].rstrip("/")
    if name == "curl":
        code, out, err = run(["curl", "-sS", "--max-time", t, "--cacert", ca, url])
        return ("ok", "") if code == 0 and "Hello World" in out else ("error", f"exit {code} {err}")
    if name == "openssl":
        req = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        code, out, err = run(["timeout", t, "openssl", "s_client", "-connect", f"127.0.0.1:{port}",
                              "-servername", "localhost", "-CAfile", ca, "-verify_return_error",
                              "-verify_hostname", "localhost", "-quiet"], input=req)
        if "Hello World" in out:
            return ("ok", "")
        return ("error", f"exit {code} {err}" + (" timed out" if code == 124 else ""))
    if name in ("python-ssl", "requests", "httpx"):
        code, out, err = run([sys.executable, "-c", PY_CLIENT, url, ca, t, name])
    elif name == "go":
        code, out, err = run([os.path.join(work, "tls-client"), url, ca, t])
    elif name == "node":
        code, out, err = run(["node", "-e", NODE_CLIENT, url, ca, t])
    elif name == "wget":
        code, out, err = run(["wget", "-q", "-O", "-", f"--timeout={t}", "--tries=1",
                              f"--ca-certificate={ca}", url])
        if code == 0 and "Hello World" in out:
            return ("ok", "")
        # wget -q says nothing: ask again without -q for the reason.
        code, out, err = run(["wget", "-O", "/dev/null", f"--timeout={t}", "--tries=1",
                              f"--ca-certificate={ca}", url])
        return ("error", f"exit {code} {err}")
    out = out.strip()
    if out.startswith("ok"):
        return ("ok", "")
    return ("error", f"exit {code} {out} {err}")


# The reason in a client's error, first match wins: the words each client uses for it.
REASONS = [
    ("hang", r"timed out|timeout|Timeout|TimeoutError|ReadTimeout|ConnectTimeout|exit 28 |exit 124 "),
    ("expired or not yet valid", r"expired or is not yet valid"),
    ("expired", r"expired|CertificateExpired"),
    ("not yet valid", r"not yet valid|NotValidYet|not valid yet|CERT_NOT_YET_VALID|not yet activated"),
    ("wrong host", r"hostname|Hostname|host name|doesn't match|does not match|not valid for|"
                   r"ERR_TLS_CERT_ALTNAME|altname|IP address mismatch|is valid for"),
    ("self-signed", r"self[- ]signed|SELF_SIGNED"),
    ("unknown issuer", r"unknown authority|local issuer|unable to get issuer|UNABLE_TO_GET_ISSUER|"
                       r"UNABLE_TO_VERIFY_LEAF|unable to verify|certificate verify failed|unknown ca|"
                       r"UnknownIssuer|not trusted|issuer certificate"),
    ("certificate required", r"certificate required|certificate_required|CERTIFICATE_REQUIRED|exit 56 |exit 98 "),
    ("protocol version", r"protocol version|protocol_version|PROTOCOL_VERSION|unsupported protocol"),
    ("no ALPN protocol", r"application protocol|no_application_protocol|NO_APPLICATION_PROTOCOL|ALPN"),
    ("reset", r"reset by peer|ECONNRESET|ConnectionReset|Connection reset|errno=104"),
    ("handshake alert", r"handshake failure|handshake_failure|HANDSHAKE_FAILURE|alert"),
    ("record too long", r"record overflow|RECORD_OVERFLOW|oversized record|record too long|"
                        r"packet length too long|encrypted length too long|data length too long|"
                        r"DATA_LENGTH_TOO_LONG|record overflow"),
    ("not TLS", r"wrong version number|WRONG_VERSION_NUMBER|first record does not look like|"
                r"record layer failure|unknown protocol|http request|HTTP request|packet length|"
                r"record header|record type|bad record|HTTP response to HTTPS|unexpected TLS"),
    ("closed", r"EOF|eof|closed|Closed|disconnected|ECONNRESET|socket hang up|"
               r"RemoteProtocolError|exit 35 |exit 55 |Unable to establish SSL connection|"
               r"SSL_ERROR_SYSCALL|invalidated|broken pipe"),
]


def reason(text):
    for name, pattern in REASONS:
        if re.search(pattern, text):
            return name
    return "other: " + " ".join(text.split())[:60]


def cell(result):
    kind, text = result
    if os.environ.get("TLS_CLIENTS_RAW"):
        return " ".join(text.split())[:150] or kind
    if kind == "ok":
        return "ok"
    r = "hang" if kind == "hang" else reason(text + " ")
    return "hang" if r == "hang" else f"refuse: {r}"


def row(case, canned, clients, work):
    ca = os.path.join(work, f"{case}.pem")
    p = subprocess.Popen([canned, "--listen", "tls:127.0.0.1:0", "--tls-ca-out", ca, "--tls-case",
                          case, "--header-timeout", "20s"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        m = re.search(r"tls:127\.0\.0\.1:(\d+)", line)
        if not m:
            sys.exit(f"tls-clients: canned --tls-case {case} did not start: {line!r}")
        url = f"https://localhost:{m.group(1)}/"
        seen = [set() for _ in clients]
        for _ in range(RUNS):
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(clients)) as pool:
                for got, c in zip(seen, pool.map(lambda c: cell(client(c, url, ca, work)), clients)):
                    got.add(c)
        return [" / ".join(sorted(got)) for got in seen]
    finally:
        p.terminate()
        p.wait()


def main():
    have = versions()
    if sys.argv[1:2] == ["--versions"]:
        for c in CLIENTS:
            if c in have:
                print(c, have[c])
        return
    clients = os.environ.get("TLS_CLIENTS", "").split() or [c for c in CLIENTS if c in have]
    for c in clients:
        if c not in have:
            sys.exit(f"tls-clients: {c} is not installed")
    canned = os.environ.get("CANNED_BIN") or os.path.join(ROOT, "target/release/canned")
    listing = subprocess.run([canned, "--tls-list"], capture_output=True, text=True, check=True).stdout
    does = dict(re.match(r"(\S+)\s+(.*)", l).groups() for l in listing.splitlines())
    cases = sys.argv[1:] or list(does)
    with tempfile.TemporaryDirectory() as work:
        if "go" in clients:
            subprocess.run(["go", "build", "-o", os.path.join(work, "tls-client"),
                            os.path.join(ROOT, "contrib/tls-client.go")], check=True,
                           env=dict(os.environ, GOFLAGS="-mod=mod", GO111MODULE="off"))
        print("case\t" + "\t".join(clients))
        findings = []
        for case in cases:
            cells = row(case, canned, clients, work)
            print(case + "\t" + "\t".join(cells), flush=True)
            if does.get(case, "").startswith("refuse:"):
                findings += [f"{c} accepts {case}" for c, v in zip(clients, cells) if v == "ok"]
    for f in findings:
        print(f"# finding: {f}")


if __name__ == "__main__":
    main()
