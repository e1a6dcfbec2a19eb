// Plotly figure builders (plain { data, layout } objects) and notebook display.
export * from "./types";
export * from "./distribution";
export * from "./latency";
export * from "./timeline";
export * from "./domains";
export * from "./embed";
export * from "./display";
