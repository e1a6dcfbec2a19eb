import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../src/index";

test("a recorded run's trace orders waking, migrate and wakeup as the kernel does", () => {
  const res = topology("core2-2x2")
    .era("5.19")
    .workload(workload.sleepers({ n: 6, runNs: 1e6, sleepNs: 1e6 }))
    .runSync({ duration: 0.2, trace: true });
  const text = res.trace("baseline", 0);
  const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
  const re = /^\s*(\S+)-(\d+)\s+\[(\d{3})\] (\S{4}) +(\d+\.\d{6}): (sched_\w+): (.*)$/;
  const pending = new Map<string, string>(); // pid -> last event seen in its wakeup sequence
  let wakeups = 0;
  for (const l of lines) {
    const m = re.exec(l);
    assert.ok(m, `unparsable line: ${l}`);
    const [, , , , , , ev, args] = m;
    const pid = /(?:^| )pid=(\d+)/.exec(args)?.[1];
    if (ev === "sched_waking") pending.set(pid!, "waking");
    else if (ev === "sched_migrate_task" && pending.get(pid!) === "waking")
      pending.set(pid!, "migrated");
    else if (ev === "sched_wakeup" && pending.has(pid!)) {
      wakeups++;
      pending.delete(pid!);
    }
  }
  assert.ok(wakeups > 100, `saw ${wakeups} complete waking..wakeup sequences`);
  assert.match(text, /prev_comm=swapper\/\d|next_comm=swapper\/\d/);
});
