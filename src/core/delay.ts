// The one cancellable wait of the code base (plans, retries, watches, transfers): resolves after `ms`,
// or rejects with the signal's reason as soon as it aborts, leaving no timer or listener behind.
// Beside it, the one bounded wait for a promise (`within`).

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The value of `p` if it settles within `ms`, else undefined; `p` goes on either way (a view that
 * shows what it has rather than wait for a slow cluster). A rejection within `ms` is passed on.
 */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
