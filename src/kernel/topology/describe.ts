// The readable dump of a sched-domain tree, in the spirit of sched_domain_debug() and
// /proc/schedstat: `schedlab domains` and describeDomains() print it.
import { formatCpuList } from "../../machine/sysfs";
import { type Era, eraAtLeast } from "../features";
import {
  SD_LOAD_BALANCE,
  SD_SHARE_PKG_RESOURCES,
  sdFlagNames,
  type DomainTree,
} from "./sched_domain";

/** A cpulist string as the kernel prints masks ("0-3,8,10-11"); machine/sysfs.ts owns it. */
export const cpulist = formatCpuList;

/**
 * The flag names an era's kernel prints. The model keeps SD_LOAD_BALANCE on every domain of every
 * era, but v5.8 removed the flag (36c5bdc43870 "sched/topology: Kill SD_LOAD_BALANCE": every
 * domain balances), and v6.9 renamed SD_SHARE_PKG_RESOURCES to SD_SHARE_LLC (54de44274703).
 */
function flagNamesFor(flags: number, era: Era | undefined): string[] {
  if (!era) return sdFlagNames(flags);
  const shown = eraAtLeast(era, "5.8") ? flags & ~SD_LOAD_BALANCE : flags;
  const names = sdFlagNames(shown);
  if (!eraAtLeast(era, "6.9")) return names;
  const llc = sdFlagNames(SD_SHARE_PKG_RESOURCES)[0];
  return names.map((n) => (n === llc ? "SD_SHARE_LLC" : n));
}

/**
 * Per CPU, each domain level with span, parameters, flags by name and groups with capacity,
 * in the spirit of sched_domain_debug() and /proc/schedstat. With `era`, fields and flag names
 * are the ones that era's kernel has: no `*_idx` from v5.3 (b21904d4a87f "sched/core: Remove
 * sd->*_idx", with rq->cpu_load[]), no SD_LOAD_BALANCE from v5.8, SD_SHARE_LLC from v6.9.
 */
export function describeDomains(tree: DomainTree, era?: Era): string {
  const lines: string[] = [];
  const on = new Set(tree.online);
  for (let cpu = 0; cpu < tree.domains.length; cpu++) {
    if (!on.has(cpu)) {
      lines.push(`cpu${cpu}: offline`);
      continue;
    }
    const numa = tree.sdNuma[cpu];
    lines.push(
      `cpu${cpu}: sd_llc_size=${tree.sdLlcSize[cpu]} sd_llc_id=${tree.sdLlcId[cpu]} sd_numa=${numa ? numa.level : "none"}`,
    );
    const doms = tree.domains[cpu];
    if (doms.length === 0) lines.push("  attaching NULL sched-domain");
    doms.forEach((sd, i) => {
      lines.push(`  domain-${i}: ${sd.level} span=${cpulist(sd.span)} weight=${sd.spanWeight}`);
      lines.push(
        `    interval=${sd.minInterval}..${sd.maxInterval}ms balance_interval=${sd.balanceInterval}ms busy_factor=${sd.busyFactor} ` +
          `imbalance_pct=${sd.imbalancePct} cache_nice_tries=${sd.cacheNiceTries}` +
          (era && eraAtLeast(era, "5.3")
            ? ""
            : ` idx(busy/idle/newidle/wake/forkexec)=${sd.busyIdx}/${sd.idleIdx}/${sd.newidleIdx}/${sd.wakeIdx}/${sd.forkexecIdx}`) +
          (sd.imbNumaNr ? ` imb_numa_nr=${sd.imbNumaNr}` : ""),
      );
      lines.push(`    flags: ${flagNamesFor(sd.flags, era).join(" ") || "(none)"}`);
      lines.push(
        `    groups: ${sd.groups.map((g) => `{${cpulist(g.cpus)}} cap=${g.capacity}`).join(", ")}`,
      );
    });
  }
  return lines.join("\n");
}
