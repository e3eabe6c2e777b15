#!/usr/bin/env python3
"""A plaintext-to-TLS relay for tools that speak HTTP/2 only in cleartext (httpwg): listens on
LISTEN (host:port), and relays each connection to TARGET over TLS with ALPN `h2`, trusting the
CA file CA for the name `localhost`. Each direction is relayed as it comes, a FIN as a FIN
(TLS close_notify), so that the tool sees canned's HTTP/2 over TLS byte for byte.

    contrib/tls-relay.py LISTEN TARGET CA
"""
import selectors
import socket
import ssl
import sys
import threading


def pump(plain, tls):
    sel = selectors.DefaultSelector()
    sel.register(plain, selectors.EVENT_READ, "plain")
    sel.register(tls, selectors.EVENT_READ, "tls")
    open_ = {"plain", "tls"}
    try:
        while open_:
            for key, _ in sel.select():
                src = key.data
                try:
                    data = (plain if src == "plain" else tls).recv(65536)
                except ssl.SSLWantReadError:
                    continue
                except (ConnectionResetError, ssl.SSLError, OSError):
                    data = b""
                    if src == "tls":
                        # canned reset the connection: so does the relay.
                        plain.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
                        return
                if data:
                    if src == "tls":
                        # Records already decrypted wait in the ssl object, not the socket:
                        # select would not see them.
                        while tls.pending():
                            data += tls.recv(tls.pending())
                    (tls if src == "plain" else plain).sendall(data)
                    continue
                sel.unregister(key.fileobj)
                open_.discard(src)
                if src == "plain":
                    try:
                        tls.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                else:
                    try:
                        plain.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
    finally:
        plain.close()
        tls.close()


def main():
    listen, target, ca = sys.argv[1], sys.argv[2], sys.argv[3]
    lh, lp = listen.rsplit(":", 1)
    th, tp = target.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["h2"])
    srv = socket.create_server((lh, int(lp)), backlog=1024)

    def serve(plain):
        plain.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            raw = socket.create_connection((th, int(tp)))
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            tls = ctx.wrap_socket(raw, server_hostname="localhost")
            assert tls.selected_alpn_protocol() == "h2", tls.selected_alpn_protocol()
        except Exception as e:
            print(f"tls-relay: {e}", file=sys.stderr)
            plain.close()
            return
        pump(plain, tls)

    while True:
        plain, _ = srv.accept()
        threading.Thread(target=serve, args=(plain,), daemon=True).start()


if __name__ == "__main__":
    main()
