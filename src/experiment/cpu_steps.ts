// The argument checks of Experiment.offline and Experiment.hotplug: which CPUs, when, and how.

/** Options of Experiment.offline. */
export interface OfflineOptions {
  /** true: the CPUs are not brought up at boot (the kernel sizes itself without them). */
  atBoot: boolean;
}

/**
 * The offline list offline(...args) gives: the CPUs of `args` (optionally ending with
 * { atBoot }) added to the right list, checked against the machine's CPU count and the other list.
 */
export function offlineList(
  args: ReadonlyArray<number | OfflineOptions>,
  ncpus: number,
  current: { offline: readonly number[]; offlineAtBoot: readonly number[] },
): { key: "offline" | "offlineAtBoot"; list: number[] } {
  let atBoot = false;
  const last = args[args.length - 1];
  const cpus = args.slice();
  if (typeof last === "object" && last !== null) {
    cpus.pop();
    const keys = Object.keys(last);
    if (keys.some((key) => key !== "atBoot") || typeof last.atBoot !== "boolean")
      throw new Error(
        `offline: options must be { atBoot: true | false } (got ${JSON.stringify(last)})`,
      );
    atBoot = last.atBoot;
  }
  const key = atBoot ? "offlineAtBoot" : "offline";
  const list = [...current[key]];
  for (const c of cpus) {
    if (typeof c !== "number" || !Number.isInteger(c) || c < 0 || c >= ncpus) {
      throw new Error(
        `offline: cpu must be an integer from 0 to ${ncpus - 1} (got ${JSON.stringify(c)})`,
      );
    }
    if (c === 0)
      throw new Error("offline: cpu0 cannot be taken offline (as on x86 without cpu0 hotplug)");
    const other = atBoot ? current.offline : current.offlineAtBoot;
    if (other.includes(c))
      throw new Error(
        `offline: cpu${c} is already offline ${atBoot ? "after boot" : "at boot"}; pick one`,
      );
    if (!list.includes(c)) list.push(c);
  }
  list.sort((a, b) => a - b);
  return { key, list };
}

/** A hotplug event from hotplug(at, cpu, state), checked. */
export function hotplugEvent(
  at: number,
  cpu: number,
  state: "offline" | "online",
  ncpus: number,
): Readonly<{ atNs: number; cpu: number; online: boolean }> {
  if (!(typeof at === "number" && at >= 0 && Number.isFinite(at)))
    throw new Error(`hotplug: at must be a number of seconds >= 0 (got ${at})`);
  if (!Number.isInteger(cpu) || cpu < 1 || cpu >= ncpus)
    throw new Error(`hotplug: cpu must be an integer from 1 to ${ncpus - 1} (got ${cpu})`);
  if (state !== "offline" && state !== "online")
    throw new Error(`hotplug: state must be "offline" or "online" (got ${JSON.stringify(state)})`);
  return Object.freeze({ atNs: Math.round(at * 1e9), cpu, online: state === "online" });
}
