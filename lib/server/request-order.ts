// Requests of one connection run concurrently, except those that must keep their order: the
// requests of one session on one container (a put, then its commit) and the fetches of one result.
// Each such key has a chain; a request starts when the one before it on its chain has settled,
// whatever its outcome. Chains hold no more than the connection's requests in flight.

export class RequestOrder {
  private readonly tails = new Map<string, Promise<unknown>>();

  get chainCount(): number {
    return this.tails.size;
  }

  /** Runs `task` after every earlier task of `key` has settled; undefined key: at once. */
  run<T>(key: string | undefined, task: () => Promise<T>): Promise<T> {
    if (key === undefined) return task();
    const before = this.tails.get(key);
    const result = before === undefined ? task() : before.then(task, task);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
