import type { EditOp } from '../manifest/edits';
import type { Target, Path } from '../manifest/path';
import type { ObjectView, PodSpecView } from '../manifest/workloads';
import type { Range, Span } from '../manifest/text';
import type { Targeting } from './targeting';
import type { Facts } from './facts';
import type { Severity } from './severity';

export type { Severity } from './severity';
export { SEVERITY_RANK } from './severity';

/**
 * What applying a fix does to the object, decided once by the rule that offers it:
 * - `safe` keeps the object's meaning: it removes a field the API server or the kubelet ignores or
 *   rejects, or corrects a spelling (a wrongly cased value or key, a deprecated name for the same
 *   thing). `kube-windows check --fix` applies these.
 * - `rewrite` changes what the object does: another image tag, a field added or given another value,
 *   a converted kind, a replaced identity. Offered in the editor one by one; the CLI applies them
 *   only with `--fix=all`.
 */
export type FixKind = 'safe' | 'rewrite';

export interface FixSpec {
  title: string;
  kind: FixKind;
  ops: EditOp[];
}

/** What a rule reports: a path in the document, not a position; the engine finds positions only when needed. */
export interface Report {
  path: Path;
  /** What to underline at `path`: the key (default), the value, or the whole entry. */
  target?: Target;
  message: string;
  /** Overrides the rule's default severity (e.g. a softer one for inferred Windows pods). */
  severity?: Severity;
  fixes?: FixSpec[];
  /** A second place involved in the finding (the selector that pins a build, say). */
  related?: { path: Path; target?: Target; message: string }[];
  /** Overrides the rule's `apiRejects` for this report (a release that drops a field instead of refusing it, say). */
  apiRejects?: boolean;
}

export type Reporter = (report: Report) => void;

/**
 * Why a rule cannot be enforced by an admission policy, which sees one object as the API server decoded it:
 * - `node-facts`: it needs the nodes' or the cluster's facts (builds, CSI drivers, the OpenShift release);
 * - `image-os`: it needs the image's operating system or content, which only a registry knows;
 * - `other-object`: it needs another object (a RuntimeClass, a StorageClass, the namespace's labels);
 * - `api-validates`: the API server's own validation rejects it before any admission policy runs;
 * - `dropped-before-admission`: the API server drops the field (unknown, or behind a gate that is off)
 *   before admission, so a policy never sees it;
 * - `not-a-pod`: it is about an object that is not a pod or pod template (mirror sets, MachineSets,
 *   RuntimeClasses, the network configuration, YAML text);
 * - `advice`: it is advice (info), not a mistake a cluster should refuse;
 * - `not-exact`: CEL cannot express what the rule decides exactly, so it is not exported half-true;
 * - `not-generated`: CEL could express it, but no validation is generated for it yet.
 */
export type AdmissionWhyNot =
  | 'node-facts'
  | 'image-os'
  | 'other-object'
  | 'api-validates'
  | 'dropped-before-admission'
  | 'not-a-pod'
  | 'advice'
  | 'not-exact'
  | 'not-generated';

/** Whether `kube-windows policy` can enforce the rule at admission (a generated CEL validation), or why not. */
export type Admission =
  | { enforceable: true; /** What of the rule a policy cannot see (another object's part). */ detail?: string }
  | { enforceable: false; why: AdmissionWhyNot; detail?: string };

export interface RuleMeta {
  /** Stable public id (WIN001 …). */
  id: string;
  /**
   * Default severity: error = rejected by the API server or can never run; warning = fails or is ignored at runtime.
   */
  severity: Severity;
  /** One line: what the rule catches and why (the README table). */
  title: string;
  /**
   * Its errors are the API server refusing the object (create, apply, dry-run fail), not an object
   * that is accepted and can never run as written. Read for error findings only; a report may override it.
   */
  apiRejects?: boolean;
  /**
   * Which Kubernetes releases the rule holds for, in words for docs/rules.md ("1.34 and later (dropped
   * silently before)"); absent: all releases alike.
   */
  releases?: string;
  /** Enforceable by the generated admission policies (`kube-windows policy`), or why not. */
  admission: Admission;
  family:
    | 'pod-security'
    | 'host-process'
    | 'windows-options'
    | 'runtime'
    | 'scheduling'
    | 'images'
    | 'openshift'
    | 'runtime-class'
    | 'mirrors'
    | 'byoh'
    | 'network'
    | 'machinesets'
    | 'linters'
    | 'yaml'
    | 'exact-api';
}

export interface PodContext {
  pod: PodSpecView;
  target: Targeting;
  facts: Facts;
}

export interface ObjectContext {
  object: ObjectView;
  facts: Facts;
  /** The object's pod spec and where it goes, when it has one (the engine works them out once). */
  pod?: { view: PodSpecView; target: Targeting };
}

export interface PodRule extends RuleMeta {
  scope: 'pod';
  check(ctx: PodContext, report: Reporter): void;
}

export interface ObjectRule extends RuleMeta {
  scope: 'object';
  /** Kinds this rule reads; the engine calls it only for those. */
  kinds: string[];
  check(ctx: ObjectContext, report: Reporter): void;
}

/** Reported by the engine itself (unreadable YAML, templates); never by a check function. */
export interface EngineRule extends RuleMeta {
  scope: 'engine';
}

export type Rule = PodRule | ObjectRule | EngineRule;

export interface TextEditOut {
  range: Range;
  newText: string;
}

export interface FixOut {
  title: string;
  kind: FixKind;
  edits: TextEditOut[];
}

export interface Finding {
  ruleId: string;
  severity: Severity;
  message: string;
  range: Range;
  /** File offsets of `range`, for tools that work on text. */
  span: Span;
  fixes: FixOut[];
  related?: { range: Range; message: string }[];
  /** Index of the YAML document in the file. */
  document: number;
  /**
   * Errors only: true when the API server rejects the object, false when it is accepted and can
   * never run as written. Absent on warnings and infos.
   */
  apiRejects?: boolean;
  /**
   * The cluster whose facts (snapshot or --context) this finding comes from: without them it would
   * not be reported, or not in these words. Its message ends with clusterNote(cluster).
   */
  cluster?: string;
}
