// CPU hotplug at run time (echo 0/1 > /sys/devices/system/cpu/cpuN/online): take a CPU out of
// the domains, push every task off it (migrate_tasks / select_fallback_rq), or bring it back.
import type { SchedCore } from "./api";
import { schedTtwuPending, selectFallbackRq } from "./ttwu";
import { TASK_RUNNING } from "../sched";
import { bump } from "../counters";
import { ERA_TRAITS } from "../features";
import { cfsTiming } from "../fair/fair";

function rebuild(k: SchedCore): void {
  k.domains = k.buildDomains();
  const now = k.now;
  for (const doms of k.domains.domains) for (const sd of doms) sd.lastBalance = now;
  // update_sysctl from rq_online_fair / rq_offline_fair (v2.6.33+, kernel/sched/fair.c):
  // latency and granularities follow the online CPUs. v2.6.29 scaled them once, in
  // sched_init_granularity at boot (kernel/sched.c), and a later offline leaves them as they are.
  if (ERA_TRAITS[k.era].rescaleOnHotplug) k.cfsTiming = cfsTiming(k);
}

/** Takes `cpu` offline: rebuild the domains without it, then move its tasks elsewhere. */
export function cpuDown(k: SchedCore, cpu: number): void {
  const rq = k.rqs[cpu];
  if (!rq)
    throw new Error(`hotplug: cpu must be an integer from 0 to ${k.rqs.length - 1} (got ${cpu})`);
  if (!rq.online) return;
  if (k.onlineCount() === 1) throw new Error(`hotplug: cpu${cpu} is the last online CPU`);
  rq.online = false;
  for (const c of k.classes) c.rqOffline?.(rq);
  rebuild(k);
  const prevCpu = k.thisCpu;
  k.thisCpu = cpu;
  // Wakeups queued for this CPU are activated here first, then moved with the rest.
  schedTtwuPending(k, rq);
  rq.needResched = false;
  // The running task is preempted by the stopper that takes the CPU down.
  k.preemptToIdle(rq);
  const tasks = [...rq.cfs.tasks, ...rq.rt.queues.flat()];
  for (const p of tasks) {
    if (p.schedClass === "stop") continue;
    if (!p.cpusAllowed.some((v, i) => v === 1 && k.rqs[i].online)) {
      // select_fallback_rq: affinity broken, the task may run anywhere now
      p.setAffinity(k.rqs.filter((r) => r.online).map((r) => r.cpu));
      bump(k.counters.other, "affinity_broken");
    }
    k.moveQueuedTask(p, selectFallbackRq(k, p, cpu), "hotplug");
  }
  // Sleeping tasks keep task_cpu(); their next wakeup picks an online CPU.
  for (const p of k.tasks) {
    if (
      p.cpu === cpu &&
      p.state !== TASK_RUNNING &&
      !p.cpusAllowed.some((v, i) => v === 1 && k.rqs[i].online)
    ) {
      p.setAffinity(k.rqs.filter((r) => r.online).map((r) => r.cpu));
    }
  }
  k.markOffline(rq);
  k.thisCpu = prevCpu;
}

/** Brings `cpu` back online and rebuilds the domains with it. */
export function cpuUp(k: SchedCore, cpu: number): void {
  const rq = k.rqs[cpu];
  if (!rq)
    throw new Error(`hotplug: cpu must be an integer from 0 to ${k.rqs.length - 1} (got ${cpu})`);
  if (rq.online) return;
  rq.online = true;
  for (const c of k.classes) c.rqOnline?.(rq);
  k.markOnline(rq);
  rebuild(k);
}
