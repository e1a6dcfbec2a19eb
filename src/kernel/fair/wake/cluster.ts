// The cluster step of select_idle_sibling (v6.8+, "sched/fair: Scan cluster before scanning LLC
// in wake-up path" and "sched: Add cpus_share_resources API", Barry Song / Yicong Yang). Active
// only while sched_cluster_active, i.e. some CPU kept a domain with SD_CLUSTER (DomainTree
// .clusterActive): on machines whose clusters degenerate nothing here runs.
//   - prev (and recent_used_cpu) idle and cache-affine but in another cluster than target is not
//     taken at once; it is remembered and taken only if select_idle_cpu finds nothing.
//   - select_idle_cpu first scans target's cluster (sd_llc->groups, when the group holds
//     SD_CLUSTER, i.e. the LLC domain's child is the cluster domain), then the rest of the LLC.
import { schedIdlePolicyUsed, type Task } from "../../sched";
import type { SchedCore } from "../../core/api";
import { SD_CLUSTER, type SchedDomain } from "../../topology/sched_domain";
import { schedIdleCpu, selectIdleCore, type WakeState } from "./common";
import { seenIdleByte } from "../../core/idle_cpu";

/** cpus_share_resources(): same sd_share_id (the cluster, else the LLC). */
export function cpusShareResources(k: SchedCore, a: number, b: number): boolean {
  return k.domains.sdShareId[a] === k.domains.sdShareId[b];
}

/**
 * sd->groups when its flags hold SD_CLUSTER: the group's flags are the child domain's (get_group,
 * kept in step with degeneration by cpu_attach_domain), so the cluster is the LLC's child.
 */
export function clusterGroupCpus(k: SchedCore, sd: SchedDomain): number[] | null {
  if (!k.domains.clusterActive) return null;
  const child = sd.child;
  return child && child.flags & SD_CLUSTER ? sd.groups[0].cpus : null;
}

/** What the cluster pass of select_idle_cpu leaves for the LLC pass. */
export interface ClusterScan {
  /** An idle core or CPU to return now, -1 to give up (nr ran out), or null to go on. */
  result: number | null;
  /** nr after the pass. */
  nr: number;
  /** The first idle CPU seen while looking for idle cores (select_idle_core's *idle_cpu). */
  idleCpu: number;
  /** Scan cost so far (one cache line per runqueue looked at). */
  time: number;
}

/**
 * The cluster pass: for_each_cpu_wrap(cpu, sched_group_span(sg), target + 1) over CPUs still in
 * `cpus`, looking for an idle core (has_idle_core) or an idle CPU within nr. CPUs it covers are
 * marked st.seen[c] === gen (cpumask_andnot(cpus, cpus, ...)), so the LLC pass skips them.
 */
export function scanCluster(
  k: SchedCore,
  st: WakeState,
  p: Task,
  group: number[],
  target: number,
  thisCpu: number,
  hasIdleCore: boolean,
  nr: number,
  gen: number,
): ClusterScan {
  const allowed = p.cpusAllowed;
  const idleB = st.idle;
  const schedIdle = schedIdlePolicyUsed();
  const level = st.levelRow(thisCpu);
  const n = group.length;
  let start = group.findIndex((c) => c > target);
  if (start < 0) start = 0;
  let idleCpu = -1;
  let time = 0;
  for (let j = 0; j < n; j++) {
    const cpu = group[(start + j) % n];
    if (!allowed[cpu] || st.seen[cpu] === gen) continue;
    // sis_scanned (counters.ts): a CPU, or a whole core when looking for idle cores
    k.counters.selectIdleCpu.scanned += hasIdleCore ? st.smtMask[cpu].length : 1;
    const l = st.lineNs[level[cpu]];
    time += l;
    if (hasIdleCore) {
      st.idleCpuSeen = idleCpu;
      const core = selectIdleCore(k, st, allowed, cpu, gen, schedIdle);
      idleCpu = st.idleCpuSeen;
      if (core >= 0) return { result: st.noteSis("idle_core", core), nr, idleCpu, time };
    } else {
      if (--nr <= 0) return { result: -1, nr, idleCpu, time };
      k.chargeNs += l; // the waker reads its idle state (select_idle_core charges its own reads)
      // __select_idle_cpu: available_idle_cpu || sched_idle_cpu
      if (seenIdleByte(k, idleB[cpu], cpu) || (schedIdle && schedIdleCpu(k.rqs[cpu])))
        return { result: st.noteSis("idle_cluster", cpu), nr, idleCpu, time };
    }
  }
  for (const c of group) st.seen[c] = gen;
  return { result: null, nr, idleCpu, time };
}
