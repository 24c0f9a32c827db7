"""A stand-in for a Kubernetes API server on loopback, just enough for a real kubectl to run
README's Kubernetes commands against it (run with Debian's /usr/bin/python3):

  fake_apiserver.py PORTFILE NODES.json LOG

answers the legacy discovery requests (/api, /apis, the group versions deploy/kubernetes uses),
404 for every object (so `kubectl apply --dry-run=client` creates them all), and NODES.json for
GET /api/v1/nodes (the condition node-problem-detector would set); it writes the port it listens
on to PORTFILE and appends each request's method and path to LOG. It is no cluster: it schedules
nothing and stores nothing.
"""
import http.server
import json
import sys

RESOURCES = {  # group version -> [(resource, kind, namespaced)]
    "v1": [("namespaces", "Namespace", False), ("nodes", "Node", False), ("configmaps", "ConfigMap", True),
           ("serviceaccounts", "ServiceAccount", True)],
    "apps/v1": [("daemonsets", "DaemonSet", True)],
    "rbac.authorization.k8s.io/v1": [("clusterrolebindings", "ClusterRoleBinding", False)],
}


def resource_list(group_version):
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": [{"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
                       "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}
                      for name, kind, namespaced in RESOURCES[group_version]],
    }


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def not_found(self):
        self.reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                         "code": 404, "message": f"{self.path} not found"})

    def do_GET(self):
        with open(self.server.log, "a") as log:
            log.write(f"GET {self.path}\n")
        path = self.path.split("?", 1)[0]
        if path == "/api":
            return self.reply(200, {"kind": "APIVersions", "versions": ["v1"]})
        if path == "/apis":
            groups = [gv.split("/")[0] for gv in RESOURCES if "/" in gv]
            return self.reply(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": f"{g}/v1", "version": "v1"}],
                 "preferredVersion": {"groupVersion": f"{g}/v1", "version": "v1"}} for g in groups]})
        if path == "/api/v1":
            return self.reply(200, resource_list("v1"))
        if path.startswith("/apis/") and path[len("/apis/"):] in RESOURCES:
            return self.reply(200, resource_list(path[len("/apis/"):]))
        if path == "/api/v1/nodes":
            with open(self.server.nodes) as f:
                return self.reply(200, json.load(f))
        return self.not_found()

    def do_POST(self):  # kubectl --dry-run=client never sends one: record it so the test sees it
        with open(self.server.log, "a") as log:
            log.write(f"POST {self.path}\n")
        self.reply(405, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 405})

    do_PUT = do_PATCH = do_DELETE = do_POST


def main():
    port_file, nodes, log = sys.argv[1:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.nodes, server.log = nodes, log
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
