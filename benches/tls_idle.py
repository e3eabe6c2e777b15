#!/usr/bin/env python3
"""Idle TLS connections for benches/tls.sh and tests/suite/tls.rs: PORT N READY_FILE.

Opens N connections to 127.0.0.1:PORT, each with a full TLS handshake (no verification: the
server's memory is measured, not its certificate) and one HTTP/1.1 keep-alive request whose
whole response is read; then writes READY_FILE and holds them open until killed."""
import os
import signal
import socket
import ssl
import sys

port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols(["http/1.1"])
conns = []
for _ in range(n):
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    data = b""
    while not data.endswith(b"\r\n\r\nHello World\n"):
        b = s.recv(4096)
        if not b:
            sys.exit(f"closed after {len(data)} bytes: {data!r}")
        data += b
    conns.append(s)
with open(ready, "w") as f:
    f.write(f"{len(conns)}\n")
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
while True:
    signal.pause()
