// The metrics each workload factory reports: name, unit and meaning, in one table. The API
// reference (the `workload` object's doc comments in index.ts) and docs/metrics.md
// (scripts/metrics-doc.ts) list them; test/workload/metrics.test.ts runs every factory and
// checks that what it reports is what this table says, and nothing else.

/** One metric a workload reports: its name (`<i>` stands for an index), unit and meaning. */
export interface MetricDoc {
  name: string;
  unit: string;
  what: string;
}

const m = (name: string, unit: string, what: string): MetricDoc => ({ name, unit, what });

const PER_S = "1/s";
const FRACTION = "fraction (0-1)";
const FLAG = "0 or 1";

/** The metrics of each `workload` factory, by factory name. */
export const WORKLOAD_METRICS: Readonly<Record<string, readonly MetricDoc[]>> = {
  stream: [
    m("<kernel>_mb_s", "MB/s", "all threads' rate, bytes as STREAM counts them (MB = 1e6 bytes)"),
    m("mb_s_thread<i>", "MB/s", "thread i's rate"),
    m("threads", "count", "threads"),
  ],
  cacheHog: [
    m("runs_per_s", PER_S, "runs of all copies per simulated second after warm-up"),
    m("run_time_s", "s", "mean time of one run of one copy"),
    m("runs", "count", "runs completed after warm-up"),
  ],
  replay: [
    m("replay_tasks", "count", "tasks of the trace replayed"),
    m("trace_span_ms", "ms", "time from the trace's first record to its last"),
    m(
      "replay_span_ms",
      "ms",
      "time until every replayed task had done its steps (the run's end if one had not)",
    ),
    m("replay_stretch", "ratio", "replay_span_ms / trace_span_ms"),
    m("replay_cpu_ms", "ms", "CPU time the recorded bursts ask for (work at capacity 1024)"),
    m(
      "replay_unfinished",
      "count",
      "tasks with steps left at the run's end (a closed replay that waits on a wakeup never issued)",
    ),
  ],
  hogs: [
    m("share_hog<i>", FRACTION, "hog i's share of the CPU time all hogs got after warm-up"),
    m("total_work_s", "s", "CPU time (work at capacity 1024) all hogs did after warm-up"),
  ],
  pingpong: [
    m("round_trips", "count", "round trips of all pairs after warm-up"),
    m("round_trips_per_s", PER_S, "round trips per simulated second, all pairs"),
    m("round_trip_us", "us", "mean time of one round trip, per pair"),
  ],
  sleepers: [
    m("cycles", "count", "bursts plus sleeps completed by all tasks after warm-up"),
    m("cycles_per_s", PER_S, "cycles per simulated second"),
  ],
  schedFair: [
    m("avg_loops", "loops", "mean over the intervals of the children's average loop count"),
    m("stddev_loops", "loops", "mean over the intervals of the loop counts' standard deviation"),
    m("cv_loops", "ratio", "mean over the intervals of stddev / avg (the published figure)"),
    m("intervals", "count", "intervals measured"),
  ],
  schbench: [
    m("lat_p<pct>", "us", "wakeup latency percentiles (p50, p75, p90, p95, p99, p99.5, p99.9)"),
    m("lat_max", "us", "largest wakeup latency"),
    m("samples", "count", "wakeups measured"),
    m(
      "xnode_wakeups_per_s",
      PER_S,
      "wakeups whose message thread and worker were on different nodes",
    ),
    m(
      "xnode_migrations_per_s",
      PER_S,
      "workers running on another node than in their previous round",
    ),
    m("same_node_frac", FRACTION, "share of wakeups with both threads on one node"),
    m(
      "idle_package_wake_frac",
      FRACTION,
      "share of wakeups whose target package had every CPU idle",
    ),
  ],
  oltpRtMix: [
    m("throughput_tps", PER_S, "transactions per second of the fair transaction tasks"),
    m(
      "push_rq_locks_per_s",
      PER_S,
      "rq locks taken on the RT push path (targets and post_schedule's own)",
    ),
    m("push_target_locks_per_s", PER_S, "push targets' rq locks"),
    m("pull_rq_locks_per_s", PER_S, "rq locks taken by RT pulls"),
    m("wakeup_rq_locks_per_s", PER_S, "rq locks taken by wakeups"),
    m("rq_locks_per_s", PER_S, "rq locks taken on every path"),
    m("rq_lock_wait_us_per_s", "us/s", "time spent spinning on rq locks, all paths"),
    m("push_lock_wait_us_per_s", "us/s", "spin on the push path's rq locks"),
    m("pull_lock_wait_us_per_s", "us/s", "spin on the pull path's rq locks"),
    m("wakeup_lock_wait_us_per_s", "us/s", "spin on the wakeup path's rq locks"),
    m("resched_ipis_per_s", PER_S, "reschedule IPIs"),
    m("rt_double_lock_dropped_per_s", PER_S, "double_lock_balance calls that dropped the rq lock"),
    m("rt_wakeup_latency_p50_us", "us", "median wakeup latency of the equal-priority RT wakeups"),
    m("rt_wakeup_latency_p99_us", "us", "p99 wakeup latency of the equal-priority RT wakeups"),
    m("rt_wakeup_latency_all_p99_us", "us", "p99 wakeup latency of every RT wakeup"),
    m(
      "equal_prio_wakeups_per_s",
      PER_S,
      "RT wakeups onto a CPU running an RT task of equal priority",
    ),
    m("rt_pushes_per_s", PER_S, "RT tasks pushed"),
    m("rt_pulls_per_s", PER_S, "RT tasks pulled"),
    m("context_switches_per_s", PER_S, "context switches, all CPUs"),
    m("rt_util", FRACTION, "share of the CPU time the RT threads used"),
  ],
  sysbenchCpu: [
    m("events_per_s", PER_S, "events per second (sysbench's 'events per second')"),
    m("total_time_s", "s", "total time"),
    m("events", "count", "total number of events"),
    m("lat_min_ms", "ms", "smallest event latency"),
    m("lat_avg_ms", "ms", "mean event latency"),
    m("lat_max_ms", "ms", "largest event latency"),
    m("lat_p<percentile>_ms", "ms", "event latency percentile (--percentile, default 95)"),
    m("lat_sum_ms", "ms", "sum of event latencies"),
    m("fairness_events_avg", "count", "events per thread, mean"),
    m("fairness_events_stddev", "count", "events per thread, standard deviation"),
    m("fairness_time_avg_s", "s", "execution time per thread, mean"),
    m("fairness_time_stddev_s", "s", "execution time per thread, standard deviation"),
    m("finished", FLAG, "1 when every thread stopped within the simulated time"),
  ],
  perfBenchPipe: [
    m("total_time_s", "s", "total time (perf's 'Total time')"),
    m("usecs_per_op", "us", "time per round trip (total usec / loops)"),
    m("ops_per_sec", PER_S, "round trips per second"),
    m("loops", "count", "loops asked for"),
    m("loops_done", "count", "loops completed within the simulated time"),
    m("finished", FLAG, "1 when both tasks completed their loops"),
  ],
  stressCpu: [
    m("bogo_ops", "bogo ops", "bogo operations of all instances"),
    m("real_time_s", "s", "wall time per instance (mean)"),
    m("usr_time_s", "s", "CPU time of all instances"),
    m("sys_time_s", "s", "system time (0: the model does not split user and system time)"),
    m("bogo_ops_per_s_real", "bogo ops/s", "bogo ops per second of wall time"),
    m("bogo_ops_per_s_cpu", "bogo ops/s", "bogo ops per second of CPU time"),
    m("cpu_used_per_instance_pct", "%", "CPU used per instance"),
    m("instances", "count", "instances run"),
    m("load_w<i>", "%", "achieved load of instance i (share of its wall time on a CPU)"),
    m("finished", FLAG, "1 when every instance stopped within the simulated time"),
  ],
  rtApp: [
    m("<thread>-<i>.loops", "count", "loops done by instance i of a thread"),
    m("<thread>-<i>.wu_lat_avg_us", "us", "mean wakeup latency of the instance"),
    m("<thread>-<i>.wu_lat_max_us", "us", "largest wakeup latency of the instance"),
    m("<thread>-<i>.slack_min_us", "us", "smallest slack of a timer period (negative: missed)"),
    m("<thread>-<i>.period_avg_us", "us", "mean period of the instance's loops"),
    m("wu_lat_avg_us", "us", "mean wakeup latency, all threads"),
    m("wu_lat_max_us", "us", "largest wakeup latency, all threads"),
    m("missed_timers", "count", "log rows whose slack was negative"),
  ],
  netperfUdpStream: [
    m(
      "throughput_mbps",
      "Mbit/s (10^6 bit/s)",
      "the send line: messages okay x bytes x 8 / time (the headline)",
    ),
    m("recv_throughput_mbps", "Mbit/s (10^6 bit/s)", "the receive line"),
    m("messages_ok", "count", "messages sent"),
    m("messages_received", "count", "messages received"),
    m("messages_dropped", "count", "messages dropped (receive buffer full)"),
    m("send_errors", "count", "sends that failed (ENOBUFS)"),
    m("active_balances_per_s", PER_S, "active-balance migrations of the pair"),
    m("migrations_per_s", PER_S, "migrations of the pair"),
    m("pair_shares_l2_fraction", FRACTION, "share of time both tasks sit on CPUs sharing a cache"),
    m(
      "split_episodes_per_s",
      PER_S,
      "episodes with the pair on CPUs sharing no cache (1 ms samples)",
    ),
    m("split_ms_p50", "ms", "median length of the split episodes that ended (0: none)"),
    m("split_ms_p90", "ms", "90th percentile of the split episodes' lengths (0: none)"),
  ],
  netperfTcpRr: [
    m(
      "trans_per_s",
      PER_S,
      "transactions per second ('Trans. Rate per sec'), summed over the pairs",
    ),
    m("transactions", "count", "transactions after warm-up, all pairs"),
    m("elapsed_s", "s", "elapsed time of a netperf (mean over the pairs)"),
    m("round_trip_us", "us", "1e6 / rate, mean over the pairs"),
    m("migrations_per_s", PER_S, "migrations of all tasks"),
    m("same_cpu_fraction", FRACTION, "share of transactions whose two sides ran on one CPU"),
    m("send_socket_bytes", "bytes", "send socket size netperf reads back (tcp_wmem[1])"),
    m("recv_socket_bytes", "bytes", "receive socket size (tcp_rmem[1] of the era)"),
    m("pairs", "count", "concurrent pairs (reported when more than one)"),
  ],
  unixbenchContext1: [
    m("score", "index", "UnixBench index of the combined passes (lps / 4000 x 10)"),
    m("lps", "loops/s", "loops per second over all copies, combined as UnixBench does"),
    m("round_trip_us", "us", "mean round trip per copy"),
    m("wakelist_wakeups_per_s", PER_S, "wakeups queued on a wakelist"),
    m("ipis_per_s", PER_S, "IPIs sent"),
    m(
      "remote_rq_lock_waits_per_s",
      PER_S,
      "acquisitions of another CPU's rq lock that had to spin",
    ),
    m("on_cpu_spins_per_s", PER_S, "wakeups that spun on p->on_cpu"),
    m("local_wakeup_share", FRACTION, "wakeups whose wakee is enqueued on the waking CPU"),
    m("rq_lock_spin_share", FRACTION, "time spinning for rq locks, all paths, over the CPUs' time"),
    m("idle_share", FRACTION, "idle time over the CPUs' time"),
  ],
  threadBurst: [
    m("cpu_w<i>", "CPU", "the CPU worker i first ran on after the release"),
    m("cpus_at_release", "count", "distinct CPUs the workers first ran on after the release"),
    m("max_stacked", "count", "most workers that first ran on one CPU"),
    m("spread_ms", "ms", "release until every worker sat on a CPU of its own (-1: never)"),
    m("migrations_after_release", "count", "the workers' CPU changes after their first run"),
  ],
  hackbench: [
    m("total_time_s", "s", "what perf prints: start signal to the last reap, whole usec"),
    m("finished", FLAG, "1 when every child was reaped within the simulated time"),
    m("messages", "count", "messages received in all"),
    m("tasks", "count", "senders and receivers"),
    m("writer_sleeps", "count", "writes that found the send buffer or pipe full and slept"),
    m("writer_wakeups", "count", "writers woken by readers making room"),
    m("writer_spurious_wakeups", "count", "woken writers that found no room and slept again"),
    m("context_switches_per_s", PER_S, "context switches over the timed part"),
    m("wakeup_preemptions_per_s", PER_S, "wakeup preemptions over the timed part"),
  ],
};

/** Whether `metric` is documented by `doc` (`<...>` matches any text). */
export function metricMatches(doc: MetricDoc, metric: string): boolean {
  const re = new RegExp(
    `^${doc.name
      .split(/<[^>]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".+")}$`,
  );
  return re.test(metric);
}

/** docs/metrics.md: every factory's metrics with their units (scripts/metrics-doc.ts). */
export function metricsMarkdown(): string {
  const out = [
    "# Workload metrics",
    "",
    "Generated by `node --import tsx scripts/metrics-doc.ts` from `src/workload/metrics.ts`; a test",
    "runs every factory and fails when what it reports differs from this table. `<i>` stands for an",
    "index and `<pct>`, `<percentile>`, `<thread>` for the value named. Times follow the API's rule",
    "([architecture.md](architecture.md#units)): the unit is in the name or in the unit column.",
    "",
  ];
  for (const [factory, metrics] of Object.entries(WORKLOAD_METRICS)) {
    out.push(`## workload.${factory}`, "", "| metric | unit | what |", "|---|---|---|");
    for (const d of metrics) out.push(`| \`${d.name}\` | ${d.unit} | ${d.what} |`);
    out.push("");
  }
  return out.join("\n");
}
