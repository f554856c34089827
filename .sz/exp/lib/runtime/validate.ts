import { type OutputUnit, Validator } from '@cfworker/json-schema';
import { cutToChars } from '../shared/text.js';
import type { Tool } from './tool.js';

/** What a validator needs of a tool: its name (for messages) and its parameters schema. */
type Checked = Pick<Tool, 'name' | 'parameters'>;

const validators = new WeakMap<Checked, Validator>();
/** Keywords that only say "something below failed"; the error below is the useful one. */
const summaryKeywords = new Set(['properties', 'items', 'prefixItems', '$ref', 'allOf', 'additionalItems']);
const maxListed = 8;

/** Builds (once per tool) the validator of its parameters; a schema it cannot compile throws, naming the tool. */
export function validatorFor(tool: Checked): Validator {
  let validator = validators.get(tool);
  if (!validator) {
    try {
      validator = new Validator(tool.parameters as object, '2020-12', false);
    } catch (e) {
      throw new TypeError(`tool "${tool.name}" has an invalid parameters schema: ${(e as Error).message}`);
    }
    validators.set(tool, validator);
  }
  return validator;
}

/** Checks a call's arguments against the tool's JSON Schema; returns why they fail, or undefined. */
export function argumentError(tool: Checked, args: unknown): string | undefined {
  const result = validatorFor(tool).validate(args);
  if (result.valid) return undefined;
  const specific = result.errors.filter((e) => !summaryKeywords.has(e.keyword));
  const errors = specific.length > 0 ? specific : result.errors;
  const listed = errors.slice(0, maxListed).map(describe);
  if (errors.length > maxListed) listed.push(`and ${errors.length - maxListed} more`);
  // A model adapter passes arguments that were not valid JSON on as their raw text.
  const raw =
    typeof args === 'string' ? ` The arguments were text, not JSON: ${JSON.stringify(cutToChars(args, 200))}.` : '';
  const list = listed.join('; ');
  // The validator's messages mostly end with a full stop already.
  return `Invalid arguments for tool "${tool.name}": ${list}${list.endsWith('.') ? '' : '.'}${raw}`;
}

function describe(error: OutputUnit): string {
  const where = `args${error.instanceLocation.replace(/^#/, '')}`;
  const what = error.keyword === 'false' ? 'not allowed by the schema' : error.error;
  return `${where} (${error.keyword}): ${what}`;
}
