// Whether a finding's message quotes the API server's words (`field: Type: detail`): how a rule of
// ours and the API server's own verdict are found to say the same thing (one finding, never two),
// and how the real-API-server suites hold the rules to the server's text.

/**
 * Where `cause` (the server's text) matches `msg` (the rule's message) from `at`, returning the end
 * in `msg`, or -1. An ellipsis in the rule's text stands for the rest of a long value the rule
 * shortened: the text after it must continue the server's text further on.
 */
export function matchAt(msg: string, at: number, cause: string): number {
  let i = at;
  for (let k = 0; k < cause.length; k++, i++) {
    if (msg[i] === cause[k]) continue;
    if (msg[i] !== '…') return -1;
    for (let s = k + 1; s <= cause.length; s++) {
      const rest = cause.slice(s);
      if (rest.length > 0 && msg.startsWith(rest, i + 1)) return i + 1 + rest.length;
    }
    return -1;
  }
  return i;
}

/** Whether a message quotes `cause` at its start or after "; " (another quote). */
export function quotesCause(msg: string, cause: string): boolean {
  if (matchAt(msg, 0, cause) >= 0) return true;
  for (let i = msg.indexOf('; '); i >= 0; i = msg.indexOf('; ', i + 2))
    if (matchAt(msg, i + 2, cause) >= 0) return true;
  return false;
}
