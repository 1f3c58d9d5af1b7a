#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of an S3 endpoint (test_s3.sh).

    s3_proxy.py UPSTREAM_PORT MODE_FILE PORT_FILE

Forwards every request unchanged (the Host header too: the request stays
validly signed) and answers with the upstream's answer, except that for
ranged GETs it misbehaves as MODE_FILE says, re-read per request:

    pass            nothing
    503 N           every Nth ranged GET answers 503 SlowDown (counted from
                    when the mode was last changed)
    drop N          every Nth ranged GET sends its headers and half its body,
                    then closes the connection
    stall N         every Nth ranged GET sends its headers and stops
    503-once N, drop-once N
                    the Nth ranged GET alone (its retry is answered)
    always503       every request answers 503
    put503 N        every PUT of a body of N bytes or more answers 503 (the
                    small ones, a lock or a journal, pass)

Counts of what it did are appended to MODE_FILE.log. Writes its port to
PORT_FILE once listening.
"""
import http.client
import http.server
import socket
import socketserver
import sys
import threading
import time

UPSTREAM = int(sys.argv[1])
MODE_FILE = sys.argv[2]
PORT_FILE = sys.argv[3]
lock = threading.Lock()
counter = [0]
last_mode = [None]


def mode():
    try:
        with open(MODE_FILE) as f:
            parts = f.read().split()
    except OSError:
        return ("pass", 0)
    if not parts:
        return ("pass", 0)
    return (parts[0], int(parts[1]) if len(parts) > 1 else 1)


def log(what):
    with lock, open(MODE_FILE + ".log", "a") as f:
        f.write(what + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        m, n = mode()
        ranged = self.command == "GET" and "Range" in self.headers
        hit = False
        once = m.endswith("-once")
        if once:
            m = m[:-5]
        if ranged and m in ("503", "drop", "stall"):
            with lock:
                # counted from the mode's start: every run sees the same requests fail
                if last_mode[0] != (m, n, once):
                    last_mode[0] = (m, n, once)
                    counter[0] = 0
                counter[0] += 1
                hit = counter[0] == n if once else counter[0] % n == 0
        big_put = self.command == "PUT" and m == "put503" and length >= n
        if m == "always503" or (hit and m == "503") or big_put:
            log("503 " + self.path)
            msg = b"<Error><Code>SlowDown</Code></Error>"
            self.send_response(503)
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        conn = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
        headers = {k: v for k, v in self.headers.items()}
        conn.request(self.command, self.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        self.send_response_only(resp.status, resp.reason)
        # the body goes out whole with its length (a listing comes chunked
        # from upstream: without a length the client would wait for more)
        drop = ("transfer-encoding", "connection") if self.command == "HEAD" else (
            "transfer-encoding", "connection", "content-length")
        for k, v in resp.getheaders():
            if k.lower() not in drop:
                self.send_header(k, v)
        if self.command != "HEAD":
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if hit and m == "drop" and len(data) > 1:
            log("drop " + self.path)
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if hit and m == "stall":
            log("stall " + self.path)
            self.wfile.flush()
            time.sleep(30)
            self.close_connection = True
            return
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = Server(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os

os.rename(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
