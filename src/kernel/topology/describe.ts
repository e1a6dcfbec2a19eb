// The readable dump of a sched-domain tree, in the spirit of sched_domain_debug() and
// /proc/schedstat: `schedlab domains` and describeDomains() print it.
import { formatCpuList } from "../../machine/sysfs";
import { sdFlagNames, type DomainTree } from "./sched_domain";

/** A cpulist string as the kernel prints masks ("0-3,8,10-11"); machine/sysfs.ts owns it. */
export const cpulist = formatCpuList;

/**
 * Per CPU, each domain level with span, parameters, flags by name and groups with capacity,
 * in the spirit of sched_domain_debug() and /proc/schedstat.
 */
export function describeDomains(tree: DomainTree): string {
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
          `imbalance_pct=${sd.imbalancePct} cache_nice_tries=${sd.cacheNiceTries} ` +
          `idx(busy/idle/newidle/wake/forkexec)=${sd.busyIdx}/${sd.idleIdx}/${sd.newidleIdx}/${sd.wakeIdx}/${sd.forkexecIdx}` +
          (sd.imbNumaNr ? ` imb_numa_nr=${sd.imbNumaNr}` : ""),
      );
      lines.push(`    flags: ${sdFlagNames(sd.flags).join(" ") || "(none)"}`);
      lines.push(
        `    groups: ${sd.groups.map((g) => `{${cpulist(g.cpus)}} cap=${g.capacity}`).join(", ")}`,
      );
    });
  }
  return lines.join("\n");
}
