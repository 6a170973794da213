/**
 * Runs tasks for one key one after the other, tasks for different keys side by side. S3 makes
 * each PUT atomic, but not every S3-compatible server does (s3rver streams two concurrent PUTs
 * of one key into the same file); two puts from this process therefore never overlap.
 */
export class KeyChain {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Starts `task` once the previous task for `key` settled; resolves or rejects as `task` does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(task);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return current;
  }
}
