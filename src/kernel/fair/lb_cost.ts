// The time a load_balance pass takes, and the per-domain record newly-idle balancing keeps of it
// (sd->max_newidle_lb_cost). A pass's modelled cost is the statistics scan: update_sd_lb_stats
// calls update_sg_lb_stats for every group of the domain, which reads the runqueue and PELT
// fields of every active CPU of the group (v2.6.29 find_busiest_group likewise walks every CPU
// of every group). Each CPU's fields are lines that CPU keeps writing, so each read is a
// cache-line transfer from it: costs.cacheLineNs at the share level between the two CPUs. The rq
// locks taken to move tasks are charged where they are taken (lockRq).
import type { SchedCore } from "../core/api";
import type { SchedDomain } from "../topology/sched_domain";

/**
 * Cache lines of one CPU's runqueue that update_sg_lb_stats reads (v5.19/v6.19 fair.c):
 * rq->nr_running (the head of struct rq); cfs_rq->h_nr_running with the cfs_rq's load;
 * cfs_rq->avg, a ____cacheline_aligned struct sched_avg holding load_avg, runnable_avg,
 * util_avg and util_est (cpu_load, cpu_runnable, cpu_util_cfs); rq->curr and rq->cpu_capacity
 * (idle_cpu, capacity_of), counted as one line. The layout varies with the config, so 4 is an
 * estimate (2.6.29 and 4.x read rq->load, cpu_load[] and nr_running: of the same order).
 */
export const LB_RQ_LINES = 4;

/**
 * The scan of one load_balance pass of `sd` run on `readerCpu`: LB_RQ_LINES cache-line
 * transfers from each CPU in `cpus` (the domain's active CPUs), one after the other. Charging
 * them serially ignores the overlap of independent misses an out-of-order core can get, so this
 * is the upper end of the scan's cost.
 */
export function lbScanCostNs(k: SchedCore, cpus: readonly number[], readerCpu: number): number {
  let ns = 0;
  for (let i = 0; i < cpus.length; i++) ns += k.cache.cacheLineNs(cpus[i], readerCpu);
  return ns * LB_RQ_LINES;
}

/** Memoised lbScanCostNs over a domain's whole span, per reading CPU (the common case). */
export class LbScanCosts {
  private readonly bySd = new WeakMap<SchedDomain, Float64Array>();
  constructor(private readonly k: SchedCore) {}

  /** The cost of scanning `sd` from `readerCpu`; `active` when part of the span is offline. */
  get(sd: SchedDomain, readerCpu: number, active: readonly number[] | null): number {
    if (active) return lbScanCostNs(this.k, active, readerCpu);
    let row = this.bySd.get(sd);
    if (!row) {
      row = new Float64Array(this.k.rqs.length).fill(-1);
      this.bySd.set(sd, row);
    }
    if (row[readerCpu] < 0) row[readerCpu] = lbScanCostNs(this.k, sd.span, readerCpu);
    return row[readerCpu];
  }
}

/**
 * sd->max_newidle_lb_cost and its decay, per era. v3.11 ("sched: Consider max cost of idle
 * balance for idle balance decision", "sched/balancing: Periodically decay max cost of idle
 * balance") to v5.15: newidle
 * balance raises the maximum to a pass's cost; rebalance_domains decays it by 253/256 once a
 * second (sd->next_decay_max_lb_cost). v5.16+ (e60b56e46b38, with LB_NEWIDLE_COST here):
 * update_newidle_cost(sd, cost) raises it or, a second after the last change, decays it, called
 * with cost 0 from rebalance_domains. v2.6.29 keeps no such record.
 */
export class NewidleCost {
  /** jiffies: next_decay_max_lb_cost (to v5.15) or last_decay_max_lb_cost (v5.16+). */
  private readonly decayAt = new WeakMap<SchedDomain, number>();
  constructor(private readonly hz: number) {}

  /** update_newidle_cost (v5.16+): true when it decayed (need_decay). */
  update(sd: SchedDomain, cost: number, jiffies: number): boolean {
    if (cost > sd.maxNewidleLbCost) {
      sd.maxNewidleLbCost = cost;
      this.decayAt.set(sd, jiffies);
    } else if (jiffies > (this.decayAt.get(sd) ?? 0) + this.hz) {
      sd.maxNewidleLbCost = (sd.maxNewidleLbCost * 253) / 256;
      this.decayAt.set(sd, jiffies);
      return true;
    }
    return false;
  }

  /** newidle_balance to v5.15: keep the largest pass. */
  raise(sd: SchedDomain, cost: number): void {
    if (cost > sd.maxNewidleLbCost) sd.maxNewidleLbCost = cost;
  }

  /** rebalance_domains to v5.15: decay ~1% once a second; true when it did (need_decay). */
  decayPeriodic(sd: SchedDomain, jiffies: number): boolean {
    if (jiffies <= (this.decayAt.get(sd) ?? 0)) return false;
    sd.maxNewidleLbCost = (sd.maxNewidleLbCost * 253) / 256;
    this.decayAt.set(sd, jiffies + this.hz);
    return true;
  }
}
