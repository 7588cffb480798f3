#!/usr/bin/env python3
"""chaos.py - the seeded chaos run (issue 30): several gpurent clients, a watcher with a
group and a conductor work against `gpurent sim serve` worlds of four dialects while faults
arrive; then invariants are checked against the worlds' own databases, not gpurent's view.

  chaos.py --gpurent BIN --seed N --ops N [--clients N] [--dir DIR] [--log FILE]
           [--report FILE] [--plan-only] [--keep] [--full-mix] [--slurm] [--dashboard]

The seed draws every operation, which client runs it, its arguments and its fault, before
anything runs: the history (--log, one line per operation in plan order) is the same for the
same seed whatever the outcomes; --plan-only writes it and runs nothing. --full-mix adds
managed jobs (run --managed on the built-in simulator, whose instances reach a real sshd),
run, logs and cp over that sshd (stopped at times), the shell as a client, and instance
guards (guard install --until on vast instances behind that sshd), drawn from a stream of
their own: without it a seed's history is what it always was. --slurm (root) adds jobs
submitted and cancelled on a real two-node Slurm cluster, --dashboard the dashboard in tmux
driven by keys (views, a stop confirmed), each from a stream of its own too. Exit status 0 when
every invariant held, 1 when one did not (the first failing check and the seed on stderr),
2 on a usage or set-up error. Standard library only.
"""
import argparse
import json
import os
import random
import re
import shutil
import pwd
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

DIALECTS = ['vast', 'runpod', 'lambda', 'ppio']
PROVIDERS = DIALECTS + ['sim']
# What only a create request of each dialect carries (sim serve --fail-match).
CREATE_MATCH = {'vast': '/api/v0/asks/', 'runpod': 'imageName',
                'lambda': 'instance-operations/launch', 'ppio': 'product_id'}
# gpurent's id of the world's sim:i-N in each dialect.
ID_OF = {'vast': lambda n: 'vast:%d' % n, 'runpod': lambda n: 'runpod:sp%012d' % n,
         'lambda': lambda n: 'lambda:%032x' % n, 'ppio': lambda n: 'ppio:%010x' % n,
         'sim': lambda n: 'sim:i-%06d' % n}
# man gpurent, EXIT STATUS: what a command may exit with.
DOCUMENTED_RC = set(range(0, 16)) | {255}
# sim_instances' states (model.h, enum inst_state).
ST_PROVISIONING, ST_RUNNING, ST_STOPPING, ST_STOPPED, ST_STARTING = 1, 2, 3, 4, 5
ST_DESTROYING, ST_DESTROYED, ST_FAILED = 6, 7, 8
HAS_MACHINE = (ST_PROVISIONING, ST_RUNNING, ST_STARTING)
STOP_DONE = (ST_STOPPING, ST_STOPPED, ST_DESTROYING, ST_DESTROYED, ST_FAILED)
DESTROY_DONE = (ST_DESTROYING, ST_DESTROYED, ST_FAILED)
CNY_USD = 0.14
MAX_PRICE = 0.6           # per hour: a cent is a minute of drift at the dearest
ADVANCE_CAP = 30          # seconds a world's clock may be moved in all (tests/README.md)
KEY = 'chaos-key'
BUDGET_ROOM = 10           # budget.day: room for this many instances at first

# Faults drawn for a client's operation: (name, weight, sim serve options or None).
SERVER_FAULTS = {
    '429': ['--fail-429', '30'],
    '5xx': ['--fail-5xx', '30'],
    'reset': ['--fail-drop', '30'],
    'truncated': ['--fail-truncate', '30'],
    'malformed': ['--fail-malformed', '30'],
    'timeout': ['--latency', '1300'],
}
FAULT_WEIGHTS = [('none', 52), ('429', 6), ('5xx', 7), ('reset', 6), ('truncated', 5),
                 ('malformed', 5), ('timeout', 2), ('kill', 10), ('full-disk', 3)]
CLIENT_OPS = [('launch-offer', 11), ('launch-req', 7), ('stop', 7), ('start', 4),
              ('destroy', 6), ('ls', 6), ('costs', 3), ('audit', 2), ('reconcile', 3),
              ('offers', 3)]
CONDUCTOR_OPS = [('budget', 3), ('group-resize', 2), ('advance', 4), ('preempt', 2),
                 ('kill-watch', 3), ('checkpoint', 1)]


def pick(rng, weighted):
    total = sum(w for _, w in weighted)
    r = rng.randrange(total)
    for name, w in weighted:
        if r < w:
            return name
        r -= w
    raise AssertionError


# --full-mix: of the operations that only read (each drawn as before, so that the seed's
# history is the same without it), these shares become a managed job or a shell session.
FULL_MIX_READS = ('ls', 'costs', 'audit', 'offers', 'reconcile')
MANAGED_PCT, SHELL_PCT, REMOTE_PCT = 20, 15, 20
# Of the rest, these become an instance guard (`guard install --until`) on a vast instance;
# its parameters come from the op's fault seed, not the mix's stream, so that every other
# operation of a full-mix history stays what it was.
GUARD_PCT = 10
GUARD_UNTIL = (3, 8)       # the guard's deadline: seconds after its install, at least, below
GUARD_MARGIN = 5           # seconds past its deadline by which its instance is stopped
MANAGED_COUNT = 12         # the job counts to this, a count every 0.3 s, checkpointed


def full_mix(op, mix):
    """A read op made a managed job or a shell session, from the mix's own stream: its
    fault none, or kill -9 of its command (the managed job's controller: the watcher
    drives the job on)."""
    r = mix.randrange(100)
    if op['op'] not in FULL_MIX_READS or r >= MANAGED_PCT + SHELL_PCT + REMOTE_PCT + GUARD_PCT:
        return
    op.pop('kill_ms', None)
    if r >= MANAGED_PCT + SHELL_PCT + REMOTE_PCT:
        # A guard whose deadline comes a few seconds after its install; with watch-killed,
        # the watcher killed -9 from the install until past the deadline: the agent alone.
        op['op'] = 'guard'
        op['args'] = {'provider': 'vast', 'until': GUARD_UNTIL[0] + op['fault_seed'] %
                      (GUARD_UNTIL[1] - GUARD_UNTIL[0])}
        op['fault'] = 'watch-killed' if op['fault_seed'] % 3 == 0 else 'none'
        return
    op['args'] = {'provider': 'sim'}
    if r >= MANAGED_PCT + SHELL_PCT:
        # run, cp and logs on one of the client's instances of the built-in simulator,
        # with the sshd stopped a drawn while into it, and started again.
        op['op'] = 'remote'
        op['fault'] = 'sshd-stop' if mix.randrange(100) < 30 else 'none'
        if op['fault'] == 'sshd-stop':
            op['kill_ms'] = mix.randrange(100, 2000)
        return
    op['op'] = 'managed' if r < MANAGED_PCT else 'shell'
    op['fault'] = 'kill' if mix.randrange(100) < 30 else 'none'
    if op['fault'] == 'kill':
        op['kill_ms'] = mix.randrange(500, 6000) if op['op'] == 'managed' else \
            mix.randrange(30, 700)


# --slurm: of the client operations still reads after the rest, this share become a job
# submitted (launch on the cluster's offer, labelled with its request's slot) or cancelled
# (destroy) through gpurent's slurm provider, from a stream of their own; a third of them
# kill -9 their command a drawn while in.
SLURM_PCT = 50
SLURM_OFFER = 'slurm:gpu/h100'
SLURM_PRICE = '0.10'       # slurm.price.h100: budgets count the jobs


def slurm_mix(op, sl, slots):
    """A read op made a submission or a cancel of a job on the Slurm cluster, from the
    stream sl; slots: the client's jobs' slots so far."""
    r, r_kind, r_fault, kill_ms = (sl.randrange(100), sl.randrange(100), sl.randrange(100),
                                   sl.randrange(20, 400))
    if op['op'] not in FULL_MIX_READS or r >= SLURM_PCT:
        return
    op.pop('kill_ms', None)
    if slots and r_kind < 40:
        op['op'] = 'slurm-cancel'
        op['args'] = {'provider': 'slurm', 'slot': slots[r_kind % len(slots)]}
    else:
        op['op'] = 'slurm-launch'
        op['args'] = {'provider': 'slurm', 'slot': 's%d' % op['n']}
        slots.append(op['args']['slot'])
    op['fault'] = 'kill' if r_fault < 30 else 'none'
    if op['fault'] == 'kill':
        op['kill_ms'] = kill_ms


# --dashboard: of the client operations still reads after the rest, this share drive the
# one dashboard (in tmux), from a stream of their own: views switched by their keys, or a
# stop ordered from the instances view and confirmed.
DASH_PCT = 30
DASH_VIEW_KEYS = ['1', '2', '3', '4', '5', '6', '7', 'Tab', 'BTab', 'r', 'j', 'G', 'g']
DASH_SIZE = (160, 50)
# What a terminal must never be shown: C0 controls but the newline, DEL, C1 controls.
CONTROL = re.compile('[\x00-\x09\x0b-\x1f\x7f-\x9f]')


def dash_mix(op, dm):
    """A read op made a drive of the dashboard, from the stream dm."""
    r, r_kind = dm.randrange(100), dm.randrange(100)
    keys = [dm.choice(DASH_VIEW_KEYS) for _ in range(3)]
    if op['op'] not in FULL_MIX_READS or r >= DASH_PCT:
        return
    op.pop('kill_ms', None)
    op['fault'] = 'none'
    if r_kind < 40:
        op['op'] = 'dash-stop'
        op['args'] = {'provider': 'any'}
    else:
        op['op'] = 'dash-views'
        op['args'] = {'provider': 'any', 'keys': ','.join(keys)}


def make_plan(seed, n_ops, n_clients, full=False, slurm=False, dash=False):
    """The whole history, from the seed alone: a list of dicts in plan order."""
    rng = random.Random(seed)
    mix = random.Random(seed * 7919 + 1) if full else None
    sl = random.Random(seed * 6151 + 2) if slurm else None
    dm = random.Random(seed * 4099 + 5) if dash else None
    sl_slots = {c: [] for c in range(n_clients)}
    plan, slots, room = [], {c: [] for c in range(n_clients)}, BUDGET_ROOM
    for i in range(n_ops):
        op = {'n': i}
        if rng.randrange(100) < 15:
            op['who'] = 'conductor'
            op['op'] = pick(rng, CONDUCTOR_OPS)
            if op['op'] == 'budget':
                room += rng.choice([2, 4])   # raised only: see check_budget
                op['args'] = {'room': room}
            elif op['op'] == 'group-resize':
                mx = rng.randrange(1, 4)
                op['args'] = {'min': rng.randrange(0, mx + 1), 'max': mx}
            elif op['op'] in ('advance', 'preempt'):
                op['args'] = {'world': rng.choice(DIALECTS), 'seconds': 5,
                              'pick': rng.randrange(1 << 30),
                              'how': rng.choice(['host-failure', 'unreachable'])}
            plan.append(op)
            continue
        c = rng.randrange(n_clients)
        op['who'] = 'c%d' % c
        kind = pick(rng, CLIENT_OPS)
        if kind in ('stop', 'start', 'destroy') and not slots[c]:
            kind = 'ls'
        op['op'] = kind
        if kind.startswith('launch'):
            slot = 'r%d' % i
            prov = rng.choice(PROVIDERS)
            slots[c].append((slot, prov))
            op['args'] = {'slot': slot, 'provider': prov, 'rank': rng.randrange(3)}
        elif kind in ('stop', 'start', 'destroy'):
            slot, prov = rng.choice(slots[c])
            op['args'] = {'slot': slot, 'provider': prov}
        else:
            op['args'] = {'provider': rng.choice(PROVIDERS)}
        fault = pick(rng, FAULT_WEIGHTS)
        prov = op['args']['provider']
        if fault in SERVER_FAULTS and prov == 'sim':
            fault = 'none'          # the built-in simulator has no wire to break
        if kind.startswith('launch') and prov != 'sim':
            r = rng.randrange(100)
            if r < 20:
                fault = 'acted-500'         # the create done, answered 500
            elif r < 35:
                fault = 'kill-at-create'    # kill -9 once the create reached the provider
        if kind == 'stop' and prov != 'sim' and rng.randrange(100) < 25:
            fault = 'ignored-stop'  # answered done, nothing stopped
        op['fault'] = fault
        op['fault_seed'] = rng.randrange(1, 1 << 30)
        if fault == 'kill':
            op['kill_ms'] = rng.randrange(30, 700)
        if mix:
            full_mix(op, mix)
        if sl:
            slurm_mix(op, sl, sl_slots[c])
        if dm:
            dash_mix(op, dm)
        plan.append(op)
    return plan


def plan_line(op):
    a = ' '.join('%s=%s' % (k, op['args'][k]) for k in sorted(op.get('args', {})))
    f = op.get('fault', '-')
    if 'kill_ms' in op:
        f += '@%dms' % op['kill_ms']
    return '%05d %-9s %-12s %-48s fault=%s' % (op['n'], op['who'], op['op'], a, f)


class Fail(Exception):
    pass


class Run:
    def __init__(self, a):
        self.a = a
        self.bin = os.path.abspath(a.gpurent)
        self.dir = a.dir
        self.home = os.path.join(self.dir, 'home')
        self.lock = threading.Lock()
        self.tl = threading.local()     # the fault of the operation a thread runs
        self.budget_rw = threading.Condition()
        self.launching = 0
        self.budget = None
        self.results = []          # one per command run
        self.ids = {}              # slot -> gpurent id
        self.servers = {}
        self.fault_counts = {}
        self.kills = 0
        self.advanced = {d: 0 for d in DIALECTS}
        self.group_max = 0
        self.watch = None
        self.sshd = None
        self.sshd_lock = threading.Lock()
        self.watch_lock = threading.Lock()
        self.guard_server = None   # vast's world, its instances' ssh at the sshd (--full-mix)
        self.guards = {}           # instance id -> its guard's deadline (wall clock) and more
        self.slurm_dir = None      # the Slurm cluster's (--slurm)
        self.dash_lock = threading.Lock()
        self.dash_sock = None      # the dashboard's tmux server (--dashboard)
        self.dash_stops = []       # (instance id, when) the dashboard said it is stopping
        self.slots_of = {}         # client -> its request slots
        self.checks = {}
        self.first_failure = None
        self.failures = []              # every failure, in the order found (failures.log)
        self.done = 0
        self.t0 = time.time()
        self.procs = set()         # every process started and not yet ended, for close()
        self.closing = False
        os.makedirs(self.home)
        self.env = dict(os.environ)
        for k in list(self.env):
            if k.startswith('GPURENT_') or k.endswith('_API_KEY'):
                del self.env[k]
        # The worlds move at a twentieth of the usual pace on the real clock (GPURENT_SIM_DELAY),
        # which their bills and gpurent's ledger share.
        self.env.update({'GPURENT_HOME': self.home, 'GPURENT_SIM_SEED': str(a.seed),
                         'GPURENT_SIM_DELAY': '5', 'NO_COLOR': '1', 'LC_ALL': 'C.UTF-8',
                         # Nothing listens there: no ssh reaches this machine's sshd.
                         'GPURENT_SIM_SSH_PORT': '1',
                         'TZ': 'UTC'})

    # -- processes -------------------------------------------------------------------
    def world(self, d):
        return os.path.join(self.dir, 'world-' + d)

    def serve(self, d, extra, tag):
        """Start a sim serve of dialect d on its world; its URL and Popen."""
        os.makedirs(self.world(d), exist_ok=True)
        out = open(os.path.join(self.dir, 'serve-%s-%s.out' % (d, tag)), 'w+')
        env = dict(self.env, GPURENT_HOME=self.world(d))
        p = self.spawn([self.bin, 'sim', 'serve', '--dialect', d, '--port', '0',
                        '--api-key', KEY] + extra, env=env, stdout=out,
                       stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            out.seek(0)
            m = re.search(r'^listening on (http\S+)', out.read(), re.M)
            if m:
                return m.group(1), p, out
            if p.poll() is not None:
                break
            time.sleep(0.02)
        self.end(p)
        raise Fail('sim serve --dialect %s %s did not start' % (d, ' '.join(extra)))

    def spawn(self, argv, **kw):
        with self.lock:
            if self.closing:
                raise Fail('stopping')
            p = subprocess.Popen(argv, **kw)
            # Signals go by a pidfd, taken before anyone can reap p: its pid alone may name
            # another user's process once p is reaped (pid_max is 32768 here).
            p.pidfd = os.pidfd_open(p.pid)
            self.procs.add(p)
        return p

    def send(self, p, sig=signal.SIGKILL):
        """Send sig to p unless it has ended; never to a process that took its pid."""
        with self.lock:
            try:
                if p.pidfd >= 0:
                    signal.pidfd_send_signal(p.pidfd, sig)
            except ProcessLookupError:
                pass

    def forget(self, p):
        with self.lock:
            self.procs.discard(p)
            if p.pidfd >= 0:
                os.close(p.pidfd)
                p.pidfd = -1

    def end(self, p, sig=signal.SIGKILL):
        """Stop p (SIGTERM first when sig says so) and reap it."""
        if p.poll() is None:
            self.send(p, sig)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                self.send(p)
        p.wait()
        self.forget(p)
        return p.returncode

    def stop_server(self, srv):
        _, p, out = srv
        self.end(p, signal.SIGTERM)
        out.close()

    def client_env(self, override=None):
        env = dict(self.env)
        for d in DIALECTS:
            url = override[1] if override and override[0] == d else self.servers[d][0]
            env['GPURENT_%s_URL' % d.upper()] = url
            env['GPURENT_%s_API_KEY' % d.upper()] = KEY
        return env

    def g(self, who, op, argv, env=None, kill_ms=None, full_disk=False, timeout=200,
          record=True, home=None, kill_at=None, stdin=None):
        """Run gpurent; record its status and whether it said why on stderr."""
        env = env or self.client_env()
        if home:
            env = dict(env, GPURENT_HOME=home)
        cmd = [self.bin] + argv
        if full_disk:
            size = os.path.getsize(os.path.join(self.home, 'state.db'))
            cmd = ['bash', '-c', 'trap "" XFSZ; ulimit -f %d; exec "$@"' % (size // 1024),
                   'bash'] + cmd
        t0 = time.time()
        p = self.spawn(cmd, env=env, stdin=subprocess.DEVNULL if stdin is None else
                       subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
        killer = None
        if kill_ms is not None:
            killer = threading.Timer(kill_ms / 1000.0, self.send, args=(p,))
            killer.start()
        watcher = None
        if kill_at is not None:
            watcher = threading.Thread(target=self.kill_at, args=(p, kill_at), daemon=True)
            watcher.start()
        try:
            out, err = p.communicate(stdin, timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            self.send(p)
            out, err = p.communicate()
            hung = True
        if killer:
            killer.cancel()
            killer.join()
        if watcher:
            watcher.join()
        self.forget(p)
        r = {'who': who, 'op': op, 'argv': argv, 'rc': p.returncode, 'hung': hung,
             'fault': getattr(self.tl, 'fault', '-'),
             'stderr': err.decode('utf-8', 'replace'), 'killed': p.returncode == -9 and not hung,
             'secs': time.time() - t0, 'at': time.time()}
        if record:
            with self.lock:
                self.results.append(r)
                if r['killed']:
                    self.kills += 1
        return r, out.decode('utf-8', 'replace')

    def kill_at(self, p, at):
        """kill -9 p once the server's request log (at[0]) shows a request with at[1]."""
        while p.poll() is None:
            try:
                with open(at[0]) as f:
                    if at[1] in f.read():
                        self.send(p)
                        return
            except OSError:
                pass
            time.sleep(0.01)

    def start_watch(self):
        log = open(os.path.join(self.dir, 'watch.log'), 'a')
        self.watch = self.spawn([self.bin, 'watch', '--interval', '2s'],
                                env=self.client_env(), stdout=log, stderr=log,
                                stdin=subprocess.DEVNULL)
        log.close()

    # -- set-up ----------------------------------------------------------------------
    def setup(self):
        for d in DIALECTS:
            # Preempted from the seed, on the provider's clock, a while after launch.
            self.servers[d] = self.serve(d, ['--preempt-after', '60s', '--preempt-seed',
                                             str(self.a.seed)], 'main')
        if self.a.slurm:
            self.setup_slurm()
        for argv in (['config', 'set', 'providers', ','.join(PROVIDERS + (['slurm'] if
                                                                  self.a.slurm else []))],
                     ['config', 'set', 'fx.CNY', str(CNY_USD)],
                     ['config', 'set', 'ppio.image', 'ubuntu:22.04']):
            self.configure(argv)
        self.set_budget(BUDGET_ROOM)
        self.group_gpu = self.cheap_gpu('vast', 'the group')
        self.group(0, 1)
        if self.a.full_mix:
            self.setup_managed()
        # The history's requests give up after a second (the 'timeout' fault is a reply
        # 1.3 s late); the set-up's and the settle's wait as long as a user's would, so
        # that a loaded machine's slow answers are no fault of theirs.
        self.configure(['config', 'set', 'http.timeout', '1'])
        if self.a.dashboard:
            self.start_dash()
        self.start_watch()

    def setup_slurm(self):
        """A real two-node Slurm cluster (tests/slurm/cluster; root), its slurmrestd the
        slurm provider's, with a day's token, and a price per GPU-hour."""
        self.slurm_dir = os.path.join(self.dir, 'slurm')
        cluster = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'slurm',
                               'cluster')
        # Its output to a file: the daemons it starts keep a pipe open for good.
        log = os.path.join(self.dir, 'slurm-cluster.log')
        with open(log, 'w') as f:
            rc = subprocess.run([cluster, 'start', self.slurm_dir], stdout=f,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
        if rc != 0:
            self.slurm_dir = None      # the script stopped what it had started
            raise Fail('set-up: the Slurm cluster did not start (%s): %s' %
                       (log, open(log).read().strip()[-2000:]))
        with open(os.path.join(self.slurm_dir, 'env')) as f:
            for line in f:
                m = re.match(r'export (\w+)=(.*)$', line.strip())
                if m:
                    self.env[m.group(1)] = m.group(2)
        token = self.slurm_cmd(['scontrol', 'token', 'username=root', 'lifespan=86400'])
        if token is None:
            raise Fail('set-up: scontrol token failed')
        self.env['SLURM_JWT'] = token.strip()
        self.configure(['config', 'set', 'slurm.price.h100', SLURM_PRICE])
        self.configure(['config', 'set', 'slurm.workdir', os.path.join(self.slurm_dir,
                                                                       'jobs')])

    def slurm_cmd(self, argv):
        """A Slurm client command as root through munge (not the token); its stdout, or
        None when it failed."""
        env = dict(self.env)
        env.pop('SLURM_JWT', None)
        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        return r.stdout if r.returncode == 0 else None

    # -- the dashboard (--dashboard) -----------------------------------------------------
    def tm(self, *argv, check=False):
        """tmux on the dashboard's own server (no user config); its stdout."""
        r = subprocess.run(['tmux', '-u', '-L', self.dash_sock, '-f', '/dev/null'] +
                           list(argv), env=self.client_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if check and r.returncode != 0:
            raise Fail('tmux %s: %s' % (' '.join(argv), r.stderr.strip()))
        return r.stdout if r.returncode == 0 else ''

    def screen(self):
        return self.tm('capture-pane', '-p', '-t', 'dash')

    def dash_wait(self, regex, secs=10):
        """The screen once it matches regex (within secs), else None."""
        deadline = time.time() + secs
        while True:
            text = self.screen()
            if re.search(regex, text, re.M):
                return text
            if time.time() > deadline:
                return None
            time.sleep(0.1)

    def start_dash(self):
        """`gpurent dashboard` in a pane of a tmux server of the run's own, against the
        same worlds as the clients; the pane says DASH-EXIT-STATUS should it ever end."""
        if shutil.which('tmux') is None:
            raise Fail('set-up: --dashboard needs tmux')
        self.dash_sock = 'gpurent-chaos-%d' % os.getpid()
        w, h = DASH_SIZE
        self.tm('new-session', '-d', '-s', 'dash', '-x', str(w), '-y', str(h),
                "sh -c 'exec \"$0\" dashboard' '%s'; echo DASH-EXIT-$?; sleep 3600" %
                self.bin, check=True)
        if self.dash_wait(r'^ burn ', 20) is None:
            raise Fail('set-up: the dashboard did not start: %s' % self.screen())

    def dash_check(self, text, what):
        """After each drive: the dashboard runs, and its screen holds no control
        character."""
        text = self.screen() if text is None else text
        if 'DASH-EXIT-' in text:
            self.fail('dashboard', 'the dashboard ended after %s: %s' % (
                what, re.search(r'DASH-EXIT-\S*', text).group(0)))
            return False
        m = CONTROL.search(text)
        if m:
            self.fail('dashboard', 'after %s its screen shows the control character %r: %r' %
                      (what, m.group(0), text.splitlines()[text[:m.start()].count('\n')]))
            return False
        self.held('dashboard')
        return True

    def dash_op(self, op, who):
        """Drive the one dashboard (one client at a time): its views switched by keys, or
        a stop of one of this client's running instances ordered from the instances view
        and confirmed, once its dialog names that instance."""
        with self.dash_lock:
            if op['op'] == 'dash-views':
                for k in op['args']['keys'].split(','):
                    self.tm('send-keys', '-t', 'dash', k)
                    time.sleep(0.2)
                self.dash_check(None, 'keys %s' % op['args']['keys'])
                return
            self.dash_stop(who)

    def dash_stop(self, who):
        with self.lock:
            mine = {i for sl, i in self.ids.items() if sl in self.slots_of.get(who, ())}
        # Esc alone (a dialog left open goes): with a key within ESCDELAY it is Alt-key.
        self.tm('send-keys', '-t', 'dash', 'Escape')
        time.sleep(0.1)
        self.tm('send-keys', '-t', 'dash', '2', 'r')
        text = self.dash_wait(r'^ {2}\S+:\S+ .*running', 10)
        if text is None or not self.dash_check(text, 'the instances view'):
            return
        rows = [l.split()[0] for l in text.splitlines()
                if re.match(r'^ {2}[a-z]+:\S+ ', l)]
        target = next((i for i in rows if i in mine and
                       re.search(r'^ {2}%s .*running' % re.escape(i), text, re.M)), None)
        if target is None:
            return
        # The list may move under the keys: the dialog says which one it would stop.
        self.tm('send-keys', '-t', 'dash', 'g', *(['j'] * rows.index(target)))
        time.sleep(0.2)
        self.tm('send-keys', '-t', 'dash', 's')
        text = self.dash_wait(r'Stop\?|only a running instance', 10)
        if text is None or not self.dash_check(text, 's on %s' % target) or 'Stop?' not in text:
            self.tm('send-keys', '-t', 'dash', 'Escape')
            return
        if not re.search(r'Stop %s \(' % re.escape(target), text):
            self.tm('send-keys', '-t', 'dash', 'n')
            return
        self.tm('send-keys', '-t', 'dash', 'y')
        t0 = time.time()
        text = self.dash_wait(r'%s: stopping' % re.escape(target), 30)
        if self.dash_check(text, 'the stop of %s' % target) and text is not None:
            with self.lock:
                self.dash_stops.append((target, t0))
            self.count_fault('dash-stop')

    def check_dashboard(self):
        """The dashboard still runs at the end; each stop it said it made is in the
        provider's state, unless a later start of that instance moved it."""
        self.dash_check(None, 'the run')
        state_of = {}
        for d in PROVIDERS:
            for row in self.world_rows(d):
                state_of[ID_OF[d](int(row['id'].split('-')[-1]))] = row['state']
        for iid, t0 in self.dash_stops:
            later = any(r.get('id') == iid and r['op'] == 'start' and r['at'] > t0
                        for r in self.results)
            st = state_of.get(iid)
            if later or st is None or st in STOP_DONE:
                self.held('dashboard')
            else:
                self.fail('dashboard', 'the dashboard said it was stopping %s; the provider '
                          'has it in state %d' % (iid, st))

    def configure(self, argv):
        r, _ = self.g('setup', 'config', argv, record=False)
        if r['rc'] != 0:
            raise Fail('set-up: gpurent %s: %s' % (' '.join(argv), r['stderr'].strip()))

    def cheap_gpu(self, provider, what):
        """The GPU of provider's cheapest on-demand offer within MAX_PRICE, for `what`."""
        r, out = self.g('setup', 'offers', ['-p', provider, '-o', 'json', 'offers',
                                            'type=on-demand', 'price<=%s' % MAX_PRICE, '-n',
                                            '1'], record=False)
        try:
            return json.loads(out)[0]['gpu']
        except (ValueError, IndexError, KeyError):
            raise Fail('set-up: no cheap %s offer for %s: %s' % (provider, what, r['stderr']))

    def setup_managed(self):
        """A real sshd on loopback that the built-in simulator's instances reach (as
        tests/cli/sshd.sh starts one), HOME moved beside it, and the managed job's files."""
        ssh = os.path.join(self.dir, 'ssh')
        home = os.path.join(self.dir, 'userhome')
        os.makedirs(ssh)
        os.makedirs(home)
        for k in ('host', 'user'):
            subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f',
                            os.path.join(ssh, k)], check=True, stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(ssh, 'user.pub'), os.path.join(ssh, 'authorized_keys'))
        # The guard's install keeps an @reboot line in crontab: a stand-in that keeps the
        # table in a file, never the user's own.
        os.makedirs(os.path.join(ssh, 'bin'))
        with open(os.path.join(ssh, 'bin', 'crontab'), 'w') as f:
            f.write('#!/bin/sh\nf=$(dirname "$0")/crontab.txt\ncase $1 in -l) cat "$f" '
                    '2>/dev/null ;; -) cat >"$f" ;; *) exit 2 ;; esac\n')
        os.chmod(os.path.join(ssh, 'bin', 'crontab'), 0o755)
        os.chmod(os.path.join(ssh, 'authorized_keys'), 0o600)
        if os.getuid() == 0:
            os.makedirs('/run/sshd', exist_ok=True)
        for _ in range(5):
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
            s.close()
            with open(os.path.join(ssh, 'sshd_config'), 'w') as f:
                f.write('ListenAddress 127.0.0.1\nPort %d\nHostKey %s/host\n'
                        'AuthorizedKeysFile %s/authorized_keys\nPasswordAuthentication no\n'
                        'KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n'
                        'StrictModes no\nUsePAM no\nMaxStartups 100\nMaxSessions 100\n'
                        'Subsystem sftp internal-sftp\nSetEnv HOME=%s PATH=%s/bin:'
                        '/usr/local/bin:/usr/bin:/bin\nPrintMotd no\n'
                        'PermitUserRC no\nUseDNS no\nX11Forwarding no\n'
                        % (port, ssh, ssh, home, ssh))
            self.sshd_port = port
            if self.start_sshd():
                break
        else:
            raise Fail('set-up: sshd did not start (%s)' % os.path.join(ssh, 'sshd.log'))
        self.env.update({'HOME': home, 'GPURENT_SIM_SSH_HOST': '127.0.0.1',
                         'GPURENT_SIM_SSH_PORT': str(self.sshd_port),
                         'GPURENT_SIM_SSH_USER': pwd.getpwuid(os.getuid()).pw_name})
        for argv in (['config', 'set', 'ssh.identity', os.path.join(ssh, 'user')],
                     ['config', 'set', 'ssh.config', '/dev/null']):
            self.configure(argv)
        self.job_gpu = self.cheap_gpu('sim', 'the managed jobs')
        # The guards: a server of vast's world whose instances' ssh is the sshd (the main
        # one's lead nowhere), fault-free and up for the whole run, as the agents' API; an
        # agent samples and decides every second.
        self.guard_server = self.serve('vast', [], 'guard')
        self.configure(['config', 'set', 'guard.interval', '1s'])
        # Counts to MANAGED_COUNT, resuming from its checkpoint's length.
        self.job_src = os.path.join(self.dir, 'job')
        os.makedirs(self.job_src)
        with open(os.path.join(self.job_src, 'count.sh'), 'w') as f:
            f.write('d=$GPURENT_CHECKPOINT_DIR\nmkdir -p "$d"\ntouch "$d/out.txt"\n'
                    'n=$(wc -l <"$d/out.txt")\nwhile [ "$n" -lt %d ]; do\n'
                    '\tn=$((n + 1))\n\techo "$n" >>"$d/out.txt"\n\tsleep 0.3\ndone\n'
                    % MANAGED_COUNT)

    def set_budget(self, room):
        """budget.day with room for `room` instances at MAX_PRICE until midnight (UTC):
        a budget that launches reach whatever the hour the run starts at."""
        now = time.time()
        day = round(room * MAX_PRICE * (86400 - now % 86400) / 3600.0 + 0.5, 2)
        r, _ = self.g('conductor', 'budget', ['config', 'set', 'budget.day', '%.2f' % day])
        if r['rc'] == 0 and (self.budget is None or day > self.budget):
            self.budget = day

    def group(self, mn, mx):
        self.g('conductor', 'group', ['group', 'rm', 'g1'], record=False)
        r, _ = self.g('conductor', 'group', ['-p', 'vast', 'group', 'create', 'g1', '--gpu',
                                             self.group_gpu, '--min', str(mn), '--max', str(mx),
                                             '--target-util', '50', '--max-price',
                                             str(MAX_PRICE), '--cooldown', '5s',
                                             '--window', '1m'])
        if r['rc'] == 0:
            self.group_max = max(self.group_max, mx)

    # -- operations ------------------------------------------------------------------
    def count_fault(self, f):
        with self.lock:
            self.fault_counts[f] = self.fault_counts.get(f, 0) + 1

    def resolve(self, slot, who):
        with self.lock:
            if slot in self.ids:
                return self.ids[slot]
        # The launch's answer was lost (killed, cut): the provider's listing by its label.
        r, out = self.g(who, 'ls', ['ls', '--label', slot, '-o', 'ids'])
        ids = out.split()
        if r['rc'] == 0 and len(ids) == 1:
            with self.lock:
                self.ids[slot] = ids[0]
            return ids[0]
        return None

    def client_op(self, op):
        a, who, kind, fault = op['args'], op['who'], op['op'], op['fault']
        prov = a['provider']
        srv = None
        seen = os.path.join(self.dir, 'requests-op%d' % op['n'])
        if fault in SERVER_FAULTS or fault in ('acted-500', 'ignored-stop', 'kill-at-create'):
            extra = {'acted-500': ['--fail-first-acted', '1', '--fail-match',
                                   CREATE_MATCH.get(prov, '')],
                     'ignored-stop': ['--ignore-stop', '1'],
                     'kill-at-create': ['--log-requests', seen]}.get(fault) or \
                SERVER_FAULTS[fault]
            srv = self.serve(prov, extra + ['--fault-seed', str(op['fault_seed'])],
                             'op%d' % op['n'])
        # An sshd stop is counted when it happens (bounce_sshd), not where none was found.
        if fault not in ('none', 'sshd-stop'):
            self.count_fault(fault)
        env = self.client_env((prov, srv[0]) if srv else None)
        self.tl.fault = fault
        kw = {'env': env, 'kill_ms': op.get('kill_ms') if fault == 'kill' else None,
              'full_disk': fault == 'full-disk',
              'kill_at': (seen, CREATE_MATCH[prov]) if fault == 'kill-at-create' else None}
        try:
            if kind.startswith('launch'):
                self.launch(op, who, kind, a, kw)
            elif kind in ('stop', 'start', 'destroy'):
                iid = self.resolve(a['slot'], who)
                if iid is None:
                    return
                argv = {'stop': ['stop', '--timeout', '3', iid],
                        'start': ['start', iid],
                        'destroy': ['destroy', '--yes', iid]}[kind]
                r, _ = self.g(who, kind, argv, **kw)
                r['slot'] = a['slot']
                r['id'] = iid
            elif kind == 'managed':
                self.g(who, kind, ['-p', 'sim', 'run', '--managed', '--gpu', self.job_gpu,
                                   '--max-price', str(MAX_PRICE), '--sync', self.job_src,
                                   '--checkpoint-dir', 'ckpt', '--every', '1s', '--grace', '3s',
                                   '--max-attempts', '4', '--on-exhausted', 'fail', '--',
                                   'sh', 'count.sh'], **kw)
            elif kind == 'remote':
                self.remote(op, who)
            elif kind == 'guard':
                self.guard(op, who)
            elif kind in ('dash-views', 'dash-stop'):
                self.dash_op(op, who)
            elif kind == 'slurm-launch':
                r, out = self.g(who, kind, ['launch', SLURM_OFFER, '--label', a['slot'],
                                            '-o', 'ids'], **kw)
                r['slot'] = a['slot']
                if r['rc'] == 0 and out.split():
                    with self.lock:
                        self.ids[a['slot']] = out.split()[-1]
            elif kind == 'slurm-cancel':
                iid = self.resolve(a['slot'], who)
                if iid is None:
                    return
                r, _ = self.g(who, kind, ['destroy', '--yes', iid], **kw)
                r['slot'] = a['slot']
                r['id'] = iid
            elif kind == 'shell':
                # The shell as a client: a script of commands on its standard input.
                self.g(who, kind, ['shell'], stdin=b'ls\ncosts\naudit\noffers -n 3\n', **kw)
            else:
                argv = {'ls': ['ls', '-o', 'json'], 'costs': ['costs', '-o', 'json'],
                        'audit': ['audit', '-o', 'json'], 'reconcile': ['reconcile'],
                        'offers': ['offers', '-n', '5']}[kind]
                self.g(who, kind, argv, **kw)
        finally:
            if srv:
                self.stop_server(srv)

    def remote(self, op, who):
        """run, logs and cp (there and back) on one of this client's running instances of
        the built-in simulator (another's when it has none, else one rented for it): each ends with a documented status (exit-status), and one
        that exits 0 did what it said (remote-io). With the sshd-stop fault the sshd is
        stopped (its connections too) op['kill_ms'] into the run and started again."""
        with self.lock:
            mine = sorted(i for sl, i in self.ids.items() if i.startswith('sim:') and
                          sl in self.slots_of.get(who, ()))
        rows = self.world_rows('sim', 'state = %d' % ST_RUNNING)
        running = {ID_OF['sim'](int(r['id'].split('-')[-1])) for r in rows}
        # Its own where it has one running, else another client's request's or a managed
        # job's machine (a command of its own beside the job's).
        mine = [i for i in mine if i in running] or sorted(
            ID_OF['sim'](int(r['id'].split('-')[-1])) for r in rows
            if re.match(r'(r[0-9]+|gpurent-m[0-9]+-a[0-9]+)$', r['label']))
        if not mine:
            # None: one of its own, rented for it.
            r, out = self.g(who, 'launch-req', ['-p', 'sim', 'launch', '--max-price',
                                                str(MAX_PRICE), '--label', 'r%d' % op['n'],
                                                '--wait', '--timeout', '60', '-o', 'ids'])
            if r['rc'] != 0 or not out.split():
                return
            mine = [out.split()[-1]]
            with self.lock:
                self.ids['r%d' % op['n']] = mine[0]
        iid = mine[op['n'] % len(mine)]
        stopper = None
        if op['fault'] == 'sshd-stop':
            stopper = threading.Timer(op['kill_ms'] / 1000.0, self.bounce_sshd)
            stopper.start()
        word = 'chaos-%d' % op['n']
        try:
            r, out = self.g(who, 'run', ['run', iid, '--', 'echo', word])
            if r['rc'] == 0 and word not in out:
                self.fail('remote-io', 'gpurent run %s exited 0 without its output' % iid)
            elif r['rc'] == 0:
                self.held('remote-io')
            r, out = self.g(who, 'jobs', ['jobs', '-o', 'json'])
            # Its own job: the instance may be a managed job's machine, whose log is empty.
            jobs = [j['id'] for j in json.loads(out) if j.get('instance') == iid and
                    word in (j.get('command') or '')] if r['rc'] == 0 else []
            if jobs:
                r, out = self.g(who, 'logs', ['logs', jobs[-1]])
                if r['rc'] == 0 and not out.strip():
                    self.fail('remote-io', 'gpurent logs %s exited 0 with nothing' % jobs[-1])
                elif r['rc'] == 0:
                    self.held('remote-io')
            src = os.path.join(self.dir, 'cp-%d' % op['n'])
            with open(src, 'w') as f:
                f.write(word * 100 + '\n')
            r, _ = self.g(who, 'cp', ['cp', src, '%s:%s' % (iid, os.path.basename(src))])
            if r['rc'] == 0:
                back = src + '.back'
                r, _ = self.g(who, 'cp', ['cp', '%s:%s' % (iid, os.path.basename(src)), back])
                ok = r['rc'] != 0 or (os.path.exists(back) and
                                      open(back).read() == open(src).read())
                if not ok:
                    self.fail('remote-io', 'gpurent cp %s there and back exited 0 with '
                              'another file' % iid)
                elif r['rc'] == 0:
                    self.held('remote-io')
        finally:
            if stopper:
                stopper.join()

    def guard(self, op, who):
        """`gpurent guard install --until` on one of this client's running vast instances
        not guarded yet (else one rented for it), through the guard's server: the agent, on
        the "instance" behind the sshd, stops it through vast's API with the instance's own
        key at its deadline (check_guard). With watch-killed the watcher is killed -9 before
        the install and started again only once the deadline passed."""
        env = self.client_env(('vast', self.guard_server[0]))
        with self.lock:
            mine = sorted(i for sl, i in self.ids.items() if i.startswith('vast:') and
                          sl in self.slots_of.get(who, ()) and i not in self.guards)
        running = {ID_OF['vast'](int(r['id'].split('-')[-1]))
                   for r in self.world_rows('vast', 'state = %d' % ST_RUNNING)}
        mine = [i for i in mine if i in running]
        if mine:
            iid = mine[op['n'] % len(mine)]
        else:
            r, out = self.g(who, 'launch-req', ['-p', 'vast', 'launch', '--max-price',
                                                str(MAX_PRICE), '--label', 'r%d' % op['n'],
                                                '--disk', '20', '--wait', '--timeout', '60',
                                                '-o', 'ids'], env=env)
            if r['rc'] != 0 or not out.split():
                return
            iid = out.split()[-1]
            with self.lock:
                self.ids['r%d' % op['n']] = iid
        # The stand-in of the container's environment: its id and its own API key.
        env['GPURENT_GUARD_ENVIRON'] = os.path.join(self.world('vast'), 'instance-env',
                                                    iid.split(':')[1])
        killed = op['fault'] == 'watch-killed'
        if killed:
            self.watch_lock.acquire()
            if self.watch.poll() is None:
                with self.lock:
                    self.kills += 1
            self.end(self.watch)
        try:
            until = op['args']['until']
            r, _ = self.g(who, 'guard', ['guard', 'install', iid, '--until', '%ds' % until],
                          env=env)
            if r['rc'] == 0:
                with self.lock:
                    self.guards[iid] = {'until': r['at'] + until, 'at': r['at'],
                                        'argv': r['argv']}
                if killed:
                    wait = r['at'] + until + 2 - time.time()
                    if wait > 0:
                        time.sleep(wait)
        finally:
            if killed:
                self.start_watch()
                self.watch_lock.release()

    def bounce_sshd(self):
        """The sshd stopped with its connections, and started again a moment later."""
        with self.sshd_lock:
            if self.closing:
                return
            self.stop_sshd()
            self.count_fault('sshd-stop')
            time.sleep(1)
            self.start_sshd()

    def launch(self, op, who, kind, a, kw):
        prov, slot = a['provider'], a['slot']
        with self.budget_rw:
            self.launching += 1
        try:
            if kind == 'launch-offer':
                r, out = self.g(who, 'offers', ['-p', prov, 'offers', 'type=on-demand',
                                                'price<=%s' % MAX_PRICE,
                                                '-n', '3', '-o', 'ids'])
                offers = out.split()
                if r['rc'] != 0 or not offers:
                    return
                argv = ['launch', offers[a['rank'] % len(offers)]]
            else:
                argv = ['-p', prov, 'launch', '--max-price', str(MAX_PRICE)]
            argv += ['--label', slot, '--disk', '20', '-o', 'ids']
            r, out = self.g(who, kind, argv, **kw)
            r['slot'] = slot
            r['provider'] = prov
            ids = out.split()
            if r['rc'] == 0 and ids:
                with self.lock:
                    self.ids[slot] = ids[-1]
                self.check_budget(slot)
        finally:
            with self.budget_rw:
                self.launching -= 1
                self.budget_rw.notify_all()

    def conductor_op(self, op):
        kind, a = op['op'], op.get('args', {})
        if kind == 'budget':
            with self.budget_rw:
                while self.launching:
                    self.budget_rw.wait()
                self.set_budget(a['room'])
        elif kind == 'group-resize':
            self.group(a['min'], a['max'])
        elif kind == 'advance':
            d = a['world']
            if self.advanced[d] + a['seconds'] <= ADVANCE_CAP:
                self.advanced[d] += a['seconds']
                self.g('conductor', 'advance', ['sim', 'advance', '%ds' % a['seconds']],
                       home=self.world(d))
        elif kind == 'preempt':
            # Under the full mix, every other one takes a machine of the built-in simulator's
            # (the managed jobs' among them).
            d = 'sim' if self.a.full_mix and a['pick'] % 2 else a['world']
            live = self.world_rows(d, "state IN (%d, %d, %d)" % HAS_MACHINE)
            if live:
                row = live[a['pick'] % len(live)]
                self.g('conductor', 'preempt', ['sim', 'preempt', row['id'], '--reason',
                                                a['how']],
                       home=self.world(d) if d != 'sim' else None)
                self.count_fault('preempt')
        elif kind == 'kill-watch':
            with self.watch_lock:
                if self.watch.poll() is None:
                    with self.lock:
                        self.kills += 1
                self.end(self.watch)
                self.start_watch()
        elif kind == 'checkpoint':
            self.checkpoint('checkpoint at operation %d' % op['n'])

    def worker(self, who, ops, log):
        for op in ops:
            # Past --deadline the rest of the history is left unrun: what ran is its prefix.
            if self.a.deadline and time.time() > self.t0 + self.a.deadline:
                return
            with self.lock:
                log.write(plan_line(op) + '\n')
            t0 = time.time()
            try:
                if who == 'conductor':
                    self.conductor_op(op)
                else:
                    self.client_op(op)
            except Fail as e:
                if self.closing:
                    return
                self.fail('set-up', str(e))
            except Exception as e:      # the harness's own bug: said, never hidden
                self.fail('harness', '%s: %r' % (plan_line(op), e))
            with self.lock:
                self.done += 1
                if self.a.progress and self.done % self.a.progress == 0:
                    print('chaos: %d operations done, %d commands, %d kills, first failure: %s'
                          % (self.done, len(self.results), self.kills, self.first_failure),
                          file=sys.stderr, flush=True)
            if os.environ.get('CHAOS_TIMES'):
                print('%6.2f %s' % (time.time() - t0, plan_line(op)), file=sys.stderr)

    # -- the providers' own records --------------------------------------------------
    def db(self, path):
        c = sqlite3.connect('file:%s?mode=ro' % path, uri=True, timeout=30)
        c.row_factory = sqlite3.Row
        return c

    def world_db(self, d):
        return os.path.join(self.world(d), 'state.db') if d != 'sim' else \
            os.path.join(self.home, 'state.db')

    def world_rows(self, d, where='1'):
        try:
            with self.db(self.world_db(d)) as c:
                return [dict(r) for r in c.execute(
                    'SELECT id, state, label, price_hour, storage_hour, client_token '
                    'FROM sim_instances WHERE %s ORDER BY seq' % where)]
        except sqlite3.OperationalError:
            return []

    @staticmethod
    def billed(c, ids, provider=None, now=None):
        """Per instance id: what its ledger rows came to (compute and storage), micros."""
        now = now or int(time.time())
        out = {}
        q = 'SELECT instance_id, rate_hour, start_ts, end_ts, currency FROM ledger ' \
            'WHERE kind != 2'
        for r in c.execute(q):
            if r['instance_id'] not in ids:
                continue
            end = r['end_ts'] or now
            amt = int(r['rate_hour'] * max(0, end - r['start_ts']) / 3600.0 + 0.5)
            out[r['instance_id']] = out.get(r['instance_id'], 0) + amt
        return out

    # -- invariants ------------------------------------------------------------------
    def fail(self, check, msg):
        with self.lock:
            self.checks.setdefault(check, [0, 0])[1] += 1
            self.failures.append('%s: %s' % (check, msg))
            if self.first_failure is None:
                self.first_failure = '%s: %s' % (check, msg)

    def held(self, check):
        with self.lock:
            self.checks.setdefault(check, [0, 0])[0] += 1

    def check_budget(self, slot):
        """budget.day never admits a launch beyond it, counting what is provisioning: what
        every world has billed today and will bill until midnight at the rates now open."""
        now = int(time.time())
        day0, midnight = now - now % 86400, now - now % 86400 + 86400
        total = 0.0
        for d in PROVIDERS:
            try:
                with self.db(self.world_db(d)) as c:
                    rows = c.execute('SELECT rate_hour, start_ts, end_ts, currency FROM ledger '
                                     'WHERE provider = ? AND (end_ts = 0 OR end_ts > ?)',
                                     ('sim', day0)).fetchall()
            except sqlite3.OperationalError:
                continue
            fx = CNY_USD if d == 'ppio' else 1.0
            for r in rows:
                start = max(r['start_ts'], day0)
                end = r['end_ts'] or midnight
                total += r['rate_hour'] / 1e6 * max(0, end - start) / 3600.0 * fx
        # A cent of slack per world for the seconds between gpurent's clock and theirs.
        if total > self.budget + 0.05:
            self.fail('budget', 'after the launch of %s, today comes to $%.4f at the rates '
                      'open, over budget.day %.2f' % (slot, total, self.budget))
        else:
            self.held('budget')

    def check_exits(self):
        for r in self.results:
            if r['killed']:
                continue
            line = 'gpurent %s' % ' '.join(r['argv'])
            if r['hung']:
                self.fail('exit-status', '%s did not end within its bound' % line)
            elif r['rc'] not in DOCUMENTED_RC:
                self.fail('exit-status', '%s exited %d, not a documented status' %
                          (line, r['rc']))
            elif r['rc'] != 0 and not r['stderr'].strip():
                self.fail('exit-status', '%s exited %d with nothing on stderr' %
                          (line, r['rc']))
            else:
                self.held('exit-status')

    def known(self):
        with self.db(os.path.join(self.home, 'state.db')) as c:
            ids = {r[0] for r in c.execute('SELECT instance_id FROM launch_journal')}
            try:
                ids |= {r[0] for r in c.execute(
                    'SELECT instance_id FROM reconcile_marks WHERE adopted_at != 0')}
            except sqlite3.OperationalError:
                pass
        return ids

    def checkpoint(self, when):
        """Nothing rented twice, at any moment; at the end, no orphan either."""
        rows = {d: self.world_rows(d) for d in PROVIDERS}
        for d in PROVIDERS:
            by_label = {}
            for row in rows[d]:
                if row['label']:
                    by_label.setdefault(row['label'], []).append(row)
            for lab, same in sorted(by_label.items()):
                ids = [ID_OF[d](int(r['id'].split('-')[-1])) for r in same]
                live = [i for i, r in zip(ids, same) if r['state'] not in (ST_DESTROYED,
                                                                            ST_FAILED)]
                if lab.startswith('group:') and len(live) > max(self.group_max, 1):
                    self.fail('rented-twice', 'group %s has %d live members %s, its max was '
                              'at most %d (%s)' % (lab, len(live), live, self.group_max, when))
                elif not lab.startswith('group:') and len(ids) > 1:
                    self.fail('rented-twice', 'request %s was rented %d times: %s (%s)' %
                              (lab, len(ids), ids, when))
                else:
                    self.held('rented-twice')
        if when != 'the end':
            return
        known = self.known()
        for d in PROVIDERS:
            for row in rows[d]:
                gid = ID_OF[d](int(row['id'].split('-')[-1]))
                if gid not in known:
                    self.fail('orphan', '%s (%s, label %r) is at the provider; gpurent never '
                              'knew it' % (gid, row['id'], row['label']))
                else:
                    self.held('orphan')

    def check_ledger(self):
        """PPIO's world bills in dollars at the simulator's prices, its dialect in yuan at
        PPIO's: its instances are checked for being counted, not for the amount."""
        now = int(time.time())
        with self.db(os.path.join(self.home, 'state.db')) as c:
            for d in DIALECTS:
                rows = self.world_rows(d)
                sims = {r['id'] for r in rows}
                with self.db(self.world_db(d)) as w:
                    bill = self.billed(w, sims, now=now)
                    for r in w.execute('SELECT id, sum(amount) FROM sim_bill_extra GROUP BY id'):
                        bill[r[0]] = bill.get(r[0], 0) + r[1]
                    billing = {r[0] for r in w.execute(
                        'SELECT instance_id FROM ledger WHERE end_ts = 0 AND kind != 2')}
                gids = {ID_OF[d](int(s.split('-')[-1])): s for s in sims}
                led = self.billed(c, set(gids), now=now)
                counting = {r[0] for r in c.execute(
                    'SELECT instance_id FROM ledger WHERE end_ts = 0 AND kind != 2')}
                for gid, sid in sorted(gids.items()):
                    b, l = bill.get(sid, 0), led.get(gid)
                    # The last listing saw what the provider bills now: the ledger counts it.
                    if sid in billing and gid not in counting:
                        self.fail('ledger', '%s: the provider bills it now (%d micros so far), '
                                  'the ledger counts nothing of it (%s)' %
                                  (gid, b, self.ledger_story(c, d, sid, gid, now)))
                    elif d != 'ppio' and abs(b - (l or 0)) > 10000:
                        self.fail('ledger', '%s: the provider billed %d micros, the ledger '
                                  'counts %d (more than a cent apart)' % (gid, b, l or 0))
                    else:
                        self.held('ledger')

    def ledger_story(self, c, d, sid, gid, now):
        """What both sides hold of one instance, for a ledger failure's words."""
        def rows(db, iid):
            return ' '.join('%d:%s-%s@%d' % (r[0], r[1] - now, r[2] and r[2] - now, r[3])
                            for r in db.execute('SELECT kind, start_ts, end_ts, rate_hour '
                                                'FROM ledger WHERE instance_id = ? ORDER BY '
                                                'id', (iid,)))
        with self.db(self.world_db(d)) as w:
            st = w.execute('SELECT state FROM sim_instances WHERE id = ?', (sid,)).fetchone()
            world = rows(w, sid)
        seen = getattr(self, 'settled', {}).get(gid, {})
        return 'the provider: state %s, rows %s; gpurent: rows %s, the last ls: %s' % (
            st[0] if st else '?', world or '-', rows(c, gid) or '-',
            seen.get('state', 'not listed'))

    def check_lost(self):
        """Each stop or destroy a command said it did is in the provider's state, unless a
        later command on the same request, or the provider's taking it away, moved it."""
        state_of = {}
        for d in PROVIDERS:
            for row in self.world_rows(d):
                state_of[ID_OF[d](int(row['id'].split('-')[-1]))] = row['state']
        last = {}
        for r in self.results:
            if 'id' in r and r['op'] in ('stop', 'start', 'destroy'):
                last[r['id']] = r
        for iid, r in sorted(last.items()):
            st = state_of.get(iid)
            if r['rc'] != 0 or r['op'] == 'start' or st is None:
                continue
            ok = st in (STOP_DONE if r['op'] == 'stop' else DESTROY_DONE)
            if not ok:
                self.fail('lost-stop', 'gpurent %s exited 0, the provider has %s in state %d'
                          % (' '.join(r['argv']), iid, st))
            else:
                self.held('lost-stop')
        # The watcher's orders: done at the provider, or an event saying why not.
        with self.db(os.path.join(self.home, 'state.db')) as c:
            ev = c.execute('SELECT seq, kind, instance_id FROM events ORDER BY seq').fetchall()
        for e in ev:
            m = re.match(r'(stop|destroy)-ordered$', e['kind'])
            if not m:
                continue
            later = [x['kind'] for x in ev if x['seq'] > e['seq'] and
                     x['instance_id'] == e['instance_id']]
            st = state_of.get(e['instance_id'])
            done = st in (STOP_DONE if m.group(1) == 'stop' else DESTROY_DONE)
            said = any(k.endswith(('-unverified', '-refused', '-retry', '-ordered'))
                       for k in later)
            if done or said or st is None:
                self.held('lost-stop')
            else:
                self.fail('lost-stop', 'the watcher ordered %s of %s; the provider has it in '
                          'state %s and no event says why' % (m.group(1), e['instance_id'], st))

    def check_integrity(self):
        for path in [os.path.join(self.home, 'state.db')] + \
                [self.world_db(d) for d in DIALECTS]:
            with self.db(path) as c:
                res = c.execute('PRAGMA integrity_check').fetchone()[0]
            if res != 'ok':
                self.fail('integrity', '%s: %s' % (path, res))
            else:
                self.held('integrity')
        for root, _, files in os.walk(self.home):
            for f in files:
                if '.tmp.' in f:
                    self.fail('integrity', 'a half-written file was left: %s' %
                              os.path.join(root, f))

    # -- the run ---------------------------------------------------------------------
    def run(self, plan, log):
        self.setup()
        by = {}
        for op in plan:
            by.setdefault(op['who'], []).append(op)
            if 'slot' in op.get('args', {}):
                self.slots_of.setdefault(op['who'], set()).add(op['args']['slot'])
        threads = [threading.Thread(target=self.worker, args=(w, ops, log), daemon=True)
                   for w, ops in sorted(by.items())]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Settle: the watcher's last pass done, then one fault-free listing that every
        # instance is observed by, as a user's next command would.
        self.await_handlers(self.watch)
        if self.watch.poll() is not None:
            self.fail('exit-status', 'gpurent watch ended on its own, status %d (watch.log)'
                      % self.watch.returncode)
        elif self.end(self.watch, signal.SIGTERM) != 0:
            self.fail('exit-status', 'gpurent watch exited %d on SIGTERM, not 0' %
                      self.watch.returncode)
        self.configure(['config', 'set', 'http.timeout', '30'])
        r, out = self.g('settle', 'ls', ['ls', '-o', 'json'])
        try:
            self.settled = {i.get('id'): i for i in json.loads(out)} if r['rc'] == 0 else {}
        except ValueError:
            self.settled = {}
        # The ledger is checked against what this listing saw: one that failed saw nothing.
        if r['rc'] != 0:
            self.fail('settle', 'the fault-free listing exited %d: %s' %
                      (r['rc'], r['stderr'].strip()[:300]))
        else:
            self.held('settle')
        self.check_exits()
        self.checkpoint('the end')
        self.check_ledger()
        self.check_lost()
        self.check_integrity()
        if self.a.full_mix:
            self.check_managed()
            self.check_guard()
        if self.a.slurm:
            self.check_slurm()
        if self.a.dashboard:
            self.check_dashboard()

    def check_slurm(self):
        """By Slurm's own records (squeue of every state; a job stays listed MinJobAge,
        5 minutes, after it ends): no request's slot submitted as two jobs (slurm-twice),
        every job of a slot known to gpurent (slurm-orphan), and each cancel that exited 0
        done (slurm-cancel: the job cancelled or ended)."""
        out = self.slurm_cmd(['squeue', '-h', '-t', 'all', '-o', '%i|%j|%T'])
        if out is None:
            self.fail('set-up', 'squeue failed at the end')
            return
        jobs = [l.split('|', 2) for l in out.splitlines() if l.count('|') >= 2]
        by_slot, state_of = {}, {}
        for jid, name, st in jobs:
            state_of['slurm:' + jid] = st
            if re.match(r's[0-9]+$', name):
                by_slot.setdefault(name, []).append('slurm:' + jid)
        known = self.known()
        for slot, ids in sorted(by_slot.items()):
            if len(ids) > 1:
                self.fail('slurm-twice', 'request %s was submitted to Slurm %d times: %s' %
                          (slot, len(ids), ids))
            else:
                self.held('slurm-twice')
            for iid in ids:
                if iid not in known:
                    self.fail('slurm-orphan', '%s (%s) is in Slurm\'s queue; gpurent never '
                              'knew it' % (iid, slot))
                else:
                    self.held('slurm-orphan')
        for r in self.results:
            if r['op'] != 'slurm-cancel' or r['rc'] != 0 or r['id'] not in state_of:
                continue
            st = state_of[r['id']]
            if st in ('CANCELLED', 'COMPLETING', 'COMPLETED', 'FAILED', 'TIMEOUT'):
                self.held('slurm-cancel')
            else:
                self.fail('slurm-cancel', 'gpurent %s exited 0; Slurm has the job %s' %
                          (' '.join(r['argv']), st))

    @staticmethod
    def await_handlers(p):
        """Wait (10 s at most) until p catches SIGTERM: a watcher started again by the last
        operation is not to be stopped before it can end as it should."""
        deadline = time.time() + 10
        while p.poll() is None and time.time() < deadline:
            try:
                with open('/proc/%d/status' % p.pid) as f:
                    cgt = re.search(r'^SigCgt:\s*([0-9a-f]+)', f.read(), re.M)
                if cgt and int(cgt.group(1), 16) & (1 << (signal.SIGTERM - 1)):
                    return
            except OSError:
                return
            time.sleep(0.02)

    def check_guard(self):
        """Each guard installed: once its deadline is GUARD_MARGIN seconds past, its instance
        is stopped (or gone) by the provider's own record, unless a start of it came after
        the install (the agent ends once it has stopped its instance)."""
        with self.lock:
            guards = dict(self.guards)
        if not guards:
            return
        # The last deadlines are a few seconds off: waited for, bounded by them.
        wait = max(g['until'] for g in guards.values()) + GUARD_MARGIN - time.time()
        if wait > 0:
            time.sleep(wait)
        state_of = {ID_OF['vast'](int(r['id'].split('-')[-1])): r['state']
                    for r in self.world_rows('vast')}
        for iid, g in sorted(guards.items()):
            restarted = any(r.get('id') == iid and r['op'] == 'start' and
                            r['at'] - r['secs'] > g['at'] for r in self.results)
            st = state_of.get(iid)
            if restarted or st in STOP_DONE:
                self.held('guard')
                continue
            log = os.path.join(self.dir, 'userhome', '.gpurent-guard',
                               'vast-' + iid.split(':')[1], 'log')
            try:
                with open(log) as f:
                    said = ' / '.join(f.read().split('\n')[-4:]).strip()
            except OSError:
                said = 'no agent log'
            self.fail('guard', 'gpurent %s exited 0; %d s past its deadline the provider has '
                      '%s in state %s (agent: %s)' % (' '.join(g['argv']), int(time.time() -
                                                                               g['until']),
                                                       iid, st, said))

    def check_managed(self):
        """Each managed job: never two of its attempts' machines rented at once, by the
        provider's record of when each billed or was reserved (the built-in simulator's own
        ledger); and its cost the sum of what its attempts' machines were billed."""
        r, out = self.g('settle', 'jobs', ['jobs', '--managed', '-o', 'json'])
        jobs = json.loads(out) if r['rc'] == 0 else []
        now = int(time.time())
        for j in jobs:
            r, out = self.g('settle', 'jobs', ['jobs', 'show', j['id'], '-o', 'json'])
            if r['rc'] != 0:
                continue
            ids = [a['instance'] for a in json.loads(out) if a.get('instance')]
            spans = []
            with self.db(self.world_db('sim')) as c:
                for i in ids:
                    row = c.execute('SELECT min(start_ts), max(CASE end_ts WHEN 0 THEN ? ELSE '
                                    'end_ts END) FROM ledger WHERE instance_id = ?',
                                    (now + 1, i)).fetchone()
                    if row[0] is not None:
                        spans.append((row[0], row[1], i))
                bill = self.billed(c, set(ids), now=now)
            spans.sort()
            if any(b[0] < a[1] for a, b in zip(spans, spans[1:])):
                self.fail('managed-twice', 'job %s had two machines rented at once: %s'
                          % (j['id'], spans))
            else:
                self.held('managed-twice')
            # The job's cost read again beside the bill, both at this second.
            r, out = self.g('settle', 'jobs', ['jobs', j['id'], '-o', 'json'])
            cost = json.loads(out)[0].get('cost') if r['rc'] == 0 else None
            if cost is None:
                continue
            total = sum(bill.values())
            if abs(int(round(cost * 1e6)) - total) > 10000:
                self.fail('managed-cost', 'job %s cost %.6f, its attempts %s were billed %d '
                          'micros' % (j['id'], cost, ids, total))
            else:
                self.held('managed-cost')

    def close(self):
        for srv in self.servers.values():
            srv[2].close()
        if self.guard_server:
            self.guard_server[2].close()
        self.stop_agents()
        if self.dash_sock:
            self.tm('kill-server')
        if self.slurm_dir:
            cluster = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'slurm',
                                   'cluster')
            subprocess.run([cluster, 'stop', self.slurm_dir], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        with self.lock:
            self.closing = True
        with self.sshd_lock:
            if self.sshd:
                self.stop_sshd()
        with self.lock:
            self.closing = True
            left = list(self.procs)
        for p in left:
            self.end(p)

    def stop_agents(self):
        """The guards' agents still waiting for their deadlines: each by its pid file, when
        it names a running agent.sh (its directory in the sshd's HOME)."""
        root = os.path.join(self.dir, 'userhome', '.gpurent-guard')
        for d in sorted(os.listdir(root)) if os.path.isdir(root) else ():
            try:
                pid = int(open(os.path.join(root, d, 'pid')).read().strip())
                if b'agent.sh' in open('/proc/%d/cmdline' % pid, 'rb').read():
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def start_sshd(self):
        """sshd on its config (setup_managed's); whether it listens."""
        ssh = os.path.join(self.dir, 'ssh')
        sshd = shutil.which('sshd') or '/usr/sbin/sshd'
        log = open(os.path.join(ssh, 'sshd.log'), 'w+')
        self.sshd = self.spawn([sshd, '-D', '-e', '-f', os.path.join(ssh, 'sshd_config')],
                               stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline and self.sshd.poll() is None:
            log.seek(0)
            if 'Server listening on 127.0.0.1 port %d' % self.sshd_port in log.read():
                break
            time.sleep(0.05)
        log.close()
        if self.sshd.poll() is None:
            return True
        self.end(self.sshd)
        return False

    def stop_sshd(self):
        """sshd and its connections (its children), whose end ends gpurent's ssh masters:
        frozen, it accepts none between the listing of its children and its end."""
        p = self.sshd
        if p.poll() is not None:
            return
        self.send(p, signal.SIGSTOP)
        kids = subprocess.run(['ps', '-o', 'pid=', '--ppid', str(p.pid)], stdout=subprocess.PIPE,
                              universal_newlines=True).stdout.split()
        for k in kids:
            try:
                os.kill(int(k), signal.SIGKILL)
            except OSError:
                pass
        self.end(p)


def on_term(signum, frame):
    raise Fail('stopped by signal %d' % signum)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--gpurent', required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--ops', type=int, default=200)
    ap.add_argument('--clients', type=int, default=6)
    ap.add_argument('--dir')
    ap.add_argument('--log')
    ap.add_argument('--report')
    ap.add_argument('--plan-only', action='store_true')
    ap.add_argument('--keep', action='store_true')
    ap.add_argument('--full-mix', action='store_true',
                    help='managed jobs over a real sshd, and the shell as a client')
    ap.add_argument('--slurm', action='store_true',
                    help='jobs submitted and cancelled on a real Slurm cluster (root)')
    ap.add_argument('--dashboard', action='store_true',
                    help='the dashboard in tmux as a client, driven by keys')
    ap.add_argument('--progress', type=int, default=0, help='say how far every N operations')
    ap.add_argument('--deadline', type=int, default=0,
                    help='after this many seconds, run no more operations; check')
    a = ap.parse_args()
    plan = make_plan(a.seed, a.ops, a.clients, a.full_mix, a.slurm, a.dashboard)
    if a.plan_only:
        with open(a.log or '/dev/stdout', 'w') as f:
            for op in plan:
                f.write(plan_line(op) + '\n')
        return 0
    made = a.dir is None
    a.dir = a.dir or tempfile.mkdtemp(prefix='gpurent-chaos.')
    t0 = time.time()
    run = Run(a)
    logf = open(os.path.join(a.dir, 'ops.log'), 'w')
    print('chaos: seed %d, %d operations, %d clients, in %s' % (a.seed, a.ops, a.clients,
                                                                  a.dir), file=sys.stderr)
    signal.signal(signal.SIGTERM, on_term)
    try:
        run.run(plan, logf)
    except Fail as e:
        run.fail('set-up', str(e))
    finally:
        run.close()
        logf.close()
    # The history in plan order, whichever client wrote its line first.
    with open(os.path.join(a.dir, 'ops.log')) as f:
        lines = sorted(f.read().splitlines())
    if a.log:
        with open(a.log, 'w') as f:
            f.write('\n'.join(lines) + '\n')
    # Every failure, not only the first: a long run's are read after it.
    with open(os.path.join(a.dir, 'failures.log'), 'w') as f:
        f.write(''.join(m.replace('\n', ' / ') + '\n' for m in run.failures))
    with open(os.path.join(a.dir, 'commands.log'), 'w') as f:
        for r in run.results:
            f.write('%s %s rc=%s %.2fs %s %s | %s\n' % (r['who'], r['op'], r['rc'], r['secs'],
                                                   r['fault'],
                                                   ' '.join(r['argv']),
                                                   r['stderr'].strip().replace('\n', ' / ')))
    exits = {}
    for r in run.results:
        k = 'killed' if r['killed'] else str(r['rc'])
        exits[k] = exits.get(k, 0) + 1
    report = {'seed': a.seed, 'operations': len(lines), 'commands': len(run.results),
              'exits': exits,
              'faults': dict(sorted(run.fault_counts.items())), 'kills': run.kills,
              'checks': {k: {'held': v[0], 'failed': v[1]} for k, v in sorted(run.checks.items())},
              'first_failure': run.first_failure, 'seconds': round(time.time() - t0, 1)}
    if a.report:
        with open(a.report, 'w') as f:
            json.dump(report, f, indent=1)
    print('chaos: seed %d: %d operations, %d commands, faults %s, %d kills, checks %s, %.1f s'
          % (a.seed, len(lines), len(run.results), json.dumps(report['faults']), run.kills,
             json.dumps({k: v[0] for k, v in sorted(run.checks.items())}), report['seconds']),
          file=sys.stderr)
    if run.first_failure:
        print('chaos: seed %d: FAILED %s' % (a.seed, run.first_failure), file=sys.stderr)
    if made and not a.keep and not run.first_failure:
        shutil.rmtree(a.dir, ignore_errors=True)
    return 1 if run.first_failure else 0


if __name__ == '__main__':
    sys.exit(main())
