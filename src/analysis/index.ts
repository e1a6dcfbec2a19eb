// Statistics, compare tables, data frames and trace-derived views of results.
export * from "./stats";
export * from "./metric";
export * from "./compare";
export * from "./frame";
export * from "./trace";
export * from "./trace_import";
export * from "./mmtests";
export * from "./histogram";
export * from "./mixture";
export * from "./variation";
export * from "./trace_replay";
export * from "./trace_compare";
export * from "./trace_background";
