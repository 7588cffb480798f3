#!/usr/bin/env python3
"""Serve recorded provider replies on 127.0.0.1 (a free port) for the CLI tests.

    fixture-serve.py PATH=FILE...

Every request (GET, POST, PUT, DELETE) whose path starts with PATH is answered 200 with
FILE as application/json (the longest PATH wins); anything else is 404. Prints
"listening on http://127.0.0.1:PORT" once it accepts connections. Stops on SIGTERM.
"""
import http.server
import sys

routes = []
for arg in sys.argv[1:]:
    path, _, file = arg.partition("=")
    with open(file, "rb") as f:
        routes.append((path, f.read()))
routes.sort(key=lambda r: -len(r[0]))


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > 0:
            self.rfile.read(length)
        for path, body in routes:
            if self.path.startswith(path):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        self.send_error(404)

    do_GET = do_POST = do_PUT = do_DELETE = answer

    def log_message(self, fmt, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
