// netperf TCP_RR over loopback (netperf 2.7, src/nettest_omni.c send_tcp_rr / send_omni_inner,
// "MIGRATED TCP REQUEST/RESPONSE TEST"; the classic loop is nettest_bsd.c send_tcp_rr and
// recv_tcp_rr). netperf sends a request of req_size bytes and blocks in recv() until the whole
// response has come back; netserver blocks in recv() for the request and sends the response.
// One transaction is one round trip; the result is transactions per second over the -l test
// length. Defaults: -r 1,1, -l 10, -H localhost.
//
// Over loopback the path of a segment runs in the sender's send(): tcp_sendmsg -> tcp_push ->
// tcp_write_xmit -> ip_queue_xmit -> loopback_xmit -> netif_rx, then the NET_RX softirq at
// local_bh_enable on the same CPU: ip_rcv -> tcp_v4_rcv -> tcp_rcv_established, which queues the
// data on the receiving socket and calls sk_data_ready (sock_def_readable: a WF_SYNC wakeup of
// the task blocked in tcp_recvmsg's sk_wait_data). The response carries the ACK of the request
// (the delayed ACK never fires), so each transaction is one segment each way. Both sockets'
// state is written on both CPUs in every transaction: a socket's send path on its owner's CPU,
// its receive path in the softirq of the peer's send.
import { run, wait, wake } from "../kernel/ops";
import type { Task, TaskApi } from "../kernel/sched";
import { eraAtLeast } from "../kernel/features";
import type { WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, runLength } from "./workload";
import type { BenchmarkWorkload } from "./sysbench_cpu";
import {
  NETPERF_RX_STACK_NS,
  NETPERF_SHARED_LINES,
  NETPERF_TX_STACK_NS,
  requireBind,
} from "./netperf";

/**
 * tcp_wmem[1]: the send buffer of a new TCP socket, 16 KB in every modelled release; what
 * netperf reads back with getsockopt(SO_SNDBUF) and prints under "Send".
 */
export const TCP_WMEM_DEFAULT = 16384;
/**
 * tcp_rmem[1] (net/ipv4/tcp.c tcp_init): 87380 up to 4.19; 131072 since "tcp: up initial rmem to
 * 128KB and SYN rwin to around 64KB" (Yuchung Cheng, 2019, between v4.19 and v5.6).
 */
export function tcpRmemDefault(era: Parameters<typeof eraAtLeast>[0]): number {
  return eraAtLeast(era, "5.6") ? 131072 : 87380;
}

/**
 * estimate: the TCP segment path of one send over loopback besides the syscall entry and the
 * payload copy (tcp_sendmsg, tcp_write_xmit, loopback_xmit and the softirq's tcp_v4_rcv on the
 * same CPU): taken as the UDP_STREAM figure for the same kind of path, NETPERF_TX_STACK_NS
 * (2 us); TCP's own extra work (ACK processing, RTT estimation, timer rearming) is not priced
 * separately. Not derived from any TCP_RR result.
 */
export const TCP_RR_TX_NS = NETPERF_TX_STACK_NS;
/** estimate: tcp_recvmsg besides the entry and the copy: the UDP receive figure, NETPERF_RX_STACK_NS (1 us). */
export const TCP_RR_RX_NS = NETPERF_RX_STACK_NS;

/** Parameters of workload.netperfTcpRr (netperf's own options where there is one). */
export interface NetperfTcpRrParams {
  /** -r req,rsp: request bytes (default 1). */
  requestBytes?: number;
  /** -r req,rsp: response bytes (default 1). */
  responseBytes?: number;
  /** -l: test length, seconds (default 10). */
  seconds?: number;
  /** Seconds at the start not counted (default 0). */
  warmupSeconds?: number;
  /** -T lcpu,rcpu: bind netperf and netserver to these CPUs (default: unbound). */
  bind?: [number, number];
  /**
   * Concurrent netperf/netserver pairs, each its own connection (mmtests' NETPERF_NR_PAIRS /
   * --nr-pairs; default 1). The metrics aggregate them as a harness sums concurrent netperfs:
   * `trans_per_s` and `transactions` are sums, `round_trip_us` the mean per pair.
   */
  pairs?: number;
}

const ACCEPTED = ["requestBytes", "responseBytes", "seconds", "warmupSeconds", "bind", "pairs"];
/** netperf's largest request or response in this model (one segment each way: below the MSS of lo). */
const MAX_RR_BYTES = 65_483;

/**
 * netperf TCP_RR over loopback: netperf and netserver exchange a request and a response
 * (`netperf -t TCP_RR -l S -- -r REQ,RSP`). Metrics: `trans_per_s` (what netperf prints under
 * "Trans. Rate per sec"), `transactions`, `elapsed_s`, `round_trip_us` (1e6 / rate),
 * `migrations_per_s` (of the pair), `same_cpu_fraction` (share of transactions whose two sides
 * ran on one CPU), and the socket sizes netperf reads back and prints, `send_socket_bytes` and
 * `recv_socket_bytes` (tcp_wmem[1], tcp_rmem[1] of the era). `format(metrics)` prints netperf's report (default verbosity, no CPU
 * measurement).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const rr = workload.netperfTcpRr({ seconds: 0.05 });
 * const it = topology("core2-2x2").era("6.19").workload(rr).runSync().iteration("baseline", 0);
 * console.log(rr.format(it.metrics).split("\n").slice(1, 5).join("\n"));
 * ```
 * Prints:
 * ```text
 * Local /Remote
 * Socket Size   Request  Resp.   Elapsed  Trans.
 * Send   Recv   Size     Size    Time     Rate
 * bytes  Bytes  bytes    bytes   secs.    per sec
 * ```
 */
export function netperfTcpRr(params: NetperfTcpRrParams = {}): BenchmarkWorkload {
  const where = "workload.netperfTcpRr";
  requireKnownKeys(where, params, ACCEPTED);
  const req = requireInt(where, "requestBytes", params.requestBytes ?? 1, 1, MAX_RR_BYTES);
  const rsp = requireInt(where, "responseBytes", params.responseBytes ?? 1, 1, MAX_RR_BYTES);
  const bind = requireBind(where, params.bind);
  const pairs = requireInt(where, "pairs", params.pairs ?? 1, 1, 10_000);
  const seconds = params.seconds ?? 10;
  const len = runLength(where, { seconds, warmupSeconds: params.warmupSeconds }, seconds);
  const resolved = {
    requestBytes: req,
    responseBytes: rsp,
    seconds,
    warmupSeconds: params.warmupSeconds ?? 0,
    pairs,
  };
  return {
    name: "netperf-tcp-rr",
    params: resolved,
    ...len,
    format: (m) => formatNetperfTcpRr(m, { requestBytes: req, responseBytes: rsp }),
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const costs = k.machine.costs;
      const rcvbuf = tcpRmemDefault(k.era);
      if (bind?.some((c) => c >= ctx.ncpus))
        throw new Error(
          `${where}: bind CPUs must be below ${ctx.ncpus} on this machine (got ${JSON.stringify(bind)})`,
        );
      const lines = (n: number, from: number, cpu: number) =>
        from < 0 || from === cpu ? 0 : n * k.cache.cacheLineNs(from, cpu);
      let migBase = 0;
      const migrations = () => Object.values(k.counters.migrations).reduce((a, b) => a + b, 0);
      const counting = () => k.now >= ctx.warmupNs;
      /** One netperf/netserver pair and its connection; pair 0 keeps the one-pair names. */
      const connection = (pair: number) => {
        // One direction of the connection: the receiving socket's queue (writer CPU of each
        // segment), whether its reader sleeps, and where each socket's state was last written.
        const toServer = { queue: [] as number[], waiting: false, reader: null as Task | null };
        const toClient = { queue: [] as number[], waiting: false, reader: null as Task | null };
        const sockCpu = { client: -1, server: -1 };
        const c = { transactions: 0, sameCpu: 0, start: 0 };

        // send(): the own socket's send path and, in the softirq, the peer socket's receive path,
        // then sock_def_readable's sync wakeup of a sleeping reader (part of this system call).
        function* sendSegment(
          api: TaskApi,
          bytes: number,
          own: "client" | "server",
          dir: typeof toServer,
        ) {
          const cpu = api.cpu();
          const peer = own === "client" ? "server" : "client";
          yield run(
            costs.syscallNs +
              TCP_RR_TX_NS +
              k.cache.copyNs(bytes, cpu, cpu) +
              lines(NETPERF_SHARED_LINES.socket, sockCpu[own], cpu) +
              lines(NETPERF_SHARED_LINES.socket, sockCpu[peer], cpu),
          );
          const at = api.cpu();
          sockCpu[own] = at;
          sockCpu[peer] = at;
          dir.queue.push(at);
          if (dir.waiting) {
            dir.waiting = false;
            yield wake(dir.reader!.pid, true, false);
          }
        }
        // recv(): sk_wait_data until a segment is queued, then tcp_recvmsg copies it out.
        function* recvSegment(
          api: TaskApi,
          bytes: number,
          own: "client" | "server",
          dir: typeof toServer,
        ) {
          while (dir.queue.length === 0) {
            dir.waiting = true;
            yield wait();
          }
          const from = dir.queue.shift()!;
          const cpu = api.cpu();
          yield run(
            costs.syscallNs +
              TCP_RR_RX_NS +
              k.cache.copyNs(bytes, from, cpu) +
              lines(NETPERF_SHARED_LINES.socket, sockCpu[own], cpu) +
              lines(NETPERF_SHARED_LINES.skb, from, cpu),
          );
          sockCpu[own] = api.cpu();
          return from;
        }

        function* netperf(api: TaskApi) {
          for (;;) {
            yield* sendSegment(api, req, "client", toServer);
            const from = yield* recvSegment(api, rsp, "client", toClient);
            if (counting()) {
              c.transactions++;
              if (from === api.cpu()) c.sameCpu++;
            }
          }
        }
        function* netserver(api: TaskApi) {
          for (;;) {
            yield* recvSegment(api, req, "server", toServer);
            yield* sendSegment(api, rsp, "server", toClient);
          }
        }

        // netserver is up before the test; netperf starts at a random moment within the first
        // jiffy (the tick phase: the one source of run-to-run variation), each pair its own.
        const stream = pair === 0 ? "netperf-start" : `netperf-start/${pair}`;
        c.start = Math.floor(ctx.random(stream).next() * ctx.tickNs);
        ctx.at(0, () => {
          toServer.reader = ctx.spawn({
            comm: "netserver",
            role: "receiver",
            program: netserver,
            cpus: bind ? [bind[1]] : undefined,
          });
        });
        ctx.at(c.start, () => {
          toClient.reader = ctx.spawn({
            comm: "netperf",
            role: "sender",
            program: netperf,
            cpus: bind ? [bind[0]] : undefined,
          });
        });
        return c;
      };
      const conns = Array.from({ length: pairs }, (_, i) => connection(i));
      /** A pair's elapsed time: from its netperf's start (or the warm-up's end) to the end, s. */
      const secsOf = (c: { start: number }) =>
        Math.max(1e-9, (ctx.endNs - Math.max(ctx.warmupNs, c.start)) / 1e9);
      ctx.at(ctx.warmupNs, () => {
        migBase = migrations();
      });

      return {
        metrics() {
          // each netperf reports its own rate over its own elapsed time; a harness sums the rates
          const rates = conns.map((c) => c.transactions / secsOf(c));
          const rate = rates.reduce((a, b) => a + b, 0);
          const transactions = conns.reduce((a, c) => a + c.transactions, 0);
          const sameCpu = conns.reduce((a, c) => a + c.sameCpu, 0);
          const secs = conns.reduce((a, c) => a + secsOf(c), 0) / pairs;
          const rtts = rates.map((r) => (r > 0 ? 1e6 / r : NaN));
          return {
            trans_per_s: rate,
            transactions,
            elapsed_s: secs,
            round_trip_us: rtts.reduce((a, b) => a + b, 0) / pairs,
            migrations_per_s: (migrations() - migBase) / secs,
            same_cpu_fraction: transactions > 0 ? sameCpu / transactions : NaN,
            send_socket_bytes: TCP_WMEM_DEFAULT,
            recv_socket_bytes: rcvbuf,
            ...(pairs > 1 ? { pairs } : {}),
          };
        },
        series: () => ({ pair_trans_per_s: conns.map((c) => c.transactions / secsOf(c)) }),
      };
    },
  };
}

/** netperf's TCP_RR report at the default verbosity without CPU measurement (nettest_omni.c send_tcp_rr's tput_title and tput_fmt_1). */
export function formatNetperfTcpRr(
  m: Record<string, number>,
  p: { requestBytes: number; responseBytes: number },
): string {
  const send = m.send_socket_bytes;
  const recv = m.recv_socket_bytes;
  const d = (n: number) => String(n).padEnd(6);
  const f = (x: number, w: number) => x.toFixed(2).padStart(w);
  return [
    "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to localhost () port 0 AF_INET : first burst 0",
    "Local /Remote",
    "Socket Size   Request  Resp.   Elapsed  Trans.",
    "Send   Recv   Size     Size    Time     Rate         ",
    "bytes  Bytes  bytes    bytes   secs.    per sec   ",
    "",
    // "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   %s\n" with no result brand
    `${d(send)} ${d(recv)} ${d(p.requestBytes)}   ${d(p.responseBytes)}  ${m.elapsed_s.toFixed(2).padEnd(6)}   ${f(m.trans_per_s, 7)}   `,
    // "%-6d %-6d\n": the remote socket sizes (netserver's, the same defaults)
    `${d(send)} ${d(recv)}`,
  ].join("\n");
}
