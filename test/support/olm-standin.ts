// A stand-in for OLM attached to the API emulator: turns a Subscription (in a namespace with an
// OperatorGroup) into an InstallPlan, waits for its approval when the Subscription asks for Manual
// approval, then installs the CSV through Pending → Installing → Succeeded (or Failed), and keeps the
// Subscription's status as OLM does. A test double: never import from src/.
import { randomBytes } from 'node:crypto';
import type { Emulator, EmulatorEvent, KubeObject } from './kube-api-emulator';

export interface OlmStandinOptions {
  /** Delay between phases, ms. Default 30. */
  stepMs?: number;
  /** Installs end in phase Failed with this message. */
  failWith?: string;
  /** CSV installed when the Subscription names no startingCSV. */
  defaultCsv?: string;
}

export interface OlmStandin {
  /** Later installs fail with message (undefined: succeed). */
  setFailure(message: string | undefined): void;
  readonly installPlansCreated: number;
  stop(): void;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function attachOlmStandin(emu: Emulator, options: OlmStandinOptions = {}): OlmStandin {
  const stepMs = options.stepMs ?? 30;
  let failWith = options.failWith;
  let stopped = false;
  let plans = 0;
  const timers = new Set<NodeJS.Timeout>();
  /** InstallPlans (ns/name) whose install has started: events repeat, installs must not. */
  const installing = new Set<string>();

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const hasOperatorGroup = (ns: string): boolean => emu.list('OperatorGroup').some((g) => g.metadata.namespace === ns);

  function subscribe(sub: KubeObject): void {
    const ns = sub.metadata.namespace ?? 'default';
    const status = obj(sub.status);
    // Already resolved (or seeded as installed): nothing to do.
    if (status.installPlanRef || status.installedCSV) return;
    // Without an OperatorGroup OLM resolves nothing: the Subscription just sits there.
    if (!hasOperatorGroup(ns)) return;
    const spec = obj(sub.spec);
    const approval = spec.installPlanApproval === 'Manual' ? 'Manual' : 'Automatic';
    const csv =
      typeof spec.startingCSV === 'string' && spec.startingCSV
        ? spec.startingCSV
        : (options.defaultCsv ?? 'windows-machine-config-operator.v10.18.0');
    const name = `install-${randomBytes(3).toString('hex').slice(0, 5)}`;
    plans += 1;
    emu.apply({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'InstallPlan',
      metadata: {
        name,
        namespace: ns,
        generateName: 'install-',
        labels: { [`operators.coreos.com/${String(spec.name ?? sub.metadata.name)}.${ns}`]: '' },
        ownerReferences: [
          {
            apiVersion: 'operators.coreos.com/v1alpha1',
            kind: 'Subscription',
            name: sub.metadata.name,
            uid: sub.metadata.uid ?? '',
            blockOwnerDeletion: false,
            controller: false,
          },
        ],
      },
      spec: { approval, approved: approval === 'Automatic', clusterServiceVersionNames: [csv], generation: 1 },
      status: {
        phase: approval === 'Automatic' ? 'Installing' : 'RequiresApproval',
        catalogSources: [String(spec.source ?? 'redhat-operators')],
      },
    });
    const ref = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan', name, namespace: ns };
    emu.patch('Subscription', sub.metadata.name, ns, {
      status: {
        currentCSV: csv,
        installPlanRef: ref,
        installplan: { apiVersion: ref.apiVersion, kind: ref.kind, name, uuid: '' },
        installPlanGeneration: 1,
        state: 'UpgradePending',
        lastUpdated: now(),
        conditions:
          approval === 'Manual'
            ? [{ type: 'InstallPlanPending', status: 'True', reason: 'RequiresApproval', lastTransitionTime: now() }]
            : [],
      },
    });
  }

  async function install(plan: KubeObject): Promise<void> {
    const ns = plan.metadata.namespace ?? 'default';
    const key = `${ns}/${plan.metadata.name}`;
    if (installing.has(key)) return;
    installing.add(key);
    const csvName = String((obj(plan.spec).clusterServiceVersionNames as unknown[] | undefined)?.[0] ?? '');
    const version = /\.v(\d+\.\d+\.\d+.*)$/.exec(csvName)?.[1] ?? '0.0.0';
    const sub = emu
      .list('Subscription')
      .find((s) => s.metadata.namespace === ns && obj(obj(s.status).installPlanRef).name === plan.metadata.name);
    emu.patch('InstallPlan', plan.metadata.name, ns, { status: { phase: 'Installing' } });
    emu.apply({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: {
        name: csvName,
        namespace: ns,
        labels: { 'olm.managed': 'true' },
        annotations: { 'olm.operatorNamespace': ns, 'olm.targetNamespaces': ns },
      },
      spec: {
        displayName: 'Windows Machine Config Operator',
        version,
        install: { strategy: 'deployment', spec: { deployments: [{ name: 'windows-machine-config-operator' }] } },
      },
      status: {
        phase: 'Pending',
        reason: 'RequirementsUnknown',
        message: 'requirements not yet checked',
        lastTransitionTime: now(),
      },
    });
    await sleep(stepMs);
    if (stopped) return;
    emu.patch('ClusterServiceVersion', csvName, ns, {
      status: {
        phase: 'Installing',
        reason: 'InstallWaiting',
        message: 'installing: waiting for deployment windows-machine-config-operator to become ready',
        lastTransitionTime: now(),
      },
    });
    await sleep(stepMs);
    if (stopped) return;
    if (failWith !== undefined) {
      emu.patch('ClusterServiceVersion', csvName, ns, {
        status: { phase: 'Failed', reason: 'InstallCheckFailed', message: failWith, lastTransitionTime: now() },
      });
      emu.patch('InstallPlan', plan.metadata.name, ns, { status: { phase: 'Failed', message: failWith } });
      return;
    }
    emu.patch('ClusterServiceVersion', csvName, ns, {
      status: {
        phase: 'Succeeded',
        reason: 'InstallSucceeded',
        message: 'install strategy completed with no errors',
        lastTransitionTime: now(),
      },
    });
    emu.patch('InstallPlan', plan.metadata.name, ns, { status: { phase: 'Complete' } });
    if (sub) {
      emu.patch('Subscription', sub.metadata.name, ns, {
        status: {
          installedCSV: csvName,
          currentCSV: csvName,
          state: 'AtLatestKnown',
          lastUpdated: now(),
          conditions: [],
        },
      });
    }
  }

  function onEvent(ev: EmulatorEvent): void {
    if (stopped || ev.type === 'DELETED') return;
    const o = ev.object;
    if (o.kind === 'Subscription') subscribe(o);
    else if (o.kind === 'OperatorGroup') {
      for (const s of emu.list('Subscription')) if (s.metadata.namespace === o.metadata.namespace) subscribe(s);
    } else if (o.kind === 'InstallPlan' && obj(o.spec).approved === true) {
      void install(o);
    }
  }

  const unsubscribe = emu.onChange(onEvent);
  // Objects seeded before the stand-in attached.
  for (const s of emu.list('Subscription')) subscribe(s);

  return {
    setFailure: (m) => void (failWith = m),
    get installPlansCreated() {
      return plans;
    },
    stop() {
      stopped = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
