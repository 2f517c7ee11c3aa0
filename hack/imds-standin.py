#!/usr/bin/env python3
"""A loopback stand-in for the EC2 instance metadata service (IMDSv2 tokens), used only by the AOT training run:
the node plugin's start reads instance metadata, and the training run must take that path for its classes to be in
the cache. Serves one made-up m5.large in us-east-1a. Usage: imds-standin.py PORTFILE (writes the chosen port)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "aot-training-token"
IDENTITY = {"instanceId": "i-0aaaaaaaaaaaaaaaa", "instanceType": "m5.large", "region": "us-east-1",
            "availabilityZone": "us-east-1a", "accountId": "123456789012", "privateIp": "10.0.0.10"}
PATHS = {
    "/latest/dynamic/instance-identity/document": json.dumps(IDENTITY),
    "/latest/meta-data/placement/availability-zone-id": "use1-az1",
    "/latest/meta-data/network/interfaces/macs": "0e:00:00:00:00:01/",
    "/latest/meta-data/block-device-mapping": "ami\nroot",
}


class Handler(BaseHTTPRequestHandler):
    def do_PUT(self):
        if self.path == "/latest/api/token":
            self.reply(200, TOKEN, {"X-aws-ec2-metadata-token-ttl-seconds": "21600"})
        else:
            self.reply(404, "not found")

    def do_GET(self):
        if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
            self.reply(401, "unauthorized")
        elif self.path in PATHS:
            self.reply(200, PATHS[self.path])
        else:
            self.reply(404, "not found")

    def reply(self, code, body, headers=None):
        data = body.encode()
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
