// The options of the lists of Windows nodes and pods (`nodes [list]`, `pods [list]`), declared as the
// rest of ./commands (which spreads them into those commands): kubectl's get -w, and what pods are read.

/** kubectl's get -w, for the lists of nodes and pods (./watch.ts). */
export const WATCH_OPTIONS = {
  watch: {
    type: 'boolean',
    short: 'w',
    default: false,
    help: 'after the list, a line per change until Ctrl-C (kubectl\'s get -w); it outlives API server\nrestarts and 410 Gone: "reconnecting" on stderr, then only what changed meanwhile',
    actions: ['list'],
  },
  'output-watch-events': {
    type: 'boolean',
    default: false,
    help: 'with --watch: an EVENT column (ADDED, MODIFIED, DELETED); -o json|yaml: {type, object} events',
    actions: ['list'],
  },
} as const;

/** `pods [list]`: which pods, how printed (./pods-list.ts). */
export const POD_LIST_OPTIONS = {
  'all-namespaces': { type: 'boolean', short: 'A', default: false, help: 'every namespace', actions: ['list'] },
  node: { type: 'string', value: 'NODE', help: 'the pods of this node (any OS)', actions: ['list'] },
  output: {
    type: 'string',
    short: 'o',
    value: 'wide|json|yaml|name',
    help: 'wide: IP, NODE, NOMINATED NODE, READINESS GATES; name: pod/NAME lines; json, yaml: a v1 List',
    actions: ['list'],
  },
  ...WATCH_OPTIONS,
} as const;
