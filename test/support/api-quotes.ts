// Whether a finding's message quotes the API server's words: the real-API-server suites compare the
// engine's messages with the causes the server gives (`field: Type: detail`). The matching itself is
// the engine's (core/exact-api/quotes.ts: the exact-API check merges by it). Test-only.
export { matchAt, quotesCause } from '../../src/core/exact-api/quotes';
