// Entries a session knows by name, gathered from several folders in order: the first entry of a
// name wins, so a folder read later (the workspace, a directory change_directory enters) cannot
// replace one read earlier (the agent's own). Skills and named agents both follow this rule.

/** What adding a folder's entries did. */
export interface FirstNameAdded<T> {
  added: T[];
  /** Entries left out because the name is taken, with the one that has it. */
  shadowed: { entry: T; by: T }[];
}

export class FirstNameCatalog<T extends { name: string; file: string }> {
  private readonly byName = new Map<string, T>();

  /** In the order they were added. */
  list(): T[] {
    return [...this.byName.values()];
  }

  get(name: string): T | undefined {
    return this.byName.get(name);
  }

  add(entries: readonly T[]): FirstNameAdded<T> {
    const result: FirstNameAdded<T> = { added: [], shadowed: [] };
    for (const entry of entries) {
      const existing = this.byName.get(entry.name);
      if (existing) {
        // The same file read twice (a directory entered again) is not a clash.
        if (existing.file !== entry.file) result.shadowed.push({ entry, by: existing });
        continue;
      }
      this.byName.set(entry.name, entry);
      result.added.push(entry);
    }
    return result;
  }
}
