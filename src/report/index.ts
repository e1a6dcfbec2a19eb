// Shareable outputs: the HTML report, the ledger, and ftrace text export.
export * from "./ledger";
export * from "./html";
export * from "./trace";
