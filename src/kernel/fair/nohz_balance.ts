// NOHZ idle balancing (kernel/sched/fair.c): a busy CPU's tick asks an idle CPU, the idle load
// balancer, to balance on behalf of the tickless idle CPUs (nohz_balancer_kick, kick_ilb), and that
// CPU walks them (_nohz_idle_balance), running rebalance_domains for each one that is due. From
// v4.17 the same walks decay the idle CPUs' blocked load (nohz_blocked.ts), and from v5.16 they
// also refresh nohz.next_balance when a CPU has gone NOHZ idle (NOHZ_NEXT_KICK).
import type { SchedCore } from "../core/api";
import { bump } from "../counters";
import { ERA_TRAITS, eraAtLeastFn } from "../features";
import type { Rq } from "../sched";
import { seenIdle } from "../core/idle_cpu";
import { SD_SHARE_PKG_RESOURCES } from "../topology/sched_domain";
import { cpuLoadUpdateIdle, updateIdleCpuLoad319, weightedCpuload } from "./cpu_load";
import { jiffiesAt } from "./lb/common";
import type { CpuIdleType } from "./lb/types";
import { nohzMisfitKick } from "./misfit";
import {
  NOHZ_BALANCE_KICK,
  NOHZ_KICK_MASK,
  NOHZ_NEXT_KICK,
  NOHZ_STATS_KICK,
  type NohzBlockedLoad,
  inNohzIdleMask,
} from "./nohz_blocked";

const atLeast516 = eraAtLeastFn("5.16");
const atLeast52 = eraAtLeastFn("5.2");

export class NohzIdleBalancer {
  /** nohz.next_balance (ns). */
  private nextBalance = 0;
  /** nohz_flags of the kicked idle load balancer (0: no kick pending). */
  private ilbFlags = 0;
  /**
   * nohz.needs_update (v5.16+, 7fd7a9e0caba): a CPU entered NOHZ idle since nohz.next_balance
   * was last computed, so the next kick carries NOHZ_NEXT_KICK.
   */
  private needsUpdate = false;

  constructor(
    private readonly k: SchedCore,
    private readonly hz: number,
    /** v4.17+ blocked load of idle CPUs (the model's 5.x eras); null before. */
    private readonly blocked: NohzBlockedLoad | null,
    /** 4.x: cpu_load_update_idle (v4.7+) rather than v3.19's update_idle_cpu_load. */
    private readonly cpuLoad47: boolean,
    /** The periodic balancer's rebalance_domains (balance.ts). */
    private readonly rebalanceDomains: (rq: Rq, idle: CpuIdleType) => void,
  ) {
    if (atLeast516(k.era))
      k.tickStopHooks.push(() => {
        this.needsUpdate = true; // nohz_balance_enter_idle
      });
  }

  /**
   * nohz_kick_needed / nohz_balancer_kick: a busy CPU's tick asks an idle CPU to balance on
   * behalf of all tickless idle CPUs when one is due and this CPU has work to give (2+ tasks,
   * or 4.x+: more than one busy CPU in its LLC). 2.6.29's owner-of-ILB tick is modelled the
   * same way: it balances idle CPUs whenever one is due.
   */
  kick(rq: Rq): void {
    const k = this.k;
    // "if (unlikely(rq->idle_balance)) return;": an idle CPU's own tick (v4.17+) kicks nobody
    if (rq.isIdle()) return;
    const ilb = this.findNewIlb();
    if (!ilb) return; // nohz.nr_cpus == 0, or no CPU of the mask idle
    // v4.17+: idle CPUs' blocked load to decay (nohz.has_blocked, nohz.next_blocked passed)
    let flags = this.blocked?.statsKickDue() ? NOHZ_STATS_KICK : 0;
    if (k.now >= this.nextBalance && this.balanceKickWanted(rq)) flags = NOHZ_KICK_MASK;
    if (this.needsUpdate) flags |= NOHZ_NEXT_KICK; // v5.16+
    if (flags !== 0) this.kickIlb(ilb, flags);
  }

  /**
   * find_new_ilb: the CPU to kick, read without the candidates' rq locks (idle_cpu() as the
   * wakeup path reads it, core/idle_cpu.ts). v3.3-v5.1: the first CPU of nohz.idle_cpus_mask, only
   * if idle_cpu() (786d6dc7aeb2, "sched, nohz: Clean up the find_new_ilb() using sched groups
   * nr_busy_cpus"); v5.2+: the first idle_cpu() of the mask (9b019acb72e4, "sched/nohz: Run NOHZ
   * idle load balancer on HK_FLAG_MISC CPUs", every CPU a housekeeping CPU here). 2.6.29's
   * owner-of-ILB scheme is modelled as the first CPU of the mask.
   */
  private findNewIlb(): Rq | undefined {
    const k = this.k;
    if (ERA_TRAITS[k.era].family === "2.6") return k.rqs.find(inNohzIdleMask);
    if (!atLeast52(k.era)) {
      const first = k.rqs.find(inNohzIdleMask);
      return first && seenIdle(k, first.cpu) ? first : undefined;
    }
    return k.rqs.find((rq) => inNohzIdleMask(rq) && seenIdle(k, rq.cpu));
  }

  /** The tests after nohz.next_balance: this CPU has work to give. */
  private balanceKickWanted(rq: Rq): boolean {
    const k = this.k;
    const asym = rq.nrRunning < 2 ? nohzMisfitKick(k, rq) : null; // misfit.ts
    if (asym === "skip") return false;
    if (ERA_TRAITS[k.era].family !== "2.6" && rq.nrRunning < 2 && asym !== "kick") {
      const llc = k.domains.sdLlc[rq.cpu];
      const busy =
        llc && llc.flags & SD_SHARE_PKG_RESOURCES
          ? llc.span.filter((c) => !inNohzIdleMask(k.rqs[c])).length // nr_busy_cpus
          : 1;
      if (busy <= 1) return false;
    }
    return true;
  }

  /**
   * kick_ilb(flags): the flags join those of a kick still pending (one IPI per kick), else an
   * IPI to the idle load balancer starts the pass.
   */
  private kickIlb(ilb: Rq, flags: number): void {
    const k = this.k;
    const pending = this.ilbFlags;
    this.ilbFlags |= flags;
    if (pending !== 0) return;
    const kind =
      flags & NOHZ_BALANCE_KICK
        ? "nohz_kick"
        : flags & NOHZ_STATS_KICK
          ? "nohz_stats_kick"
          : "nohz_next_kick";
    bump(k.counters.other, kind);
    k.sendIpi(ilb, () => {
      const f = this.ilbFlags;
      this.ilbFlags = 0;
      this.nohzIdleBalance(ilb, f);
    });
  }

  /**
   * _nohz_idle_balance(ilb, flags): for every idle CPU of the mask, its blocked load with
   * NOHZ_STATS_KICK (v4.17+, nohz_blocked.ts), then rebalance_domains(CPU_IDLE) if it is due
   * and NOHZ_BALANCE_KICK is set; nohz.next_balance follows the earliest next_balance seen.
   */
  private nohzIdleBalance(ilb: Rq, flags: number): void {
    const k = this.k;
    if (flags & NOHZ_NEXT_KICK) this.needsUpdate = false;
    const balance = (rq: Rq): void => {
      if (!(flags & NOHZ_BALANCE_KICK) || k.now < rq.nextBalance) return;
      // v3.19 update_idle_cpu_load / v4.8 cpu_load_update_idle, for a due CPU other than the
      // balancer itself, with weighted_cpuload (cfs.runnable_load_avg in both)
      if (ERA_TRAITS[k.era].family === "4.x" && rq !== ilb)
        (this.cpuLoad47 ? cpuLoadUpdateIdle : updateIdleCpuLoad319)(
          rq,
          weightedCpuload(k.lbRq(rq.cpu), k.era),
          jiffiesAt(k.now, this.hz),
        );
      const prev = k.thisCpu;
      k.thisCpu = ilb.cpu;
      this.rebalanceDomains(rq, "CPU_IDLE");
      k.thisCpu = prev;
    };
    const stats = flags & NOHZ_STATS_KICK ? this.blocked : null;
    stats?.statsPassBegin();
    let blocked = false;
    let next = Infinity;
    // "if (balance_cpu == this_cpu || !idle_cpu(balance_cpu)) continue;" (_nohz_idle_balance of
    // 4.x and 5.x; "if (!idle_cpu(balance_cpu))" in its later for_each_cpu_wrap walk): a CPU of
    // the mask that another CPU has claimed is skipped once the claim is visible at the ILB's
    // clock (core/idle_cpu.ts). 2.6.29's run_rebalance_domains has no such test.
    const idleTest = ERA_TRAITS[k.era].family !== "2.6";
    for (const rq of k.rqs) {
      if (!inNohzIdleMask(rq)) continue; // tested as the pass reaches it: moves change it
      if (idleTest && rq !== ilb && !seenIdle(k, rq.cpu)) continue;
      if (stats?.updateNohzStats(rq, stats.before513)) blocked = true;
      balance(rq);
      next = Math.min(next, rq.nextBalance);
    }
    stats?.statsPassEnd(blocked);
    this.nextBalance = next === Infinity ? k.now + 1e9 / this.hz : next;
  }

  /**
   * nohz_newidle_balance (5.x eras): a CPU going idle without a pull updates the blocked load of
   * the idle CPUs itself when a statistics pass is due (nohz_blocked.ts says when, per era).
   */
  newidleBalance(rq: Rq): void {
    if (!this.blocked?.newidleStatsDue(rq)) return;
    bump(this.k.counters.other, "nohz_newidle_stats");
    this.nohzIdleBalance(rq, NOHZ_STATS_KICK);
  }
}
