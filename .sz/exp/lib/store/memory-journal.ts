/** Map writes that can be taken back, so a memory store operation that throws changes nothing. */
export class MapJournal {
  #undo: Array<() => void> = [];

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (map.has(key)) {
      const previous = map.get(key) as V;
      this.#undo.push(() => map.set(key, previous));
    } else {
      this.#undo.push(() => map.delete(key));
    }
    map.set(key, value);
  }

  delete<K, V>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    const previous = map.get(key) as V;
    this.#undo.push(() => map.set(key, previous));
    map.delete(key);
  }

  rollback(): void {
    for (const undo of this.#undo.reverse()) undo();
    this.#undo = [];
  }
}
