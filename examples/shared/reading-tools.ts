import { CompositeBackend, fileTools, MemoryBackend, type Tool } from '../../lib/agent.js';
import { ToolOutputOffload } from '../../lib/index.js';

/** Only the reading file tools: the mount is read-only, and the examples keep no other files. */
const readingTools = new Set(['read_file', 'ls', 'grep', 'glob']);

/** read_file, ls, grep and glob over the offload's stored results of the calling thread. */
export function readingFileTools(offload: ToolOutputOffload): Tool[] {
  const empty = new MemoryBackend();
  return fileTools(
    (context) => new CompositeBackend(empty, { [ToolOutputOffload.mount]: offload.backend(context.threadId) }),
  ).filter((t) => readingTools.has(t.name));
}
