// The route's half of an AI SDK UI chat runs on a server: in Node, where no IndexedDB exists,
// offloadChatRoute declares the read tools without `execute` (the page answers them), with the
// names, descriptions and JSON Schemas the page's offload gives, and the offload's system lines.
import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { offloadChatRoute } from '../../adapters/ai-sdk/index.js';
import { MemoryOffloadStore, ToolOutputOffload } from '../../lib/index.js';

describe('offloadChatRoute on a server', () => {
  it('declares the page offload’s read tools without execute, and its system lines', async () => {
    expect(typeof (globalThis as { indexedDB?: unknown }).indexedDB).toBe('undefined');
    // As a route makes it: the page's options, no store (memory, where no IndexedDB exists).
    const route = offloadChatRoute(new ToolOutputOffload({ thresholdTokens: 1500 }));
    const page = new ToolOutputOffload({ store: new MemoryOffloadStore(), thresholdTokens: 1500 });
    const specs = page.readTools();
    expect(Object.keys(route.tools)).toEqual(specs.map((spec) => spec.name));
    for (const spec of specs) {
      const declared = route.tools[spec.name as keyof typeof route.tools];
      expect(declared.execute).toBeUndefined();
      expect(declared.description).toBe(spec.description);
      expect(await asSchema(declared.inputSchema as never).jsonSchema).toEqual(spec.parameters);
    }
    expect(route.system).toBe(page.systemPrompt());
    expect(route.system).toContain('over 1500 tokens');
  });
});
