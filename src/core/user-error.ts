// The base of every error whose message is already written for a user (what happened, why, what to
// do): the CLI and VS Code show such a message as it is, and word every other failure themselves
// (cluster/errors.ts userMessage). Pure, so that core's input checks can be user errors too.

// The brand, not `instanceof`: the extension loads the engine as a bundle of its own (dist/engine.js),
// with its own copy of this class, and Symbol.for gives both copies the same key.
const USER_ERROR = Symbol.for('kube-windows.user-error');

export class UserError extends Error {
  readonly [USER_ERROR] = true;
}

/**
 * The error's own message when it is already worded for a user: a UserError, or a plain Error a step threw with
 * its own words (no code, no HTTP status to classify). Undefined when it needs wording (cluster/errors.ts).
 */
export function ownWords(err: unknown): string | undefined {
  if (isUserError(err)) return err.message;
  if (err instanceof Error && err.name === 'Error' && !('code' in err) && !('status' in err)) return err.message;
  return undefined;
}

/** Whether `err` is a UserError of any bundle's copy of this module. */
export function isUserError(err: unknown): err is UserError {
  return typeof err === 'object' && err !== null && (err as { [USER_ERROR]?: unknown })[USER_ERROR] === true;
}
