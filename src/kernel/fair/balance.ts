// Driving the load balancer (fair.c): trigger_load_balance at the tick, rebalance_domains with
// the per-domain intervals, newly-idle balancing before a CPU goes idle, carrying out the moves
// load_balance decides, and the stopper that performs active balancing. NOHZ idle balancing on
// behalf of tickless idle CPUs is in nohz_balance.ts; the decisions themselves in lb/*.ts.
import { ERA_TRAITS, eraAtLeastFn } from "../features";
import type { SchedCore } from "../core/api";
import type { Rq } from "../sched";
import type { SchedDomain } from "../topology/sched_domain";
import { SD_BALANCE_NEWIDLE, SD_LOAD_BALANCE, SD_SERIALIZE } from "../topology/sched_domain";
import { activeLoadBalanceCpuStop, domainSpanning, loadBalance } from "./lb/load_balance";
import { createLbEnv, jiffiesAt, maxLoadBalanceInterval, msecsToJiffies } from "./lb/common";
import type { CpuIdleType, LoadBalanceResult } from "./lb/types";
import {
  cpuLoadUpdateActive,
  cpuLoadUpdateNohzStart,
  cpuLoadUpdateNohzStop,
  rqLoadWeight2629,
  updateCpuLoad2629,
  updateCpuLoadActive319,
  updateCpuLoadNohz319,
  weightedCpuload,
} from "./cpu_load";
import { balanceStats, bump } from "../counters";
import type { MigrationReason } from "../trace";
import { call, wait } from "../ops";
import { TASK_INTERRUPTIBLE } from "../sched";
import { lockRq, unlockRq } from "../core/rq_lock";
import { tryToWakeUp } from "../core/ttwu";
import { newidleSkipsForWakelist } from "../core/avg_idle";
import { NohzBlockedLoad, updateBlockedAverages } from "./nohz_blocked";
import { NohzIdleBalancer } from "./nohz_balance";
import "./lb/load_balance";
import { LbScanCosts, NewidleCost } from "./lb_cost";
import { SchedBalanceRunning } from "./lb_serialize";
import { NewidleRatio } from "./newidle_ratio";
import { updateIdleCpuScan } from "./wake/v5x";

const atLeast47 = eraAtLeastFn("4.7");
const atLeast316 = eraAtLeastFn("3.16");

function jiffyNs(k: SchedCore): number {
  return 1e9 / k.tunables.hz;
}

export class FairBalancer {
  /** NOHZ idle balancing on behalf of the tickless idle CPUs (nohz_balance.ts). */
  private readonly nohz: NohzIdleBalancer;
  /** v4.17+ blocked load of idle CPUs (the model's 5.x eras); null before. */
  private readonly nohzBlocked: NohzBlockedLoad | null;
  private readonly maxInterval: number;
  private readonly hz: number;
  private readonly scanCosts: LbScanCosts;
  private readonly newidleCost: NewidleCost;
  /** v6.19 proportional newidle balance (NI_RANDOM). */
  readonly newidleRatio: NewidleRatio;
  /** The global balancing flag of SD_SERIALIZE domains (LB_SERIALIZE, LB_SERIALIZE_NEWIDLE). */
  readonly balanceRunning = new SchedBalanceRunning();
  /** LB_SERIALIZE before 6.19: rebalance_domains takes the flag before the due check. */
  private readonly serializeEarly: boolean;

  constructor(private readonly k: SchedCore) {
    this.hz = k.tunables.hz;
    // 2.6.29 clamps at HZ * NR_CPUS / 10 with the config's NR_CPUS; later HZ * online / 10.
    const nr = ERA_TRAITS[k.era].family === "2.6" ? Math.max(k.rqs.length, 64) : k.onlineCount();
    this.maxInterval = maxLoadBalanceInterval(k.era, this.hz, nr);
    this.scanCosts = new LbScanCosts(k);
    this.newidleCost = new NewidleCost(this.hz);
    this.newidleRatio = new NewidleRatio(k.random);
    this.serializeEarly = k.features.LB_SERIALIZE && !k.features.LB_SERIALIZE_AFTER_CHECKS;
    k.tickHooks.push((rq) => this.onTick(rq));
    k.newIdleHooks.push((rq) => this.idleBalance(rq));
    this.blockedAverages = ERA_TRAITS[k.era].pelt && ERA_TRAITS[k.era].family !== "2.6";
    this.nohzBlocked = ERA_TRAITS[k.era].family === "5.x" ? new NohzBlockedLoad(k, this.hz) : null;
    this.cpuLoad47 = atLeast47(k.era);
    this.nohz = new NohzIdleBalancer(k, this.hz, this.nohzBlocked, this.cpuLoad47, (rq, idle) =>
      this.rebalanceDomains(rq, idle),
    );
    if (ERA_TRAITS[k.era].family === "4.x") this.hookNohzCpuLoad();
  }
  /** 4.x and 5.x: the balancer reads stored averages, refreshed here (update_blocked_averages). */
  private readonly blockedAverages: boolean;
  /**
   * cpu_load[] updates of v4.7+ (cpu_load_update*, whose catch-up carries the tickless load in
   * cpu_load[0]); before, v3.19's __update_cpu_load (cpu_load.ts updateCpuLoad319).
   */
  private readonly cpuLoad47: boolean;

  // ------------------------------------------------------------------ tick

  /**
   * cpu_load[] at the edges of a tickless idle period (kernel/time/tick-sched.c). At tick stop,
   * v4.8 records the load in cpu_load[0] (cpu_load_update_nohz_start: the tickless load every
   * catch-up carries); v3.19 does nothing. At tick restart, v3.19's update_cpu_load_nohz
   * (kernel/sched/proc.c) catches up the missed ticks with load 0, v4.8's
   * cpu_load_update_nohz_stop (fair.c) with weighted_cpuload; both skip a CPU already updated
   * this jiffy.
   */
  private hookNohzCpuLoad(): void {
    const k = this.k;
    const load = (rq: Rq): number => weightedCpuload(k.lbRq(rq.cpu), k.era);
    const jiffies = (): number => jiffiesAt(k.now, this.hz);
    if (this.cpuLoad47) {
      k.tickStopHooks.push((rq) => cpuLoadUpdateNohzStart(rq, load(rq)));
      k.tickRestartHooks.push((rq) => cpuLoadUpdateNohzStop(rq, load(rq), jiffies()));
    } else k.tickRestartHooks.push((rq) => updateCpuLoadNohz319(rq, jiffies()));
  }

  /** scheduler_tick's part: cpu_load[] update and trigger_load_balance. */
  private onTick(rq: Rq): void {
    const k = this.k;
    const jiffies = jiffiesAt(k.now, this.hz);
    if (ERA_TRAITS[k.era].family === "2.6") updateCpuLoad2629(rq, rqLoadWeight2629(rq));
    else if (ERA_TRAITS[k.era].family === "4.x") {
      const load = weightedCpuload(k.lbRq(rq.cpu), k.era);
      if (this.cpuLoad47) cpuLoadUpdateActive(rq, load, jiffies, false);
      else updateCpuLoadActive319(rq, load, jiffies);
    }
    // trigger_load_balance: SCHED_SOFTIRQ when the rq's next_balance is due.
    if (k.now >= rq.nextBalance)
      this.rebalanceDomains(rq, rq.isIdle() ? "CPU_IDLE" : "CPU_NOT_IDLE");
    this.nohz.kick(rq);
  }

  /** rebalance_domains(rq, idle): walk the domains bottom-up, balancing the ones that are due. */
  rebalanceDomains(rq: Rq, idle: CpuIdleType): void {
    const k = this.k;
    const cpu = rq.cpu;
    if (this.blockedAverages) this.updateBlockedAverages(rq);
    const jiffy = jiffyNs(k);
    let nextBalance = k.now + 60 * this.hz * jiffy;
    let continueBalancing = true;
    let needDecay = false;
    let maxCost = 0;
    const jiffies = jiffiesAt(k.now, this.hz);
    for (const sd of k.domains.domains[cpu]) {
      // Decay max_newidle_lb_cost here, a regular visit to every domain (v3.11+).
      if (ERA_TRAITS[k.era].family !== "2.6") {
        needDecay =
          (k.features.LB_NEWIDLE_COST
            ? this.newidleCost.update(sd, 0, jiffies)
            : this.newidleCost.decayPeriodic(sd, jiffies)) || needDecay;
        maxCost += sd.maxNewidleLbCost;
      }
      if (!(sd.flags & SD_LOAD_BALANCE)) continue;
      // Another CPU of our group balances this level: stop (but keep decaying).
      if (!continueBalancing) {
        if (needDecay) continue;
        break;
      }
      let interval = this.interval(sd, idle !== "CPU_IDLE");
      // Before 6.19 the balancing flag is taken here, before the due check (08c183f31bdb): a
      // CPU that finds it held skips the level (goto out) without updating last_balance.
      const serialize = this.serializeEarly && (sd.flags & SD_SERIALIZE) !== 0;
      const held = serialize && this.balanceRunning.tryAcquire(k, this.balancingCpu(rq));
      if (serialize && !held) {
        bump(k.counters.other, "balance_serialize_busy");
      } else if (jiffiesAt(k.now, this.hz) >= jiffiesAt(sd.lastBalance, this.hz) + interval) {
        const res = this.loadBalance(rq, sd, idle);
        continueBalancing = res.continueBalancing;
        // 2.6.29 load_balance returns -1 for a busy SMT sibling (SD_SHARE_CPUPOWER, !sd_idle),
        // which is true in `if (load_balance(...))` too: the CPU counts as not idle.
        if (res.ldMoved !== 0) {
          // Pulled work: we are no longer idle (or others are not).
          idle =
            ERA_TRAITS[k.era].family === "2.6"
              ? "CPU_NOT_IDLE"
              : rq.isIdle()
                ? "CPU_IDLE"
                : "CPU_NOT_IDLE";
        }
        sd.lastBalance = k.now;
        // Later kernels recompute the interval for the idle state after the pass; v2.6.29
        // rebalance_domains (kernel/sched.c) keeps the one computed before it.
        if (atLeast316(k.era)) interval = this.interval(sd, idle !== "CPU_IDLE");
      }
      if (held) this.balanceRunning.release(k, this.balancingCpu(rq));
      const due = sd.lastBalance + interval * jiffy;
      if (due < nextBalance) nextBalance = due;
    }
    // "keep it at a reasonable floor to avoid funnies with rq->avg_idle" (v3.13+): the floor,
    // sysctl_sched_migration_cost, is applied where the cap is read (core/avg_idle.ts).
    if (needDecay) rq.maxIdleBalanceCost = maxCost;
    rq.nextBalance = nextBalance;
  }

  /**
   * update_blocked_averages(rq->cpu) at the start of rebalance_domains and of newidle balance
   * (fair.c v4.8 on): the balancing CPU's averages decayed to now, other CPUs' left as stored;
   * the 5.x eras record the update's tick (NohzBlockedLoad).
   */
  private updateBlockedAverages(rq: Rq): void {
    if (this.nohzBlocked) this.nohzBlocked.updateBlockedAverages(rq);
    else updateBlockedAverages(this.k, rq);
  }

  /** The CPU running the pass: k.thisCpu (the NOHZ idle balancer), else rq's own. */
  private balancingCpu(rq: Rq): number {
    return this.k.thisCpu >= 0 ? this.k.thisCpu : rq.cpu;
  }

  private interval(sd: SchedDomain, cpuBusy: boolean): number {
    const k = this.k;
    return k.hooks.get("fair.get_sd_balance_interval")({
      sd,
      cpuBusy,
      era: k.era,
      hz: this.hz,
      maxInterval: this.maxInterval,
      features: k.features,
    });
  }

  // ------------------------------------------------------------------ load_balance

  /**
   * One load_balance pass of `sd` for this rq; carries out its moves and stopper kick. The pass
   * takes time on the CPU running it (k.thisCpu; rq's own CPU when none is set): the statistics
   * scan of the domain's CPUs (lb_cost.ts), unless should_we_balance stopped it first, and the
   * rq locks of the moves.
   */
  loadBalance(rq: Rq, sd: SchedDomain, idle: CpuIdleType): LoadBalanceResult {
    const k = this.k;
    const active = this.activeCpus(sd);
    const cpu = this.balancingCpu(rq);
    // v6.19: a pass of an SD_SERIALIZE domain takes the flag after should_we_balance, periodic
    // and idle ones (LB_SERIALIZE, 3324b2180c17) and newidle ones (LB_SERIALIZE_NEWIDLE).
    let held = false;
    const takesFlag =
      idle === "CPU_NEWLY_IDLE"
        ? k.features.LB_SERIALIZE_NEWIDLE
        : k.features.LB_SERIALIZE && !this.serializeEarly;
    const serialize =
      takesFlag && sd.flags & SD_SERIALIZE
        ? () => {
            held = this.balanceRunning.tryAcquire(k, cpu);
            return held;
          }
        : null;
    // LBF_NOHZ_STATS (before v5.13): a newidle pass updates the blocked load of the idle CPUs
    // it reads (update_sg_lb_stats: update_nohz_stats(rq, false)) while nohz.has_blocked is set
    const nb = this.nohzBlocked;
    const nohzStats = idle === "CPU_NEWLY_IDLE" && nb !== null && nb.before513 && nb.hasBlocked;
    let nohzAgain = false;
    const env = createLbEnv({
      era: k.era,
      features: k.features,
      tunables: k.tunables,
      sd,
      dstCpu: rq.cpu,
      idle,
      now: k.now,
      rq: nohzStats
        ? (c) => {
            if (nb.updateNohzStats(k.rqs[c], false)) nohzAgain = true;
            return k.lbRq(c);
          }
        : (c) => k.lbRq(c),
      sdLlcSize: k.domains.sdLlcSize[rq.cpu],
      activeCpus: active,
      hooks: k.hooks,
      preemptible: false,
      serialize,
      // update_idle_cpu_scan (v6.0+): a periodic or idle pass of dst's LLC domain writes its
      // nr_idle_scan, which SIS_UTIL wakeups read until the next one
      updateIdleCpuScan:
        k.features.SIS_UTIL &&
        idle !== "CPU_NEWLY_IDLE" &&
        sd.spanWeight === k.domains.sdLlcSize[rq.cpu]
          ? (sumUtil) => updateIdleCpuScan(k, sd, rq.cpu, sumUtil)
          : null,
    });
    const res = loadBalance(env);
    if (nohzAgain) nb?.newidlePassLeftBlocked(sd.span); // LBF_NOHZ_AGAIN
    // should_we_balance, and a held sched_balance_running, return before update_sd_lb_stats.
    const stopped = res.decision.balanced ? res.decision.reason : null;
    if (stopped === "sched_balance_running") bump(k.counters.other, "newidle_serialize_busy");
    else if (stopped !== "should_we_balance") k.chargeNs += this.scanCosts.get(sd, cpu, active);
    const stats = balanceStats(k.counters, `${sd.level}.${idle}`);
    stats.passes++;
    if (res.decision.balanced) stats.balanced++;
    else if (res.outcome.kind === "failed" || res.outcome.kind === "one_pinned") stats.failed++;
    const reason: MigrationReason =
      idle === "CPU_NEWLY_IDLE"
        ? "newidle_balance"
        : idle === "CPU_IDLE"
          ? "idle_balance"
          : "load_balance";
    if (res.migrations.length > 0) {
      // double_rq_lock / the busiest rq's lock taken from this CPU, held over detach/attach
      const src = k.rqs[res.migrations[0].srcCpu];
      lockRq(k, src, rq.cpu, "load_balance");
      for (const m of res.migrations) {
        const p = k.taskByPid(m.task.pid)!;
        k.moveQueuedTask(p, m.dstCpu, reason);
        stats.tasksMoved++;
      }
      unlockRq(k, src);
    }
    if (res.activeBalance) {
      stats.activeBalances++;
      this.kickActiveBalance(res.activeBalance.busiestCpu, res.activeBalance.pushCpu);
    }
    if (held) this.balanceRunning.release(k, cpu);
    return res;
  }

  /** cpu_active_mask within sd's span; null when all of it is active (no copy needed). */
  private activeCpus(sd: SchedDomain): number[] | null {
    const rqs = this.k.rqs;
    const span = sd.span;
    for (let i = 0; i < span.length; i++)
      if (!rqs[span[i]].online) return span.filter((c) => rqs[c].online);
    return null;
  }

  // ------------------------------------------------------------------ active balance

  /** stop_one_cpu_nowait(busiest, active_load_balance_cpu_stop): wake busiest's stopper. */
  private kickActiveBalance(busiestCpu: number, pushCpu: number): void {
    const k = this.k;
    const busiest = k.rqs[busiestCpu];
    if (busiest.activeBalance) return;
    busiest.activeBalance = true;
    busiest.pushCpu = pushCpu;
    const stopper = this.stopper(busiest);
    if (stopper.waiting && stopper.state === TASK_INTERRUPTIBLE) {
      stopper.waiting = false;
      tryToWakeUp(k, stopper, 0, k.thisCpu, null);
    } else {
      stopper.wakePending = true;
    }
  }

  /** The per-CPU stopper thread (migration/N): highest class, pinned, runs queued work. */
  private stopper(rq: Rq) {
    const k = this.k;
    if (rq.stop) return rq.stop;
    const self = this;
    const p = k.spawnKernelThread(`migration/${rq.cpu}`, rq.cpu, function* () {
      // Born blocked (spawnKernelThread), so its first run is already the first kick: work
      // first, then wait (waiting first would swallow that kick and leave rq.activeBalance set).
      for (;;) {
        yield call(() => self.activeLoadBalanceCpuStop(rq));
        yield wait();
      }
    });
    rq.stop = p;
    return p;
  }

  /** active_load_balance_cpu_stop, on the busiest CPU with its running task preempted. */
  private activeLoadBalanceCpuStop(busiest: Rq): void {
    const k = this.k;
    const pushCpu = busiest.pushCpu;
    busiest.activeBalance = false;
    if (pushCpu < 0 || !k.rqs[pushCpu].online) return;
    const sd = domainSpanning(k.domains.domains[pushCpu], busiest.cpu);
    if (!sd) return;
    const env = createLbEnv({
      era: k.era,
      features: k.features,
      tunables: k.tunables,
      sd,
      dstCpu: pushCpu,
      idle: "CPU_IDLE",
      now: k.now,
      rq: (c) => k.lbRq(c),
      sdLlcSize: k.domains.sdLlcSize[pushCpu],
      hooks: k.hooks,
    });
    const m = activeLoadBalanceCpuStop(env, k.lbRq(busiest.cpu));
    bump(k.counters.other, m ? "active_balance_moved" : "active_balance_nothing");
    if (!m) return;
    const target = k.rqs[pushCpu];
    lockRq(k, target, busiest.cpu, "active_balance");
    k.moveQueuedTask(k.taskByPid(m.task.pid)!, pushCpu, "active_balance");
    unlockRq(k, target);
  }

  // ------------------------------------------------------------------ newly idle

  /** idle_balance / newidle_balance: try to pull before going idle. */
  private idleBalance(rq: Rq): void {
    const k = this.k;
    if (!k.features.NEWIDLE) return;
    // 5.14+: a wakeup already on this CPU's wakelist ends it first (core/avg_idle.ts).
    if (newidleSkipsForWakelist(k, rq)) {
      bump(k.counters.other, "newidle_ttwu_pending");
      return;
    }
    const jiffy = jiffyNs(k);
    const modern = ERA_TRAITS[k.era].family !== "2.6";
    if (modern) {
      // Skip when nothing anywhere is overloaded, or the CPU tends to idle only briefly: up to
      // v5.15 avg_idle < sysctl_sched_migration_cost; v5.16+ (c5b0a7eefc70, LB_NEWIDLE_COST)
      // avg_idle < the lowest domain's max_newidle_lb_cost.
      if (k.nrOverloaded === 0) return this.nohz.newidleBalance(rq);
      const gate = k.features.LB_NEWIDLE_COST
        ? (k.domains.domains[rq.cpu][0]?.maxNewidleLbCost ?? 0)
        : k.tunables.sched_migration_cost_ns;
      if (rq.avgIdle < gate) return this.nohz.newidleBalance(rq);
    }
    if (this.blockedAverages) this.updateBlockedAverages(rq);
    let nextBalance = k.now + this.hz * jiffy;
    const jiffies = jiffiesAt(k.now, this.hz);
    // curr_cost: the pass times measured so far, as sched_clock_cpu before and after each
    // domain's load_balance (v3.11+); here the growth of this context's charged time.
    let currCost = 0;
    for (const sd of k.domains.domains[rq.cpu]) {
      if (!(sd.flags & SD_LOAD_BALANCE)) continue;
      // Stop where this domain's largest pass would overrun the expected idle time (v3.11+).
      if (modern && rq.avgIdle < currCost + sd.maxNewidleLbCost) {
        const due = sd.lastBalance + msecsToJiffies(sd.balanceInterval, this.hz) * jiffy;
        if (due < nextBalance) nextBalance = due; // update_next_balance
        break;
      }
      if (!(sd.flags & SD_BALANCE_NEWIDLE)) continue;
      // v6.19 NI_RANDOM: the die decides whether this domain's pass runs (newidle_ratio.ts);
      // a skipped domain still counts for next_balance (update_next_balance comes first).
      let weight = 1;
      if (k.features.NI_RANDOM) {
        const w = this.newidleRatio.roll(sd, rq.cpu);
        if (w === null) {
          bump(k.counters.other, "newidle_ratio_skip");
          const due = sd.lastBalance + msecsToJiffies(sd.balanceInterval, this.hz) * jiffy;
          if (due < nextBalance) nextBalance = due;
          continue;
        }
        weight = w;
      }
      const t0 = k.chargeNs;
      const res = this.loadBalance(rq, sd, "CPU_NEWLY_IDLE");
      const domainCost = k.chargeNs - t0;
      if (modern) {
        if (k.features.LB_NEWIDLE_COST) this.newidleCost.update(sd, domainCost, jiffies);
        else this.newidleCost.raise(sd, domainCost);
        currCost += domainCost;
      }
      // update_newidle_cost(sd, cost, weight * !!pulled_task) counts the call when cost != 0.
      if (k.features.NI_RANDOM && domainCost !== 0)
        this.newidleRatio.update(sd, res.ldMoved !== 0 ? weight : 0);
      const due = sd.lastBalance + msecsToJiffies(sd.balanceInterval, this.hz) * jiffy;
      if (due < nextBalance) nextBalance = due;
      if (res.ldMoved !== 0 || rq.nrRunning > 0) break; // pulled_task (2.6.29: -1 too)
    }
    // rq->max_idle_balance_cost follows the longest newidle balance (v3.13+).
    if (modern && currCost > rq.maxIdleBalanceCost) rq.maxIdleBalanceCost = currCost;
    // v5.13+: a pass that pulled nothing asks for the blocked-load update (before, only the
    // early exits above did)
    if (rq.nrRunning === 0 && this.nohzBlocked && !this.nohzBlocked.before513)
      this.nohz.newidleBalance(rq);
    if (rq.nrRunning === 0 && nextBalance > rq.nextBalance) return;
    rq.nextBalance = Math.min(rq.nextBalance, nextBalance);
  }
}
