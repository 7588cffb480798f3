"""slurm-fake.py PORTFILE NODES - a slurmrestd look-alike for one running job, slurm:5 on
the hostlist NODES, for what a real two-node cluster (tests/slurm/cluster) cannot show: a
job over 70 nodes. It answers the pings, /job/5 and /jobs with that job, /nodes empty;
/openapi/v3 and anything else 404. Listens on 127.0.0.1, its port written to PORTFILE."""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

JOB = {"job_id": 5, "name": "wide", "job_state": "RUNNING", "nodes": sys.argv[2],
       "user_name": "root", "comment": "gpurent", "partition": "gpu",
       "tres_per_node": "gres/gpu:h100:1",
       "submit_time": 1, "start_time": 1, "time_limit": 60}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("?")[0].split("/")
        if parts[1:2] == ["slurm"] and parts[-1] == "ping":
            self.reply(200, {"pings": [], "errors": []})
        elif parts[1:2] == ["slurm"] and parts[-1] == "nodes":
            self.reply(200, {"nodes": [], "errors": []})
        elif parts[1:2] == ["slurm"] and (parts[-1] == "jobs" or parts[-2:] == ["job", "5"]):
            self.reply(200, {"jobs": [JOB], "errors": []})
        else:
            self.reply(404, {"errors": [{"error": "not here"}]})


server = HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
