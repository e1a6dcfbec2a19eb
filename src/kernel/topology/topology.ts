// Sched-domain construction, after kernel/sched/topology.c (build_sched_domains, sd_init,
// build_sched_groups, build_overlap_sched_groups, init_sched_groups_capacity, cpu_attach_domain)
// and, for 2.6.29, kernel/sched.c (SD_*_INIT, init_sched_build_groups, init_sched_groups_power).
//
// As in the kernel, the full per-CPU hierarchy is built first (every topology level, even a
// one-CPU span), groups and group capacities are computed on that hierarchy, and only then are
// degenerate domains removed per CPU. The order matters: 2.6.29's group power looks at the
// *pre-degeneration* child domain (kernel/sched.c v2.6.29: __build_sched_domains calls
// init_sched_groups_power on every CPU before cpu_attach_domain drops degenerate levels).
import { hasSmtGain, SMT_GAIN, topologyLevels } from "./levels";
import {
  applyAsymFlags,
  asymCpuCapacityClassify,
  asymCpuCapacityLevel,
  hasAsymClassify,
  hasAsymDetection,
} from "./asym";
import { SCHED_CAPACITY_SCALE } from "../sched";
import type { Machine } from "../../machine/types";
import { ERA_TRAITS, type Era, eraAtLeast } from "../features";
import { formatCpuList } from "../../machine/sysfs";
import {
  SD_BALANCE_EXEC,
  SD_BALANCE_FORK,
  SD_BALANCE_NEWIDLE,
  SD_BALANCE_WAKE,
  SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL,
  SD_ASYM_PACKING,
  SD_CLUSTER,
  SD_LOAD_BALANCE,
  SD_NUMA,
  SD_POWERSAVINGS_BALANCE,
  SD_PREFER_SIBLING,
  SD_SERIALIZE,
  SD_SHARE_CPUCAPACITY,
  SD_SHARE_PKG_RESOURCES,
  SD_WAKE_AFFINE,
  SD_WAKE_BALANCE,
  SD_WAKE_IDLE,
  type DomainTree,
  type SchedDomain,
  type SchedGroup,
} from "./sched_domain";

export { LOCAL_DISTANCE, RECLAIM_DISTANCE, SMT_GAIN } from "./levels";

/** Context of the group-capacity decision (init_sched_groups_power / update_group_capacity). */
export interface GroupCapacityCtx {
  era: Era;
  /** The group's balance CPU's domain at this level, with its pre-degeneration child. */
  sd: SchedDomain;
  group: SchedGroup;
  /** Capacities of sd.child's groups (null when sd has no child, i.e. the bottom level). */
  childGroupCapacities: number[] | null;
  /** The CPU's own capacity in this era (3.19/4.8 SMT threads: smt_gain / siblings). */
  cpuCapacity: (cpu: number) => number;
}
/** The group-capacity hook: a sched group's capacity (__cpu_power / sgc->capacity). */
export type GroupCapacityFn = (ctx: GroupCapacityCtx) => number;

/**
 * 2.6.29 init_sched_groups_power: a flat SCHED_LOAD_SCALE when the domain has no child, or when
 * (no power-savings balancing and) the child shares CPU power (SMT) or package resources (MC):
 * "each group can handle only one task" while other groups are idle. Otherwise the sum of the
 * child's groups. Side effect: every package-level group is worth one CPU.
 */
export const groupPower2629: GroupCapacityFn = ({ sd, childGroupCapacities }) => {
  const child = sd.child;
  if (
    !child ||
    childGroupCapacities === null ||
    (!(sd.flags & SD_POWERSAVINGS_BALANCE) &&
      (child.flags & (SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES)) !== 0)
  ) {
    return SCHED_CAPACITY_SCALE;
  }
  return sum(childGroupCapacities);
};

/**
 * update_group_capacity (2.6.32+): the bottom level takes the CPU's capacity; above it, the sum
 * of the child's groups, or of the CPUs when the child is a NUMA (SD_OVERLAP) domain whose groups
 * need not tile this group.
 */
export const groupCapacitySum: GroupCapacityFn = ({
  sd,
  group,
  childGroupCapacities,
  cpuCapacity,
}) => {
  if (!sd.child || childGroupCapacities === null || sd.child.flags & SD_NUMA) {
    return sum(group.cpus.map(cpuCapacity));
  }
  return sum(childGroupCapacities);
};

/**
 * The era's group-capacity rule: 2.6.29 init_sched_groups_power, or the sum of the child groups'
 * capacities (update_group_capacity) later. The default of the topology.group_capacity hook.
 */
export function defaultGroupCapacity(era: Era): GroupCapacityFn {
  return ERA_TRAITS[era].family === "2.6" ? groupPower2629 : groupCapacitySum;
}

function sum(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Degenerate-domain rules (sd_degenerate / sd_parent_degenerate) per era

interface DegenerateRules {
  needGroups: number; // flags that only make sense with >= 2 groups
  noGroups: number; // flags that keep a one-group domain alive
  parentOneGroup: number; // flags ignored in a one-group parent
  serializeIfOneNode: boolean; // nr_node_ids == 1 => SD_SERIALIZE does not count
  wakeBalanceSubset: boolean; // 2.6.x: WAKE_BALANCE is a subset of WAKE_AFFINE
  transferPreferSibling: boolean; // a removed parent's SD_PREFER_SIBLING moves to the child
}

function degenerateRules(era: Era): DegenerateRules {
  // SD_ASYM_CPUCAPACITY joined the need-groups flags with the flag (v4.10); no earlier era sets it.
  const classic =
    SD_LOAD_BALANCE |
    SD_BALANCE_NEWIDLE |
    SD_BALANCE_FORK |
    SD_BALANCE_EXEC |
    SD_SHARE_CPUCAPACITY |
    SD_SHARE_PKG_RESOURCES |
    SD_ASYM_CPUCAPACITY;
  switch (era) {
    case "2.6.29":
      return {
        needGroups: classic,
        noGroups: SD_WAKE_IDLE | SD_WAKE_AFFINE | SD_WAKE_BALANCE,
        parentOneGroup: classic,
        serializeIfOneNode: true,
        wakeBalanceSubset: true,
        transferPreferSibling: false,
      };
    case "3.19":
    case "4.8":
    case "5.6":
      return {
        needGroups: classic,
        noGroups: SD_WAKE_AFFINE,
        parentOneGroup: classic | SD_PREFER_SIBLING,
        serializeIfOneNode: true,
        wakeBalanceSubset: false,
        transferPreferSibling: true,
      };
    default: {
      // 5.10+: SD_DEGENERATE_GROUPS_MASK = the SDF_NEEDS_GROUPS flags of sd_flags.h.
      const mask =
        SD_BALANCE_NEWIDLE |
        SD_BALANCE_EXEC |
        SD_BALANCE_FORK |
        SD_BALANCE_WAKE |
        SD_SHARE_CPUCAPACITY |
        SD_SHARE_PKG_RESOURCES |
        SD_CLUSTER |
        SD_ASYM_CPUCAPACITY |
        SD_ASYM_CPUCAPACITY_FULL |
        SD_SERIALIZE |
        SD_ASYM_PACKING |
        SD_PREFER_SIBLING |
        SD_NUMA;
      return {
        needGroups: mask,
        noGroups: SD_WAKE_AFFINE,
        parentOneGroup: mask,
        serializeIfOneNode: false,
        wakeBalanceSubset: false,
        transferPreferSibling: true,
      };
    }
  }
}

function sdDegenerate(sd: SchedDomain, r: DegenerateRules): boolean {
  if (sd.spanWeight === 1) return true;
  if (sd.flags & r.needGroups && sd.groups.length > 1) return false;
  if (sd.flags & r.noGroups) return false;
  return true;
}

function sdParentDegenerate(
  sd: SchedDomain,
  parent: SchedDomain,
  r: DegenerateRules,
  nrNodeIds: number,
): boolean {
  if (sdDegenerate(parent, r)) return true;
  if (!sameCpus(sd.span, parent.span)) return false;
  const cflags = sd.flags;
  let pflags = parent.flags;
  if (r.wakeBalanceSubset && cflags & SD_WAKE_AFFINE) pflags &= ~SD_WAKE_BALANCE;
  if (parent.groups.length === 1) {
    pflags &= ~r.parentOneGroup;
    if (r.serializeIfOneNode && nrNodeIds === 1) pflags &= ~SD_SERIALIZE;
  }
  return (~cflags & pflags) === 0;
}

function sameCpus(a: number[], b: number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// build_sched_domains

/** Options of buildSchedDomains. */
export interface BuildOptions {
  /** Simulated time of the (re)build: last_balance of every new domain (jiffies in the kernel). */
  nowNs?: number;
  /** CONFIG_SCHED_CLUSTER (default true): false builds no CLS level (tunable sched_cluster 0). */
  schedCluster?: boolean;
}

/**
 * Builds the sched-domain hierarchy of the online CPUs as the kernel of `era` does. Group
 * capacities come from `groupCapacity` (a patchable decision; defaultGroupCapacity(era) is the
 * kernel's). Group objects are shared by every CPU whose domain has that group, as the kernel
 * shares sched_group/sched_group_capacity, so sgc->imbalance set by one CPU is seen by all.
 */
export function buildSchedDomains(
  machine: Machine,
  online: boolean[],
  era: Era,
  groupCapacity: GroupCapacityFn = defaultGroupCapacity(era),
  opts: BuildOptions = {},
): DomainTree {
  const n = machine.cpus.length;
  // Span membership as a bitmap per span (the kernel's cpumasks): the NUMA levels of a large
  // machine test membership for every CPU of every span, which list searches make cubic.
  const spanBits = new WeakMap<number[], Uint8Array>();
  const inSpan = (span: number[], cpu: number): boolean => {
    let bits = spanBits.get(span);
    if (!bits) {
      bits = new Uint8Array(n);
      for (const c of span) bits[c] = 1;
      spanBits.set(span, bits);
    }
    return bits[cpu] === 1;
  };
  // containsAll over interned spans, remembered per (span, sub) pair: a 1024-CPU machine asks
  // it for every CPU of every NUMA span.
  const containsMemo = new WeakMap<number[], WeakMap<number[], boolean>>();
  const containsAll = (span: number[], sub: number[]): boolean => {
    let row = containsMemo.get(span);
    if (!row) {
      row = new WeakMap();
      containsMemo.set(span, row);
    }
    let r = row.get(sub);
    if (r === undefined) {
      r = sub.every((c) => inSpan(span, c));
      row.set(sub, r);
    }
    return r;
  };
  // Equal spans share one array, so comparing two domains' spans (sameCpus) is mostly identity,
  // and groups can be pooled by span identity. Buckets by a hash of the CPUs, not by a joined
  // string (which on a 1024-CPU machine is megabytes of text per level).
  const spans = new Map<number, number[][]>();
  const internSpan = (span: number[]): number[] => {
    let h = span.length;
    for (let i = 0; i < span.length; i++) h = (Math.imul(h, 31) + span[i]) | 0;
    let bucket = spans.get(h);
    if (!bucket) {
      bucket = [];
      spans.set(h, bucket);
    }
    for (const known of bucket) if (sameCpus(known, span)) return known;
    bucket.push(span);
    return span;
  };
  if (!Array.isArray(online) || online.length !== n) {
    throw new Error(
      `buildSchedDomains: online must be a boolean per CPU (${n} entries; got ${Array.isArray(online) ? online.length : typeof online})`,
    );
  }
  const onlineIds = machine.cpus.filter((c) => online[c.id]).map((c) => c.id);
  if (onlineIds.length === 0)
    throw new Error("buildSchedDomains: online must leave at least one CPU online");
  const levels = topologyLevels(machine, era, opts.schedCluster ?? true);
  const lastBalance = opts.nowNs ?? 0;
  // asym_cpu_capacity_level (5.0 ... 5.13): the one level that gets SD_ASYM_CPUCAPACITY.
  const asymTl =
    hasAsymDetection(era) && !hasAsymClassify(era)
      ? asymCpuCapacityLevel(machine, levels, online)
      : -1;
  let hasAsym = false;

  // 1. Per-CPU domains at every level, linked child -> parent (build_sched_domain).
  const perLevel: (SchedDomain | null)[][] = levels.map(() =>
    new Array<SchedDomain | null>(n).fill(null),
  );
  const levelOf = new Map<SchedDomain, number>();
  for (const cpu of onlineIds) {
    let child: SchedDomain | null = null;
    for (let li = 0; li < levels.length; li++) {
      const tl = levels[li];
      let span = tl.mask(cpu).filter((c) => online[c]);
      // "BUG: arch topology borken": the kernel widens the span to contain the child's.
      if (child && !containsAll(span, child.span))
        span = [...new Set([...span, ...child.span])].sort((a, b) => a - b);
      span = internSpan(span);
      const p = tl.params(span.length);
      const sd: SchedDomain = {
        level: tl.name,
        cpu,
        span,
        spanWeight: span.length,
        flags: p.flags,
        groups: [],
        parent: null,
        child,
        minInterval: p.minInterval,
        maxInterval: p.maxInterval,
        busyFactor: p.busyFactor,
        imbalancePct: p.imbalancePct,
        cacheNiceTries: p.cacheNiceTries,
        busyIdx: p.busyIdx,
        idleIdx: p.idleIdx,
        newidleIdx: p.newidleIdx,
        wakeIdx: p.wakeIdx,
        forkexecIdx: p.forkexecIdx,
        imbNumaNr: 0,
        balanceInterval: p.balanceInterval,
        lastBalance,
        nrBalanceFailed: 0,
        maxNewidleLbCost: 0,
      };
      if (child) child.parent = sd;
      if (hasAsymDetection(era)) {
        const asym = hasAsymClassify(era)
          ? asymCpuCapacityClassify(machine, span, online)
          : li === asymTl
            ? SD_ASYM_CPUCAPACITY
            : 0;
        applyAsymFlags(sd, era, asym);
        if (asym) hasAsym = true;
      }
      perLevel[li][cpu] = sd;
      levelOf.set(sd, li);
      child = sd;
      // 3.x+ stops once a level spans every CPU; 2.6.29 always builds all four levels.
      if (ERA_TRAITS[era].family !== "2.6" && span.length === onlineIds.length) break;
    }
  }

  // 2. Groups: the child domains' spans (a CPU each at the bottom), local group first.
  // Pooled per level by the (interned) CPU array, as sd_data shares sched_group per CPU.
  const pool = levels.map(() => new Map<number[], { group: SchedGroup; ownerLevel: number }>());
  const groupsByLevel: SchedGroup[][] = levels.map(() => []);
  const getGroup = (
    li: number,
    cpus: number[],
    balanceCpu: number,
    ownerLevel: number,
    childFlags = 0,
  ): SchedGroup => {
    let e = pool[li].get(cpus);
    if (!e) {
      e = {
        group: {
          cpus,
          weight: cpus.length,
          capacity: SCHED_CAPACITY_SCALE * cpus.length,
          imbalance: false,
          balanceCpu,
          // sg->flags = child->flags; a one-CPU child is degenerate and its flags are cleared
          flags: cpus.length > 1 ? childFlags : 0,
          cores: new Set(cpus.map((c) => machine.cpus[c].core)).size,
        },
        ownerLevel,
      };
      pool[li].set(cpus, e);
      groupsByLevel[li].push(e.group);
    }
    return e.group;
  };
  const single = Array.from({ length: n }, (_, i) => internSpan([i]));
  // "covered" marks of the group walks: a stamp per CPU instead of a Set per domain
  const covered = new Int32Array(n);
  let stamp = 0;
  // build_balance_mask's first CPU per (owner level, child span): the same for every CPU.
  const balanceCpuMemo = levels.map(() => new Map<number[], number>());
  for (let li = 0; li < levels.length; li++) {
    for (const cpu of onlineIds) {
      const sd = perLevel[li][cpu];
      if (sd) sd.groups = levels[li].overlap ? overlapGroups(sd, li) : plainGroups(sd, li);
    }
  }
  // build_sched_groups / get_group: group = span of CPU i's child domain at this level; the
  // walk starts at the domain's own CPU (for_each_cpu_wrap), so the local group comes first.
  function plainGroups(sd: SchedDomain, li: number): SchedGroup[] {
    const mark = ++stamp;
    const out: SchedGroup[] = [];
    const span = sd.span;
    const start = Math.max(0, span.indexOf(sd.cpu));
    for (let k = 0; k < span.length; k++) {
      const i = span[(start + k) % span.length];
      if (covered[i] === mark) continue;
      const sib = perLevel[li][i];
      const cpus = sib?.child ? sib.child.span : single[i];
      for (const c of cpus) covered[c] = mark;
      out.push(getGroup(li, cpus, cpus[0], li, sib?.child?.flags ?? 0));
    }
    return out;
  }
  // build_overlap_sched_groups (NUMA levels): groups may overlap; balance CPU from the balance mask.
  function overlapGroups(sd: SchedDomain, li: number): SchedGroup[] {
    const mark = ++stamp;
    const out: SchedGroup[] = [];
    const span = sd.span;
    const start = Math.max(0, span.indexOf(sd.cpu));
    for (let k = 0; k < span.length; k++) {
      const i = span[(start + k) % span.length];
      if (covered[i] === mark) continue;
      let sib = perLevel[li][i];
      if (!sib || !inSpan(sib.span, i)) continue;
      if (sib.child && !containsAll(sd.span, sib.child.span)) {
        // find_descended_sibling: go down until the child fits, then skip equal-span levels.
        while (sib.child && !containsAll(sd.span, sib.child.span)) sib = sib.child;
        while (sib.child && sameCpus(sib.child.span, sib.span)) sib = sib.child;
      }
      const cpus = sib.child ? sib.child.span : sib.span;
      const owner = levelOf.get(sib) ?? li;
      // build_balance_mask: CPUs whose own domain at that level has exactly this child span.
      let balanceCpu = balanceCpuMemo[owner].get(cpus);
      if (balanceCpu === undefined) {
        const first = cpus.find((j) => {
          const s = perLevel[owner][j];
          return s?.child ? sameCpus(s.child.span, cpus) : false;
        });
        balanceCpu = first ?? cpus[0];
        balanceCpuMemo[owner].set(cpus, balanceCpu);
      }
      for (const c of cpus) covered[c] = mark;
      out.push(getGroup(li, cpus, balanceCpu, owner, sib.child?.flags ?? 0));
    }
    return out;
  }

  // 3. Group capacities, bottom-up, computed through the group's balance CPU's domain.
  const cpuCapacity = (cpu: number): number => {
    const base = perLevel[0][cpu];
    if (hasSmtGain(era) && base && base.flags & SD_SHARE_CPUCAPACITY && base.spanWeight > 1) {
      return Math.floor(SMT_GAIN / base.spanWeight); // arch_scale_cpu_capacity with smt_gain
    }
    return machine.cpus[cpu].capacity;
  };
  for (let li = 0; li < levels.length; li++) {
    for (const group of groupsByLevel[li]) {
      const owner = pool[li].get(group.cpus)!.ownerLevel;
      const sd = perLevel[owner][group.balanceCpu];
      if (!sd) {
        group.capacity = sum(group.cpus.map(cpuCapacity));
        continue;
      }
      const childGroupCapacities = sd.child ? sd.child.groups.map((g) => g.capacity) : null;
      const cap = groupCapacity({ era, sd, group, childGroupCapacities, cpuCapacity });
      if (!Number.isFinite(cap) || cap <= 0) {
        throw new Error(
          `topology.group_capacity returned ${cap} for ${sd.level} group {${formatCpuList(group.cpus)}}; it must be a positive number`,
        );
      }
      group.capacity = cap;
    }
  }

  // 4. imb_numa_nr (5.18+), on the pre-degeneration hierarchy as the kernel computes it.
  if (eraAtLeast(era, "5.18")) {
    for (const cpu of onlineIds) computeImbNumaNr(perLevel[0][cpu]);
  }

  // 5. cpu_attach_domain: drop degenerate domains per CPU.
  const rules = degenerateRules(era);
  const nrNodeIds = machine.nodeDistance.length;
  const domains: SchedDomain[][] = Array.from({ length: n }, () => []);
  for (const cpu of onlineIds) {
    let sd: SchedDomain | null = perLevel[0][cpu];
    for (let tmp: SchedDomain | null = sd; tmp; ) {
      const parent: SchedDomain | null = tmp.parent;
      if (!parent) break;
      if (sdParentDegenerate(tmp, parent, rules, nrNodeIds)) {
        tmp.parent = parent.parent;
        if (parent.parent) parent.parent.child = tmp;
        // The spans match, so the parent's prefer-sibling property transfers down.
        if (rules.transferPreferSibling && parent.flags & SD_PREFER_SIBLING)
          tmp.flags |= SD_PREFER_SIBLING;
      } else {
        tmp = parent;
      }
    }
    if (sd && sdDegenerate(sd, rules)) {
      sd = sd.parent;
      if (sd) sd.child = null;
    }
    for (let d = sd; d; d = d.parent) domains[cpu].push(d);
  }

  // 6. update_top_cache_domain: sd_llc (highest_flag_domain), sd_llc_size/id, sd_numa.
  const sdLlc: (SchedDomain | null)[] = new Array(n).fill(null);
  const sdLlcSize: number[] = new Array(n).fill(1);
  const sdLlcId: number[] = Array.from({ length: n }, (_, i) => i);
  const sdNuma: (SchedDomain | null)[] = new Array(n).fill(null);
  for (const cpu of onlineIds) {
    let hsd: SchedDomain | null = null;
    for (const d of domains[cpu]) {
      if (!(d.flags & SD_SHARE_PKG_RESOURCES)) break;
      hsd = d;
    }
    if (hsd) {
      sdLlc[cpu] = hsd;
      sdLlcSize[cpu] = hsd.spanWeight;
      sdLlcId[cpu] = hsd.span[0];
    }
    sdNuma[cpu] = domains[cpu].find((d) => d.flags & SD_NUMA) ?? null;
  }
  // sd_asym_cpucapacity (lowest asymmetric domain), sd_share_id and sched_cluster_active (6.8+).
  const asymFlag = hasAsymClassify(era) ? SD_ASYM_CPUCAPACITY_FULL : SD_ASYM_CPUCAPACITY;
  const sdAsymCpucapacity = domains.map((ds) => ds.find((d) => d.flags & asymFlag) ?? null);
  const sdShareId = [...sdLlcId];
  let clusterActive = false;
  for (const cpu of onlineIds) {
    const cls = domains[cpu].filter((d) => d.flags & SD_CLUSTER).at(-1);
    if (cls) {
      sdShareId[cpu] = cls.span[0];
      clusterActive = true;
    }
  }
  const capacities = machine.cpus.map((c) => (online[c.id] ? cpuCapacity(c.id) : c.capacity));
  return {
    domains,
    sdLlc,
    sdLlcSize,
    sdLlcId,
    sdNuma,
    online: onlineIds,
    cpuCapacity: capacities,
    sdAsymCpucapacity,
    sdShareId,
    clusterActive,
    asymCpucapacity: hasAsym,
  };
}

/**
 * build_sched_domains (5.18+, with "Adjust imb_numa_nr to a better approximation of memory
 * channels"): at the first level above the LLC, allow nr_llcs tasks of imbalance, or 12.5 % of
 * the span when there is one LLC; levels above scale it by span / first-NUMA-span.
 */
function computeImbNumaNr(base: SchedDomain | null): void {
  let imb = 0;
  let imbSpan = 1;
  for (let sd = base; sd; sd = sd.parent) {
    const child = sd.child;
    if (!(sd.flags & SD_SHARE_PKG_RESOURCES) && child && child.flags & SD_SHARE_PKG_RESOURCES) {
      const nrLlcs = Math.floor(sd.spanWeight / child.spanWeight);
      imb = Math.max(1, nrLlcs === 1 ? sd.spanWeight >> 3 : nrLlcs);
      sd.imbNumaNr = imb;
      let top = sd.parent;
      while (top && !(top.flags & SD_NUMA)) top = top.parent;
      imbSpan = top ? top.spanWeight : sd.spanWeight;
    } else {
      sd.imbNumaNr = imb * Math.max(1, Math.floor(sd.spanWeight / imbSpan));
    }
  }
}

// The readable dump lives in describe.ts; re-exported here for existing importers.
export { cpulist, describeDomains } from "./describe";
