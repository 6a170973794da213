/** A module loaded on first use (`lazyModule`). */
export interface LazyModule<T> {
  /** Loads the module (once; later calls get the same promise). */
  load(): Promise<T>;
  /** The module if it was loaded, else undefined (nothing made by it can exist yet). */
  loaded(): T | undefined;
  /** The module, for code that only runs after `load()`; throws before. */
  get(): T;
}

/**
 * A module (`import()` in `importer`) loaded when first needed rather than when its user is
 * imported: a process that never needs it never pays its memory and start-up time.
 */
export function lazyModule<T>(name: string, importer: () => Promise<T>): LazyModule<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load() {
      loading ??= importer().then((module) => {
        value = module;
        return module;
      });
      return loading;
    },
    loaded: () => value,
    get() {
      if (value === undefined) throw new Error(`${name} used before it was loaded`);
      return value;
    },
  };
}
