import type { Model, ModelReply, ModelRequest } from './runtime/model.js';

export type ScriptedStep = ModelReply | ((request: ModelRequest) => ModelReply | Promise<ModelReply>);

/**
 * A model for tests: replays `steps` in order (a step may be a function of the request) and records
 * a structured copy of every request it got in `.requests`. Called more times than it has steps, it
 * throws, so a test never silently runs an extra model step.
 */
export function scriptedModel(steps: ScriptedStep[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const model = async (request: ModelRequest): Promise<ModelReply> => {
    requests.push(structuredClone(request));
    const step = steps[requests.length - 1];
    if (step === undefined) {
      throw new Error(
        `scriptedModel was called ${requests.length} times but has only ${steps.length} step${steps.length === 1 ? '' : 's'}`,
      );
    }
    return typeof step === 'function' ? step(request) : structuredClone(step);
  };
  return Object.assign(model, { requests });
}
