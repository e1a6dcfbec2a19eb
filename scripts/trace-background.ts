// Measured background of the shipped traces (data/traces/<name>/): per CPU, the wakeups per
// second and the mean run length of the tasks that are neither the recorded command (nor its
// descendants), nor the recorder, nor idle: kernel threads (kworker/*, ksoftirqd/*, rcu_*,
// migration/*, ...) and anything else that ran on the box. Prints two markdown tables: per trace
// and CPU, and over all traces per CPU and kernel-thread family.
//   node --import tsx scripts/trace-background.ts [data/traces]
import * as fs from "node:fs";
import * as path from "node:path";
import { importTraceFile } from "../src/analysis/trace_import";
import { readTraceMeta } from "../src/analysis/trace_meta";

/** choice: the names Linux gives its kernel threads (kthread_create's comm). */
const KTHREAD =
  /^(kworker\/|ksoftirqd\/|rcu_|rcuo|migration\/|cpuhp\/|idle_inject\/|watchdog|kcompactd|khugepaged|kswapd|kthreadd|irq\/|jbd2\/|kauditd|khungtaskd|oom_reaper|kblockd|writeback|kdevtmpfs|kdamond|kintegrityd|napi\/|pool_workqueue)/;

interface Tally {
  wakeups: number;
  runs: number;
  runNs: number;
}

async function measure(dir: string) {
  const meta = readTraceMeta(path.join(dir, "meta.json"));
  const t = await importTraceFile(path.join(dir, "trace.txt.gz"));
  const comm = new Map<number, string>();
  const parent = new Map<number, number>();
  for (const r of t.records) {
    if (r.type === "sched_process_fork") parent.set(r.childPid, r.parentPid);
    if (r.type === "sched_switch") {
      comm.set(r.prevPid, r.prevComm);
      comm.set(r.nextPid, r.nextComm);
    }
    if ("pid" in r && "comm" in r) comm.set(r.pid, r.comm);
  }
  // the command is meta.pid and what it forked; the recorder is its parent
  const root = meta.pid;
  const recorder = root === undefined ? undefined : parent.get(root);
  const ofCommand = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined; p = parent.get(p)) {
      if (p === root) return true;
    }
    return false;
  };
  const background = (pid: number) => pid !== 0 && pid !== recorder && !ofCommand(pid);
  const kind = (pid: number) => (KTHREAD.test(comm.get(pid) ?? "") ? "kthread" : "other");
  // a kernel thread's family: its name without the CPU and pool numbers (kworker/1:2H -> kworker)
  const family = (pid: number) => {
    const c = comm.get(pid) ?? "";
    return KTHREAD.test(c) ? `k:${c.replace(/[/.].*$/, "").replace(/\d+$/, "")}` : "other:";
  };
  const tally = new Map<string, Tally>(); // `${cpu}/${kind}`
  const get = (k: string) => {
    const v = tally.get(k) ?? { wakeups: 0, runs: 0, runNs: 0 };
    tally.set(k, v);
    return v;
  };
  const since = new Map<number, number>(); // cpu -> when its current task started
  for (const r of t.records) {
    if (r.type === "sched_wakeup" && background(r.pid))
      for (const k of [kind(r.pid), family(r.pid)]) get(`${r.targetCpu}/${k}`).wakeups++;
    if (r.type === "sched_switch") {
      const s = since.get(r.cpu);
      if (s !== undefined && background(r.prevPid)) {
        for (const k of [kind(r.prevPid), family(r.prevPid)]) {
          const v = get(`${r.cpu}/${k}`);
          v.runs++;
          v.runNs += r.t - s;
        }
      }
      since.set(r.cpu, r.t);
    }
  }
  const span = (t.records[t.records.length - 1].t - t.records[0].t) / 1e9;
  const names = new Set<string>();
  const others = new Set<string>();
  for (const [pid, c] of comm) {
    if (background(pid) && KTHREAD.test(c)) names.add(c.replace(/\d+/g, "N"));
    if (background(pid) && !KTHREAD.test(c)) others.add(c);
  }
  return { meta, span, tally, nrCpus: t.nrCpus, found: root !== undefined, names, others };
}

async function main() {
  const base = process.argv[2] ?? path.join(__dirname, "..", "data", "traces");
  const rows = [
    "| trace | span s | CPU | kthread wakeups/s | kthread mean run µs | other wakeups/s | other mean run µs |",
    "|---|---|---|---|---|---|---|",
  ];
  const all = new Map<string, Tally>();
  let spanAll = 0;
  const names = new Set<string>();
  const others = new Set<string>();
  for (const n of fs.readdirSync(base).sort()) {
    if (!fs.existsSync(path.join(base, n, "meta.json"))) continue;
    const m = await measure(path.join(base, n));
    if (!m.found) process.stderr.write(`${n}: the command's process was not found\n`);
    spanAll += m.span;
    for (const x of m.names) names.add(x);
    for (const x of m.others) others.add(x);
    for (const [k, v] of m.tally) {
      const a = all.get(k) ?? { wakeups: 0, runs: 0, runNs: 0 };
      all.set(k, {
        wakeups: a.wakeups + v.wakeups,
        runs: a.runs + v.runs,
        runNs: a.runNs + v.runNs,
      });
    }
    for (let cpu = 0; cpu < m.nrCpus; cpu++) {
      const cell = (k: string) => {
        const v = m.tally.get(`${cpu}/${k}`) ?? { wakeups: 0, runs: 0, runNs: 0 };
        return `${(v.wakeups / m.span).toFixed(0)} | ${v.runs ? (v.runNs / v.runs / 1e3).toFixed(1) : "-"}`;
      };
      rows.push(`| ${n} | ${m.span.toFixed(3)} | ${cpu} | ${cell("kthread")} | ${cell("other")} |`);
    }
  }
  const fam = new Map<string, Tally>();
  for (const [k, v] of all) {
    if (!k.includes("/k:")) continue;
    fam.set(k, v);
  }
  const famRows = [
    "| CPU | kernel thread | wakeups/s | mean run µs | runs |",
    "|---|---|---|---|---|",
    ...[...fam.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => {
        const [cpu, f] = k.split("/k:");
        return `| ${cpu} | ${f} | ${(v.wakeups / spanAll).toFixed(1)} | ${v.runs ? (v.runNs / v.runs / 1e3).toFixed(1) : "-"} | ${v.runs} |`;
      }),
  ];
  for (const cpu of [0, 1]) {
    const cell = (k: string) => {
      const v = all.get(`${cpu}/${k}`) ?? { wakeups: 0, runs: 0, runNs: 0 };
      return `${(v.wakeups / spanAll).toFixed(0)} | ${v.runs ? (v.runNs / v.runs / 1e3).toFixed(1) : "-"}`;
    };
    rows.push(`| all | ${spanAll.toFixed(3)} | ${cpu} | ${cell("kthread")} | ${cell("other")} |`);
  }
  process.stdout.write(
    `${rows.join("\n")}\n\n${famRows.join("\n")}\n\nkernel threads seen: ${[...names].sort().join(", ")}\nother tasks seen: ${[...others].sort().join(", ")}\n`,
  );
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
