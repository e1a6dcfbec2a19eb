// netperf UDP_STREAM over loopback (netperf 2.x, src/nettest_bsd.c send_udp_stream /
// recv_udp_stream). netperf loops sendto() of -m bytes without waiting for anything; netserver
// loops recv(). Over loopback the whole path of one datagram runs in the sender's sendto():
// udp_sendmsg -> ip_append_data (copy_from_user into the skb) -> ip_local_out -> loopback_xmit
// -> netif_rx, and the NET_RX softirq run at local_bh_enable on the same CPU: ip_rcv ->
// udp_rcv -> __udp_queue_rcv_skb, which drops the datagram when the receive buffer is full
// (UDP_MIB_RCVBUFERRORS) and otherwise queues it and calls sk_data_ready
// (sock_def_readable: wake_up_interruptible_sync_poll, a WF_SYNC wakeup of netserver).
// loopback_xmit orphans the skb, so netperf's send buffer never fills (no ENOBUFS).
// net/ipv4/udp.c, net/ipv4/ip_output.c, drivers/net/loopback.c, net/core/sock.c, v4.8.
//
// What the payload costs, and why placement matters. Without MSG_MORE, __ip_append_data (v4.8)
// allocates one linear skb for the whole datagram (alloclen = fraglen; paged skbs for UDP came in
// 5.14): sock_alloc_send_skb -> __alloc_skb -> kmalloc of ~66 KB, above SLUB's largest cache, so
// kmalloc_large takes an order-5 block (128 KB) from the buddy allocator; netserver's kfree gives
// it back (order > 0 bypasses the per-CPU lists), and the allocator hands out the most recently
// freed block first. So netperf copies (copy_from_user) into the lines netserver last read, and
// netserver copies (skb_copy_datagram_msg) from wherever netperf's CPU wrote them. Both copies
// are priced with the machine's copy figures at the distance between the two CPUs
// (cache.copyNs). The skb is charged to the receive buffer at its truesize (~128 KB), and
// __sock_queue_rcv_skb drops a datagram when sk_rmem_alloc is already >= sk_rcvbuf. The cache
// lines both sides write per datagram (the receive queue and sk_rmem_alloc, the sk_buff itself,
// the zone lock and free list) cost one line transfer each at their distance (costs.cacheLineNs).
import { run, wait, wake } from "../kernel/ops";
import type { Task, TaskApi } from "../kernel/sched";
import { confidenceInterval } from "../analysis/stats";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber, runLength } from "./workload";

/** UDP_LENGTH_MAX: 65535 - 20 (IP header) - 8 (UDP header); netperf's default -m for UDP. */
export const UDP_LENGTH_MAX = 65507;
/** net.core.rmem_default / wmem_default of a 4.8 kernel (SK_RMEM_MAX, 212992 bytes). */
export const SOCKET_BUFFER_DEFAULT = 212992;

/**
 * estimate: sender-side kernel work of one datagram besides the payload copy, at 3 GHz: the
 * sendto entry, udp_sendmsg (route lookup for an unconnected socket, ip_make_skb /
 * ip_append_data allocating the linear skb), ip_local_out, loopback_xmit,
 * netif_rx and the softirq's ip_rcv / udp_rcv / socket lookup / queueing: several thousand
 * instructions, taken as 2 us. Not derived from any throughput.
 */
export const NETPERF_TX_STACK_NS = 2000;
/**
 * estimate: receiver-side kernel work of one datagram besides the payload copy: the recvfrom
 * entry, __skb_recv_datagram, and freeing the skb (skb_free_datagram_locked),
 * taken as 1 us.
 */
export const NETPERF_RX_STACK_NS = 1000;

/** SKB_DATA_ALIGN(sizeof(struct sk_buff)) and of struct skb_shared_info on x86_64 4.8 (bytes). */
export const SK_BUFF_BYTES = 256;
export const SHINFO_BYTES = 320;
const PAGE_SIZE = 4096;
/** SLUB's largest kmalloc cache in 4.8 (KMALLOC_SHIFT_HIGH = PAGE_SHIFT + 1). */
const KMALLOC_MAX_CACHE_SIZE = 2 * PAGE_SIZE;

/**
 * skb->truesize of one datagram of `bytes` sent over loopback (v4.8): __alloc_skb of
 * alloclen = bytes + 28 (IP and UDP headers) + 16 (LL_RESERVED_SPACE of lo) + 15, data aligned to
 * 64 bytes plus skb_shared_info, then truesize = SKB_TRUESIZE(ksize(data) - shared info): a
 * kmalloc cache size (powers of two) up to 8 KB, above it a whole page block (kmalloc_large).
 */
export function skbTruesize(bytes: number): number {
  const data = Math.ceil((bytes + 28 + 16 + 15) / 64) * 64 + SHINFO_BYTES;
  const ksize =
    data <= KMALLOC_MAX_CACHE_SIZE
      ? 2 ** Math.ceil(Math.log2(data))
      : PAGE_SIZE * 2 ** Math.ceil(Math.log2(data / PAGE_SIZE));
  return ksize + SK_BUFF_BYTES;
}

/**
 * estimate: cache lines both sides write for every datagram: the receive queue (lock and list
 * head) and sk_rmem_alloc in struct sock (2), the sk_buff written by netperf's CPU and read and
 * freed by netserver's (256 bytes: 4), the zone lock and free_area list of the order-5 block (2).
 */
export const NETPERF_SHARED_LINES = { socket: 2, skb: 4, zone: 2 } as const;

/** Parameters of workload.netperfUdpStream (netperf's own options where there is one). */
export interface NetperfUdpStreamParams {
  /** -m: bytes per send (default UDP_LENGTH_MAX, 65507). */
  messageBytes?: number;
  /** -s/-S: socket buffer bytes, send and receive (default 212992). */
  socketBufferBytes?: number;
  /** -l: test length, seconds (default 60). */
  seconds?: number;
  /** Seconds at the start not counted (default 0). */
  warmupSeconds?: number;
  /** -T lcpu,rcpu: bind netperf and netserver to these CPUs (default: unbound). */
  bind?: [number, number];
}

const ACCEPTED = ["messageBytes", "socketBufferBytes", "seconds", "warmupSeconds", "bind"] as const;

/** One payload buffer (a datagram's skb data block) and the CPU whose cache last touched it. */
interface PayloadBuf {
  lastCpu: number;
}

/**
 * netperf UDP_STREAM over loopback: netperf sends, netserver receives, both started by the
 * harness (netserver first, then netperf, as a script does). Metrics: `throughput_mbps` (the
 * send line: messages okay x bytes x 8 / time, 10^6 bit/s; the headline figure),
 * `recv_throughput_mbps` (the receive line), `messages_ok`, `messages_received`,
 * `messages_dropped` (receive buffer full), `send_errors` (ENOBUFS: none over loopback, where
 * loopback_xmit orphans the skb and so returns its send-buffer charge at once), `active_balances_per_s`,
 * `migrations_per_s` (all migrations of the pair), `pair_shares_l2_fraction` (share of time both
 * tasks sit on CPUs sharing a cache: an L2, or an L3 where that is the LLC). Series: `pair_cpus` ([t s, netperf CPU, netserver
 * CPU] at each change), `active_balance_at` (times of active-balance migrations, s),
 * `nr_balance_failed` ([t s, cpu, value] of each CPU's top-level domain at each change, 1 ms
 * resolution).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const np = workload.netperfUdpStream({ seconds: 0.05 });
 * const res = await topology("xeon-x5472").era("4.8").workload(np).run();
 * console.log(res.mean("throughput_mbps", "baseline") > 1000);
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function netperfUdpStream(params: NetperfUdpStreamParams = {}): Workload {
  const where = "workload.netperfUdpStream";
  requireKnownKeys(where, params, ACCEPTED);
  const bytes = requireInt(
    where,
    "messageBytes",
    params.messageBytes ?? UDP_LENGTH_MAX,
    1,
    UDP_LENGTH_MAX,
  );
  const rcvbuf = requireInt(
    where,
    "socketBufferBytes",
    params.socketBufferBytes ?? SOCKET_BUFFER_DEFAULT,
    1,
  );
  const seconds = requireNumber(where, "seconds", params.seconds ?? 60, 0, false);
  const bind = requireBind(where, params.bind);
  const len = runLength(where, { seconds, warmupSeconds: params.warmupSeconds }, seconds);
  return {
    name: "netperf-udp-stream",
    params: {
      messageBytes: bytes,
      socketBufferBytes: rcvbuf,
      seconds,
      warmupSeconds: params.warmupSeconds ?? 0,
    },
    ...len,
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const costs = k.machine.costs;
      const counting = () => k.now >= ctx.warmupNs;
      // netperf's send and receive rings: send_width = lss_size / send_size + 1 buffers
      // (nettest_bsd.c), all touched in turn: the working set a migrated task refills.
      const ringBytes = (Math.floor(rcvbuf / bytes) + 1) * bytes;
      // The socket receive queue: the buffer each queued datagram carries.
      const queue: PayloadBuf[] = [];
      let rmemAlloc = 0;
      // Freed payload buffers, most recent last (the page allocator's LIFO free lists).
      const free: PayloadBuf[] = [];
      const truesize = skbTruesize(bytes);
      // The CPU that last wrote the socket's shared lines and the zone's (-1: nobody yet).
      let sockCpu = -1;
      let zoneCpu = -1;
      const lines = (n: number, from: number, cpu: number) =>
        from < 0 || from === cpu ? 0 : n * k.cache.cacheLineNs(from, cpu);
      let receiverWaiting = false;
      let ok = 0;
      let received = 0;
      let dropped = 0;
      let sender: Task | null = null;
      let receiver: Task | null = null;
      const pairCpus: number[] = [];
      const activeAt: number[] = [];
      const failedSeries: number[] = [];

      // Where the bytes of a buffer come from: another CPU's cache, or memory for a new page.
      const fillNs = (buf: PayloadBuf | undefined, cpu: number) =>
        buf ? k.cache.copyNs(bytes, buf.lastCpu, cpu) : bytes / costs.memoryBytesPerNs;

      function* netperf(api: TaskApi) {
        for (;;) {
          const cpu = api.cpu();
          // sendto(): kmalloc_large takes the most recently freed block (zone lock, free list),
          // copy_from_user writes the payload into it; the softirq queues it on the socket
          const buf = free.pop();
          const shared =
            lines(NETPERF_SHARED_LINES.zone, zoneCpu, cpu) +
            lines(NETPERF_SHARED_LINES.socket, sockCpu, cpu);
          zoneCpu = cpu;
          sockCpu = cpu;
          yield run(costs.syscallNs + NETPERF_TX_STACK_NS + fillNs(buf, cpu) + shared);
          const at = api.cpu(); // the softirq runs where the send finished
          const b: PayloadBuf = { lastCpu: at };
          if (counting()) ok++;
          // __sock_queue_rcv_skb: drop when sk_rmem_alloc is already >= sk_rcvbuf (freed here)
          if (rmemAlloc >= rcvbuf) {
            if (counting()) dropped++;
            free.push(b);
            continue;
          }
          rmemAlloc += truesize;
          queue.push(b);
          if (receiverWaiting) {
            receiverWaiting = false;
            yield wake(receiver!.pid, true); // sock_def_readable: a sync wakeup
          }
        }
      }

      function* netserver(api: TaskApi) {
        for (;;) {
          while (queue.length === 0) {
            receiverWaiting = true;
            yield wait();
          }
          const b = queue.shift()!;
          const cpu = api.cpu();
          // recv(): dequeue (socket lines), skb_copy_datagram_msg from where netperf's CPU wrote
          // the payload, then kfree of the block (zone lock, free list) and of the sk_buff
          const shared =
            lines(NETPERF_SHARED_LINES.socket, sockCpu, cpu) +
            lines(NETPERF_SHARED_LINES.skb, b.lastCpu, cpu) +
            lines(NETPERF_SHARED_LINES.zone, zoneCpu, cpu);
          sockCpu = cpu;
          zoneCpu = cpu;
          yield run(
            costs.syscallNs + NETPERF_RX_STACK_NS + k.cache.copyNs(bytes, b.lastCpu, cpu) + shared,
          );
          // skb_free_datagram_locked: sk_rmem_alloc gives back the truesize
          rmemAlloc -= truesize;
          b.lastCpu = api.cpu();
          free.push(b);
          if (counting()) received++;
        }
      }

      // Sampling every 1 ms: pair placement, active balances, nr_balance_failed (cheap events).
      const SAMPLE_NS = 1_000_000;
      let sharedNs = 0;
      let sampledNs = 0;
      // Split episodes: from the first sample with the pair on CPUs that share no cache to the
      // first one with them together again (1 ms resolution); an episode open at the end is
      // counted but has no duration.
      let splitFrom = -1;
      let splitsStarted = 0;
      const splitMs: number[] = [];
      let lastS = -1;
      let lastR = -1;
      let migBase = 0;
      let activeBase = 0;
      let lastActive = 0;
      const lastFailed = new Int32Array(k.rqs.length).fill(-1);
      const activeMoves = () => k.counters.migrations.active_balance ?? 0;
      const allMigrations = () => Object.values(k.counters.migrations).reduce((a, b) => a + b, 0);
      const sample = () => {
        if (sender && receiver) {
          const s = sender.cpu;
          const r = receiver.cpu;
          if (s !== lastS || r !== lastR) {
            pairCpus.push(k.now / 1e9, s, r);
            lastS = s;
            lastR = r;
          }
          if (counting()) {
            sampledNs += SAMPLE_NS;
            const lvl = k.cache.level(s, r);
            if (
              lvl === "same_cpu" ||
              lvl === "same_core" ||
              lvl === "shared_l2" ||
              lvl === "shared_llc"
            ) {
              sharedNs += SAMPLE_NS;
              if (splitFrom >= 0) splitMs.push((k.now - splitFrom) / 1e6);
              splitFrom = -1;
            } else if (splitFrom < 0) {
              splitFrom = k.now;
              splitsStarted++;
            }
          }
        }
        const a = activeMoves();
        if (a !== lastActive) {
          for (let i = lastActive; i < a; i++) activeAt.push(k.now / 1e9);
          lastActive = a;
        }
        for (let c = 0; c < k.rqs.length; c++) {
          const doms = k.domains.domains[c];
          const top = doms?.length ? doms[doms.length - 1].nrBalanceFailed : 0;
          if (top !== lastFailed[c]) {
            failedSeries.push(k.now / 1e9, c, top);
            lastFailed[c] = top;
          }
        }
        if (k.now + SAMPLE_NS <= ctx.endNs) ctx.at(k.now + SAMPLE_NS, sample);
      };
      if (bind?.some((c) => c >= ctx.ncpus))
        throw new Error(
          `${where}: bind CPUs must be below ${ctx.ncpus} on this machine (got ${JSON.stringify(bind)})`,
        );
      // netserver is up before the test; netperf starts at a random moment within the first
      // jiffy (the tick phase of a run: the one source of run-to-run variation here).
      const start = Math.floor(ctx.random("netperf-start").next() * ctx.tickNs);
      ctx.at(0, () => {
        receiver = ctx.spawn({
          comm: "netserver",
          role: "receiver",
          workingSetBytes: ringBytes,
          program: netserver,
          cpus: bind ? [bind[1]] : undefined,
        });
      });
      ctx.at(start, () => {
        sender = ctx.spawn({
          comm: "netperf",
          role: "sender",
          workingSetBytes: ringBytes,
          program: netperf,
          cpus: bind ? [bind[0]] : undefined,
        });
        sample();
      });
      ctx.at(ctx.warmupNs, () => {
        migBase = allMigrations();
        activeBase = activeMoves();
      });

      return {
        metrics() {
          const secs = Math.max(1e-9, (ctx.endNs - ctx.warmupNs) / 1e9);
          const mbps = (n: number) => (n * bytes * 8) / secs / 1e6;
          return {
            throughput_mbps: mbps(ok),
            recv_throughput_mbps: mbps(received),
            messages_ok: ok,
            messages_received: received,
            messages_dropped: dropped,
            send_errors: 0,
            active_balances_per_s: (activeMoves() - activeBase) / secs,
            migrations_per_s: (allMigrations() - migBase) / secs,
            pair_shares_l2_fraction: sampledNs ? sharedNs / sampledNs : NaN,
            split_episodes_per_s: splitsStarted / secs,
            split_ms_p50: nearestRank(splitMs, 0.5),
            split_ms_p90: nearestRank(splitMs, 0.9),
          };
        },
        series() {
          return {
            pair_cpus: pairCpus,
            active_balance_at: activeAt,
            nr_balance_failed: failedSeries,
            split_ms: splitMs,
          };
        },
      };
    },
  };
}

/** What netperf's -i max,min -I level,width rule makes of a list of per-iteration results. */
export interface NetperfConfidence {
  /** Iterations netperf runs: it stops at the first n >= min whose interval is narrow enough. */
  iterations: number;
  /** Whether the interval met the width at that n. */
  met: boolean;
  /** Interval width / mean at that n (both sides, e.g. 0.05 for +-2.5%). */
  width: number;
  /** netperf's warning when the interval was not met, else null. */
  warning: string | null;
}

/**
 * netperf's confidence rule (netsh.c: -i max,min with min and max raised to at least 3; -I
 * level,width with width in percent of the mean, both sides): after each iteration from `min`
 * on, stop when the `level` interval of the mean is at most `widthPct`% wide; at `max` stop
 * anyway and warn. `values` are the iterations in run order (at least `max` of them, or all).
 */
export function netperfConfidence(
  values: readonly number[],
  opts: { max?: number; min?: number; level?: number; widthPct?: number } = {},
): NetperfConfidence {
  const max = Math.min(30, Math.max(3, opts.max ?? 5));
  const min = Math.min(max, Math.max(3, opts.min ?? 1));
  const level = (opts.level ?? 95) / 100;
  const want = (opts.widthPct ?? 5) / 100;
  let n = Math.min(min, values.length);
  for (;;) {
    const ci = confidenceInterval(values.slice(0, n), level);
    const width = (2 * ci.halfWidth) / ci.mean;
    if (width <= want) return { iterations: n, met: true, width, warning: null };
    if (n >= max || n >= values.length) {
      const pct = ((width * 100) / 2).toFixed(1);
      return {
        iterations: n,
        met: false,
        width,
        warning: `!!! WARNING\n!!! Desired confidence was not achieved within the specified iterations.\n!!! Confidence intervals: Throughput      : ${pct}%`,
      };
    }
    n++;
  }
}

/** netperf's -T: [netperf CPU, netserver CPU], or undefined to leave both unpinned. */
export function requireBind(where: string, bind: unknown): [number, number] | undefined {
  if (
    bind !== undefined &&
    (!Array.isArray(bind) || bind.length !== 2 || !bind.every((c) => Number.isInteger(c) && c >= 0))
  )
    throw new Error(
      `${where}: bind must be [netperf CPU, netserver CPU], two CPU numbers (got ${JSON.stringify(bind)})`,
    );
  return bind as [number, number] | undefined;
}

/** The nearest-rank quantile q of xs (0 when xs is empty: no episode). */
function nearestRank(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}
