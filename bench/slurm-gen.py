#!/usr/bin/env python3
"""slurm-gen.py NODES DIR - a generated slurmrestd v0.0.38 cluster of NODES nodes for
bench/slurm.sh: nodes.json (each node shaped like the recorded tests/data/slurm/nodes.json,
8 GPUs of one of four types, some busy, some drained), partitions.json (four partitions),
jobs.json (one pending or running job per ten nodes) and openapi.json (the recorded one)."""
import copy, json, os, random, sys

n, out = int(sys.argv[1]), sys.argv[2]
src = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "..", "tests", "data", "slurm", "")
rnd = random.Random(42)
node0 = json.load(open(src + "nodes.json"))["nodes"][0]
types = ["h100", "a100", "l40s", "rtx4090"]
parts = ["gpu", "long", "short", "debug"]
nodes = []
for i in range(n):
    nd = copy.deepcopy(node0)
    nd["name"] = nd["hostname"] = "gpu%04d" % i
    t = types[i % len(types)]
    used = rnd.randrange(9)
    nd["gres"] = "gpu:%s:8(S:0-1)" % t
    nd["gres_used"] = "gpu:%s:%d(IDX:0-%d)" % (t, used, max(used - 1, 0))
    nd["state"] = "idle" if used == 0 else "allocated" if used == 8 else "mixed"
    nd["state_flags"] = ["DRAIN"] if i % 50 == 0 else []
    nd["partitions"] = ["gpu"] + ([parts[1 + i % 3]] if i % 2 else [])
    nodes.append(nd)
json.dump({"meta": {}, "errors": [], "nodes": nodes}, open(out + "/nodes.json", "w"), indent=2)
p0 = json.load(open(src + "partitions.json"))["partitions"][0]
pl = []
for name, limit in zip(parts, [240, 4320, 30, 60]):
    p = copy.deepcopy(p0)
    p["name"], p["max_time_limit"] = name, limit
    pl.append(p)
json.dump({"meta": {}, "errors": [], "partitions": pl}, open(out + "/partitions.json", "w"),
    indent=2)
j0 = json.load(open(src + "jobs.json"))["jobs"][0]
jobs = []
for i in range(n // 10):
    j = copy.deepcopy(j0)
    j["job_id"], j["name"] = 1000 + i, "job%d" % i
    j["job_state"] = "PENDING" if i % 3 == 0 else "RUNNING"
    j["partition"] = parts[i % 4]
    j["tres_per_node"] = "gres:gpu:%s:%d" % (types[i % 4], 1 + i % 8)
    jobs.append(j)
json.dump({"meta": {}, "errors": [], "jobs": jobs}, open(out + "/jobs.json", "w"), indent=2)
json.dump(json.load(open(src + "openapi.json")), open(out + "/openapi.json", "w"))
