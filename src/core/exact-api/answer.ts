// What the validator (validator/main.go, the API server's own validation as WebAssembly) answers
// for one document: the shapes of its JSON, and the Status objects the API server itself sends.

/** A cause of an Invalid (422) answer: one field error, as `field: message` in the server's text. */
export interface StatusCause {
  /** `FieldValueForbidden`, `FieldValueRequired`, `FieldValueInvalid` … */
  reason?: string;
  /** `Forbidden: cannot be set for a windows pod` (the error type's words, then the detail). */
  message?: string;
  /** `spec.securityContext.runAsUser` (map keys in brackets: `metadata.labels[app]`). */
  field?: string;
}

/** The metav1.Status the API server answers a refused create with. */
export interface ApiStatus {
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

export interface ValidatorAnswer {
  /** `invalid`: the API server refuses the create; `unsupported`: a kind or version not validated here. */
  verdict: 'valid' | 'invalid' | 'unsupported';
  /** The Kubernetes version the validator was built from ("v1.35.4"). */
  kubernetes: string;
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** Why a document is `unsupported`. */
  reason?: string;
  /** The 400 for unknown or duplicate fields a strict create gets (kubectl's default), before validation. */
  strict?: ApiStatus;
  /** What a create with those fields ignored gets: validation's 422, or a 400 for a body that cannot be decoded. */
  status?: ApiStatus;
  /** The Warning headers the create would carry (deprecated fields, surprising values). */
  warnings?: string[];
}

/** One refusal as the API server prints it: `field: message`, or the status message when there are no causes. */
export function causeTexts(status: ApiStatus | undefined): string[] {
  if (!status) return [];
  const causes = status.details?.causes ?? [];
  if (causes.length === 0) return status.message ? [status.message] : [];
  return causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')));
}
