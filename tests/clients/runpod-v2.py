#!/usr/bin/env python3
"""A RunPod REST v2 client written from the documented shapes alone
(../shared/providers/runpod.md §9), with nothing but the standard library: create, get, list,
stop, start, logs, delete, the catalogue, data centres, billing, ssh keys, and the
problem+json errors. Run against `gpurent sim serve --dialect runpod` by t784.

usage: runpod-v2.py BASE_URL API_KEY
Prints one line per step; exits non-zero at the first answer that breaks the documented shape.
"""
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE, KEY = sys.argv[1].rstrip("/"), sys.argv[2]
STATUSES = {"PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"}
ACTIONS = {"start", "stop", "restart", "terminate"}


class Problem(Exception):
    def __init__(self, status, body):
        super().__init__("%d %s" % (status, body))
        self.status, self.body = status, body


def call(method, path, body=None, key=KEY):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + key)
    req.add_header("Content-Type", "application/json")
    # RunPod's edge refuses Python's default agent (§2).
    req.add_header("User-Agent", "runpod-v2-test/1.0 (python)")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            raw = r.read()
            if r.status == 204:
                assert raw == b"", "a 204 has no body"
                return r.status, None
            assert r.headers.get_content_type() == "application/json", r.headers
            return r.status, json.loads(raw)
    except urllib.error.HTTPError as e:
        raw = e.read()
        assert e.headers.get_content_type() == "application/problem+json", \
            "an error is problem+json, not %s" % e.headers.get("Content-Type")
        p = json.loads(raw)
        assert isinstance(p.get("title"), str) and p.get("status") == e.code and \
            isinstance(p.get("detail"), str) and isinstance(p.get("errors"), list), p
        raise Problem(e.code, p)


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def check_pod(p):
    need(isinstance(p.get("id"), str) and len(p["id"]) == 14, "pod id: %r" % p.get("id"))
    need(p.get("status") in STATUSES, "status %r" % p.get("status"))
    need(isinstance(p.get("actions"), list) and set(p["actions"]) <= ACTIONS,
         "actions %r" % p.get("actions"))
    need(isinstance(p.get("cost"), (int, float)), "cost is a number")
    need(p["status"] == "RUNNING" or p["status"] in ("PROVISIONING", "STARTING") or
         p["cost"] == 0, "cost 0 when not running: %r" % p)
    g = p.get("gpu")
    need(isinstance(g, dict) and isinstance(g.get("id"), str) and
         isinstance(g.get("count"), int), "gpu {id, count}")
    need(p.get("cloud") in ("SECURE", "COMMUNITY"), "cloud")
    need(isinstance(p.get("dataCenterId"), str), "dataCenterId")
    ssh = p.get("ssh")
    need(isinstance(ssh, dict) and "proxy" in ssh and "direct" in ssh, "ssh {proxy, direct}")
    for way in ("proxy", "direct"):
        e = ssh[way]
        need(e is None or all(k in e for k in ("host", "port", "username", "command")),
             "ssh.%s {host, port, username, command}" % way)
    rt = p.get("runtime")
    need(rt is None or (isinstance(rt.get("uptime"), (int, float)) and
                        isinstance(rt.get("gpus"), list) and "cpu" in rt and "memory" in rt and
                        isinstance(rt.get("ports"), list)), "runtime")
    need(isinstance(p.get("createdAt"), str) and "startedAt" in p, "createdAt, startedAt")
    return p


def wait_status(pid, want, action, tries=100):
    """The pod once its status is want and it offers action (a bounded wait)."""
    for _ in range(tries):
        _, p = call("GET", "/v2/pods/" + pid)
        check_pod(p)
        if p["status"] == want and action in p["actions"]:
            return p
        time.sleep(0.2)
    raise AssertionError("pod %s never became %s" % (pid, want))


def main():
    _, cat = call("GET", "/v2/catalog/gpus?include=AVAILABILITY&product=POD")
    gpus = cat["gpus"]
    need(isinstance(gpus, list) and gpus, "catalogue is {gpus: [...]}")
    for g in gpus:
        need(set(g["price"]) >= {"secure", "community", "serverless"}, "price per cloud")
        need(isinstance(g["maxCount"], int), "maxCount")
        for a in g["availability"]:
            need(a["status"] in ("NONE", "LOW", "MEDIUM", "HIGH"), "availability level")
    pick = next(g for g in gpus if g["price"]["secure"] and
                any(a["cloud"] == "SECURE" and a["status"] != "NONE" and 1 in a["gpuCounts"]
                    for a in g["availability"]))
    print("catalogue: %d types, %s at $%s/GPU-hour" % (len(gpus), pick["id"],
                                                       pick["price"]["secure"]))
    _, one = call("GET", "/v2/catalog/gpus/" + urllib.parse.quote(pick["id"]))
    need(one["id"] == pick["id"], "one GPU type by id")
    _, dcs = call("GET", "/v2/catalog/datacenters")
    need(dcs["dataCenters"] and all("id" in d for d in dcs["dataCenters"]), "data centres")
    print("datacenters: %d" % len(dcs["dataCenters"]))

    st, pod = call("POST", "/v2/pods", {
        "name": "v2-client", "image": "runpod/pytorch:2.4.0", "gpu": {"id": pick["id"],
                                                                    "count": 1},
        "cloud": "SECURE", "disk": 20, "ports": ["22/tcp"], "env": {"K": "V"},
        "startSsh": True})
    need(st == 201, "create answers 201")
    pid = check_pod(pod)["id"]
    print("created: %s %s" % (pid, pod["status"]))
    pod = wait_status(pid, "RUNNING", "stop")
    need(pod["cost"] > 0 and "stop" in pod["actions"], "a running pod costs and can stop")
    print("running: cost %s ssh %s" % (pod["cost"], pod["ssh"]["proxy"]["username"]))
    _, lst = call("GET", "/v2/pods")
    need([p["id"] for p in lst["pods"]].count(pid) == 1, "listed once in {pods: [...]}")
    for p in lst["pods"]:
        check_pod(p)
    print("listed: %d" % len(lst["pods"]))

    _, pod = call("POST", "/v2/pods/%s/action" % pid, {"action": "stop"})
    check_pod(pod)
    pod = wait_status(pid, "EXITED", "start")
    need(pod["cost"] == 0 and "start" in pod["actions"], "a stopped pod costs 0, can start")
    print("stopped: cost %s actions %s" % (pod["cost"], ",".join(pod["actions"])))
    try:
        call("POST", "/v2/pods/%s/action" % pid, {"action": "stop"})
        raise AssertionError("stopping a stopped pod went through")
    except Problem as e:
        need(e.status == 409, "an action not in actions is 409")
    _, pod = call("POST", "/v2/pods/%s/action" % pid, {"action": "start"})
    check_pod(pod)
    wait_status(pid, "RUNNING", "stop")
    print("started")
    _, logs = call("GET", "/v2/pods/%s/logs" % pid)
    need(isinstance(logs["logs"], list) and logs["logs"], "logs")
    print("logs: %d lines" % len(logs["logs"]))

    _, bill = call("GET", "/v2/billing/pods")
    # A record per day (bucketSize=day): a pod whose life crossed midnight UTC has two.
    rec = [r for r in bill["records"] if r["podId"] == pid]
    need(rec and all(k in r for r in rec for k in ("startTime", "endTime", "totalAmount",
                                                   "gpuAmount", "diskAmount")),
         "a billing record of the pod")
    need(all(r["totalAmount"] >= 0 for r in rec), "an amount in dollars")
    _, nv = call("GET", "/v2/billing/network-volumes")
    need(isinstance(nv["records"], list), "network volume billing")
    print("billing: %s records, this pod $%s" % (len(bill["records"]),
                                                  sum(r["totalAmount"] for r in rec)))

    _, keys = call("PUT", "/v2/account/ssh-keys", {"keys": [
        {"name": "laptop", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI test@laptop"}]})
    _, keys = call("GET", "/v2/account/ssh-keys")
    need(keys["keys"][0]["name"] == "laptop" and keys["keys"][0]["fingerprint"], "ssh keys")
    print("ssh keys: %d" % len(keys["keys"]))

    st, _ = call("DELETE", "/v2/pods/" + pid)
    need(st == 204, "delete answers 204")
    try:
        call("GET", "/v2/pods/" + pid)
        raise AssertionError("a deleted pod is still there")
    except Problem as e:
        need(e.status == 404, "a deleted pod is 404")
    print("deleted: %s" % pid)

    # Create failures by status (§9).
    for body, want in (({"name": "x"}, 422),
                       ({"name": "x", "image": "i", "gpu": {"id": pick["id"], "count": 1},
                         "interruptible": True}, 422),
                       ({"name": "x", "image": "i", "gpu": {"id": "NVIDIA No Such"}}, 400),
                       ({"name": "x", "image": "i", "gpu": {"id": pick["id"], "count": 64}},
                        400)):
        try:
            call("POST", "/v2/pods", body)
            raise AssertionError("create %r went through" % body)
        except Problem as e:
            need(e.status == want, "create %r: %d, not %d" % (body, want, e.status))
    try:
        call("GET", "/v2/pods", key="wrong")
        raise AssertionError("a wrong key went through")
    except Problem as e:
        need(e.status == 401, "a wrong key is 401")
    print("errors: problem+json by status")


if __name__ == "__main__":
    try:
        main()
    except (AssertionError, Problem, KeyError, TypeError, StopIteration) as e:
        print("FAILED: %r" % (e,), file=sys.stderr)
        sys.exit(1)
