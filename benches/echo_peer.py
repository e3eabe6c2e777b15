# The echo peer of benches/echo.sh: an /anything-like JSON echo with Python's http.server, a
# thread per connection (one CPU under the GIL), keep-alive (HTTP/1.1), answering method, target, headers and body as go-httpbin's
# /anything does (its shape, not its every field).
import base64, json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        try:
            data = body.decode("utf-8")
        except UnicodeDecodeError:
            data = "data:application/octet-stream;base64," + base64.b64encode(body).decode()
        out = json.dumps({
            "method": self.command,
            "url": self.path,
            "headers": {k: [v] for k, v in self.headers.items()},
            "data": data,
        }).encode() + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_any

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
