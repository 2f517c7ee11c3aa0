#!/usr/bin/env python3
"""A loopback stand-in for the Kubernetes API, used by hack/test-dist.sh: one Node (node-1) carrying the EBS startup
taint and another taint, and its CSINode with ebs.csi.aws.com registered. Each PATCH of the Node is appended to
PATCHFILE and applied as the driver's JSON patch would be (the startup taint dropped).
Usage: kube-standin.py PORTFILE PATCHFILE (writes the chosen port)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "resourceVersion": "1"},
        "spec": {"taints": [{"key": "ebs.csi.aws.com/agent-not-ready", "effect": "NoExecute"},
                            {"key": "example.com/keep", "effect": "NoSchedule"}]}}
CSINODE = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-1"},
           "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-0aaaaaaaaaaaaaaaa",
                                 "allocatable": {"count": 25}}]}}


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.startswith("/api/v1/nodes/node-1"):
            self.reply(200, NODE)
        elif self.path.startswith("/apis/storage.k8s.io/v1/csinodes/node-1"):
            self.reply(200, CSINODE)
        else:
            self.reply(404, {"kind": "Status", "apiVersion": "v1", "code": 404, "reason": "NotFound"})

    def do_PATCH(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with open(sys.argv[2], "a") as patches:
            patches.write(self.path + " " + body + "\n")
        NODE["spec"]["taints"] = [t for t in NODE["spec"]["taints"] if not t["key"].endswith("/agent-not-ready")]
        NODE["metadata"]["resourceVersion"] = str(int(NODE["metadata"]["resourceVersion"]) + 1)
        self.reply(200, NODE)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
