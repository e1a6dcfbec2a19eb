// Runs one cell on a running Jupyter server through its REST and websocket API, and prints what
// the kernel answered as JSON: { kernelspecs, status, output }. Used by test/lab.test.ts; needs
// Node's WebSocket (node --experimental-websocket on Node 20).
//   node --experimental-websocket --import tsx scripts/lab-probe.ts URL TOKEN KERNEL CODE
import { randomUUID } from "node:crypto";

async function probe(base: string, token: string, kernel: string, code: string) {
  const auth = { Authorization: `token ${token}` };
  const specs = (await (await fetch(`${base}/api/kernelspecs`, { headers: auth })).json()) as {
    kernelspecs: Record<string, unknown>;
  };
  const k = (await (
    await fetch(`${base}/api/kernels`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ name: kernel }),
    })
  ).json()) as { id: string };
  const ws = new WebSocket(
    `${base.replace(/^http/, "ws")}/api/kernels/${k.id}/channels?token=${token}`,
  );
  const msgId = randomUUID();
  const result = await new Promise<{ status: string; output: string }>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error("no execute_reply within 120 s")), 120_000);
    ws.onopen = () =>
      ws.send(
        JSON.stringify({
          header: {
            msg_id: msgId,
            username: "test",
            session: randomUUID(),
            msg_type: "execute_request",
            version: "5.3",
            date: new Date().toISOString(),
          },
          parent_header: {},
          metadata: {},
          content: {
            code,
            silent: false,
            store_history: true,
            user_expressions: {},
            allow_stdin: false,
            stop_on_error: true,
          },
          channel: "shell",
          buffers: [],
        }),
      );
    ws.onerror = () => reject(new Error("websocket error"));
    ws.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data));
      if (m.parent_header?.msg_id !== msgId) return;
      if (m.msg_type === "stream") output += m.content.text;
      if (m.msg_type === "execute_result") output += m.content.data["text/plain"];
      if (m.msg_type === "error") output += `${m.content.ename}: ${m.content.evalue}`;
      if (m.msg_type === "execute_reply") {
        clearTimeout(timer);
        resolve({ status: m.content.status, output });
      }
    };
  });
  ws.close();
  await fetch(`${base}/api/kernels/${k.id}`, { method: "DELETE", headers: auth });
  return { kernelspecs: Object.keys(specs.kernelspecs), ...result };
}

const [base, token, kernel, code] = process.argv.slice(2);
probe(base, token, kernel, code).then(
  (r) => console.log(JSON.stringify(r)),
  (e: Error) => {
    console.error(e.message);
    process.exit(1);
  },
);
