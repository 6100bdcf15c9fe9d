#!/usr/bin/env python3
"""bench/lib.mjs's timeCommand on Linux: runs a command (its output thrown away) and prints its
wall time and CPU time (user and system, from wait4: microseconds, where /proc's are 10 ms ticks)
in milliseconds, and its exit code, as one JSON line. Node has no wait4; this adds nothing to the
child's time (the wall clock starts at its spawn)."""
import json, os, sys, time

null = os.open(os.devnull, os.O_RDWR)
start = time.perf_counter()
# posix_spawn (vfork and exec): the child is the command from its first instruction.
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)])
_, status, usage = os.wait4(pid, 0)
ms = (time.perf_counter() - start) * 1000
print(json.dumps({"ms": ms, "cpuMs": (usage.ru_utime + usage.ru_stime) * 1000, "code": os.waitstatus_to_exitcode(status)}))
