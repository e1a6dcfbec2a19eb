// V8 gives each number field of an object layout (its hidden class, or "map") the representation
// of the first value stored there: a small integer or a double. A field that starts at 0 and later
// holds a fraction (a segment's remaining work, vruntime) or a time past 2^30 ns changes
// representation mid-run. V8 then replaces the layout of every object of that shape: code compiled
// against the old layout deoptimises (about 130 deoptimisations in a 104-CPU run's first
// millisecond), and code compiled afterwards meets objects of both layouts. A second 0.1 s
// pingpong-104cpu run in one process ran 8-10% slower than the first run's steady state for that
// reason. Storing a fraction once into such fields, and putting the value back, gives them the
// double representation from the object's creation. Values are unchanged.

/** Makes the named number fields of `obj` doubles in V8's layout; their values are unchanged. */
export function primeDoubles<T extends object>(obj: T, names: readonly (keyof T & string)[]): void {
  const o = obj as unknown as Record<string, number>;
  for (const n of names) {
    const v = o[n];
    o[n] = 0.5;
    o[n] = v;
  }
}
